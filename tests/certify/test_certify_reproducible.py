"""`neuroalgebra certify` leaves `git status` clean on every CPU: the grokking-basin certificate (issue 32).

The basin claim used to re-train its network, whose last bits depend on numpy's SIMD kernels and on
OpenBLAS's (AVX-512 wrote another certificate than AVX2).  It now certifies committed checkpoints; this
test runs the catalogue's own per-claim path (``_certify_item`` and ``_write_claim``, what ``certify``
runs for each claim) in two subprocesses, one with numpy's and OpenBLAS's default kernels and one
imitating the narrowest older CPU (numpy at its baseline, OpenBLAS Haswell, probed as in
``tests/test_machine_independence.py``), and compares the bytes with each other and with the committed files.
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.test_machine_independence import _configuration, _env

REPO = Path(__file__).resolve().parents[2]
CLAIM = "grokking-basin-selection-p17-K32"

# the catalogue's per-claim path, restricted to the basin claim (building all 511 claims takes ~10 s)
SCRIPT = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from algebra.certify import catalogue
    from algebra.claims.grokking import basin_claims

    out = Path(sys.argv[1])
    catalogue._claims_by_id = lambda fast: {c.id: c for c in basin_claims(fast)}
    row = catalogue._certify_item({"id": sys.argv[2], "fast": False, "seed": 0})
    catalogue._write_claim(out, row)
    entry = {k: v for k, v in row["entry"].items() if k != "seconds"}
    (out / "entry.json").write_text(json.dumps(entry, sort_keys=True))
""")


@pytest.mark.slow  # two basin certificates per process (~20 s of CPU each; the two processes run side by side)
def test_the_basin_certificate_does_not_depend_on_the_cpu_kernels(tmp_path):
    settings = {"default": {}, "older": _configuration("narrowest")}
    procs = {}
    for name, extra in settings.items():
        (tmp_path / name).mkdir()
        procs[name] = subprocess.Popen([sys.executable, "-c", SCRIPT, str(tmp_path / name), CLAIM], env=_env(extra),
                                       cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for name, proc in procs.items():
        out, _ = proc.communicate(timeout=1800)  # a hang guard: each child takes about 25 CPU-seconds
        assert proc.returncode == 0, (name, out)
    entries = {name: json.loads((tmp_path / name / "entry.json").read_text()) for name in settings}

    committed = (REPO / "certificates" / f"{CLAIM}.json").read_bytes()
    index = json.loads((REPO / "certificates" / "index.json").read_text())
    (committed_entry,) = [e for e in index["claims"] if e["id"] == CLAIM]
    for name in settings:
        assert entries[name]["file"] == f"{CLAIM}.json", entries[name]
        assert (tmp_path / name / f"{CLAIM}.json").read_bytes() == committed, name
        assert entries[name] == committed_entry, name
