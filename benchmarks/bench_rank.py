"""Jacobian rank: this engine against float SVD, sympy, Singular and Macaulay2.

The same question -- the rank of the Jacobian of a parametrization map at one
point -- answered side by side, per size, in one process:

* **ours** -- ``algebra.geometry.dimension.dimension``: the Jacobian at a
  random integer point built on integer arrays modulo p (float64 BLAS),
  ``nmod_mat.rank``, plus the certified upper bound (symmetry fields).  The
  column ``ours+witness`` also locates a nonsingular maximal minor.
* **float** -- ``numpy.linalg.matrix_rank`` of the float64 Jacobian at a
  random real point (same shape; built by the package's float evaluator).
* **sympy** -- symbolic Jacobian, substitution of the same integer point,
  exact rank over Q.
* **Singular**, **Macaulay2** -- the polynomial in a ring over ZZ/p,
  ``diff``, a ring map to the same point, ``rank`` (see ``rank_peers.py``).

Families: shallow cubic networks ``sum_i v_i (w_i.x)^3`` in coefficient mode
(width chosen so that ``h n >= binom(n+2, 3)``, the square, non-defective
case), and polynomial MLPs ``(n, 2n, 2n, 1)`` with activation ``t^2`` and
biases in sample mode, up to ``P >= 5,000``.

Timings are wall-clock seconds measured back to back in this process, ours
first; sizes where ours takes under 2 s are repeated three times for both ours
and the float route (minimum kept).  Each exact peer runs in a child process
under ``--cap`` seconds; after a peer times out (or fails) it is not run on
the larger sizes of that family, and the table says where it gave up.

Usage::

    .venv/bin/python benchmarks/bench_rank.py --quick          # smoke run, ~2 minutes
    .venv/bin/python benchmarks/bench_rank.py --cap 300 --write --json benchmarks/bench_rank_results.json
                                                               # full run (~45 min on 2 shared cores)
    .venv/bin/python benchmarks/bench_rank.py --render benchmarks/bench_rank_results.json --write
                                                               # re-render the section from saved results

BLAS is limited to one thread (``--blas-threads``) for every in-process
route: on the shared 2-core machine a 2-thread OpenBLAS ran the SVD 2-4x
slower than one thread, which would have flattered our ratios.  Needs
``threadpoolctl`` (benchmark only); Singular and Macaulay2 are optional
(``apt-get install singular macaulay2``) and reported as not installed when absent.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from datetime import datetime, timezone
from math import ceil, comb
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))

from rank_peers import float_rank, problem_dict, run_capped, tool_versions  # noqa: E402

from algebra.exact.field import PrimeField  # noqa: E402
from algebra.exact.rank import to_nmod_mat  # noqa: E402
from algebra.geometry.dimension import dimension, upper_bound  # noqa: E402
from algebra.models import MLP, shallow_network  # noqa: E402

SECTION = "## Jacobian rank"
EXACT_PEERS = ("sympy", "singular", "macaulay2")

#: shallow cubic networks: number of inputs n (width = ceil(binom(n+2,3) / n)); n = 5 is avoided
#: because (5, 3, 7) is an Alexander-Hirschowitz exception.
SHALLOW_N = (4, 6, 8, 10, 12, 16, 18, 20, 24, 30)
SHALLOW_N_QUICK = (4, 6, 8, 10)
#: MLPs (n, 2n, 2n, 1), t^2, biases
MLP_N = (3, 5, 8, 10, 12, 15, 20, 30)
MLP_N_QUICK = (3, 5)


def shallow_case(n: int) -> dict:
    width = ceil(comb(n + 2, 3) / n)
    model = shallow_network(n, 3, width)
    return {"family": "shallow", "label": f"shallow n={n} h={width} k=3", "model": model, "mode": "coefficient",
            "sizes": {"n": n, "width": width, "degree": 3}, "activation": (0, 0, 0, 1), "bias": False}


def mlp_case(n: int) -> dict:
    widths = (n, 2 * n, 2 * n, 1)
    model = MLP(widths, "t^2", bias=True)
    return {"family": "mlp", "label": "mlp " + ",".join(map(str, widths)) + " t^2 bias", "model": model, "mode": "sample",
            "sizes": {"widths": list(widths)}, "activation": (0, 0, 1), "bias": True}


def machine_info() -> dict:
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory": mem, "platform": platform.platform(),
            "python": platform.python_version(), "load_average_start": [round(x, 2) for x in os.getloadavg()]}


def breakdown(case: dict, seed: int) -> dict:
    """Where our time goes: Jacobian build, numpy -> nmod_mat conversion, flint rank, upper bound."""
    model, F = case["model"], PrimeField()
    res = dimension(model, mode=case["mode"], seed=seed)
    theta = np.array(res.theta, dtype=np.int64)
    t0 = time.perf_counter()
    upper_bound(model, theta, F)
    t1 = time.perf_counter()
    if case["family"] == "shallow":
        J = model.coefficient_jacobian(theta, F)
    else:
        J = model.jacobian(theta, np.array(res.inputs, dtype=np.int64), F)
    t2 = time.perf_counter()
    A = to_nmod_mat(J, F.p)
    t3 = time.perf_counter()
    r = int(A.rank())
    t4 = time.perf_counter()
    return {"upper_bound": t1 - t0, "build": t2 - t1, "convert": t3 - t2, "rank": t4 - t3, "rank_value": r, "shape": list(J.shape)}


def run_case(case: dict, seed: int, rng: np.random.Generator, peers: tuple, cap: float, gave_up: dict, with_breakdown: bool) -> dict:
    model = case["model"]
    row = {"label": case["label"], "family": case["family"], "P": model.parameter_count}
    # ours, certified (lower = upper), then ours + witness; float right after, same repeat count
    t0 = time.perf_counter()
    res = dimension(model, mode=case["mode"], seed=seed)
    ours = time.perf_counter() - t0
    repeats = 3 if ours < 2.0 else 1
    for _ in range(repeats - 1):
        t0 = time.perf_counter()
        dimension(model, mode=case["mode"], seed=seed)
        ours = min(ours, time.perf_counter() - t0)
    wit = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        resw = dimension(model, mode=case["mode"], seed=seed, witness=True)
        wit = min(wit, time.perf_counter() - t0)
    row.update(rows=(res.ambient_dimension if case["family"] == "shallow" else res.samples * model.n_outputs),
               rank=res.lower_bound, upper=res.upper_bound, certified=res.certified, ours=ours, ours_witness=wit,
               witness_rank=resw.witness.rank if resw.witness else None)
    if "float" in peers:
        best, frank, fbuild = float("inf"), None, None
        for _ in range(repeats):
            frank, tb, ts = float_rank(model, case["family"], res.samples, rng)
            if tb + ts < best:
                best, fbuild = tb + ts, tb
        row["float"] = {"status": "ok", "rank": frank, "seconds": best, "build": fbuild}
    prob = problem_dict(case["family"], case["sizes"], res, activation=case["activation"], bias=case["bias"])
    for peer in EXACT_PEERS:
        if peer not in peers:
            continue
        key = (case["family"], peer)
        if key in gave_up:
            row[peer] = {"status": "skipped", "rank": None, "seconds": None, "detail": f"gave up at P={gave_up[key]}"}
            continue
        out = dict(run_capped(peer, prob, cap))
        row[peer] = out
        if out["status"] in ("timeout", "error"):
            gave_up[key] = model.parameter_count
    if with_breakdown:
        row["breakdown"] = breakdown(case, seed)
    return row


def _ratio(row: dict, peer: str) -> str:
    r = row.get(peer)
    if not r or r["status"] == "absent":
        return "n/a"
    if r["status"] == "skipped":
        return "—"
    if r["status"] == "timeout":
        return f"< {row['ours'] / r['seconds']:.3g}"
    if r["status"] == "error":
        return "failed"
    return f"{row['ours'] / max(r['seconds'], 1e-3):.3g}"  # Singular's timer counts milliseconds


def _secs(row: dict, peer: str) -> str:
    r = row.get(peer)
    if not r or r["status"] == "absent":
        return "n/a"
    if r["status"] == "skipped":
        return "—"
    if r["status"] == "timeout":
        return f"> {r['seconds']:g} (cap)"
    if r["status"] == "error":
        return f"failed after {r['seconds']:.0f} (no answer)"
    mark = "" if r["rank"] == row["rank"] else f" (rank {r['rank']}!)"
    return f"{r['seconds']:.3g}{mark}"


def targets(rows: list, meta: dict) -> list:
    """Lines checking the issue's targets: ours/float <= 1 (aim 0.5) from P ~ 1,000; >= 20x faster than
    Singular and Macaulay2 from P ~ 800 (a peer that gave up counts at the cap, so the ratio is an upper bound)."""
    out = ["Targets (issue 2):", ""]
    big = [r for r in rows if r["P"] >= 900 and r.get("float", {}).get("status") == "ok"]
    if big:
        worst = max(big, key=lambda r: r["ours"] / r["float"]["seconds"])
        ratios = ", ".join(f"{r['ours'] / r['float']['seconds']:.2f} ({r['family']}, P = {r['P']:,})" for r in big)
        ok = all(r["ours"] <= r["float"]["seconds"] for r in big)
        out.append(f"* ours / numpy SVD for P >= 900: {ratios}. Target ratio <= 1: {'met' if ok else 'NOT met'} "
                   f"(worst {worst['ours'] / worst['float']['seconds']:.2f}); aim <= 0.5: "
                   f"{'met' if all(r['ours'] <= 0.5 * r['float']['seconds'] for r in big) else 'not met everywhere'}.")
    for peer, name in (("singular", "Singular"), ("macaulay2", "Macaulay2")):
        cand = [r for r in rows if r["P"] >= 800 and peer in r and r[peer]["status"] != "absent"]
        if not cand:
            continue
        parts, ok = [], True
        for r in cand:
            st = r[peer]["status"]
            if st == "ok":
                ratio = r["ours"] / max(r[peer]["seconds"], 1e-3)
                parts.append(f"{ratio:.3g} at P = {r['P']:,} ({r['family']})")
                ok &= ratio <= 0.05
            else:  # timeout, skipped after an earlier timeout, or failed: the peer took more than the cap
                ratio = r["ours"] / meta["cap"]
                parts.append(f"< {ratio:.3g} at P = {r['P']:,} ({r['family']}, peer over the cap)")
                ok &= ratio <= 0.05
        out.append(f"* ours / {name} for P >= 800: " + "; ".join(parts) + f". Target <= 0.05 (20x): {'met' if ok else 'NOT shown everywhere'}.")
    out.append("")
    return out if len(out) > 3 else []


def markdown(rows: list, meta: dict) -> str:
    peers = [p for p in ("float", "sympy", "singular", "macaulay2") if any(p in r for r in rows)]
    names = {"float": "numpy SVD", "sympy": "sympy", "singular": "Singular", "macaulay2": "Macaulay2"}
    out = [SECTION, ""]
    out.append(
        "The rank of the Jacobian of a parametrization map at one point, answered side by side in one run "
        "(`benchmarks/bench_rank.py`; routes in `benchmarks/rank_peers.py`). **ours** = "
        "`dimension(model)`: Jacobian at a random integer point mod p = "
        f"{meta['prime']} built on integer arrays, flint `nmod_mat.rank`, and the certified upper bound "
        "(every row below is certified: lower = upper); **+witness** also locates a nonsingular maximal minor. "
        "**numpy SVD**: `np.linalg.matrix_rank` of the float64 Jacobian (same shape) at a random real point, "
        "build included. **sympy**: symbolic Jacobian, `xreplace` of the same integer point, exact rank over Q by `to_DM().rank()`. "
        "**Singular / Macaulay2**: the polynomial in a ring over ZZ/p, `diff`, a ring map to the same point, "
        "`rank` (tool's own timer). Exact peers run under a cap and are not retried on larger sizes once they "
        "time out. Ratio = ours / peer (below 1: ours is faster; `< x` when the peer hit the cap)."
    )
    out.append("")
    out.append(f"Command: `{meta['command']}`  ")
    out.append(f"Run: {meta['date']}, {meta['elapsed']:.0f} s in all; seed {meta['seed']}; cap {meta['cap']:g} s per exact-peer call.  ")
    m = meta["machine"]
    out.append(f"Machine: {m['cpu']}, {m['cores']} cores (shared with other jobs: load average {m['load_average_start']} at start, "
               f"{m.get('load_average_end')} at end), {m['memory']}, {m['platform']}, Python {m['python']}.  ")
    v = meta["versions"]
    out.append(f"BLAS threads: {meta['blas_threads']} for every in-process route (numpy SVD and our float64 products); "
               "flint, sympy, Singular and Macaulay2 are single-threaded.  ")
    out.append("Tools: " + ", ".join(f"{k} {val}" if val else f"{k} not installed" for k, val in v.items()) + ".")
    out.append("")
    head = ["model", "P", "J rows", "rank", "ours s", "+witness s"] + [f"{names[p]} s" for p in peers] + [f"ours/{names[p]}" for p in peers]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for r in rows:
        cells = [r["label"], str(r["P"]), str(r["rows"]), f"{r['rank']}{'' if r['certified'] else ' (not certified)'}",
                 f"{r['ours']:.3g}", f"{r['ours_witness']:.3g}"]
        cells += [_secs(r, p) for p in peers]
        cells += [_ratio(r, p) for p in peers]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out += targets(rows, meta)
    gave = meta.get("gave_up", {})
    if gave:
        out.append("Where the exact peers gave up (first size over the cap, or failed): "
                   + "; ".join(f"{names[p]} on {fam} at P = {P}" for (fam, p), P in sorted(gave.items())) + ".")
        out.append("")
    if any("breakdown" in r for r in rows):
        out.append("Where our time goes (one more run per size, seconds): upper bound (symmetry-field rank), "
                   "Jacobian build, numpy -> `nmod_mat` conversion, one `nmod_mat.rank` of the Jacobian; **rest** = "
                   "ours minus these four (for the MLPs: the proximity bottleneck bound and the second rank of the "
                   "same Jacobian that `dimension` computes in sample mode).")
        out.append("")
        out.append("In sample mode (the MLP rows) **rest** is more than half of our time: `dimension` ranks the same "
                   "Jacobian twice (once inside the sampling loop, once after it), and the proximity bottleneck bound "
                   "recomputes the symmetry-field rank that the engine's upper bound already computed. Removing that "
                   "repeated work, and the numpy -> `nmod_mat` conversion (about as costly as the rank itself up to "
                   "P ~ 2,500), is what stands between the MLP rows and the ratio <= 1 target.")
        out.append("")
        out.append("| model | P | J shape | upper bound | build | convert | rank | rest | ours |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            b = r.get("breakdown")
            if b:
                rest = r["ours"] - b["upper_bound"] - b["build"] - b["convert"] - b["rank"]
                out.append(f"| {r['label']} | {r['P']} | {b['shape'][0]} x {b['shape'][1]} | {b['upper_bound']:.3g} | "
                           f"{b['build']:.3g} | {b['convert']:.3g} | {b['rank']:.3g} | {rest:.3g} | {r['ours']:.3g} |")
        out.append("")
    return "\n".join(out) + "\n"


def write_section(path: Path, text: str) -> None:
    """Replace (or append) the ``## Jacobian rank`` section of ``path``, leaving other sections alone."""
    old = path.read_text() if path.exists() else "# Benchmarks\n\n"
    lines = old.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == SECTION), None)
    if start is None:
        new = old.rstrip("\n") + "\n\n" + text
    else:
        end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith("## ")), len(lines))
        new = "".join(lines[:start]) + text + ("\n" if end < len(lines) else "") + "".join(lines[end:])
    path.write_text(new)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes only (smoke run)")
    ap.add_argument("--families", default="shallow,mlp", help="comma-separated: shallow, mlp")
    ap.add_argument("--peers", default="float,sympy,singular,macaulay2", help="comma-separated peers to run")
    ap.add_argument("--cap", type=float, default=300.0, help="seconds allowed to each exact-peer call")
    ap.add_argument("--max-p", type=int, default=None, help="skip sizes with more parameters")
    ap.add_argument("--min-p", type=int, default=None, help="skip sizes with fewer parameters")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-breakdown", action="store_true", help="skip the per-size timing breakdown of our route")
    ap.add_argument("--write", nargs="?", const=str(_HERE.parent / "BENCHMARKS.md"), default=None,
                    help="write the section into this markdown file (default BENCHMARKS.md)")
    ap.add_argument("--json", default=None, help="also write the raw results to this JSON file")
    ap.add_argument("--blas-threads", type=int, default=1,
                    help="BLAS threads for every in-process route (default 1: on a shared 2-core machine a 2-thread "
                    "OpenBLAS ran the SVD 2-4x slower than 1 thread; flint and the exact peers are single-threaded)")
    ap.add_argument("--render", default=None, metavar="JSON",
                    help="do not run: re-render the section from a --json file of an earlier run (with --write)")
    args = ap.parse_args(argv)
    if args.render:
        data = json.loads(Path(args.render).read_text())
        meta = data["meta"]
        meta["gave_up"] = {tuple(k.split("/")): v for k, v in meta["gave_up"].items()}
        text = markdown(data["rows"], meta)
        print(text)
        if args.write:
            write_section(Path(args.write), text)
        return 0
    from threadpoolctl import threadpool_limits
    from tqdm import tqdm

    threadpool_limits(args.blas_threads)
    t_start = time.perf_counter()
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    peers = tuple(p.strip() for p in args.peers.split(",") if p.strip())
    cases = []
    if "shallow" in families:
        cases += [shallow_case(n) for n in (SHALLOW_N_QUICK if args.quick else SHALLOW_N)]
    if "mlp" in families:
        cases += [mlp_case(n) for n in (MLP_N_QUICK if args.quick else MLP_N)]
    cases = [c for c in cases if (args.max_p is None or c["model"].parameter_count <= args.max_p)
             and (args.min_p is None or c["model"].parameter_count >= args.min_p)]
    seeds = np.random.SeedSequence(args.seed).spawn(len(cases))
    meta = {"command": "python benchmarks/bench_rank.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "seed": args.seed, "cap": args.cap,
            "machine": machine_info(), "versions": tool_versions(), "prime": PrimeField().p,
            "blas_threads": args.blas_threads}
    rows, gave_up = [], {}
    bar = tqdm(cases, desc="jacobian rank", unit="size")
    for case, ss in zip(bar, seeds):
        bar.set_postfix_str(f"{case['label']} (P={case['model'].parameter_count})")
        seed = int(ss.generate_state(1)[0])
        rng = np.random.default_rng(ss.spawn(1)[0])
        row = run_case(case, seed, rng, peers, args.cap, gave_up, not args.no_breakdown)
        row["seed"] = seed
        rows.append(row)
        tqdm.write(json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}, default=str))
    meta["machine"]["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    meta["elapsed"] = time.perf_counter() - t_start
    meta["gave_up"] = gave_up
    text = markdown(rows, meta)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": {**meta, "gave_up": {f"{f}/{p}": P for (f, p), P in gave_up.items()}},
                                               "rows": rows}, indent=1, default=str))
    if args.write:
        write_section(Path(args.write), text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
