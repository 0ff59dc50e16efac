"""Teacher-student LLC of graph attention against Theorem 2 (44)/(45) (issue 13).

Runs :func:`algebra.graph.llc.graph_llc` (the toolkit's calibrated HMC on the
exact population KL of an orbit-closed design) over a table of graphs, d, k, r
(including r = k, Theorem 1), gauge-transformed teachers (Corollary 1) and the
paper's open case (unused columns that cancel without vanishing), and writes
``benchmarks/graph_llc_results/graph_llc.{md,json}``; with ``--write`` it
also rewrites its subsection of BENCHMARKS.md (table, gauge-orbit check and
every number in the text come from the JSON, none by hand).

    nice -n 10 .venv/bin/python benchmarks/graph_llc.py [--fast] [--only N ...] [--write]

``--only`` reruns the listed rows and keeps the others from the JSON, so the
table can be run in pieces; ``--only`` with no index reruns nothing and only
rewrites the outputs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))

# (graph, d, k, r, point, point_seed)
ROWS = [
    ("cyclic:8", 4, 2, 1, "canonical", None),
    ("cyclic:8", 4, 2, 2, "canonical", None),     # r = k: Theorem 1
    ("dihedral:5", 4, 3, 1, "canonical", None),
    ("torus:3x3", 3, 2, 1, "canonical", None),
    ("hypercube:3", 4, 3, 3, "canonical", None),  # r = k
    ("symmetric:3", 3, 3, 1, "canonical", None),
    ("petersen", 3, 2, 2, "canonical", None),     # Aut = S_5 by the isomorphism matcher
    ("dihedral:4", 4, 2, 0, "canonical", None),   # zero teacher: pure Aoyagi-Watanabe block
    ("cyclic:8", 4, 2, 1, "gauge", 1),            # Corollary 1: same design as row 1
    ("cyclic:8", 4, 2, 1, "gauge", 2),
    ("dihedral:5", 4, 3, 1, "gauge", 1),
    ("dihedral:5", 4, 3, 1, "open", 1),           # open case (paper Section 5)
]


HEADING = ("### Teacher–student LLC vs Theorem 2: "
           "`nice -n 10 .venv/bin/python benchmarks/graph_llc.py --write` (seed 0)")

METHOD = """The student is the QK block `(A, B)` (`P = 2dk` parameters) of softmax graph attention; its loss is the exact
population KL (10) to the teacher over an orbit-closed design (encoder: one layer of message passing,
Gaussian node features, radius 1, one bias per pair orbit), so there is no sampling noise in the data
(`n` infinite).  Estimates: the toolkit's calibration unchanged (`algebra.numeric.calibration`, the
version the rows were run with: version 4, `nbeta h` in {10^3, 10^4, 10^5, 10^6}, 16 chains, gamma = 1,
half the chains at each colder temperature started where the hotter ones ended; the value reported is
the largest-nbeta estimate); exact `lambda` (44) and `m` (45) from `algebra.slt.formulas.query_key`, used only where
Assumption 1 is certified (column A1: the certified `alpha`).  Points: `canonical` = balanced pair (30)
with zero unused columns; `gauge #s` = `(A* xi, B* xi^-T)` for a random `xi` in GL(k) (seed s;
Corollary 1, same design); `open #s` = unused columns `u, u` / `v, -v` that cancel without vanishing
(paper Section 5: (44) is not proved there and is shown for comparison).  Diagnostic columns: the
largest split R-hat and smallest ESS over the temperatures, the bias the ladder still allows relative
to the estimate (the smaller of 1.7 times the rise from `nbeta h = 10^3` and 3.0 times the rise from
`10^4`), and the chains that never moved at the
largest nbeta (`algebra.graph.llc.frozen_chains`, informational).  Results in
`benchmarks/graph_llc_results/graph_llc.{md,json}`."""


# printed after a suspect zero-teacher row without frozen chains (calibration version 2 on)
ZERO_TEACHER_NOTE_NOW = """  Why: at r = 0 every direction of `(A, B)` is quartic and the localized posterior is a funnel. Since
  calibration version 2 (per-chain steps, a log-uniform step jitter down to 0.25 eps, stuck chains
  counted) no chain freezes on it (the frozen-chains count above). The verdict is the ladder's: on a
  funnel the estimate approaches its limit slowly, so the rise the ladder shows allows more than 5%
  still to come."""

# printed after a suspect zero-teacher row with frozen chains: what was found when that verdict was
# investigated under calibration version 1
ZERO_TEACHER_NOTE = """  Why: at r = 0 every direction of `(A, B)` is quartic and the localized
  posterior is a funnel (`A` large with `B` small and the reverse, cut off only by the prior gamma = h).
  HMC's step is fixed after warm-up at the median over chains; a chain that sits far out on an arm at
  that moment meets a local stability limit below even the smallest jittered step (0.5 eps) and never
  moves again, and its constant value enters the mean (the largest chain estimates above; the `frozen
  chains` column counts such chains at the largest nbeta).  Split R-hat sees it and the inflated
  standard errors widen the ladder's slope, so the verdict is a true finding about the sampler, not a
  defect of a diagnostic or of the model (tested: `Sxx`, the calibration's unit here, is the Hessian of
  the KL in `C`; `tests/graph/test_llc.py`).  Each chain freezes or not at the end of its own warm-up,
  so more chains or draws leave the share of frozen chains, and with it their part of R-hat, unchanged
  in expectation (more chains would only narrow the error bars): no sampling budget was changed for
  this table, since rerunning with one would only redraw which chains freeze.  A remedy
  (e.g. counting frozen chains as failed, like divergent ones, or a step rule for funnels) belongs to
  the calibration (issue 15) and has to be designed on its calibration suite, which has no
  vanishing-Hessian model yet."""


def _diagnostics(row: dict) -> dict:
    """What the table and the text need from ``row["details"]`` (dropped from the JSON: it is large)."""
    det = row["details"]
    per = [{"nbeta": e["nbeta"], "estimate": e["estimate"], "stderr": e["stderr"], "ess": e["ess"],
            "rhat": e["rhat"], "accept_rate": e["accept_rate"],
            "chain_median": _median([v for v in e["chain_estimates"] if v is not None]),
            "chain_max": max(v for v in e["chain_estimates"] if v is not None)}
           for e in det["per_temperature"]]
    return {"per_temperature": per, "bias_bound": det["bias_bound"], "curvature": det["curvature"]}


def _median(values):
    v = sorted(values)
    return 0.5 * (v[(len(v) - 1) // 2] + v[len(v) // 2])


def _point(row: dict) -> str:
    return row["point"] + (f" #{row['point_seed']}" if row["point_seed"] is not None else "")


def table(rows) -> str:
    """The markdown table of ``rows`` (the JSON records)."""
    lines = ["| graph | group order | d | k | r | point | P | A1 (alpha >=) | lambda (44) | m (45) | estimate +- se "
             "| rel. error | in 95% CI | max R-hat | min ESS | allowed bias | frozen chains | verdict |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        des = row["design"]
        lam = float(Fraction(row["lambda_44"]))
        lo, hi = row["ci95"]
        a1 = (f"yes ({float(Fraction(row['alpha_lower'])):.2e})" if row["alpha_lower"] else "yes") \
            if row["assumption1_holds"] else "FAILS"
        diag = row.get("diagnostics")
        if diag:
            per = diag["per_temperature"]
            rhat, ess = f"{max(e['rhat'] for e in per):.3f}", f"{min(e['ess'] for e in per):.0f}"
            bias = "-" if diag["bias_bound"] is None else f"{100 * diag['bias_bound'] / abs(row['estimate']):.0f}%"
        else:
            rhat = ess = bias = "-"
        frozen = "-" if row.get("frozen_chains") is None else str(row["frozen_chains"])
        lines.append(f"| {des['graph']} | {des['group_order']} | {des['d']} | {des['k']} | {des['r']} | {_point(row)} "
                     f"| {row['num_params']} | {a1} | {row['lambda_44']} | {row['multiplicity_45']} "
                     f"| {row['estimate']:.3f} +- {row['stderr']:.3f} | {100 * row['relative_to_44']:+.1f}% "
                     f"| {'yes' if lo <= lam <= hi else 'no'} | {rhat} | {ess} | {bias} | {frozen} "
                     f"| {row['verdict']} |")
    return "\n".join(lines) + "\n"


def gauge_orbits(rows) -> list:
    """Corollary 1: per design, the canonical and gauge estimates and their largest pairwise gap in combined se."""
    groups = {}
    for row in rows:
        if row["point"] in ("canonical", "gauge"):
            des = row["design"]
            groups.setdefault((des["graph"], des["d"], des["k"], des["r"]), []).append(row)
    out = []
    for key, members in groups.items():
        if len(members) < 2:
            continue
        worst = max(abs(a["estimate"] - b["estimate"]) / math.hypot(a["stderr"], b["stderr"])
                    for i, a in enumerate(members) for b in members[i + 1:])
        out.append({"design": key, "members": [(_point(m), m["estimate"], m["stderr"]) for m in members],
                    "worst_z": worst})
    return out


def section(rows, command: str) -> str:
    """The BENCHMARKS.md subsection: heading, method, table and the numbers read off the rows."""
    n = len(rows)
    rel = [(abs(r["relative_to_44"]), r) for r in rows]
    worst, wrow = max(rel, key=lambda t: t[0])
    within = sum(1 for v, _ in rel if v <= 0.10)
    covered = sum(1 for r in rows if r["ci95"][0] <= float(Fraction(r["lambda_44"])) <= r["ci95"][1])
    ok = [r for r in rows if r["verdict"] == "ok"]
    walls = [r["wall_s"] for r in rows]
    text = [HEADING, "", METHOD, "", table(rows),
            f"* {within} of the {n} estimates are within 10% of (44) (worst {100 * wrow['relative_to_44']:+.1f}%, "
            f"{wrow['design']['graph']} r = {wrow['design']['r']} {_point(wrow)}) and {covered} of {n} 95% intervals "
            f"contain it; {len(ok)} of {n} have verdict `ok`."]
    for r in rows:
        if r["verdict"] == "ok":
            continue
        line = (f"* `suspect`: {r['design']['graph']} d={r['design']['d']} k={r['design']['k']} "
                f"r={r['design']['r']} {_point(r)} ({100 * r['relative_to_44']:+.1f}% from (44)): "
                + "; ".join(f"`{reason}`" for reason in r["reasons"]) + ".")
        diag = r.get("diagnostics")
        if diag:
            ladder = ", ".join(f"10^{math.log10(v):.0f}" for v in r["settings"].get("nbeta_scaled", ()))
            line += (f"  Per temperature (nbeta h = {ladder}): R-hat "
                     + ", ".join(f"{e['rhat']:.3f}" for e in diag["per_temperature"])
                     + "; ESS " + ", ".join(f"{e['ess']:.0f}" for e in diag["per_temperature"])
                     + "; chain estimates median / largest "
                     + ", ".join(f"{e['chain_median']:.2f} / {e['chain_max']:.2f}" for e in diag["per_temperature"])
                     + f"; chains frozen at the largest nbeta: {r.get('frozen_chains', '-')}.")
        if r["design"]["r"] == 0:
            line += "\n" + (ZERO_TEACHER_NOTE if r.get("frozen_chains") else ZERO_TEACHER_NOTE_NOW)
        text.append(line)
    for g in gauge_orbits(rows):
        graph, d, k, r = g["design"]
        members = ", ".join(f"{p} {e:.3f} +- {se:.3f}" for p, e, se in g["members"])
        text.append(f"* Gauge orbit (Corollary 1), {graph} d={d} k={k} r={r}: {members}; largest pairwise gap "
                    f"{g['worst_z']:.2f} combined standard errors "
                    f"({'agree within their error bars' if g['worst_z'] < 2 else 'DISAGREE'} at 2 se).")
    for r in rows:
        if r["point"] == "open":
            text.append(f"* Open case ({r['design']['graph']} d={r['design']['d']} k={r['design']['k']} "
                        f"r={r['design']['r']}, unused columns cancelling without vanishing): "
                        f"{r['estimate']:.3f} +- {r['stderr']:.3f} beside (44) = {r['lambda_44']} "
                        f"({100 * r['relative_to_44']:+.1f}%), verdict `{r['verdict']}` (one point, one seed: "
                        f"evidence, not proof; the paper leaves this case open).")
    text.append(f"* Wall time {min(walls):.0f}-{max(walls):.0f} s per row, {sum(walls) / 60:.0f} min in all "
                f"(niced, 2 shared cores; each row's `wall_s` is in the JSON).  Command: `{command}`.")
    return "\n".join(text) + "\n"


def main(argv=None) -> int:
    from algebra.graph.llc import graph_llc
    from algebra.numeric.calibration import FAST, CalibrationSettings

    ap = argparse.ArgumentParser()
    ap.add_argument("--fast", action="store_true")
    ap.add_argument("--only", type=int, nargs="*", default=None,
                    help="row indices to run (the others are kept from the JSON); none: only rewrite the outputs")
    ap.add_argument("--out", default=os.path.join(HERE, "graph_llc_results"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--write", nargs="?", const=os.path.join(HERE, "..", "BENCHMARKS.md"), default=None,
                    help="rewrite the subsection of this markdown file (default BENCHMARKS.md)")
    args = ap.parse_args(argv)
    settings = FAST if args.fast else CalibrationSettings()
    os.makedirs(args.out, exist_ok=True)
    json_path = os.path.join(args.out, "graph_llc.json")
    rows = []
    if args.only is not None and os.path.exists(json_path):  # rerun some rows, keep the others
        with open(json_path) as fh:
            rows = [row for row in json.load(fh) if row["index"] not in args.only]
    for idx, (g, d, k, r, point, pseed) in enumerate(ROWS):
        if args.only is not None and idx not in args.only:
            continue
        t0 = time.time()
        row = graph_llc(g, d, k, r, point=point, point_seed=pseed, settings=settings, seed=args.seed)
        row["wall_s"] = round(time.time() - t0, 1)
        row["index"] = idx
        row["diagnostics"] = _diagnostics(row)
        row.pop("details")
        rows.append(row)
        rows.sort(key=lambda x: x["index"])
        print(json.dumps({k_: row[k_] for k_ in ("model", "estimate", "stderr", "lambda_44", "relative_to_44",
                                                 "verdict", "wall_s")}, default=float), flush=True)
        with open(json_path, "w") as fh:
            json.dump(rows, fh, indent=1, default=float)
    text = table(rows)
    with open(os.path.join(args.out, "graph_llc.md"), "w") as fh:
        fh.write(text)
    print(text)
    if args.write:
        from pathlib import Path

        sys.path.insert(0, HERE)
        from bench_rank import write_section  # one section writer for BENCHMARKS.md

        target = Path(args.write)
        if HEADING not in target.read_text().splitlines():
            # write_section would append a missing ### heading to its own "## Jacobian rank" section
            raise SystemExit(f"{target}: heading not found, add it under '## Graph attention' first: {HEADING}")
        write_section(target, section(rows, "nice -n 10 .venv/bin/python benchmarks/graph_llc.py --write"), HEADING)
    return 0


if __name__ == "__main__":
    sys.exit(main())
