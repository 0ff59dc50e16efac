"""Polynomial CNNs in sample mode: the engine's certified dimension against numpy SVD of the same Jacobian.

For each CNN (1-D and 2-D, ``t^2``, a final dense layer with one output, so
every Jacobian row is one generic input), side by side in one process:

* **ours** -- ``algebra.engine.dimension(model)``: the Jacobian at a random
  integer point on the samples the engine chooses, modulo p = 1048573, built
  by the CNN's own back-propagation on integer arrays, its exact rank
  (flint ``nmod_mat``) and the certified upper bound (symmetry fields, or
  Cramer fields when the model is defective);
* **numpy SVD** -- the float64 Jacobian of the same shape (same model code,
  :class:`~algebra.exact.field.FloatField`) at a random real point, and
  ``numpy.linalg.matrix_rank`` of it (``benchmarks/rank_peers.float_rank``).

BLAS is limited to one thread for both routes (``threadpoolctl``), as in
``bench_rank.py``.  Timings are wall-clock seconds on a shared machine (sizes
under 2 s: minimum of three runs, after one warm-up call); the ratio is what
the issue's targets speak about.

Usage::

    nice -n 10 .venv/bin/python benchmarks/bench_cnn.py              # the table, ~5 minutes
    nice -n 10 .venv/bin/python benchmarks/bench_cnn.py --quick      # two small sizes
    nice -n 10 .venv/bin/python benchmarks/bench_cnn.py --markdown out.md
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from contextlib import nullcontext
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))

from rank_peers import float_rank  # noqa: E402

from algebra.engine import dimension  # noqa: E402
from algebra.models.cnn import CNN  # noqa: E402

#: (label, constructor): sizes from P ~ 100 to P ~ 2,600.
CASES = [
    ("1-D 32, filters 5,5, channels 1,2,4, dense 1", lambda: CNN(32, [5, 5], channels=(1, 2, 4), activations="t^2", dense=1)),
    ("2-D 8x8, filters 3x3,3x3, channels 1,4,6, dense 1",
     lambda: CNN((8, 8), [(3, 3), (3, 3)], channels=(1, 4, 6), activations="t^2", dense=1)),
    ("1-D 64, filters 5,5, channels 1,4,16, dense 1", lambda: CNN(64, [5, 5], channels=(1, 4, 16), activations="t^2", dense=1)),
    ("2-D 12x12, filters 3x3,3x3, channels 1,6,10, dense 1",
     lambda: CNN((12, 12), [(3, 3), (3, 3)], channels=(1, 6, 10), activations="t^2", dense=1)),
    ("2-D 16x16, filters 3x3,3x3, channels 1,8,12, dense 1",
     lambda: CNN((16, 16), [(3, 3), (3, 3)], channels=(1, 8, 12), activations="t^2", dense=1)),
]


def run_case(label: str, make, seed: int = 0) -> dict:
    """One size; sizes where ours takes under 2 s are repeated three times for both routes (minimum kept)."""
    model = make()
    t0 = time.perf_counter()
    res = dimension(model, seed=seed)
    ours = time.perf_counter() - t0
    rank_f, build_f, svd_f = float_rank(model, "cnn", res.samples, np.random.default_rng(seed))
    if ours < 2:
        for _ in range(2):
            t0 = time.perf_counter()
            dimension(model, seed=seed)
            ours = min(ours, time.perf_counter() - t0)
            _, b, v = float_rank(model, "cnn", res.samples, np.random.default_rng(seed))
            if b + v < build_f + svd_f:
                build_f, svd_f = b, v
    rows = res.samples * model.n_outputs
    return {"model": label, "P": model.parameter_count, "rows": rows, "rank": res.lower_bound, "upper": res.upper_bound,
            "certified": res.certified, "rung": res.rung, "float_rank": rank_f, "ours_s": ours, "build_s": build_f,
            "svd_s": svd_f, "ratio": ours / (build_f + svd_f)}


def markdown(results: list, command: str, seconds: float) -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    lines = [
        f"Command: `{command}`  ",
        f"Run: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {seconds:.0f} s in all; seed 0; BLAS threads 1; "
        f"machine {platform.processor() or platform.machine()}, {os.cpu_count()} cores shared (load average "
        f"{', '.join(f'{v:.2f}' for v in load)} at the end), Python {platform.python_version()}.",
        "",
        "| model | P | J rows | rank (ours, mod p) | certified (rung) | rank (float SVD) | ours s | numpy build s | "
        "numpy SVD s | ours / numpy (build + SVD) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        cert = f"yes ({r['rung']})" if r["certified"] else f"no (<= {r['upper']})"
        lines.append(f"| {r['model']} | {r['P']} | {r['rows']} | {r['rank']} | {cert} | {r['float_rank']} | "
                     f"{r['ours_s']:.3g} | {r['build_s']:.3g} | {r['svd_s']:.3g} | {r['ratio']:.3g} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only the two smallest sizes")
    ap.add_argument("--markdown", default=None, help="also write the table to this file")
    args = ap.parse_args(argv)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover
        threadpool_limits = None
    cases = CASES[:2] if args.quick else CASES
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover
        tqdm = None
    dimension(CASES[0][1]())  # warm-up: imports and first calls are not part of any size
    t0 = time.perf_counter()
    with threadpool_limits(1) if threadpool_limits else nullcontext():
        results = [run_case(label, make) for label, make in (tqdm(cases, desc="CNN sizes") if tqdm else cases)]
    command = "python benchmarks/bench_cnn.py" + (" --quick" if args.quick else "")
    text = markdown(results, command, time.perf_counter() - t0)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
