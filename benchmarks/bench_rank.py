"""Jacobian rank: this engine against float SVD, sympy, Singular and Macaulay2.

The same question -- the rank of the Jacobian of a parametrization map at one
point -- answered side by side, per size, in one process:

* **ours** -- ``algebra.engine.dimension``: the Jacobian at a random
  integer point built on integer arrays modulo p (float64 BLAS), its exact
  rank through ``algebra.exact.rank.rank_mod_p`` (the blocked LU modulo p of
  ``algebra.exact.elimination`` from ``FLINT_MAX_ENTRIES`` = 20,000 entries,
  flint below) on the columns left once the symmetry fields' pivot columns
  are removed (``algebra.engine.fields``), plus the certified upper bound.  The column ``ours+witness`` also locates a
  nonsingular maximal minor.
* **lu_factor** -- ``scipy.linalg.lu_factor`` (LAPACK ``dgetrf``) of the same
  Jacobian as a float64 matrix: proves nothing, it is the cost of one dense
  elimination at BLAS speed (the physical limit); measured in the breakdown.
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

Timings of the in-process routes are CPU seconds of this process
(``time.process_time``; ``--clock wall`` for wall-clock), measured back to
back, ours first: every in-process route is single-threaded (one BLAS
thread), and on the shared 2-core machine the wall clock mostly measures the
other jobs.  Sizes where ours takes under 2 s are repeated three times for
both ours and the float route (minimum kept).  Each exact peer runs in a child process
under ``--cap`` seconds; after a peer times out (or fails) it is not run on
the larger sizes of that family, and the table says where it gave up.

``--scale default`` runs models far beyond the SVD's reach (``mlp
60,120,120,1 t^2 bias``, P = 21,961), each in a child process that reports
its time and peak resident memory (``ru_maxrss``); the SVD of those
Jacobians is not run.

Usage::

    .venv/bin/python benchmarks/bench_rank.py --quick          # smoke run, ~2 minutes
    .venv/bin/python benchmarks/bench_rank.py --cap 300 --write --json benchmarks/bench_rank_results.json
                                                               # full run (~45 min on 2 shared cores)
    .venv/bin/python benchmarks/bench_rank.py --render benchmarks/bench_rank_results.json --write
                                                               # re-render the section from saved results
    nice -n 10 .venv/bin/python benchmarks/bench_rank.py --peers float --min-p 800 --scale default \\
        --subsection --write --json benchmarks/bench_rank_blocked.json
                                                               # issue 14: blocked LU, lu_factor, P >= 20,000

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

from rank_peers import float_lu_seconds, float_rank, problem_dict, run_capped, tool_versions  # noqa: E402

from algebra.engine import dimension  # noqa: E402
from algebra.engine.fields import symmetry_pivots  # noqa: E402
from algebra.exact.elimination import eliminate_mod_p, predicted_peak_bytes, residues_mod_p  # noqa: E402
from algebra.exact.field import PrimeField  # noqa: E402
from algebra.exact.rank import FLINT_MAX_ENTRIES, to_nmod_mat  # noqa: E402
from algebra.models import MLP, shallow_network  # noqa: E402

SECTION = "## Jacobian rank"
SUBSECTION = "### Blocked LU modulo p on float64 BLAS (issue 14)"
#: the models of ``--scale default``: (widths, activation, bias)
SCALE_DEFAULT = (((60, 120, 120, 1), "t^2", True),)
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
#: the flint reference route (conversion + nmod_mat.rank) is timed up to this many parameters
FLINT_MAX_P = 6000
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


def breakdown(case: dict, seed: int, clock) -> dict:
    """Where our time goes: symmetry-field rank and pivots, Jacobian build, residues, blocked LU; beside flint and
    lu_factor of the whole Jacobian.  As in the engine, the residues keep only the columns outside the fields' pivots."""
    model, F = case["model"], PrimeField()
    res = dimension(model, mode=case["mode"], seed=seed)
    theta = np.array(res.theta, dtype=np.int64)
    t0 = clock()
    srank, scols = symmetry_pivots(model, theta, F)
    t1 = clock()
    if case["family"] == "shallow":
        J = model.coefficient_jacobian(theta, F)
    else:
        J = model.jacobian(theta, np.array(res.inputs, dtype=np.int64), F)
    t2 = clock()
    keep = np.setdiff1d(np.arange(model.parameter_count), scols) if srank else None
    work = J.copy()  # not timed: the engine gathers the columns in J's own memory; J serves flint and lu_factor
    t2b = clock()
    A = residues_mod_p(work, F.p, overwrite=True, columns=keep)
    t3 = clock()
    r = eliminate_mod_p(A, F.p).rank
    t4 = clock()
    out = {"upper_bound": t1 - t0, "build": t2 - t1, "residues": t3 - t2b, "eliminate": t4 - t3, "rank_value": r,
           "shape": list(J.shape), "lu_shape": list(A.shape), "flint": None, "flint_rank": None}
    lu = [float_lu_seconds(J, clock)]
    if lu[0] < 2.0:  # short: best of three for both routes, back to back
        for _ in range(2):
            A = residues_mod_p(J, F.p, columns=keep)
            t3 = clock()
            eliminate_mod_p(A, F.p)
            out["eliminate"] = min(out["eliminate"], clock() - t3)
            lu.append(float_lu_seconds(J, clock))
    out["lu_factor"] = min(lu)
    if model.parameter_count <= FLINT_MAX_P:
        t5 = clock()
        out["flint_rank"] = int(to_nmod_mat(J, F.p).rank())
        out["flint"] = clock() - t5
    return out


def run_case(case: dict, seed: int, rng: np.random.Generator, peers: tuple, cap: float, gave_up: dict,
             with_breakdown: bool, clock=time.perf_counter) -> dict:
    model = case["model"]
    row = {"label": case["label"], "family": case["family"], "P": model.parameter_count}
    # ours, certified (lower = upper), then ours + witness; float right after, same repeat count
    t0 = clock()
    res = dimension(model, mode=case["mode"], seed=seed)
    ours = clock() - t0
    repeats = 3 if ours < 2.0 else 1
    for _ in range(repeats - 1):
        t0 = clock()
        dimension(model, mode=case["mode"], seed=seed)
        ours = min(ours, clock() - t0)
    wit = float("inf")
    for _ in range(repeats):
        t0 = clock()
        resw = dimension(model, mode=case["mode"], seed=seed, witness=True)
        wit = min(wit, clock() - t0)
    row.update(rows=(res.ambient_dimension if case["family"] == "shallow" else res.samples * model.n_outputs),
               rank=res.lower_bound, upper=res.upper_bound, certified=res.certified, ours=ours, ours_witness=wit,
               witness_rank=resw.witness.rank if resw.witness else None)
    if "float" in peers:
        best, frank, fbuild = float("inf"), None, None
        for _ in range(repeats):
            frank, tb, ts = float_rank(model, case["family"], res.samples, rng, clock)
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
        row["breakdown"] = breakdown(case, seed, clock)
    return row


def scale_child(spec: str, seed: int, blas_threads: int) -> dict:
    """One certified dimension at scale, in this (child) process: time, rank and peak RSS."""
    import resource

    from threadpoolctl import threadpool_limits

    threadpool_limits(blas_threads)
    widths, activation, bias = json.loads(spec)
    model = MLP(tuple(widths), activation, bias=bias)
    t0, c0 = time.perf_counter(), time.process_time()
    res = dimension(model, mode="sample", seed=seed, max_entries=10**10)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rows = res.samples * model.n_outputs
    label = "mlp " + ",".join(map(str, widths)) + f" {activation}" + (" bias" if bias else "")
    return {"label": label, "P": model.parameter_count, "rows": rows, "rank": res.lower_bound, "upper": res.upper_bound,
            "certified": res.certified, "reason": res.upper_bound_reason, "wall": wall, "cpu": cpu,
            "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "predicted_rank_bytes": predicted_peak_bytes(rows, model.parameter_count),
            "jacobian_bytes": 8 * rows * model.parameter_count, "seed": seed}


def run_scale(specs, seed: int, blas_threads: int) -> list:
    """Each ``--scale`` model in a fresh child process, so ``ru_maxrss`` is that model's own peak."""
    import subprocess

    from tqdm import tqdm

    out = []
    for widths, activation, bias in specs:
        spec = json.dumps([list(widths), activation, bias])
        cmd = [sys.executable, str(Path(__file__).resolve()), "--scale-child", spec, "--seed", str(seed),
               "--blas-threads", str(blas_threads)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = proc.stderr.strip().splitlines()
            out.append({"label": spec, "error": tail[-1] if tail else f"exit status {proc.returncode}"})
        else:
            out.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        tqdm.write(json.dumps(out[-1]))
    return out


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


def _share(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "n/a"


def targets(rows: list, meta: dict) -> list:
    """Lines checking issue 14's targets: ours / numpy SVD <= 0.5 from P ~ 900 (<= 0.3 from P = 5,000);
    our exact rank / lu_factor of the same matrix <= 3 from P = 2,500; and the exact peers (issue 2)."""
    out = ["Targets (issue 14):", ""]
    big = [r for r in rows if r["P"] >= 850 and r.get("float", {}).get("status") == "ok"]  # "from P ~ 900"
    if big:
        ratio = {id(r): r["ours"] / r["float"]["seconds"] for r in big}
        listed = ", ".join(f"{ratio[id(r)]:.2f} ({r['family']}, P = {r['P']:,})" for r in big)
        ok5 = all(ratio[id(r)] <= 0.5 for r in big)
        ok3 = all(ratio[id(r)] <= 0.3 for r in big if r["P"] >= 5000)
        out.append(f"* ours / numpy SVD from P ~ 900 (P >= 850): {listed}. Target <= 0.5 everywhere: {'met' if ok5 else 'NOT met'}; "
                   f"<= 0.3 at P >= 5,000: {'met' if ok3 else 'NOT met'}.")
    lu = [r for r in rows if r["P"] >= 2500 and (r.get("breakdown") or {}).get("lu_factor")]
    if lu:
        parts, ok = [], True
        for r in lu:
            b = r["breakdown"]
            k = (b["residues"] + b["eliminate"]) / b["lu_factor"]
            ok &= k <= 3
            parts.append(f"{k:.2f} ({r['family']}, P = {r['P']:,}; whole `dimension()` {r['ours'] / b['lu_factor']:.2f})")
        same = ("of the whole float Jacobian (ours eliminates the **LU shape** columns)"
                if any("lu_shape" in r["breakdown"] for r in lu) else "of the same matrix")
        out.append(f"* our exact rank (residues + blocked LU) / `lu_factor` {same} for P >= 2,500: "
                   + "; ".join(parts) + f". Target <= 3: {'met' if ok else 'NOT met'}.")
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
            else:  # timeout, skipped after an earlier timeout, or failed: the peer took more than the cap
                ratio = r["ours"] / meta["cap"]
                parts.append(f"< {ratio:.3g} at P = {r['P']:,} ({r['family']}, peer over the cap)")
            ok &= ratio <= 0.05
        out.append(f"* ours / {name} for P >= 800: " + "; ".join(parts) + f". Target <= 0.05 (20x): {'met' if ok else 'NOT shown everywhere'}.")
    out.append("")
    return out if len(out) > 3 else []


def scale_table(scale: list, command: str | None = None) -> list:
    if not scale:
        return []
    out = ["At scale (each model in its own child process; `ru_maxrss` is its whole peak, Python and the engine "
           "included; the numpy SVD of these Jacobians is **not run**)"
           + (f", from a separate run: `{command}`" if command else "") + ":", "",
           "| model | P | J rows | rank | certified | upper bound from | wall s | CPU s | peak RSS GB | "
           "J as int64 GB | predicted rank peak GB |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in scale:
        if "error" in r:
            out.append(f"| {r['label']} | failed: {r['error']} | | | | | | | | | |")
            continue
        out.append(f"| {r['label']} | {r['P']:,} | {r['rows']:,} | {r['rank']:,} | {r['certified']} | {r['reason']} | "
                   f"{r['wall']:.1f} | {r['cpu']:.1f} | {r['peak_rss'] / 1e9:.2f} | {r['jacobian_bytes'] / 1e9:.2f} | "
                   f"{r['predicted_rank_bytes'] / 1e9:.2f} |")
    out.append("")
    return out


def markdown(rows: list, meta: dict) -> str:
    peers = [p for p in ("float", "sympy", "singular", "macaulay2") if any(p in r for r in rows)]
    names = {"float": "numpy SVD", "sympy": "sympy", "singular": "Singular", "macaulay2": "Macaulay2"}
    clock = meta.get("clock", "wall")
    out = [SUBSECTION if meta.get("subsection") else SECTION, ""]
    if meta.get("preface"):
        out += [meta["preface"], ""]
    route = meta.get("route", "blocked LU modulo p on float64 BLAS, `algebra/exact/elimination.py`, above 50,000 "
                              "entries; flint below")
    out.append(
        "The rank of the Jacobian of a parametrization map at one point, answered side by side in one run "
        "(`benchmarks/bench_rank.py`; routes in `benchmarks/rank_peers.py`). **ours** = "
        "`algebra.engine.dimension(model)`: Jacobian at a random integer point mod p = "
        f"{meta['prime']} built on integer arrays, its exact rank by `rank_mod_p` ({route}), and the certified upper bound "
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
    out.append(f"BLAS threads: {meta['blas_threads']} for every in-process route (numpy SVD, LAPACK and our float64 products); "
               "flint, sympy, Singular and Macaulay2 are single-threaded.  ")
    out.append("Clock: " + ("CPU seconds of the benchmark process (`time.process_time`) for every in-process route: they are all "
                            "single-threaded, and the cores were shared with other jobs.  " if clock == "cpu" else
                            "wall-clock seconds.  "))
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
    out += scale_table(meta.get("scale", []), meta.get("scale_command"))
    gave = meta.get("gave_up", {})
    if gave:
        out.append("Where the exact peers gave up (first size over the cap, or failed): "
                   + "; ".join(f"{names[p]} on {fam} at P = {P}" for (fam, p), P in sorted(gave.items())) + ".")
        out.append("")
    if any("breakdown" in r for r in rows):
        pivots = any("lu_shape" in (r.get("breakdown") or {}) for r in rows)
        if pivots:
            out.append("Where our time goes (one more run per size, seconds): **fields** (the symmetry fields at the "
                       "point, their exact rank and pivot columns), Jacobian build, **residues** (the integer Jacobian "
                       "reduced into one float64 array, keeping the columns outside the fields' pivots: **LU shape**), "
                       "**LU** (the blocked LU modulo p: rank and witness); **rest** = ours minus these four (the "
                       "engine's identity check of the symmetry fields, sampling). Beside them, on the whole Jacobian: "
                       "**flint** (numpy -> `nmod_mat` conversion + `nmod_mat.rank`, the route before issue 14; run up "
                       f"to P = {FLINT_MAX_P:,}) and **lu_factor** (LAPACK `dgetrf` of the float64 Jacobian; best of "
                       "three when under 2 s, as for LU).")
        else:
            out.append("Where our time goes (one more run per size, seconds): upper bound (symmetry-field rank), Jacobian "
                       "build, **residues** (the integer Jacobian reduced into one float64 array), **LU** (the blocked LU "
                       "modulo p: rank and witness); **rest** = ours minus these four (the engine's identity checks of "
                       "the symmetry fields, sampling). Beside them, on the same matrix: **flint** (numpy -> `nmod_mat` "
                       f"conversion + `nmod_mat.rank`, the previous route; run up to P = {FLINT_MAX_P:,}) and **lu_factor** "
                       "(LAPACK `dgetrf` of the float64 matrix; best of three when under 2 s, as for LU).")
        out.append("")
        out.append("| model | P | J shape | " + ("LU shape | fields" if pivots else "upper bound") + " | build | residues | "
                   "LU | rest | ours | flint | lu_factor | (residues+LU)/lu_factor | flint/(residues+LU) |")
        out.append("|---|---|---|" + ("---|" if pivots else "") + "---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            b = r.get("breakdown")
            if b and "residues" in b:  # runs before the blocked LU recorded convert/rank instead
                exact = b["residues"] + b["eliminate"]
                rest = r["ours"] - b["upper_bound"] - b["build"] - exact
                fl = f"{b['flint']:.3g}" if b["flint"] is not None else "—"
                if b["flint_rank"] is not None and b["flint_rank"] != b["rank_value"]:
                    fl += f" (rank {b['flint_rank']}!)"
                lu_shape = f"{b['lu_shape'][0]} x {b['lu_shape'][1]} | " if pivots else ""
                out.append(f"| {r['label']} | {r['P']} | {b['shape'][0]} x {b['shape'][1]} | {lu_shape}{b['upper_bound']:.3g} | "
                           f"{b['build']:.3g} | {b['residues']:.3g} | {b['eliminate']:.3g} | {rest:.3g} | {r['ours']:.3g} | "
                           f"{fl} | {b['lu_factor']:.3g} | {_share(exact, b['lu_factor'])} | "
                           f"{_share(b['flint'], exact) if b['flint'] is not None else '—'} |")
        out.append("")
    if meta.get("notes"):
        out += ["Reading these figures:", ""] + [f"* {note}" for note in meta["notes"]] + [""]
    return "\n".join(out) + "\n"


def write_section(path: Path, text: str, heading: str = SECTION) -> None:
    """Replace (or append) ``heading``'s block in ``path``, leaving every other section alone.

    ``heading`` is the ``## Jacobian rank`` section, or its ``### ...`` subsection
    (appended at the end of that section when absent).
    """
    old = path.read_text() if path.exists() else "# Benchmarks\n\n"
    lines = old.splitlines(keepends=True)
    level = heading.split(" ", 1)[0]
    start = next((i for i, line in enumerate(lines) if line.rstrip() == heading), None)
    if start is None and level == "###":
        sec = next((i for i, line in enumerate(lines) if line.rstrip() == SECTION), None)
        if sec is not None:  # insert at the end of the ## section
            end = next((j for j in range(sec + 1, len(lines)) if lines[j].startswith("## ")), len(lines))
            body = "".join(lines[:end]).rstrip("\n") + "\n\n" + text
            path.write_text(body + ("\n" + "".join(lines[end:]) if end < len(lines) else ""))
            return
    if start is None:
        path.write_text(old.rstrip("\n") + "\n\n" + text)
        return
    stops = ("## ",) if level == "##" else ("## ", "### ")
    end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith(stops)), len(lines))
    path.write_text("".join(lines[:start]) + text + ("\n" if end < len(lines) else "") + "".join(lines[end:]))


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
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                    help="cpu: CPU seconds of this process (default; every in-process route is single-threaded); wall")
    ap.add_argument("--scale", default=None, metavar="default",
                    help="also certify the large models (each in a child process, peak RSS recorded): 'default' = "
                    "mlp 60,120,120,1 t^2 bias; or WIDTHS like 60,120,120,1 (t^2, bias)")
    ap.add_argument("--scale-child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--subsection", action="store_true",
                    help=f"write under '{SUBSECTION}' inside the section instead of replacing the whole section")
    args = ap.parse_args(argv)
    if args.scale_child:
        print(json.dumps(scale_child(args.scale_child, args.seed, args.blas_threads)))
        return 0
    if args.render:
        data = json.loads(Path(args.render).read_text())
        meta = data["meta"]
        meta["gave_up"] = {tuple(k.split("/")): v for k, v in meta["gave_up"].items()}
        text = markdown(data["rows"], meta)
        print(text)
        if args.write:
            write_section(Path(args.write), text, SUBSECTION if meta.get("subsection") else SECTION)
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
            "blas_threads": args.blas_threads, "clock": args.clock, "subsection": args.subsection,
            "route": f"blocked LU modulo p on float64 BLAS, `algebra/exact/elimination.py`, from {FLINT_MAX_ENTRIES:,} "
                     "entries, flint below; on the columns left once the symmetry fields' pivot columns are removed, "
                     "`algebra/engine/fields.py`"}
    clock = CLOCKS[args.clock]
    rows, gave_up = [], {}
    bar = tqdm(cases, desc="jacobian rank", unit="size")
    for case, ss in zip(bar, seeds):
        bar.set_postfix_str(f"{case['label']} (P={case['model'].parameter_count})")
        seed = int(ss.generate_state(1)[0])
        rng = np.random.default_rng(ss.spawn(1)[0])
        row = run_case(case, seed, rng, peers, args.cap, gave_up, not args.no_breakdown, clock)
        row["seed"] = seed
        rows.append(row)
        tqdm.write(json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}, default=str))
    if args.scale:
        specs = SCALE_DEFAULT if args.scale == "default" else (
            (tuple(int(w) for w in args.scale.split(",")), "t^2", True),)
        meta["scale"] = run_scale(specs, args.seed, args.blas_threads)
    meta["machine"]["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    meta["elapsed"] = time.perf_counter() - t_start
    meta["gave_up"] = gave_up
    text = markdown(rows, meta)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": {**meta, "gave_up": {f"{f}/{p}": P for (f, p), P in gave_up.items()}},
                                               "rows": rows}, indent=1, default=str))
    if args.write:
        write_section(Path(args.write), text, SUBSECTION if args.subsection else SECTION)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
