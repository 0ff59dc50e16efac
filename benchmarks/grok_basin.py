"""The basin question of the grokking paper on certified local ranks (issue 23, item 4).

    nice -n 10 .venv/bin/python benchmarks/grok_basin.py [--runs runs/grok_basin] [--out benchmarks/grok_results]
            [--workers 2] [--certificates DIR]

1. Trains, on the Dask runner (:func:`algebra.grokking.experiments.sweep`, a LocalCluster of ``--workers``),
   at p = 13, 17, 23, 31 (K = 32, lr 1e-2, batch 128, 1500 epochs) and seeds 0, 1: runs that *memorise*
   (no weight decay, f = 0.3), runs that *grok* (wd = 1e-3, f = 0.5; 0.6 at p = 13) and, at p = 17, runs on the grokking
   runs' own split without weight decay (f = 0.5, wd = 0: they memorise there; at p = 23 and 31 they generalise).
2. Certifies the local rank (a ``local_rank`` certificate, :func:`algebra.certify.local_rank.certify_checkpoint`)
   at five checkpoints per run -- epoch 0, the first epoch fitting the training data, the last memorising epoch,
   the first generalising epoch and the last (evenly spaced epochs fill in where these coincide) -- one Dask
   task per checkpoint (resumable table ``basin_table.jsonl``), beside the paper's SGLD LLC (``grok llc``'s
   settings), K_eff and ``wd ||theta||``.
3. Decides the basin claim with :func:`algebra.certify.local_rank.basin_verdict` (checkpoints grouped by
   training set) and prints the markdown table for BENCHMARKS.md ("Grokking").
4. With ``--estimates``, measures at the same checkpoints (one Dask task each, resumable table
   ``basin_estimates.jsonl``) the estimates of issue 23 item 3 beside the certified value: the calibrated LLC
   (``target="empirical"``, FAST settings) with its verdict, the paper's SGLD with its split R-hat, the Laplace
   prediction of the paper's settings (nbeta = 30, gamma = 5) from the Hessian at the checkpoint, and the
   Hutchinson trace (100 probes); prints the side-by-side table and draws ``basin_estimates.png``.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from algebra.certify.local_rank import basin_table, basin_verdict, certify_checkpoint, phase
from algebra.grokking.experiments import run_name, sweep
from algebra.grokking.runs import TrainConfig, checkpoint_key, load_run
from algebra.sweep import run_sweep, write_csv

SIZES = (13, 17, 23, 31)
#: training fraction of the grokking runs (p = 13 groks at the ``tiny`` preset's 0.6, not at 0.5 within 1500 epochs)
GROK_F = {13: 0.6, 17: 0.5, 23: 0.5, 31: 0.5}
SEEDS = (0, 1)
BASE = TrainConfig(width=32, lr=1e-2, batch_size=128, epochs=1500, checkpoint_every=25)


def configs() -> list:
    out = []
    for p in SIZES:
        for s in SEEDS:
            out.append(replace(BASE, p=p, seed=s, weight_decay=0.0, train_fraction=0.3))  # memorise
            out.append(replace(BASE, p=p, seed=s, weight_decay=1e-3, train_fraction=GROK_F[p]))  # grok
            if p == 17:
                out.append(replace(BASE, p=p, seed=s, weight_decay=0.0, train_fraction=0.5))  # same split, no wd
    return [c.validated() for c in out]


def checkpoints(run, count: int = 5) -> list:
    """Epoch 0, first fit, last memorising, first generalising, last; evenly spaced ones fill up to ``count``."""
    rows = run.loss_data()
    ep = [int(r["epoch"]) for r in rows]
    fit = next((e for e, r in zip(ep, rows) if r["train_acc"] >= 0.99), None)
    mem = [e for e, r in zip(ep, rows) if phase(r["train_acc"], r["val_acc"]) == "memorising"]
    gen = next((e for e, r in zip(ep, rows) if r["val_acc"] >= 0.95 and r["train_acc"] >= 0.99), None)
    want = [0, fit, mem[-1] if mem else None, gen, ep[-1]]
    chosen = sorted({e for e in want if e is not None})
    for e in np.linspace(0, ep[-1], 2 * count):
        if len(chosen) >= count:
            break
        near = min(ep, key=lambda x: abs(x - e))
        if near not in chosen:
            chosen = sorted(chosen + [near])
    return chosen


def certify_item(item: dict) -> dict:
    """One Dask task: certify checkpoint ``item["epoch"]`` of ``item["run"]`` and measure its estimates."""
    from algebra.grokking.evaluation import evaluate_checkpoint

    run = load_run(item["run"])
    t0 = time.perf_counter()
    path = Path(item["certificates"]) / f"{Path(item['run']).name}_e{item['epoch']}.json" if item["certificates"] else None
    e = certify_checkpoint(run, item["epoch"], path, self_check=False)
    secs = time.perf_counter() - t0
    c = e.certificate["claim"]
    theta = run.theta(item["epoch"])
    ev = evaluate_checkpoint(run, item["epoch"], hutchinson_vectors=20)
    cfg = run.config
    return {"p": cfg.p, "width": cfg.width, "train_fraction": cfg.train_fraction, "weight_decay": cfg.weight_decay,
            "seed": cfg.seed, "group": f"p{cfg.p}_K{cfg.width}_f{cfg.train_fraction:g}_s{cfg.seed}",
            "train_acc": float(ev["train_acc"]), "val_acc": float(ev["val_acc"]),
            "phase": phase(float(ev["train_acc"]), float(ev["val_acc"])),
            "maps": c["maps"], "gradient_norm_at_most": c["gradient_norm_at_most"],
            "train_loss_at_most": c["train_loss_at_most"], "wd_theta": cfg.weight_decay * float(np.linalg.norm(theta)),
            "critical": c["critical"], "lambda": c["lambda"], "multiplicity": c["multiplicity"],
            "lambda_bounds": c["lambda_bounds"], "hypothesis_fails": c["hypothesis_fails"],
            "llc_sgld": float(ev["llc_sgld"]), "llc_sgld_se": float(ev["llc_sgld_se"]), "k_eff": int(ev["k_eff"]),
            "certificate_sha256": e.certificate["sha256"], "certify_seconds": round(secs, 1)}


def estimates_item(item: dict) -> dict:
    """One Dask task: the estimates of issue 23 item 3 at checkpoint ``item["epoch"]`` of ``item["run"]``."""
    from algebra.grokking.evaluation import evaluate_checkpoint

    t0 = time.perf_counter()
    ev = evaluate_checkpoint(load_run(item["run"]), item["epoch"], calibrated=True, hutchinson_vectors=100)
    keep = ("seed", "llc_sgld", "llc_sgld_se", "llc_sgld_rhat", "llc_cal", "llc_cal_se", "llc_cal_verdict",
            "llc_cal_reasons", "llc_cal_target", "llc_sgld_laplace", "hutch", "hutch_se")
    return {**{k: (None if isinstance(ev[k], float) and ev[k] != ev[k] else ev[k]) for k in keep},
            "estimate_seconds": round(time.perf_counter() - t0, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", default="runs/grok_basin")
    ap.add_argument("--out", default="benchmarks/grok_results")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--certificates", default=None, help="also keep every certificate in this directory")
    ap.add_argument("--estimates", action="store_true",
                    help="also measure the calibrated LLC, the paper's SGLD with R-hat, its Laplace prediction and "
                         "tr H at every checkpoint (item 3; 20-370 s a checkpoint on the shared 2-core machine)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    cfgs = configs()
    sweep(args.runs, cfgs, workers=args.workers, progress=False)
    t_train = time.perf_counter() - t0
    if args.certificates:
        Path(args.certificates).mkdir(parents=True, exist_ok=True)
    items = [{"run": str(Path(args.runs) / run_name(c)), "epoch": e, "certificates": args.certificates}
             for c in cfgs for e in checkpoints(load_run(Path(args.runs) / run_name(c)))]
    t1 = time.perf_counter()
    rows = run_sweep(certify_item, items, key=checkpoint_key,
                     workers=args.workers, table=Path(args.out) / "basin_table.jsonl", progress=False,
                     desc="local rank")
    t_cert = time.perf_counter() - t1
    out = Path(args.out)
    write_csv([{k: (json.dumps(v) if isinstance(v, (dict, list)) else v) for k, v in r.items()} for r in rows],
              out / "basin.csv")
    verdict, reason = basin_verdict(rows)
    print(f"<!-- {len(cfgs)} runs trained in {t_train:.0f} s, {len(rows)} checkpoints certified in {t_cert:.0f} s "
          f"on a LocalCluster of {args.workers} workers; slowest certificate "
          f"{max(r['certify_seconds'] for r in rows)} s -->")
    print(basin_table(rows))
    print(f"\nBasin verdict: **{verdict}** -- {reason}")
    if args.estimates:
        from algebra.certify.local_rank import estimates_table
        from algebra.grokking.figures import plot_basin_estimates

        t2 = time.perf_counter()
        est = run_sweep(estimates_item, items, key=checkpoint_key,
                        workers=args.workers, table=out / "basin_estimates.jsonl", progress=False,
                        desc="estimates")
        print(f"\n<!-- {len(est)} checkpoints' estimates in {time.perf_counter() - t2:.0f} s; slowest "
              f"{max(r['estimate_seconds'] for r in est)} s -->")
        print(estimates_table(rows, est))
        print(f"\nfigure: {plot_basin_estimates(rows, est, out / 'basin_estimates.png')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
