"""Where a calibrated LLC call spends its time, and why its draws run to their caps (issue 22, cost).

The cost row (``benchmarks/llc_cost.py``, DLN (20,30,20,30,20) r=3, P = 2,400) ran every temperature
of calibration version 4 to its ``max_draws``.  Three measurements say why, each on the frozen
procedure's own pieces:

1. **Split R-hat is an ESS demand at 16 chains.**  For stationary chains split R-hat is about
   ``1 + C / ESS`` (``C`` chains: each split half-chain's mean has variance ``tau sigma^2 / (N/2)``).
   Over every per-temperature run stored in the two suites' JSON files, the ratio
   ``(R-hat - 1) / (C / ESS)`` is tabulated: near 1 means the stopping rule's ``R-hat <= 1.01``
   asks for ``ESS >= ~C / 0.01 = 1,600``, four times its ``ESS >= 400``.
2. **The chains from the two sides.**  At ``nbeta h = 10^5`` on the cost model, 16 chains
   (8 from ``w*``, 8 from where chains at ``10^4`` ended, as ``start="mixed"`` does) run the frozen
   HMC settings; the two halves' means are printed after short and long runs, and beside them the
   variants that would end the transient sooner: all from ``w*``, and the hotter half's offsets from
   ``w*`` shrunk by ``10^(-1/4)`` or ``10^(-1/2)`` (the singular and the regular scaling of one
   decade).  If the halves still disagree by more than their errors, the long runs of version 4 are
   the price of a slow mode, not of a loose rule.
3. **Gradient against sampler.**  The share of one temperature's wall time spent in the model's
   ``loss_and_grad``.
4. **The two start groups on the stored runs** (no sampling): :func:`~algebra.numeric.calibration.start_sides`
   at the reported temperature of every row of both suites and of the P = 10^4 RRR row, from their
   chain-wise estimates.
5. **The allowance without noise** (no sampling): the stored ``suspect`` validation rows re-judged with their
   ladders' means taken as exact, which bounds what more draws could do at this ladder.
6. **Which directions are slow**: in the same start at ``nbeta h = 10^5``, the two groups' means of a
   singular-direction statistic (the product's singular values beyond the teacher's rank) and of two
   gauge-direction ones (the imbalance ``||W_{i+1}^T W_{i+1} - W_i W_i^T||`` summed over the layer
   boundaries, and ``|w - w*|^2``), after the short and the long run.

    .venv/bin/python benchmarks/llc_cost_anatomy.py --out benchmarks/llc_results/cost_anatomy.json --write

``--from-json FILE`` renders an earlier run (measurements 1-3 and 6; 4 and 5 are read again).  One thread.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from fractions import Fraction

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

MODEL = ("dln", ((20, 30, 20, 30, 20), 3))
SUITE_FILES = ("llc_results/llc_suite.json", "llc_results/llc_validation.json")


def rhat_against_ess(root: str = HERE) -> dict:
    """Measurement 1, from the stored suite runs (no sampling)."""
    ratios, rhat_ok, ess_ok = [], 0, 0
    for name in SUITE_FILES:
        with open(os.path.join(root, name)) as fh:
            rows = json.load(fh)["rows"]
        for r in rows:
            for e in r["details"]["per_temperature"]:
                c = e["settings"]["num_chains"]
                ratios.append((e["rhat"] - 1.0) / (c / e["ess"]))
                rhat_ok += e["rhat"] <= 1.01
                ess_ok += e["ess"] >= 400
    q = np.quantile(ratios, [0.1, 0.5, 0.9])
    return {"runs": len(ratios), "ratio_q10": float(q[0]), "ratio_median": float(q[1]), "ratio_q90": float(q[2]),
            "rhat_le_1.01": int(rhat_ok), "ess_ge_400": int(ess_ok), "files": list(SUITE_FILES)}


def zero_noise_allowance(root: str = HERE) -> list:
    """Measurement 5: each stored ``suspect`` validation row's allowance if its ladder's means were exact.

    The per-temperature estimates are kept and their standard errors set to 1e-9, so the verdict's margin
    is the allowance itself (step 8).  A row still above 5% cannot become ``ok`` by more draws at this
    ladder."""
    from types import SimpleNamespace

    from algebra.numeric.calibration import ALLOWANCE_MAX, combine_temperatures

    with open(os.path.join(root, SUITE_FILES[1])) as fh:
        rows = json.load(fh)["rows"]
    out = []
    for r in rows:
        if r["verdict"] != "suspect":
            continue
        det = r["details"]
        pts = [SimpleNamespace(nbeta=e["nbeta"], estimate=e["estimate"], stderr=1e-9) for e in det["per_temperature"]]
        c = combine_temperatures(pts, h=det["curvature"])
        share = c["bias_allowance"] / abs(c["estimate"])
        out.append({"model": r["model"], "multiplicity": r["multiplicity"], "allowance_share": share,
                    "over": share > ALLOWANCE_MAX})
    return out


NETWORK_FILES = ("llc_results/network_v4/calibrated_rrr_numpy.json", "llc_results/network_v4/calibrated_quadratic_numpy.json")


def stored_sides(root: str = HERE) -> list:
    """Measurement 4: the two start groups at the reported temperature of the stored version-4 runs."""
    from types import SimpleNamespace

    from algebra.numeric.calibration import start_sides

    out = []
    for name in SUITE_FILES + NETWORK_FILES:
        with open(os.path.join(root, name)) as fh:
            data = json.load(fh)
        rows = data["rows"] if isinstance(data, dict) and "rows" in data else [data]
        for r in rows:
            det = r.get("details") or r.get("result") or r
            top = det["per_temperature"][-1]
            side = start_sides(SimpleNamespace(chain_estimates=top["chain_estimates"]),
                               det["settings"]["num_chains"] // 2)
            lam = r.get("exact_lambda")
            out.append({"file": name, "model": r["model"], "exact_lambda": lam,
                        "relative_error": None if lam is None else (r["estimate"] - float(Fraction(lam))) / float(Fraction(lam)),
                        "verdict": r.get("verdict", det.get("verdict")), "sides": side})
    return out


def pair(values, spec: str) -> str:
    """``"a / b"`` for the two start groups' values (from w*, from the hotter ends)."""
    return f"{values[0]:{spec}} / {values[1]:{spec}}"


def _kw(s) -> dict:
    return dict(method=s.method, gamma=s.gamma, num_chains=s.num_chains, leapfrog_steps=s.leapfrog_steps,
                accept_target=s.accept_target, jitter=tuple(s.jitter), step_pool=s.step_pool)


def mixed_start(seed: int) -> tuple:
    """The cost model, its frozen settings and units, and where the hotter temperature's chains end.

    The hotter temperature runs as the frozen procedure runs it at ``nbeta h = 10^4`` (first block, warm-up
    500).  Returns ``(model, settings, h, ends)``."""
    from algebra.claims.llc_suites import build_model
    from algebra.numeric.calibration import CalibrationSettings, _units
    from algebra.numeric.samplers import sample

    s = CalibrationSettings()
    model = build_model(*MODEL)
    h = _units(model)
    hot = sample(model, nbeta=1e4 / h, num_draws=500, num_warmup=500, seed=seed, progress="nbeta h = 1e4", **_kw(s))
    return model, s, h, np.array(hot.final, dtype=float)


def imbalance(fp, W) -> np.ndarray:
    """Per chain, ``sum_b ||W_{b+1}^T W_{b+1} - W_b W_b^T||_F`` over the inner layer boundaries (0 when balanced)."""
    fs = fp.factors(W)
    return sum(np.linalg.norm(np.matmul(np.swapaxes(fs[i + 1], 1, 2), fs[i + 1])
                              - np.matmul(fs[i], np.swapaxes(fs[i], 1, 2)), axis=(1, 2))
               for i in range(len(fs) - 1))


def two_sides(seed: int, short: int, long: int) -> dict:
    """Measurement 2: the two halves of ``start="mixed"`` at nbeta h = 10^5, and the variants."""
    from algebra.claims.llc_suites import exact_coefficient
    from algebra.numeric.estimators import estimate_llc
    from algebra.numeric.samplers import sample

    model, s, h, ends = mixed_start(seed)
    ws = np.asarray(model.w_star, dtype=float)
    half = s.num_chains // 2
    variants = (("all from w*", 0.0), ("mixed (version 4)", 1.0), ("mixed, hotter offsets x 10^-1/4", 10 ** -0.25),
                ("mixed, hotter offsets x 10^-1/2", 10 ** -0.5))
    out = []
    for draws in (short, long):
        for label, shrink in variants:
            if draws == long and shrink not in (0.0, 1.0):
                continue
            init = ws + shrink * (ends - ws)
            init[:half] = ws
            t0 = time.perf_counter()
            run = sample(model, nbeta=1e5 / h, num_draws=draws, num_warmup=1000, seed=seed + 1, init=init,
                         progress=f"{label}, {draws} draws", **_kw(s))
            est = estimate_llc(run)
            y = run.nbeta * (run.losses - run.loss_star)
            a, b = y[:half], y[half:]
            se_half = [float(np.sqrt(np.var(np.mean(v, axis=1), ddof=1) / v.shape[0])) for v in (a, b)]
            out.append({"variant": label, "draws": draws, "warmup": 1000, "estimate": est.estimate,
                        "stderr": est.stderr, "ess": est.ess, "rhat": est.rhat,
                        "w_star_half": float(a.mean()), "w_star_half_se": se_half[0],
                        "other_half": float(b.mean()), "other_half_se": se_half[1],
                        "seconds": time.perf_counter() - t0})
            print(json.dumps(out[-1]), flush=True)
    lc = exact_coefficient(*MODEL)
    return {"model": model.name, "num_params": model.dim, "exact_lambda": str(lc.lam),
            "multiplicity": lc.multiplicity, "h": h, "seed": seed, "rows": out}


def gauge_statistics(seed: int, short: int, long: int) -> dict:
    """Measurement 6: which directions are slow, in the version-4 start (8 chains from w*, 8 from 10^4's ends)."""
    from algebra.numeric.samplers import sample

    model, s, h, init = mixed_start(seed)
    ws = np.asarray(model.w_star, dtype=float)
    fp, half = model.composite, s.num_chains // 2

    def stats(W):
        # the gauge (flat) directions: imbalance of consecutive factors; the singular directions: the
        # product's singular values beyond the teacher's rank
        tail = np.linalg.svd(fp.matrix(W), compute_uv=False)[:, MODEL[1][1]:].sum(axis=1)
        return {"imbalance": imbalance(fp, W), "excess_singular_values": tail, "radius2": np.sum((W - ws) ** 2, axis=1)}

    init[:half] = ws
    out = []
    for draws in (short, long):
        run = sample(model, nbeta=1e5 / h, num_draws=draws, num_warmup=1000, seed=seed + 1, init=init,
                     progress=f"gauge statistics, {draws} draws", **_kw(s))
        st = stats(np.array(run.final, dtype=float))
        y = run.nbeta * (run.losses - run.loss_star)
        row = {"draws": draws, "nbeta_L": [float(y[:half].mean()), float(y[half:].mean())]}
        row.update({k: [float(v[:half].mean()), float(v[half:].mean())] for k, v in st.items()})
        out.append(row)
        print(json.dumps(row), flush=True)
    return {"rows": out, "seed": seed}


def gradient_share(seed: int) -> dict:
    """Measurement 3: the model's share of one temperature's wall time (nbeta h = 10^4, 500 + 1000 steps)."""
    from algebra.claims.llc_suites import build_model
    from algebra.numeric.calibration import CalibrationSettings, _units
    from algebra.numeric.samplers import sample

    s = CalibrationSettings()
    model = build_model(*MODEL)
    h = _units(model)
    inner, spent = model.loss_and_grad, [0.0, 0]

    def timed(W, batch=None):
        t = time.perf_counter()
        r = inner(W) if batch is None else inner(W, batch)
        spent[0] += time.perf_counter() - t
        spent[1] += 1
        return r

    object.__setattr__(model, "loss_and_grad", timed)
    t0 = time.perf_counter()
    sample(model, nbeta=1e4 / h, num_draws=1000, num_warmup=500, seed=seed, progress="gradient share", **_kw(s))
    total = time.perf_counter() - t0
    return {"seconds": total, "gradient_seconds": spent[0], "calls": spent[1], "share": spent[0] / total,
            "ms_per_call": 1e3 * spent[0] / spent[1]}


def render(res: dict) -> str:
    r1, r2, r3 = res["rhat"], res["sides"], res["gradient"]
    lines = [f"1. **R-hat against ESS** on the {r1['runs']} per-temperature runs stored in "
             f"{', '.join('`benchmarks/' + f + '`' for f in r1['files'])}: `(R-hat - 1) / (C / ESS)` has median "
             f"{r1['ratio_median']:.2f} (10% {r1['ratio_q10']:.2f}, 90% {r1['ratio_q90']:.2f}); "
             f"{r1['rhat_le_1.01']} runs met `R-hat <= 1.01`, {r1['ess_ge_400']} met `ESS >= 400`.",
             "",
             f"2. **The two sides at nbeta h = 10^5**, {r2['model']} (P = {r2['num_params']}, exact lambda "
             f"{r2['exact_lambda']}, m = {r2['multiplicity']}), 16 chains of the frozen HMC, warm-up 1,000, seed "
             f"{r2['seed']}; the hotter chains ended a 500 + 500-step run at 10^4:",
             "",
             "| start | draws | estimate +- se | ESS | split R-hat | 8 chains from w* | the other 8 | seconds |",
             "|---|---|---|---|---|---|---|---|"]
    for r in r2["rows"]:
        lines.append(f"| {r['variant']} | {r['draws']} | {r['estimate']:.2f} +- {r['stderr']:.2f} | {r['ess']:.0f} | "
                     f"{r['rhat']:.3f} | {r['w_star_half']:.2f} +- {r['w_star_half_se']:.2f} | "
                     f"{r['other_half']:.2f} +- {r['other_half_se']:.2f} | {r['seconds']:.0f} |")
    lines += ["",
              f"3. **Gradient against sampler** (nbeta h = 10^4, 500 + 1,000 steps): {r3['calls']} calls of "
              f"`loss_and_grad` at {r3['ms_per_call']:.2f} ms took {100 * r3['share']:.0f}% of "
              f"{r3['seconds']:.1f} s; the rest is the leapfrog updates, the potential's prior term, the "
              f"noise and the bookkeeping."]
    if "stored_sides" in res:
        rows = res["stored_sides"]
        rows = [r for r in rows if r["sides"] and r["sides"]["z"] is not None]
        suite = [r for r in rows if r["file"] == SUITE_FILES[0]]
        big = [r for r in rows if abs(r["sides"]["z"]) > 3]
        lines += ["",
                  f"4. **The two start groups on the stored version-4 runs**, at the reported temperature: on the "
                  f"calibration suite the largest `|z|` is {max(abs(r['sides']['z']) for r in suite):.1f}; the rows "
                  f"with `|z| > 3` (the exact value is read here, after the fact, never by the procedure):",
                  "",
                  "| run | model | from w* | from the hotter chains | z | exact lambda | between the two | "
                  "rel. error | verdict |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in big:
            sd = r["sides"]
            lam = None if r["exact_lambda"] is None else float(Fraction(r["exact_lambda"]))
            err = "-" if r["relative_error"] is None else f"{100 * r['relative_error']:+.1f}%"
            between = "-" if lam is None else ("yes" if min(sd["w_star"], sd["hotter"]) <= lam
                                               <= max(sd["w_star"], sd["hotter"]) else "no")
            lines.append(f"| `{os.path.basename(r['file'])}` | {r['model']} | {sd['w_star']:.3f} +- {sd['w_star_se']:.2g} | "
                         f"{sd['hotter']:.3f} +- {sd['hotter_se']:.2g} | {sd['z']:+.1f} | {r['exact_lambda']} | "
                         f"{between} | {err} | {r['verdict']} |")
    if "zero_noise" in res:
        z = res["zero_noise"]
        over = [r for r in z if r["over"]]
        lines += ["",
                  f"5. **The allowance without noise**: the {len(z)} `suspect` validation rows with their ladders' "
                  f"means taken as exact (standard errors 10^-9). {len(over)} stay above 5%: "
                  + ", ".join(f"{r['model']} (m = {r['multiplicity']}, {100 * r['allowance_share']:.1f}%)" for r in over)
                  + f". So more draws on this ladder could make at most {len(z) - len(over)} more rows `ok`."]
    if "gauge" in res:
        lines += ["",
                  "6. **Which directions are slow** (the same start at nbeta h = 10^5; means of the 8 chains from w* / "
                  "of the 8 from the hotter ends: `nbeta (L - L*)` over the draws, the other three at the last draw):",
                  "",
                  "| draws | nbeta (L - L*) | singular: product's singular values beyond rank 3 | "
                  "gauge: factor imbalance | `|w - w*|^2` |",
                  "|---|---|---|---|---|"]
        for r in res["gauge"]["rows"]:
            lines.append(f"| {r['draws']} | {pair(r['nbeta_L'], '.2f')} | {pair(r['excess_singular_values'], '.4f')} | "
                         f"{pair(r['imbalance'], '.1f')} | {pair(r['radius2'], '.0f')} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--short", type=int, default=2000, help="draws of the short runs")
    p.add_argument("--long", type=int, default=8000, help="draws of the long runs (all from w*, mixed)")
    p.add_argument("--out", default="/tmp/llc_cost_anatomy.json")
    p.add_argument("--from-json", default=None, metavar="FILE", help="render an earlier run's --out")
    p.add_argument("--write", action="store_true", help="replace the <!-- llc_cost_anatomy --> block of BENCHMARKS.md")
    a = p.parse_args(argv)
    if a.from_json:
        with open(a.from_json) as fh:
            res = json.load(fh)
        res["stored_sides"] = stored_sides()  # read from the stored runs, no sampling
        res["zero_noise"] = zero_noise_allowance()
    else:
        res = {"rhat": rhat_against_ess(), "gradient": gradient_share(a.seed),
               "sides": two_sides(a.seed, a.short, a.long), "stored_sides": stored_sides(),
               "zero_noise": zero_noise_allowance(), "gauge": gauge_statistics(a.seed, a.short, a.long)}
        from algebra.files import write_atomic

        write_atomic(a.out, json.dumps(res, indent=1, default=float).encode())
    body = render(res)
    print(body)
    if a.write:
        from llc_devinterp import replace_between_markers

        replace_between_markers(os.path.join(HERE, "..", "BENCHMARKS.md"), "llc_cost_anatomy", body,
                                "PY benchmarks/llc_cost_anatomy.py --write"
                                + (f" --from-json {a.from_json}" if a.from_json else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
