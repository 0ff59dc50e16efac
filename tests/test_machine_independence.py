"""The float-sensitive tests pass on another CPU's kernels, imitated on this one (issue 32, item 1).

What differs between machines is which kernels run: numpy dispatches its loops (exp, log, sums of
products) to the widest SIMD target the CPU has (AVX-512, AVX2/FMA3, ...), and OpenBLAS picks a GEMM
kernel per CPU (SkylakeX, Haswell, Sandybridge, ...).  Each picks different roundings in the last bits.
This test reruns, in a fresh interpreter, the tests whose numbers pass through those kernels

- the sampler's golden runs (floats compared within a stated ``RTOL``, integers exactly),
- the attention_rank certificate routes (exact and float routes agree; payload bytes),
- the byte identity of emitted certificates with the committed ones and of re-emission,

with numpy's dispatch narrowed (``NPY_DISABLE_CPU_FEATURES``: every target this CPU has beyond
numpy's baseline, which numpy refuses to disable) and OpenBLAS forced to an older core
(``OPENBLAS_CORETYPE``), after a probe shows that both settings took (``numpy.show_runtime`` and
threadpoolctl).  A golden value that only one machine's kernels reproduce fails here.  Where a setting
cannot be made (another BLAS, another architecture) the test skips and says which.

The default run imitates the narrowest machine (numpy at its baseline, OpenBLAS Haswell: about 5
CPU-seconds); the slow run adds AVX2 without AVX-512 and OpenBLAS Sandybridge (AVX without FMA).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The float-sensitive tests (node ids relative to the repository root).
FLOAT_SENSITIVE = [
    "tests/numeric/test_samplers.py::test_runs_reproduce_the_recorded_golden_values",
    "tests/attention_rank/test_certificates.py",
    "tests/certify/test_canonical_floats.py",
    "tests/certify/test_emit_dimension.py",
    "tests/certify/test_canonical.py",
]

#: Tests known to depend on the kernel, left out until fixed (each found by this test).  None now: the one found,
#: ``test_an_svd_that_returns_negative_zeros``, leaned on LAPACK's basis for the seven equal singular values of
#: ``softmax(I_8)`` (SkylakeX gave r_eps <= 7, Haswell r_eps <= 8, both true bounds); it now fixes that basis itself.
KNOWN_KERNEL_DEPENDENT: list = []

#: A hang guard, not a time limit: about 50 times the child's wall-clock time on an idle machine.
WALL_GUARD = 600

PROBE = """
import json, numpy, threadpoolctl
try:
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
except ImportError:  # numpy < 2
    from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
blas = [i for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]
print(json.dumps({"enabled": [f for f in __cpu_dispatch__ if __cpu_features__.get(f)],
                  "blas": [(i.get("internal_api"), i.get("architecture")) for i in blas]}))
"""


def dispatch_targets(env: dict | None = None) -> list:
    """The SIMD targets numpy dispatches to under ``env`` (this process's environment when None), beyond its
    baseline: what ``NPY_DISABLE_CPU_FEATURES`` can switch off."""
    return _probe(env or {})["enabled"]


def _probe(extra: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE], env=_env(extra), capture_output=True, text=True,
                         timeout=WALL_GUARD)
    assert out.returncode == 0 and "warn" not in out.stderr.lower(), out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _env(extra: dict) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENBLAS_", "NPY_DISABLE", "PYTEST_", "MKL_")) and k != "PYTHONHASHSEED"}
    env.update(extra)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _configuration(which: str) -> dict:
    """The environment of an older machine: ``narrowest`` (numpy at its baseline, OpenBLAS Haswell) or
    ``no-avx512`` (numpy without its AVX-512 targets, OpenBLAS Sandybridge)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip(f"OPENBLAS_CORETYPE names x86-64 cores; this machine is {platform.machine()}")
    here = _probe({})
    if not any(api == "openblas" for api, _ in here["blas"]):
        pytest.skip(f"numpy's BLAS is not OpenBLAS ({here['blas']}): its kernel cannot be chosen")
    targets = here["enabled"]
    if which == "narrowest":
        off, core = targets, "Haswell"
    else:
        off, core = [t for t in targets if "AVX512" in t or t == "X86_V4"], "Sandybridge"
    extra = {"OPENBLAS_CORETYPE": core, "OPENBLAS_NUM_THREADS": "1"}
    if off:
        extra["NPY_DISABLE_CPU_FEATURES"] = " ".join(off)
    there = _probe(extra)  # the settings took: none of the switched-off targets runs, the BLAS core is the one asked
    assert not set(off) & set(there["enabled"]), (off, there)
    assert [arch for api, arch in there["blas"] if api == "openblas"] == [core], there
    return extra


@pytest.mark.parametrize("which", ["narrowest", pytest.param("no-avx512", marks=pytest.mark.slow)])
def test_float_sensitive_tests_pass_on_older_kernels(which):
    extra = _configuration(which)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-o", "addopts=",
           "-m", "not slow", *FLOAT_SENSITIVE, *(f"--deselect={node}" for node in KNOWN_KERNEL_DEPENDENT)]
    try:
        out = subprocess.run(cmd, cwd=ROOT, env=_env(extra), capture_output=True, text=True, timeout=WALL_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung: the rerun under {extra} gave no answer in {WALL_GUARD} s")
    assert out.returncode == 0, f"under {extra}:\n{out.stdout[-6000:]}\n{out.stderr[-2000:]}"
    assert " passed" in out.stdout.strip().splitlines()[-1], out.stdout[-2000:]
