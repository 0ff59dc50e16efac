"""What one calibrated LLC costs, as a ratio to one devinterp call on the same model in the same run.

Issue 22's cost target: ``neuroalgebra llc dln --widths 20,30,20,30,20 --r 3``
(the calibrated procedure, frozen settings) at most 30 times the wall time of
one devinterp call at its README settings (SGLD, lr 1e-3, n_beta 30, no
localization, batch 32, 4 chains x 200 draws) on the same model, one thread
each, in one process, one after the other (devinterp first, so it does not
run in a warmer cache; devinterp three times and its median time taken, since
one call's time moved 1.6-6.5 s between runs).  devinterp gets explicit samples (``--n``, default
10^5) of the suite's builder with the same teacher and reference point
(``benchmarks/llc_devinterp.py prepare``); ours runs the model the CLI runs
(exact sufficient statistics, cost independent of n).

    PY benchmarks/llc_cost.py --write         # -> BENCHMARKS.md, <!-- llc_cost --> block

PY: a Python with torch 2.13.0, devinterp 2.0.1 (``pip install --no-deps devinterp`` plus
pydantic, datasets, transformers, xarray, zarr) and this package.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

MODELS = {"dln": ("dln", ((20, 30, 20, 30, 20), 3))}
DEVINTERP_CALLS = 3


def run(family: str, args, n: int, seed: int) -> dict:
    import gc

    import torch

    import llc_devinterp as D
    from algebra.claims.llc_suites import build_model, exact_coefficient
    from algebra.numeric.calibration import calibrated_llc
    from algebra.numeric.suite import SuiteEntry

    torch.set_num_threads(1)
    lc = exact_coefficient(family, args)
    with tempfile.TemporaryDirectory() as tmp:
        item = D.prepare(tmp, entries=[SuiteEntry(family, args)], n=n)[0]
        z = np.load(item["path"])
        X, Y = torch.tensor(z["X"]), torch.tensor(z["Y"])
        call = D.devinterp_runner(torch, X, Y)
        s = D.DEVINTERP_README
        gc.freeze()
        t_devs, dev_ests = [], []
        for _ in range(DEVINTERP_CALLS):  # one call's time moved 1.6-6.5 s between runs: the median of three
            t0 = time.perf_counter()
            out = call(D.torch_net(torch, z), s["num_chains"], s["num_draws"], s["lr"], s["n_beta"],
                       s["localization"])
            t_devs.append(time.perf_counter() - t0)
            dev_ests.append(float(out["llc_mean"].values))
        t_dev = float(np.median(t_devs))
        dev_est = dev_ests[0]
    model = build_model(family, args, seed=seed)
    gc.freeze()
    t0 = time.perf_counter()
    res = calibrated_llc(model, seed=seed)
    t_ours = time.perf_counter() - t0
    lam = float(lc.lam)
    return {"model": model.name, "num_params": model.dim, "exact_lambda": str(lc.lam),
            "multiplicity": lc.multiplicity, "devinterp_seconds": t_dev, "devinterp_calls_seconds": t_devs,
            "devinterp_estimate": dev_est,
            "devinterp_relative_error": (dev_est - lam) / lam, "ours_seconds": t_ours, "ours_estimate": res.estimate,
            "ours_stderr": res.stderr, "ours_relative_error": (res.estimate - lam) / lam, "verdict": res.verdict,
            "reasons": list(res.reasons), "ratio": t_ours / t_dev, "n_devinterp": n,
            "draws": [e.num_draws + e.burnin for e in res.per_temperature],
            "load_average": os.getloadavg(), "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _calls(r) -> str:
    calls = r.get("devinterp_calls_seconds")
    return "" if not calls else " (median of " + ", ".join(f"{t:.1f}" for t in calls) + ")"


def table(rows) -> str:
    lines = ["| model | P | exact lambda (m) | devinterp (README settings): estimate, seconds | ours (calibrated, frozen): "
             "estimate +- se, verdict, seconds | ratio ours / devinterp | load average |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['model']} | {r['num_params']} | {r['exact_lambda']} ({r['multiplicity']}) | "
                     f"{r['devinterp_estimate']:.2f} ({100 * r['devinterp_relative_error']:+.1f}%), "
                     f"{r['devinterp_seconds']:.1f} s{_calls(r)} | {r['ours_estimate']:.2f} +- {r['ours_stderr']:.2f} "
                     f"({100 * r['ours_relative_error']:+.1f}%), {r['verdict']}, {r['ours_seconds']:.0f} s | "
                     f"{r['ratio']:.1f}x | {r['load_average'][0]:.1f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000, help="explicit samples for devinterp")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="/tmp/llc_cost.json")
    p.add_argument("--write", action="store_true", help="replace the <!-- llc_cost --> block of BENCHMARKS.md")
    p.add_argument("--from-json", default=None, metavar="FILE",
                   help="render the rows an earlier run wrote to FILE (its --out) instead of measuring again "
                        "(a run made from a frozen worktree)")
    a = p.parse_args(argv)
    if a.from_json:
        with open(a.from_json) as fh:
            rows = json.load(fh)
    else:
        rows = [run(fam, args, a.n, a.seed) for fam, args in MODELS.values()]
        with open(a.out, "w") as fh:
            json.dump(rows, fh, indent=1, default=float)
    body = table(rows)
    print(body)
    if a.write:
        from llc_devinterp import replace_between_markers

        replace_between_markers(os.path.join(os.path.dirname(__file__), "..", "BENCHMARKS.md"), "llc_cost", body,
                                "PY benchmarks/llc_cost.py --write"
                                + (f" --from-json {a.from_json}" if a.from_json else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
