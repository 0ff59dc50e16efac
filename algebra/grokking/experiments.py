"""Sweeps of grokking runs on the shared Dask runner (:mod:`algebra.sweep`).

One task per run: train (or resume) the run directory, then summarise it:
final accuracies, the epoch at which validation accuracy first reaches
0.95, the GSM (App. H.3) and, on request, the final LLC with the paper's
SGLD settings and the engine's certified data dimension (Figure 1's
"exact line").  Results are gathered into ``sweep.csv`` beside
``results.jsonl`` (the resumable table of :func:`algebra.sweep.run_sweep`).

The paper's figures regenerate from these tables:

* Figure 1(a, b): final LLC against ``p`` and against ``K`` (``--p`` or
  ``--width`` lists, ``--llc final --exact``);
* Figure 9: GSM against the learning rate (``--lr`` list, several seeds).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import asdict, fields, replace
from pathlib import Path

from algebra.errors import InputError
from algebra.grokking.evaluation import evaluate_run, gsm
from algebra.grokking.runs import TrainConfig, train
from algebra.sweep import run_sweep, write_csv

__all__ = ["GRID_FIELDS", "LLC_MODES", "grid", "run_name", "run_item", "sweep"]

GRID_FIELDS = ("p", "width", "lr", "weight_decay", "train_fraction", "seed")
LLC_MODES = ("none", "final", "trajectory")


def run_name(cfg: TrainConfig) -> str:
    """Directory name of a run in a sweep.

    Examples
    --------
    >>> run_name(TrainConfig(p=7, width=8, lr=0.01))
    'p7_K8_lr0.01_wd0.001_f0.5_s0'
    """
    return (f"p{cfg.p}_K{cfg.width}_lr{cfg.lr:g}_wd{cfg.weight_decay:g}"
            f"_f{cfg.train_fraction:g}_s{cfg.seed}")


def grid(base: TrainConfig, **lists) -> list:
    """Cartesian product of value lists over :data:`GRID_FIELDS`, as validated configs.

    Examples
    --------
    >>> [(c.p, c.seed) for c in grid(TrainConfig(), p=[7, 11], seed=[0, 1])]
    [(7, 0), (7, 1), (11, 0), (11, 1)]
    >>> grid(TrainConfig(), depth=[1])
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid grid='depth': expected fields among p, width, lr, weight_decay, train_fraction, seed
    """
    for k in lists:
        if k not in GRID_FIELDS:
            raise InputError("grid", k, "fields among " + ", ".join(GRID_FIELDS))
    names = [f for f in GRID_FIELDS if lists.get(f)]
    out = []
    for combo in itertools.product(*(lists[n] for n in names)):
        out.append(replace(base, **dict(zip(names, combo))).validated())
    return out


def run_item(item: dict) -> dict:
    """Sweep task: train the run ``item["root"]/run_name`` and summarise it (module docstring)."""
    cfg = TrainConfig(**{f.name: item[f.name] for f in fields(TrainConfig)})
    path = Path(item["root"]) / run_name(cfg)
    t0 = time.perf_counter()
    run = train(path, cfg)
    seconds = time.perf_counter() - t0
    rows = run.loss_data()
    ep = [r["epoch"] for r in rows]
    ta = [r["train_acc"] for r in rows]
    va = [r["val_acc"] for r in rows]
    grok = next((int(e) for e, v in zip(ep, va) if v >= 0.95), None)
    fit = next((int(e) for e, t in zip(ep, ta) if t >= 0.99), None)
    out = {"run": str(path), "final_train_acc": ta[-1], "final_val_acc": va[-1], "fit_epoch": fit,
           "grok_epoch": grok, "gsm": gsm(ep, ta, va), "train_seconds": round(seconds, 3)}
    mode = item.get("llc", "none")
    if mode != "none":
        every = len(rows) if mode == "final" else max(1, int(item.get("llc_every", 1)))
        ev = evaluate_run(path, every=every, seed=int(item.get("llc_seed", 0)))
        last = ev[-1]
        out.update(llc_final=last["llc_sgld"], llc_final_se=last["llc_sgld_se"],
                   hutch_final=last["hutch"], k_eff_final=last["k_eff"])
        if mode == "trajectory":
            peak = max(ev, key=lambda r: r["llc_sgld"])
            out.update(llc_peak=peak["llc_sgld"], llc_peak_epoch=int(peak["epoch"]))
    if item.get("exact"):
        from algebra.errors import ResourceError
        from algebra.grokking.references import data_dimension

        out["paper_value"] = cfg.width * (3 * cfg.p - 1)
        try:
            d = data_dimension(cfg.p, cfg.width, cfg.train_fraction, cfg.seed, coefficient_space=False)
        except ResourceError as exc:  # too large for the engine: reported, never guessed
            out.update(exact_dimension=None, exact_certified=None, exact_upper=None, exact_note=str(exc))
        else:
            out.update(exact_dimension=d["dimension"], exact_certified=d["certified"], exact_upper=d["upper_bound"])
    return out


def sweep(root, configs, *, llc: str = "none", llc_every: int = 1, exact: bool = False,
          scheduler: str | None = None, workers: int | None = None, progress: bool = True) -> list:
    """Run every config as one task; gather ``root/sweep.csv``; resumable (module docstring).

    Examples
    --------
    >>> import tempfile
    >>> root = tempfile.mkdtemp()
    >>> cfgs = grid(TrainConfig(p=5, width=4, train_fraction=0.8, epochs=4, checkpoint_every=2), lr=[0.01, 0.02])
    >>> rows = sweep(root, cfgs, scheduler="serial", progress=False)
    >>> [r["lr"] for r in rows], sorted(p.name for p in Path(root).iterdir())[-2:]
    ([0.01, 0.02], ['results.jsonl', 'sweep.csv'])
    """
    if llc not in LLC_MODES:
        raise InputError("--llc", llc, "one of " + ", ".join(LLC_MODES))
    root = Path(root)
    items = [{**asdict(c), "root": str(root), "llc": llc, "llc_every": int(llc_every), "exact": bool(exact)}
             for c in configs]
    if not items:
        raise InputError("grid", "empty", "at least one configuration")
    rows = run_sweep(run_item, items, key=lambda it: run_name(TrainConfig(**{f.name: it[f.name] for f in fields(TrainConfig)}))
                     + f"|{it['epochs']}|{it['llc']}|{it['exact']}",
                     scheduler=scheduler, workers=workers, table=root / "results.jsonl",
                     progress=progress, desc="grok sweep")
    write_csv(rows, root / "sweep.csv")
    return rows
