"""Exact-reference suite: sampled LLC beside the closed-form lambda and multiplicity.

Every entry of :data:`SUITE` names a model family and its arguments; the
model is built by :mod:`algebra.numeric.models` and the exact value is taken,
at run time, from ``algebra.slt.formulas`` (Aoyagi & Watanabe 2005 for
reduced rank regression, Aoyagi 2024 for deep linear networks, the
graph-attention paper's Theorem 2 for the query-key composite, ``d/2`` for
regular models).  Nothing here hard-codes a learning coefficient.

Data sizes: models with Gaussian inputs use the exact sufficient-statistic
draw with ``n = 10^12`` (cost independent of ``n``), so the finite-``n``
fluctuation ``~ sqrt(lambda nbeta / 2n)`` is negligible; the bilinear QK
model materialises its samples, ``n = 10^7``, and the calibration caps its
temperatures at ``nbeta <= n / 10^3`` accordingly.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from algebra.errors import InputError
from algebra.numeric import models as M
from algebra.numeric.calibration import CalibrationSettings, calibrated_llc

__all__ = ["SUITE", "SuiteEntry", "exact_coefficient", "build_model", "run_entry", "run_suite",
           "summarize", "write_table", "plot_suite"]

N_EXACT = 10**12
N_QK = 10**7


@dataclass(frozen=True)
class SuiteEntry:
    family: str
    args: tuple
    note: str = ""

    @property
    def label(self) -> str:
        return f"{self.family} {self.args}"


# The four Aoyagi-Watanabe cases of reduced rank regression (both parities of
# case 1), deep linear networks (two 4-layer ones, m = 1 and m = 5), the QK
# composite (rank deficient, both parities of k - r) and regular models.
SUITE = (
    SuiteEntry("rrr", (5, 5, 5, 2), "case 1, odd (m=2)"),
    SuiteEntry("rrr", (5, 5, 4, 2), "case 1, even"),
    SuiteEntry("rrr", (2, 6, 3, 1), "M+H < N+r"),
    SuiteEntry("rrr", (6, 2, 3, 1), "N+H < M+r"),
    SuiteEntry("rrr", (3, 3, 6, 2), "M+N < H+r"),
    SuiteEntry("dln", ((3, 2, 3, 2, 3), 1), "4 layers, m=1"),
    SuiteEntry("dln", ((3, 3, 3, 3, 3), 1), "4 layers, m=5"),
    SuiteEntry("dln", ((4, 3, 3, 5), 1), "3 layers"),
    SuiteEntry("qk", (4, 2, 1), "k-r odd"),
    SuiteEntry("qk", (4, 3, 1), "k-r even"),
    SuiteEntry("regular", (4, 1), "d=4"),
    SuiteEntry("regular", (3, 2), "d=6"),
)


def exact_coefficient(family: str, args: tuple):
    """The exact :class:`LearningCoefficient` from ``algebra.slt.formulas`` (imported lazily)."""
    from algebra.slt import formulas

    if family == "rrr":
        return formulas.reduced_rank_regression(*args)
    if family == "dln":
        widths, r = args
        return formulas.deep_linear_network(list(widths), r)
    if family == "qk":
        return formulas.query_key(*args)
    if family == "regular":
        a, b = args
        return formulas.regular_model(a * b)
    raise InputError("family", family, "one of rrr, dln, qk, regular")


def build_model(family: str, args: tuple, *, seed: int = 0, n: int | None = None):
    """The numpy model of a suite entry (see :mod:`algebra.numeric.models`)."""
    if family == "rrr":
        return M.rrr_model(*args, n=n or N_EXACT, seed=seed)
    if family == "dln":
        return M.dln_model(args[0], args[1], n=n or N_EXACT, seed=seed)
    if family == "qk":
        return M.qk_model(*args, n=n or N_QK, seed=seed)
    if family == "regular":
        return M.regular_model(*args, n=n or N_EXACT, seed=seed)
    raise InputError("family", family, "one of rrr, dln, qk, regular")


def run_entry(family: str, args: tuple, *, settings: CalibrationSettings | None = None,
              seed: int = 0, n: int | None = None, model=None) -> dict:
    """Calibrated estimate of one model beside its exact value, as a JSON-ready dict.

    Examples
    --------
    >>> from algebra.numeric.calibration import FAST
    >>> row = run_entry("regular", (2, 1), settings=FAST, seed=0)
    >>> row["exact_lambda"], row["multiplicity"], row["verdict"]
    ('1', 1, 'ok')
    """
    lc = exact_coefficient(family, args)
    model = model if model is not None else build_model(family, args, seed=seed, n=n)
    t0 = time.perf_counter()
    res = calibrated_llc(model, settings=settings, seed=seed)
    lam = float(lc.lam)
    covered = res.ci95[0] <= lam <= res.ci95[1]
    top = max(res.per_temperature, key=lambda e: e.nbeta)
    return {
        "model": model.name, "family": family, "args": list(args) if family != "dln"
        else [list(args[0]), args[1]], "num_params": model.dim, "n": model.n,
        "estimate": res.estimate, "stderr": res.stderr, "ci95": list(res.ci95),
        "chosen": res.chosen,
        "largest_nbeta_estimate": top.estimate, "largest_nbeta_stderr": top.stderr,
        "exact_lambda": str(Fraction(lc.lam)), "multiplicity": int(lc.multiplicity),
        "theorem": lc.theorem, "case": lc.case,
        "relative_error": (res.estimate - lam) / lam if lam else None,
        "covered": bool(covered), "verdict": res.verdict, "reasons": list(res.reasons),
        "seed": seed, "seconds": time.perf_counter() - t0, "details": res.to_json(),
    }


def run_suite(*, settings: CalibrationSettings | None = None, seed: int = 0, entries=SUITE,
              progress: bool = True) -> list:
    """Run every suite entry (tqdm progress bar); returns the list of rows."""
    from tqdm import tqdm

    rows = []
    bar = tqdm(entries, desc="llc suite", disable=not progress, unit="model")
    for e in bar:
        bar.set_postfix_str(e.label)
        rows.append(run_entry(e.family, e.args, settings=settings, seed=seed))
    return rows


def summarize(rows) -> dict:
    """Accuracy and coverage over the rows (the issue's targets: median <= 5%, worst <= 10%, coverage >= 80%)."""
    errs = np.array([abs(r["relative_error"]) for r in rows if r["relative_error"] is not None])
    cov = np.mean([r["covered"] for r in rows]) if rows else float("nan")
    return {
        "models": len(rows),
        "median_abs_relative_error": float(np.median(errs)) if errs.size else None,
        "worst_abs_relative_error": float(np.max(errs)) if errs.size else None,
        "coverage95": float(cov),
        "suspect": [r["model"] for r in rows if r["verdict"] != "ok"],
        "targets_met": bool(errs.size and np.median(errs) <= 0.05 and np.max(errs) <= 0.10
                            and cov >= 0.8 and len(rows) >= 10),
    }


def write_table(rows, path=None) -> str:
    """Markdown table of the suite (written to ``path`` when given)."""
    lines = ["| model | P | exact lambda | m | estimate +- se | rel. error | in 95% CI | chosen | verdict |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['model']} | {r['num_params']} | {r['exact_lambda']} | {r['multiplicity']} | "
            f"{r['estimate']:.3f} +- {r['stderr']:.3f} | {100 * r['relative_error']:+.1f}% | "
            f"{'yes' if r['covered'] else 'no'} | {r['chosen']} | {r['verdict']} |")
    text = "\n".join(lines) + "\n"
    if path is not None:
        with open(path, "w") as fh:
            fh.write(text)
    return text


def plot_suite(rows, path) -> str:
    """Estimate vs exact lambda with 95% error bars, one point per model (matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lam = np.array([float(Fraction(r["exact_lambda"])) for r in rows])
    est = np.array([r["estimate"] for r in rows])
    err = 1.959963984540054 * np.array([r["stderr"] for r in rows])
    fig, ax = plt.subplots(figsize=(5.5, 5))
    hi = max(lam.max(), (est + err).max()) * 1.08
    ax.plot([0, hi], [0, hi], "k-", lw=0.8, label="exact")
    ax.fill_between([0, hi], [0, 0.9 * hi], [0, 1.1 * hi], color="0.9", label="+-10%")
    colors = ["C0" if r["verdict"] == "ok" else "C3" for r in rows]
    for x, y, e, c in zip(lam, est, err, colors):
        ax.errorbar(x, y, yerr=e, fmt="o", color=c, ms=4, capsize=2)
    ax.set_xlabel("exact lambda (algebra.slt.formulas)")
    ax.set_ylabel("sampled LLC (95% interval)")
    ax.set_title("LLC suite: red = verdict suspect")
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return str(path)


def plot_traces(model, path, *, nbeta: float, num_chains: int = 8, num_draws: int = 1000,
                seed: int = 0) -> str:
    """Trace plot of ``nbeta (L - L*)`` per chain for one model (HMC, calibration's gamma)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from algebra.numeric.samplers import sample, top_curvature

    h = top_curvature(model)
    run = sample(model, method="hmc", nbeta=nbeta, gamma=h, num_chains=num_chains,
                 num_draws=num_draws, num_warmup=num_draws // 2, seed=seed)
    fig, ax = plt.subplots(figsize=(7, 3))
    for c in range(num_chains):
        ax.plot(run.nbeta * (run.losses[c] - run.loss_star), lw=0.5)
    ax.set_xlabel("draw")
    ax.set_ylabel("nbeta (L - L*)")
    ax.set_title(f"{model.name}, nbeta={nbeta:g}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)


def dump_rows(rows, path) -> None:
    with open(path, "w") as fh:
        json.dump({"rows": rows, "summary": summarize(rows)}, fh, indent=1, default=float)
