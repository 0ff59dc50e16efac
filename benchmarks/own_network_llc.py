"""``algebra.llc`` (the one call for a user's module) on deep linear networks with exact values, design and held-out.

Two sets of torch modules, each a deep linear network (``nn.Sequential`` of bias-free ``Linear``) at a
rank-deficient teacher with noiseless data (:func:`algebra.numeric.own_network.exact_twin`: ``Y = net(X)``,
so ``w*`` minimises ``L_n`` exactly and the empirical and population targets coincide at Aoyagi's value):

* ``design``: the models the constants of :mod:`algebra.numeric.own_network` (``GAMMA_SCALE``, ``BATCH``,
  the draw caps, the pilot's stationarity rule) were chosen on; ``--const NAME=VALUE`` overrides one for a
  design run (recorded in every row; rows go to ``design-<tag>``).
* ``heldout``: other widths, depths 2-4, ranks, n and float32, run only with the frozen constants.

Every row also times one sampler step of ``algebra.llc`` (8 chains, RMSProp, frozen preconditioner, its
batch) against the repo's devinterp-style plain SGLD :func:`algebra.numeric.torch_backend.sgld_llc` (same
module, batch and chains), each as the difference of two call lengths over their step difference.

    PY benchmarks/own_network_llc.py run --set design [--const GAMMA_SCALE=0.1 --tag g01]
    PY benchmarks/own_network_llc.py run --set heldout
    PY benchmarks/own_network_llc.py steps               # per-step cost at P ~ 10^3, 10^4, 10^5, threads 1 and 2
    PY benchmarks/own_network_llc.py report --write      # -> BENCHMARKS.md, <!-- own_network_llc --> block

Each row is one JSON file under ``benchmarks/llc_results/own_network/<set>/``, written when it finishes;
a rerun skips the rows that exist (resumable).  One torch thread per row unless ``--threads``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

OUT = os.path.join(os.path.dirname(__file__), "llc_results", "own_network")

# name, widths, teacher rank, n, dtype, seed
DESIGN = [
    ("d1", (10, 20, 10), 2, 1000, "float64", 1),
    ("d2", (20, 30, 20), 3, 3000, "float64", 2),
    ("d3", (20, 25, 25, 20), 2, 5000, "float64", 3),
    ("d4", (40, 50, 40), 5, 10000, "float64", 4),
]
HELDOUT = [
    ("h1", (12, 16, 8), 1, 2000, "float64", 11),
    ("h2", (16, 24, 24, 16), 3, 5000, "float32", 12),
    ("h3", (25, 20, 25), 4, 20000, "float64", 13),
    ("h4", (20, 30, 30, 30, 20), 2, 8000, "float32", 14),
    ("h5", (50, 60, 40), 6, 10000, "float64", 15),
    ("h6", (80, 100, 80), 8, 10000, "float32", 16),
]
# P = 10^5 (the speed target): run on its own, after the held-out set, when the machine time allows
SCALE = [("s1", (200, 250, 200), 10, 10000, "float32", 17)]
SETS = {"design": DESIGN, "heldout": HELDOUT, "scale": SCALE}
STEP_MODELS = [("P~1e3", (20, 25, 20)), ("P~1e4", (50, 100, 50)), ("P~1e5", (200, 250, 200))]


def _twin(torch, widths, rank, n, dtype, seed):
    from algebra.numeric.own_network import exact_twin

    return exact_twin(list(widths), n, seed=seed, rank=rank, dtype=getattr(torch, dtype))


def step_cost(torch, net, X, Y, *, batch: int, chains: int, steps: int, clock=time.perf_counter) -> dict:
    """Seconds per sampler step: ours (RMSProp, frozen, recorded graph) and sgld_llc (traced), same batch.

    ``clock``: wall (``time.perf_counter``, what the held-out rows record) or this process's CPU time
    (``time.process_time``, used by ``steps`` at one thread: on the shared cores it does not count the
    time other jobs hold the core)."""
    import numpy as np

    from algebra.numeric.own_network import _Sampler, half_squared_error
    from algebra.numeric.torch_backend import sgld_llc

    n = X.shape[0]
    nbeta = n / np.log(n)

    def ours(k):
        s = _Sampler(net, half_squared_error, (X, Y), batch_size=batch, device=torch.device("cpu"), seed=0,
                     chains=chains, nbeta=nbeta, gamma=1.0, precondition=True, bar=None)
        ch = s.start()
        ch.run(1e-6, 8, adapt=True)
        ch.run(1e-6, 8, adapt=False)  # both graphs (adapting, frozen) recorded before the clock starts
        t = clock()
        ch.run(1e-6, k, adapt=False)
        return clock() - t

    def peer(k):
        t = clock()
        sgld_llc(net, half_squared_error, (X, Y), nbeta=nbeta, gamma=1.0, step_size=1e-8, num_chains=chains,
                 num_draws=k, batch_size=batch)
        return clock() - t

    ours(steps), peer(steps)  # traces recorded
    a, b = [], []
    for _ in range(2):  # alternate the sides
        a.append((ours(2 * steps) - ours(steps)) / steps)
        b.append((peer(2 * steps) - peer(steps)) / steps)
    a, b = float(np.median(a)), float(np.median(b))
    return {"ours_s": a, "peer_s": b, "ratio": a / b, "steps": steps, "chains": chains, "batch": batch}


def run_row(torch, spec, consts: dict, threads: int) -> dict:
    import algebra
    from algebra.numeric import own_network as on

    name, widths, rank, n, dtype, seed = spec
    torch.set_num_threads(threads)
    net, X, Y, lam = _twin(torch, widths, rank, n, dtype, seed)
    P = sum(p.numel() for p in net.parameters())
    t = time.perf_counter()
    res = algebra.llc(net, on.half_squared_error, (X, Y), seed=seed, progress=False)
    wall = time.perf_counter() - t
    exact = float(lam)
    steps = max(16, min(256, int(2e7 // P)))
    cost = step_cost(torch, net, X, Y, batch=min(n, on.BATCH), chains=on.CHAINS, steps=steps)
    return {"name": name, "widths": list(widths), "rank": rank, "n": n, "dtype": dtype, "seed": seed, "P": P,
            "exact": str(lam), "estimate": res.estimate, "stderr": res.stderr,
            "relative_error": (res.estimate - exact) / exact, "verdict": res.verdict, "reasons": list(res.reasons),
            "rhat": res.rhat, "ess": res.ess, "laplace": res.laplace, "wall_s": wall, "threads": threads,
            "settings": {k: v for k, v in res.settings.items() if k != "why"}, "pilot": list(res.pilot),
            "halving": list(res.halving), "step_cost": cost, "consts": consts,
            "load": os.getloadavg(), "torch": torch.__version__}


def cmd_run(a) -> int:
    import torch

    from algebra.files import write_atomic
    from algebra.numeric import own_network as on

    consts = {}
    for item in a.const or ():
        k, v = item.split("=", 1)
        if not hasattr(on, k):
            raise SystemExit(f"unknown constant {k}")
        setattr(on, k, type(getattr(on, k))(float(v)) if isinstance(getattr(on, k), (int, float)) else v)
        consts[k] = getattr(on, k)
    if consts and a.set != "design":
        raise SystemExit("--const is for the design set only (the held-out set runs frozen)")
    folder = os.path.join(OUT, a.set + (f"-{a.tag}" if a.tag else ""))
    os.makedirs(folder, exist_ok=True)
    for spec in SETS[a.set]:
        if a.only and spec[0] not in a.only:
            continue
        path = os.path.join(folder, f"{spec[0]}.json")
        if os.path.exists(path):
            continue
        row = run_row(torch, spec, consts, a.threads)
        write_atomic(path, json.dumps(row, indent=1, default=float).encode())
        print(f"{row['name']} P={row['P']} {row['estimate']:.3f} +- {row['stderr']:.3f} vs {row['exact']} "
              f"({100 * row['relative_error']:+.1f}%) {row['verdict']} {row['wall_s']:.0f}s "
              f"step {1e3 * row['step_cost']['ours_s']:.2f} ms vs {1e3 * row['step_cost']['peer_s']:.2f} ms "
              f"{row['reasons']}", flush=True)
    return 0


def cmd_steps(a) -> int:
    import torch

    from algebra.files import write_atomic
    from algebra.numeric import own_network as on

    rows = []
    for label, widths in STEP_MODELS:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            net, X, Y, _ = _twin(torch, widths, 2, 2000, "float64", 0)
            P = sum(p.numel() for p in net.parameters())
            c = step_cost(torch, net, X, Y, batch=on.BATCH, chains=on.CHAINS, steps=max(8, min(100, int(2e6 // P))),
                          clock=time.process_time if threads == 1 else time.perf_counter)
            rows.append({"model": label, "widths": list(widths), "P": P, "threads": threads, **c,
                         "clock": "cpu" if threads == 1 else "wall", "load": os.getloadavg()})
            print(rows[-1], flush=True)
    os.makedirs(OUT, exist_ok=True)
    write_atomic(os.path.join(OUT, "steps.json"), json.dumps(rows, indent=1).encode())
    return 0


def _load(folder):
    import glob

    return [json.load(open(p)) for p in sorted(glob.glob(os.path.join(OUT, folder, "*.json")))]


def _step_cell(c) -> str:
    """``ours / peer ms (ratio)``, or why there is none: each figure is a difference of two wall-clock call lengths,
    which a loaded machine can make zero or negative (then it measured nothing, and the table says so)."""
    if c["ours_s"] <= 0 or c["peer_s"] <= 0:
        return "not resolved at this load (a call-length difference <= 0)"
    return f"{1e3 * c['ours_s']:.1f} / {1e3 * c['peer_s']:.1f} ms ({c['ratio']:.2f})"


def _table(rows) -> list:
    lines = ["| model | widths (rank) | dtype | P | n | estimate +- se | exact | rel. error | verdict | wall | "
             "step: ours / peer (ratio) |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        c = r["step_cost"]
        why = "" if r["verdict"] == "ok" else " (" + "; ".join(
            x if len(x) <= 60 else x[:57] + "..." for x in r["reasons"]) + ")"
        lines.append(f"| {r['name']} | {'x'.join(map(str, r['widths']))} ({r['rank']}) | {r['dtype']} | {r['P']:,} | "
                     f"{r['n']:,} | {r['estimate']:.2f} +- {r['stderr']:.2f} | {r['exact']} | "
                     f"{100 * r['relative_error']:+.1f}% | {r['verdict']}{why} | {r['wall_s']:.0f} s | "
                     f"{_step_cell(c)} |")
    return lines


def _summary(rows) -> str:
    import numpy as np

    if not rows:
        return "no rows"
    err = np.abs([r["relative_error"] for r in rows])
    ok = [r for r in rows if r["verdict"] == "ok"]
    worst_ok = max((abs(r["relative_error"]) for r in ok), default=None)
    big = max(rows, key=lambda r: r["P"])
    return (f"{len(rows)} rows: median |rel. error| {100 * np.median(err):.1f}%, {len(ok)}/{len(rows)} ok "
            f"({100 * len(ok) / len(rows):.0f}%), largest |rel. error| among ok rows "
            f"{'-' if worst_ok is None else f'{100 * worst_ok:.1f}%'}; "
            f"largest P {big['P']:,} ({big['wall_s']:.0f} s, {big['threads']} thread(s))")


def cmd_report(a) -> int:
    import glob

    lines = []
    designs = sorted(d for d in os.listdir(OUT) if d.startswith("design")) if os.path.isdir(OUT) else []
    for d in designs:
        rows = _load(d)
        consts = rows[0]["consts"] if rows else {}
        lines += [f"**Design set, `{d}`** (constants overridden: {consts or 'none, the committed ones'}): "
                  + _summary(rows), ""] + _table(rows) + [""]
    rows = _load("heldout")
    lines += ["**Held-out set, frozen procedure**: " + _summary(rows), ""] + _table(rows) + [""]
    scale = _load("scale")
    if scale:
        lines += ["**Scale row (P = 10^5), frozen procedure**:", ""] + _table(scale) + [""]
    for name in ("steps.json", "steps_wall.json"):
        sp = os.path.join(OUT, name)
        if not os.path.exists(sp):
            continue
        st = json.load(open(sp))
        if name == "steps_wall.json":
            lines += ["", "The same by the wall clock at both thread counts (the held-out worktree's run, at the "
                      "frozen commit, while other jobs shared the cores):", ""]
            lines += ["| model | P | threads | clock | ours | peer | ratio | load |", "|---|---|---|---|---|---|---|---|"]
            for r in st:
                lines.append(f"| {r['model']} | {r['P']:,} | {r['threads']} | wall | {1e3 * r['ours_s']:.2f} ms | "
                             f"{1e3 * r['peer_s']:.2f} ms | {r['ratio']:.2f} | {r['load'][0]:.1f} |")
            continue
        lines += ["**Per sampler step** (8 chains, batch 256, float64, n = 2,000): ours (RMSProp-SGLD, frozen "
                  "preconditioner, one recorded graph) against `sgld_llc` (plain SGLD, traced), each the "
                  "difference of two call lengths over their step difference, median of 2 alternating rounds; "
                  "one thread timed by the process's CPU clock, two threads by the wall clock.",
                  "", "| model | P | threads | clock | ours | peer | ratio | load |", "|---|---|---|---|---|---|---|---|"]
        for r in st:
            lines.append(f"| {r['model']} | {r['P']:,} | {r['threads']} | {r.get('clock', 'wall')} | "
                         f"{1e3 * r['ours_s']:.2f} ms | {1e3 * r['peer_s']:.2f} ms | {r['ratio']:.2f} | "
                         f"{r['load'][0]:.1f} |")
    body = "\n".join(lines)
    print(body)
    if a.write:
        from llc_devinterp import replace_between_markers

        replace_between_markers(os.path.join(os.path.dirname(__file__), "..", "BENCHMARKS.md"), "own_network_llc",
                                body, "PY benchmarks/own_network_llc.py report --write")
    del glob
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--set", choices=tuple(SETS), required=True)
    r.add_argument("--const", action="append", help="NAME=VALUE, a constant of own_network (design set only)")
    r.add_argument("--tag", default="")
    r.add_argument("--only", nargs="*")
    r.add_argument("--threads", type=int, default=1)
    r.set_defaults(fn=cmd_run)
    s = sub.add_parser("steps")
    s.set_defaults(fn=cmd_steps)
    w = sub.add_parser("report")
    w.add_argument("--write", action="store_true")
    w.set_defaults(fn=cmd_report)
    a = p.parse_args(argv)
    return a.fn(a)


if __name__ == "__main__":
    raise SystemExit(main())
