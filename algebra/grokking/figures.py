"""The paper's figures from run directories and sweep tables (matplotlib, imported lazily).

* :func:`plot_run` -- Figure 2: accuracies; LLC (SGLD, and the calibrated
  estimator where computed) and validation loss; Hutchinson trace; every
  estimate with its error bar (1.96 standard errors), and the exact
  reference ``dimension / 2`` of the data-restricted model when given.
* :func:`plot_gsm` -- Figure 9: GSM against the learning rate (mean over
  seeds, every run shown).
* :func:`plot_final_llc` -- Figure 1(a)/(b): final LLC against ``p`` or ``K``,
  with Corollary 5.4's line ``K(3p-1)/2`` and the certified data line.
* :func:`plot_basin_estimates` -- issue 23: per training run, the certified
  ``rank / 2`` at each checkpoint beside the paper's SGLD, the Laplace
  prediction of its settings, the calibrated LLC (where ``ok``) and ``tr H``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from algebra.errors import InputError

__all__ = ["plot_run", "plot_gsm", "plot_final_llc", "plot_basin_estimates"]

Z95 = 1.959963984540054


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise InputError("--format", "png", "matplotlib installed (pip install neuroalgebra[plot])") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(plt, fig, out) -> Path:
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def _col(rows, name):
    """Column ``name`` as floats; missing, empty and None cells are NaN."""
    out = []
    for r in rows:
        v = r.get(name)
        try:
            out.append(math.nan if v in ("", None) else float(v))
        except (TypeError, ValueError):
            out.append(math.nan)
    return np.array(out, dtype=float)


def plot_run(loss_rows, eval_rows, out, *, title: str = "", exact_lambda: float | None = None) -> Path:
    """Figure 2 for one run; returns the saved path.

    Parameters
    ----------
    loss_rows, eval_rows : list of dict
        ``loss_data.csv`` and ``evaluation.csv`` rows.
    out : path
        Output file (``.png``, ``.pdf`` or ``.svg``).
    exact_lambda : float, optional
        Half the certified data dimension, drawn as a horizontal line.
    """
    plt = _pyplot()
    fig, axes = plt.subplots(3, 1, figsize=(7, 9), sharex=True)
    e = _col(loss_rows, "epoch")
    axes[0].plot(e, _col(loss_rows, "train_acc"), label="train accuracy")
    axes[0].plot(e, _col(loss_rows, "val_acc"), label="validation accuracy")
    axes[0].axhline(0.95, color="grey", lw=0.5, ls=":")
    axes[0].set_ylabel("accuracy")
    axes[0].legend(loc="lower right")
    ee = _col(eval_rows, "epoch")
    ax = axes[1]
    ax.errorbar(ee, _col(eval_rows, "llc_sgld"), yerr=Z95 * _col(eval_rows, "llc_sgld_se"), fmt="o-", ms=3,
                capsize=2, label="LLC, paper's SGLD (train data)")
    cal = _col(eval_rows, "llc_cal")
    if np.any(np.isfinite(cal)):
        ok = np.isfinite(cal)
        ax.errorbar(ee[ok], cal[ok], yerr=Z95 * _col(eval_rows, "llc_cal_se")[ok], fmt="s", ms=4, capsize=2,
                    label="LLC, calibrated estimator")
    if exact_lambda is not None:
        # log scale: the exact value and the fixed-temperature estimates differ by ~10x
        ax.axhline(exact_lambda, color="k", ls="--", lw=1, label=f"exact data lambda = {exact_lambda:g}")
        ax.set_yscale("log")
    ax.set_ylabel("LLC")
    twin = ax.twinx()
    twin.plot(e, _col(loss_rows, "val_loss"), color="tab:red", alpha=0.7, label="validation loss")
    twin.set_ylabel("validation loss", color="tab:red")
    lines = ax.get_legend_handles_labels()
    tl = twin.get_legend_handles_labels()
    ax.legend(lines[0] + tl[0], lines[1] + tl[1], loc="center right", fontsize=8, framealpha=0.8)
    axes[2].errorbar(ee, _col(eval_rows, "hutch"), yerr=Z95 * _col(eval_rows, "hutch_se"), fmt="o-", ms=3,
                     capsize=2, color="tab:green", label="Hutchinson tr H (100 probes)")
    axes[2].set_ylabel("Hessian trace")
    axes[2].set_xlabel("epoch")
    axes[2].legend(loc="lower right")
    if title:
        fig.suptitle(title)
    return _save(plt, fig, out)


def plot_gsm(rows, out, *, title: str = "GSM vs learning rate") -> Path:
    """Figure 9 from sweep rows (needs ``lr`` and ``gsm``)."""
    plt = _pyplot()
    lr = _col(rows, "lr")
    g = _col(rows, "gsm")
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.scatter(lr, g, s=14, alpha=0.6, label="runs")
    levels = np.unique(lr[np.isfinite(lr)])
    means = [np.mean(g[lr == v]) for v in levels]
    sds = [np.std(g[lr == v], ddof=1) if np.sum(lr == v) > 1 else 0.0 for v in levels]
    ax.errorbar(levels, means, yerr=sds, fmt="o-", color="k", capsize=3, label="mean +- sd over seeds")
    ax.set_xscale("log")
    ax.set_xlabel("learning rate")
    ax.set_ylabel("GSM (grokking severity, App. H.3)")
    ax.text(0.01, 0.99, "GSM = (1/T) sum_t |train acc - val acc|, 0 if never val acc >= 0.95",
            transform=ax.transAxes, va="top", fontsize=7)
    ax.set_title(title)
    ax.legend()
    return _save(plt, fig, out)


def plot_final_llc(rows, out, *, by: str = "p") -> Path:
    """Figure 1(a) (``by="p"``) or 1(b) (``by="width"``): final LLC with formula and exact lines."""
    if by not in ("p", "width"):
        raise InputError("by", by, "'p' or 'width'")
    plt = _pyplot()
    x = _col(rows, by)
    order = np.argsort(x)
    fig, ax = plt.subplots(figsize=(6, 4))
    est, se = _col(rows, "llc_final"), _col(rows, "llc_final_se")
    ax.errorbar(x[order], est[order], yerr=Z95 * se[order], fmt="o", capsize=3, label="final LLC (paper's SGLD)")
    paper = _col(rows, "paper_value") / 2
    if np.any(np.isfinite(paper)):
        ax.plot(x[order], paper[order], "--", label="Corollary 5.4: K(3p-1)/2")
    exact = _col(rows, "exact_dimension") / 2
    if np.any(np.isfinite(exact)):
        ax.plot(x[order], exact[order], "k-", label="certified data dimension / 2")
    ax.set_yscale("log")
    ax.set_xlabel("p" if by == "p" else "hidden width K")
    ax.set_ylabel("lambda")
    ax.legend(fontsize=8)
    return _save(plt, fig, out)


def plot_basin_estimates(rows, estimates, out) -> Path:
    """One panel per training run: certified ``rank / 2`` and the estimates at its checkpoints (log scale).

    ``rows`` and ``estimates`` as in :func:`algebra.certify.local_rank.estimates_table`. Filled markers are
    supported values (SGLD split R-hat <= 1.05, calibrated ``ok``); hollow ones are not. A star marks a
    checkpoint where Theorem F.1 gives lambda (a certified critical point).
    """
    from algebra.grokking.runs import checkpoint_key

    plt = _pyplot()
    by_key = {checkpoint_key(e): e for e in estimates}
    rows = [r for r in rows if checkpoint_key(r) in by_key]  # checkpoints without estimates are not drawn
    runs = []
    for r in rows:
        name = r["run"] if "run" in r else r["group"]
        if name not in runs:
            runs.append(name)
    cols = 4
    nrows = max(1, math.ceil(len(runs) / cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(4 * cols, 3 * nrows), squeeze=False)
    for ax, name in zip(axes.flat, runs):
        rs = sorted((r for r in rows if (r["run"] if "run" in r else r["group"]) == name), key=lambda r: r["epoch"])
        es = [by_key.get(checkpoint_key(r), {}) for r in rs]
        ep = np.array([r["epoch"] for r in rs], dtype=float)
        half = np.array([r["maps"]["train"]["lower"] / 2 for r in rs], dtype=float)
        ax.plot(ep, half, "k--", lw=1, label="certified rank/2 (train)")
        crit = np.array([r.get("lambda") is not None for r in rs])
        if crit.any():
            ax.plot(ep[crit], half[crit], "k*", ms=10, label="lambda (Thm F.1)")
        sg = _col(es, "llc_sgld")
        ok = _col(es, "llc_sgld_rhat") <= 1.05
        ax.plot(ep, sg, "-", color="tab:blue", lw=0.8)
        if ok.any():
            ax.plot(ep[ok], sg[ok], "o", color="tab:blue", label="paper's SGLD")
        if (~ok).any():
            ax.plot(ep[~ok], sg[~ok], "o", mfc="none", color="tab:blue", label="paper's SGLD, R-hat > 1.05")
        ax.plot(ep, _col(es, "llc_sgld_laplace"), "^-", color="tab:orange", lw=0.8, ms=4,
                label="Laplace of the paper's settings")
        cal = _col(es, "llc_cal")
        good = np.array([e.get("llc_cal_verdict") == "ok" for e in es]) & np.isfinite(cal) & (cal > 0)
        if good.any():
            ax.plot(ep[good], cal[good], "s", color="tab:red", label="calibrated LLC v2 (ok)")
        ax.plot(ep, _col(es, "hutch"), ":", color="tab:green", label="tr H")
        r0 = rs[0]
        ax.set_title(f"p={r0['p']} f={r0['train_fraction']:g} wd={r0['weight_decay']:g} seed {r0['seed']}", fontsize=9)
        ax.set_yscale("log")
        ax.set_xlabel("epoch")
        ax.set_ylabel("lambda, estimates, tr H")
    for ax in list(axes.flat)[len(runs):]:
        ax.axis("off")
    handles, labels = {}, []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in handles:
                handles[lab] = h
                labels.append(lab)
    # one legend for the figure, outside the panels, so no data is hidden
    fig.legend([handles[lab] for lab in labels], labels, loc="lower center", ncol=min(len(labels), 4), fontsize=8,
               bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    out = Path(out)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
