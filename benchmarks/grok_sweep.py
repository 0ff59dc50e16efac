"""Grokking benchmarks: the scaled-down Figures 2, 9 and 1 and the Dask sweep on 1 vs 2 workers.

    nice -n 10 .venv/bin/python benchmarks/grok_sweep.py [--what gsm,fig2,fig1] [--out benchmarks/grok_results]
            [--runs /tmp/neuroalgebra_grok_runs]

* ``gsm``: the GSM-vs-learning-rate sweep (Figure 9) -- the ``small`` preset
  (p = 17, K = 32, f = 0.5, wd = 1e-3, batch 128) at 6 learning rates x 2
  seeds = 12 runs of 2000 epochs -- run twice from scratch, on a LocalCluster
  of 1 and of 2 workers; prints both wall times and the table, and checks
  that the two tables are identical.
* ``fig2``: one ``small`` run with the LLC (paper's SGLD) and the Hutchinson
  trace at every checkpoint, the calibrated estimator every 10th, the
  Jacobian rank and the exact K_eff dimension every 20th, and its figure
  with the certified data lambda.
* ``fig1``: final LLC against p (K = 32) and against K (p = 13), with
  Corollary 5.4's line and the certified data dimension.

Prints markdown for BENCHMARKS.md ("Grokking").
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from algebra.grokking.evaluation import evaluate_run  # noqa: E402
from algebra.grokking.experiments import grid, sweep  # noqa: E402
from algebra.grokking.figures import plot_final_llc, plot_gsm, plot_run  # noqa: E402
from algebra.grokking.references import data_dimension  # noqa: E402
from algebra.grokking.runs import PRESETS, load_run, train  # noqa: E402

GSM_LRS = [0.007, 0.01, 0.015, 0.02, 0.03, 0.05]
SEEDS = [0, 1]


def bench_gsm(out: Path, runs: Path) -> None:
    cfgs = grid(replace(PRESETS["small"], epochs=2000, checkpoint_every=25), lr=GSM_LRS, seed=SEEDS)
    tables, times, loads = {}, {}, {}
    for workers in (1, 2):
        root = runs / f"gsm_w{workers}"
        shutil.rmtree(root, ignore_errors=True)
        t0 = time.perf_counter()
        tables[workers] = sweep(root, cfgs, workers=workers, progress=False)
        times[workers] = time.perf_counter() - t0
        loads[workers] = os.getloadavg()[0]
    fig = plot_gsm(tables[2], out / "gsm_vs_lr.png", title="GSM vs learning rate (p=17, K=32, f=0.5, 12 runs)")
    keys = ("lr", "seed", "gsm", "grok_epoch", "final_val_acc")
    same = [{k: r[k] for k in keys} for r in tables[1]] == [{k: r[k] for k in keys} for r in tables[2]]
    print(f"sweep of {len(cfgs)} runs: 1 worker {times[1]:.1f} s, 2 workers {times[2]:.1f} s "
          f"(speed-up {times[1] / times[2]:.2f}x); tables identical: {same}; 1-minute load average after each: "
          f"{loads[1]:.1f}, {loads[2]:.1f} on {os.cpu_count()} CPUs; training seconds summed over tasks: "
          f"{sum(r['train_seconds'] for r in tables[1]):.1f}, {sum(r['train_seconds'] for r in tables[2]):.1f}; figure {fig}")
    print("| lr | seed | fit epoch | grok epoch | final val acc | GSM |")
    print("|---|---|---|---|---|---|")
    for r in tables[2]:
        print(f"| {r['lr']:g} | {r['seed']} | {r['fit_epoch']} | {r['grok_epoch']} | {r['final_val_acc']:.3f} | {r['gsm']:.4f} |")


def bench_fig2(out: Path, runs: Path) -> None:
    path = runs / "fig2_run"
    t0 = time.perf_counter()
    run = train(path, PRESETS["small"])
    t_train = time.perf_counter() - t0
    t0 = time.perf_counter()
    ev = evaluate_run(path, every=1, calibrated_every=10, jacobian_every=20)
    t_eval = time.perf_counter() - t0
    cfg = run.config
    d = data_dimension(cfg.p, cfg.width, cfg.train_fraction, cfg.seed, coefficient_space=False)
    fig = plot_run(load_run(path).loss_data(), ev, out / "fig2_grokking.png",
                   title=f"p={cfg.p}, K={cfg.width}, f={cfg.train_fraction}, lr={cfg.lr:g}, wd={cfg.weight_decay:g}",
                   exact_lambda=d["dimension"] / 2)
    rows = run.loss_data()
    fit = next(int(r["epoch"]) for r in rows if r["train_acc"] == 1.0)
    grok = next((int(r["epoch"]) for r in rows if r["val_acc"] >= 0.95), None)
    peak = max(ev, key=lambda r: r["llc_sgld"])
    hpeak = max(ev, key=lambda r: r["hutch"])
    print(f"small run: train {t_train:.1f} s, evaluation of {len(ev)} checkpoints {t_eval:.1f} s; "
          f"train acc 1.0 at epoch {fit}, val acc >= 0.95 at epoch {grok}; final val acc {rows[-1]['val_acc']:.3f}; "
          f"figure {fig}")
    print(f"LLC (SGLD) peak {peak['llc_sgld']:.1f} +- {peak['llc_sgld_se']:.1f} at epoch {int(peak['epoch'])}, "
          f"final {ev[-1]['llc_sgld']:.1f} +- {ev[-1]['llc_sgld_se']:.1f}; Hutchinson peak {hpeak['hutch']:.1f} at epoch "
          f"{int(hpeak['epoch'])}, final {ev[-1]['hutch']:.1f}; certified data dimension {d['dimension']} "
          f"(lambda_data {d['lambda_data']}, certified {d['certified']}); Cor. 5.4 K(3p-1)/2 = {d['paper_value'] / 2:g}")
    print("| epoch | val acc | LLC SGLD | LLC calibrated (verdict) | tr H | K_eff | Jacobian rank (gap) | exact dim for K_eff |")
    print("|---|---|---|---|---|---|---|---|")
    for r in ev:
        if r["llc_cal"] == r["llc_cal"] or r["jac_rank"] == r["jac_rank"]:
            cal = "" if r["llc_cal"] != r["llc_cal"] else f"{r['llc_cal']:.1f} +- {r['llc_cal_se']:.1f} ({r['llc_cal_verdict']})"
            jac = "" if r["jac_rank"] != r["jac_rank"] else f"{int(r['jac_rank'])} ({r['jac_gap']:.2g})"
            ex = "" if r["exact_dim_k_eff"] != r["exact_dim_k_eff"] else f"{int(r['exact_dim_k_eff'])}"
            print(f"| {int(r['epoch'])} | {r['val_acc']:.3f} | {r['llc_sgld']:.1f} +- {r['llc_sgld_se']:.1f} | {cal} | "
                  f"{r['hutch']:.1f} +- {r['hutch_se']:.1f} | {int(r['k_eff'])} | {jac} | {ex} |")


def bench_fig1(out: Path, runs: Path) -> None:
    base = replace(PRESETS["small"], epochs=1500)
    t0 = time.perf_counter()
    by_p = sweep(runs / "fig1_p", grid(replace(base, width=32), p=[7, 11, 13, 17, 23]), llc="final", exact=True,
                 workers=2, progress=False)
    by_k = sweep(runs / "fig1_K", grid(replace(base, p=13), width=[8, 16, 32, 48, 64]), llc="final", exact=True,
                 workers=2, progress=False)
    print(f"Figure 1 sweeps (10 runs, final LLC + certified data dimension): {time.perf_counter() - t0:.1f} s")
    plot_final_llc(by_p, out / "fig1a_llc_vs_p.png", by="p")
    plot_final_llc(by_k, out / "fig1b_llc_vs_K.png", by="width")
    print("| p | K | final val acc | final LLC (SGLD) | certified data dim / 2 | Cor. 5.4 K(3p-1)/2 |")
    print("|---|---|---|---|---|---|")
    for r in by_p + by_k:
        if r["exact_dimension"] is None:
            exact = "too large for the engine"
        else:
            exact = f"{r['exact_dimension'] / 2:g}{'' if r['exact_certified'] else ' (lower bound)'}"
        print(f"| {r['p']} | {r['width']} | {r['final_val_acc']:.3f} | {r['llc_final']:.1f} +- {r['llc_final_se']:.1f} | "
              f"{exact} | {r['paper_value'] / 2:g} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--what", default="gsm,fig2,fig1")
    ap.add_argument("--out", default="benchmarks/grok_results", help="figures")
    ap.add_argument("--runs", default="/tmp/neuroalgebra_grok_runs", help="run directories (checkpoints: MBs)")
    args = ap.parse_args(argv)
    out, runs = Path(args.out), Path(args.runs)
    out.mkdir(parents=True, exist_ok=True)
    runs.mkdir(parents=True, exist_ok=True)
    for what in args.what.split(","):
        {"gsm": bench_gsm, "fig2": bench_fig2, "fig1": bench_fig1}[what](out, runs)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
