"""Run a script in two subprocesses whose BLAS kernels and numpy SIMD loops differ (issue 20, item 5).

Configuration A is the machine's default kernel on one thread; B is OpenBLAS's
Prescott (SSE3, no FMA) kernel on two threads, MKL in its compatible code path,
and numpy with its AVX2/FMA dispatch switched off.  Plain float64 work
(``X @ X.T``, ``np.tanh``) differs between them in the last bits on x86-64;
anything whose bits are fixed must print the same in both.
"""

import json
import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CONFIG_A = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
CONFIG_B = {"OPENBLAS_NUM_THREADS": "2", "MKL_NUM_THREADS": "2", "OMP_NUM_THREADS": "2",
            "OPENBLAS_CORETYPE": "Prescott", "MKL_CBWR": "COMPATIBLE"}


def _env(extra: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS_", "MKL_", "NPY_DISABLE"))}
    env.update(extra)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


@lru_cache(maxsize=1)
def _numpy_dispatch_off() -> dict:
    """``NPY_DISABLE_CPU_FEATURES`` spelling this numpy accepts (2.4 groups features as X86_V3), or none."""
    for value in ("X86_V3", "AVX2 FMA3"):
        probe = subprocess.run([sys.executable, "-c", "import numpy"], env=_env({"NPY_DISABLE_CPU_FEATURES": value}),
                               capture_output=True, text=True, timeout=60)
        if probe.returncode == 0 and "warn" not in probe.stderr.lower():
            return {"NPY_DISABLE_CPU_FEATURES": value}
    return {}


def run_under_two_blas_configurations(script: str, *, args: tuple = ((), ()), timeout: float = 600) -> tuple:
    """The JSON object ``script`` prints last, under configurations A and B (run concurrently).

    ``args`` are the two runs' command-line arguments (``sys.argv[1:]``).
    """
    procs = [subprocess.Popen([sys.executable, "-c", script, *map(str, argv)], env=_env(cfg), cwd=ROOT, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for cfg, argv in zip((CONFIG_A, {**CONFIG_B, **_numpy_dispatch_off()}), args)]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=timeout)
        assert p.returncode == 0, stderr[-2000:]
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return tuple(out)
