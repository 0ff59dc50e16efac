"""Exact-reference suite: sampled LLC beside the closed-form lambda and multiplicity.

Every entry of :data:`SUITE` names a model family and its arguments; the
model is built by :mod:`algebra.numeric.models` and the exact value is taken,
at run time, from ``algebra.slt.formulas`` (Aoyagi & Watanabe 2005 for
reduced rank regression, Aoyagi 2024 for deep linear networks, the
graph-attention paper's Theorem 2 for the query-key composite, ``d/2`` for
regular models), ``algebra.slt.regular.quadratic_network`` for quadratic
networks (half the certified secant dimension, grokking paper Theorem 4.1)
and ``algebra.slt.newton`` for the polynomial toys.
Nothing here hard-codes a learning coefficient.

Data sizes: models with Gaussian inputs use the exact sufficient-statistic
draw with ``n = 10^12`` (cost independent of ``n``), so the finite-``n``
fluctuation ``~ sqrt(lambda nbeta / 2n)`` is negligible; the bilinear QK
model and the quadratic networks (non-Gaussian features) materialise their
samples (about 20-30 s each), ``n = 10^8``, and the calibration caps their
temperatures at ``nbeta <= n / 10^3`` accordingly.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from algebra.errors import InputError
from algebra.numeric import models as M
from algebra.numeric.calibration import CalibrationSettings, calibrated_llc

__all__ = ["SUITE", "VALIDATION", "SuiteEntry", "exact_coefficient", "build_model", "build_composite", "run_entry", "run_suite",
           "summarize", "write_table", "plot_suite", "plot_traces", "json_rows", "dump_rows", "load_rows",
           "entry_key"]

FAMILIES = ("rrr", "dln", "qk", "quadratic", "regular", "poly", "graph", "modadd")
N_EXACT = 10**12
N_QK = 10**8
N_QUADRATIC = 10**8


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
# composite (rank deficient, both parities of k - r), regular models, quadratic
# networks at a generic teacher (lambda = certified dimension / 2; appended
# after the regular models so earlier indices stay stable), and
# Newton-polyhedron toys (regression on polynomial features, K = sum g_i^2,
# exact lambda from algebra.slt.newton when non-degenerate).
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
    SuiteEntry("quadratic", (3, 2, 2), "d=3 p=2 K=2, dim 8"),
    SuiteEntry("quadratic", (3, 1, 2), "d=3 p=1 K=2, dim 5 (paper's closed form defective)"),
    SuiteEntry("poly", ("x^2", "y^3"), "Newton toy, quasi-homogeneous"),
    SuiteEntry("poly", ("x*y",), "Newton toy, m=2"),
    SuiteEntry("poly", ("x^2*y", "y^2"), "Newton toy"),
)


# The validation suite: families and sizes the calibration never saw, run with
# the calibration frozen (CalibrationSettings() as it stands) and reported
# beside the calibration suite, whatever the numbers are.  Never tune on it:
# a change to the procedure is justified on SUITE, then shown here.
# The first 13 were run once on 2026-11-30 (first session); the softmax
# graph-attention teacher-student models (issue 13: exact (44) under Assumption 1,
# certified on the design) and the modular-addition teacher-student networks
# (issue 12: r / 2 at a teacher of certified full rank, algebra.grokking.teacher)
# were added once those exact values existed and run alone (`llc suite --resume`).
VALIDATION = (
    SuiteEntry("dln", ((10, 10, 10, 10, 10, 10), 2), "5 layers, P=500, m=7"),
    SuiteEntry("dln", ((8,) * 9, 1), "8 layers, P=512, m=8"),
    SuiteEntry("dln", ((25, 12, 20), 3), "wide, P=540"),
    SuiteEntry("dln", ((6, 6, 6, 6), 0), "zero teacher, P=108"),
    SuiteEntry("rrr", (20, 20, 15, 5), "wide, P=600"),
    SuiteEntry("rrr", (5, 5, 5, 0), "zero teacher, m=2"),
    SuiteEntry("rrr", (3, 6, 4, 0), "zero teacher, m=2"),
    SuiteEntry("rrr", (8, 8, 8, 0), "zero teacher, P=128"),
    SuiteEntry("quadratic", (4, 3, 3), "3 outputs, P=21"),
    SuiteEntry("quadratic", (5, 3, 3), "3 outputs, P=24"),
    SuiteEntry("quadratic", (4, 2, 4), "2 outputs, K=4, P=24"),
    SuiteEntry("regular", (4, 250), "P=1000"),
    SuiteEntry("regular", (5, 240), "P=1200"),
    SuiteEntry("graph", ("cyclic:6", 3, 2, 1), "softmax graph attention, Z_6, m=2"),
    SuiteEntry("graph", ("dihedral:6", 4, 3, 2), "softmax graph attention, D_6, P=24"),
    SuiteEntry("modadd", (5, 2, 1.0), "modular addition p=5 K=2, all 25 pairs, P=30"),
    SuiteEntry("modadd", (7, 3, 0.6), "modular addition p=7 K=3, 29 of 49 pairs, P=63"),
)


def exact_coefficient(family: str, args: tuple):
    """The exact :class:`LearningCoefficient` from ``algebra.slt`` (imported lazily).

    ``None`` for a polynomial model whose Newton polyhedron gives only an
    upper bound (degenerate principal part): no exact value is proved.
    """
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
    if family == "quadratic":
        from algebra.slt.regular import quadratic_network

        return quadratic_network(*args)
    if family == "poly":
        return _newton_coefficient(args)
    if family == "graph":
        return _graph_coefficient(*args)
    if family == "modadd":
        from algebra.grokking.teacher import teacher_coefficient
        from algebra.slt.formulas import LearningCoefficient

        c = teacher_coefficient(*args)
        return LearningCoefficient(c["lam"], c["multiplicity"], "r / 2 at a smooth point (grokking paper Thm 4.1 "
                                   "applied to the data-restricted map)",
                                   f"generic rank {c['generic_rank']} certified, rank {c['teacher_rank']} at the "
                                   "integer teacher", {"p": args[0], "width": args[1], "n_train": c["n_train"]})
    raise InputError("family", family, "one of " + ", ".join(FAMILIES))


def _graph_design(graph: str, d: int, k: int, r: int, seed: int = 0):
    from algebra.graph.attention import make_design
    from algebra.graph.groups import parse_graph

    return make_design(parse_graph(graph), d, k, r, seed=seed)


def _graph_coefficient(graph: str, d: int, k: int, r: int, seed: int = 0):
    """(44)/(45) when Assumption 1 is certified on the design (radius 1, Gaussian features), else ``None``."""
    from algebra.graph.fisher import decide_assumption1
    from algebra.slt.formulas import query_key

    return query_key(d, k, r) if decide_assumption1(_graph_design(graph, d, k, r, seed)).holds else None


def _parse_generators(args):
    """Generators (the CLI's one parser) that vanish at the reference point ``w* = 0``."""
    from algebra.slt.commands import parse_generators

    gens, names = parse_generators(args)
    for text, g in zip(args, gens):
        if g.terms.get((0,) * len(names)):
            raise InputError("generator", text, "a polynomial vanishing at the origin (w* = 0)")
    return gens, names


def _newton_coefficient(args):
    """lambda, m of ``sum g_i^2`` from ``algebra.slt.newton`` (None unless proved exact)."""
    from algebra.models.polynomial import Polynomial
    from algebra.slt.formulas import LearningCoefficient
    from algebra.slt.newton import newton_rlct, sum_of_squares

    gens, names = _parse_generators(args)
    res = newton_rlct(Polynomial(tuple(names), sum_of_squares([g.terms for g in gens])))
    if not res.exact:
        return None
    return LearningCoefficient(Fraction(res.lam), int(res.multiplicity),
                               "Newton polyhedron (Watanabe 2009, Sec. 7.2)",
                               f"non-degenerate, distance {res.distance}", {"generators": list(args)})


def build_model(family: str, args: tuple, *, seed: int = 0, n: int | None = None,
                explicit: bool = False):
    """The numpy model of a suite entry (see :mod:`algebra.numeric.models`).

    ``explicit=True`` materialises the ``n`` samples (features and targets in
    ``model.X``, ``model.Y``), for minibatches and for other tools that need
    the data itself (``benchmarks/llc_devinterp.py``).
    """
    gauss = "explicit" if explicit else "exact"
    other = "explicit" if explicit else "statistics"
    if family == "rrr":
        return M.rrr_model(*args, n=n or N_EXACT, seed=seed, data=gauss)
    if family == "dln":
        return M.dln_model(args[0], args[1], n=n or N_EXACT, seed=seed, data=gauss)
    if family == "qk":
        return M.qk_model(*args, n=n or N_QK, seed=seed, data=other)
    if family == "regular":
        return M.regular_model(*args, n=n or N_EXACT, seed=seed, data=gauss)
    if family == "quadratic":
        return M.quadratic_network_model(*args, n=n or N_QUADRATIC, seed=seed, data=other)
    if family == "poly":
        return M.polynomial_model(_parse_generators(args)[0], n=n or N_EXACT, seed=seed, data=gauss)
    if family in ("graph", "modadd") and (explicit or n is not None):
        raise InputError("n", n, f"None: the {family} models' loss is an exact population sum (no samples)")
    if family == "graph":  # the canonical teacher (30) of the design, as `llc graph` builds it
        from algebra.graph.llc import GraphAttentionModel

        design = _graph_design(*args, seed=seed)
        return GraphAttentionModel(design, design.A_star, design.B_star)
    if family == "modadd":
        from algebra.grokking.teacher import ModularAdditionTeacher

        return ModularAdditionTeacher(*args)
    raise InputError("family", family, "one of " + ", ".join(FAMILIES))


def build_composite(family: str, args: tuple):
    """The composite map ``w -> C(w)`` of a suite entry, without data.

    Examples
    --------
    >>> build_composite("rrr", (3, 2, 4, 1)).widths    # (M, H, N)
    (3, 4, 2)
    >>> build_composite("quadratic", (3, 2, 2)).num_params
    10
    """
    if family == "rrr":
        M_, N_, H_ = args[:3]
        return M.FactorProduct((M_, H_, N_))
    if family == "dln":
        return M.FactorProduct(args[0])
    if family == "qk":
        d, k = args[:2]
        return M._Flattened(M.FactorProduct((d, k, d)))
    if family == "regular":
        return M.FactorProduct(args)
    if family == "quadratic":
        return M.QuadraticForms(*args)
    if family == "poly":
        return M.PolynomialMap(_parse_generators(args)[0])
    raise InputError("family", family, "one of " + ", ".join(FAMILIES[:6]) + " (a regression composite)")


def run_entry(family: str, args: tuple, *, settings: CalibrationSettings | None = None,
              seed: int = 0, n: int | None = None, model=None) -> dict:
    """Calibrated estimate of one model beside its exact value, as a JSON-ready dict.

    Examples
    --------
    >>> from algebra.numeric.calibration import FAST
    >>> row = run_entry("regular", (2, 1), settings=FAST, seed=0)
    >>> row["exact_lambda"], row["multiplicity"], row["covered"]
    ('1', 1, True)
    """
    lc = exact_coefficient(family, args)
    model = model if model is not None else build_model(family, args, seed=seed, n=n)
    t0 = time.perf_counter()
    res = calibrated_llc(model, settings=settings, seed=seed)
    top = max(res.per_temperature, key=lambda e: e.nbeta)
    lam = None if lc is None else float(lc.lam)
    return {
        "model": model.name, "family": family, "args": list(args) if family != "dln"
        else [list(args[0]), args[1]], "num_params": model.dim, "n": model.n,
        "estimate": res.estimate, "stderr": res.stderr, "ci95": list(res.ci95),
        "chosen": res.chosen,
        "largest_nbeta_estimate": top.estimate, "largest_nbeta_stderr": top.stderr,
        "exact_lambda": None if lc is None else str(Fraction(lc.lam)),
        "multiplicity": None if lc is None else int(lc.multiplicity),
        "theorem": "Newton polyhedron: no exact value (degenerate)" if lc is None else lc.theorem,
        "case": None if lc is None else lc.case,
        "relative_error": (res.estimate - lam) / lam if lam else None,
        "covered": None if lam is None else bool(res.ci95[0] <= lam <= res.ci95[1]),
        "verdict": res.verdict, "reasons": list(res.reasons),
        "bias_bound": res.bias_bound,
        "seed": seed, "seconds": time.perf_counter() - t0, "details": res.to_json(),
        "trace": res.trace,
    }


def entry_key(family: str, args) -> str:
    """A suite row's identity: family and arguments (JSON lists, as rows store them).

    Examples
    --------
    >>> entry_key("dln", ((3, 2, 3), 1)) == entry_key("dln", [[3, 2, 3], 1])
    True
    """
    def plain(v):
        return [plain(x) for x in v] if isinstance(v, (list, tuple)) else v

    return f"{family} {json.dumps(plain(args))}"


def _reusable(row: dict, settings: CalibrationSettings, seed: int) -> bool:
    """A previous row counts as this run's when its seed and every calibration setting are the same."""
    used = (row.get("details") or {}).get("settings") or {}
    return row.get("seed") == seed and all(used.get(k) == v for k, v in settings.to_json().items())


def _entry_task(item: dict) -> dict:
    """One sweep task: :func:`run_entry` on a suite entry (module level, so Dask workers can run it)."""
    return run_entry(item["family"], item["args"], settings=item["settings"], seed=item["seed"])


def run_suite(*, settings: CalibrationSettings | None = None, seed: int = 0, entries=SUITE,
              progress: bool = True, scheduler: str = "serial", workers: int | None = None,
              previous=None) -> list:
    """Run every suite entry, one task each through :func:`algebra.sweep.run_sweep`; returns the rows in entry order.

    ``scheduler="serial"`` (the default) runs in this process; ``None`` starts a
    local Dask cluster of ``workers`` processes; any other string is the address
    of a running scheduler.  Every entry is seeded by ``seed`` alone, so the
    rows are the same on every scheduler.

    ``previous``: rows of an earlier run (:func:`load_rows`).  An entry whose
    row is there with the same seed and the same calibration settings is not
    run again; its row is kept with ``"reused": True`` (a suite is run once
    with the calibration frozen, and entries added later are run alone).
    """
    from algebra.sweep import run_sweep

    settings = settings or CalibrationSettings()
    done = {entry_key(r["family"], r["args"]): r for r in previous or () if _reusable(r, settings, seed)}
    todo = [e for e in entries if entry_key(e.family, e.args) not in done]
    items = [{"family": e.family, "args": e.args, "seed": seed, "settings": settings} for e in todo]
    rows = run_sweep(_entry_task, items, scheduler=scheduler, workers=workers, progress=progress, desc="llc suite",
                     key=lambda it: f"{it['family']} {it['args']!r}") if items else []
    fresh = {entry_key(e.family, e.args): {k: v for k, v in r.items() if k != "settings"} for e, r in zip(todo, rows)}
    return [fresh.get(k) or dict(done[k], reused=True) for k in (entry_key(e.family, e.args) for e in entries)]


def summarize(rows) -> dict:
    """Accuracy and coverage over the rows (the issue's targets: median <= 5%, worst <= 10%, coverage >= 80%).

    Also reported over the rows with verdict ``ok`` only, and the models whose
    error exceeds 10% although their verdict is ``ok`` (``unflagged_large_errors``:
    the procedure is honest when this list is empty).
    """
    rows = [r for r in rows if r["exact_lambda"] is not None]

    def stats(sub):
        errs = np.array([abs(r["relative_error"]) for r in sub if r["relative_error"] is not None])
        cov = float(np.mean([r["covered"] for r in sub])) if sub else float("nan")
        return errs, cov

    errs, cov = stats(rows)
    ok_rows = [r for r in rows if r["verdict"] == "ok"]
    ok_errs, ok_cov = stats(ok_rows)
    return {
        "models": len(rows),
        "median_abs_relative_error": float(np.median(errs)) if errs.size else None,
        "worst_abs_relative_error": float(np.max(errs)) if errs.size else None,
        "coverage95": cov,
        "suspect": [r["model"] for r in rows if r["verdict"] != "ok"],
        "ok_models": len(ok_rows),
        "ok_median_abs_relative_error": float(np.median(ok_errs)) if ok_errs.size else None,
        "ok_worst_abs_relative_error": float(np.max(ok_errs)) if ok_errs.size else None,
        "ok_coverage95": ok_cov,
        "unflagged_large_errors": [r["model"] for r in ok_rows
                                   if r["relative_error"] is not None and abs(r["relative_error"]) > 0.10],
        "targets_met": bool(errs.size and np.median(errs) <= 0.05 and np.max(errs) <= 0.10
                            and cov >= 0.8 and len(rows) >= 10),
    }


def write_table(rows, path=None) -> str:
    """Markdown table of a suite (written to ``path`` when given).

    ``allowed bias``: the finite-``nbeta`` bias the temperature ladder still
    allows at the largest ``nbeta``, relative to the estimate; above 10% the
    verdict is ``suspect``.  ``why suspect``: the first reason.
    """
    lines = ["| model | P | exact lambda | m | estimate +- se | rel. error | in 95% CI | "
             "allowed bias | verdict | why suspect |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        bound = (r.get("details") or {}).get("bias_bound")
        allowed = "-" if bound is None else f"{100 * bound / abs(r['estimate']):.0f}%"
        rel = "-" if r["relative_error"] is None else f"{100 * r['relative_error']:+.1f}%"
        cov = "-" if r["covered"] is None else ("yes" if r["covered"] else "no")
        why = r["reasons"][0].replace("|", "/") if r["reasons"] else ""
        lines.append(
            f"| {r['model']} | {r['num_params']} | {r['exact_lambda']} | {r['multiplicity']} | "
            f"{r['estimate']:.3f} +- {r['stderr']:.3f} | {rel} | {cov} | {allowed} | {r['verdict']} | "
            f"{why[:90]} |")
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


def plot_traces(rows, path, *, chains: int = 8) -> str:
    """Trace plots of ``nbeta (L - L*)`` per chain at each model's largest ``nbeta`` (one panel per model)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = len(rows)
    cols = min(4, k)
    nrows = -(-k // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(3.2 * cols, 2.2 * nrows), squeeze=False)
    for ax, r in zip(axes.ravel(), rows):
        tr = r.get("trace")
        if tr is not None:
            for c in range(min(chains, tr.shape[0])):
                ax.plot(tr[c], lw=0.4)
        ax.axhline(float(Fraction(r["exact_lambda"])), color="k", lw=1.0)
        ax.set_title(r["model"], fontsize=7)
        ax.tick_params(labelsize=6)
    for ax in axes.ravel()[k:]:
        ax.axis("off")
    fig.suptitle("nbeta (L - L*) per chain (black: exact lambda)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)


def json_rows(rows) -> list:
    """Rows without the trace arrays (JSON-ready)."""
    return [{k: v for k, v in r.items() if k != "trace"} for r in rows]


def dump_rows(rows, path) -> None:
    """Write the rows and their summary as JSON, and the chains' traces beside it (``*_traces.npz``)."""
    with open(path, "w") as fh:
        json.dump({"rows": json_rows(rows), "summary": summarize(rows)}, fh, indent=1, default=float)
    traces = {entry_key(r["family"], r["args"]): r["trace"] for r in rows if r.get("trace") is not None}
    np.savez_compressed(_traces_path(path), **traces)


def _traces_path(path) -> str:
    return str(path)[: -len(".json")] + "_traces.npz" if str(path).endswith(".json") else f"{path}_traces.npz"


def load_rows(path) -> list:
    """Rows written by :func:`dump_rows`, with their traces where the ``*_traces.npz`` file kept them."""
    import os

    with open(path) as fh:
        rows = json.load(fh)["rows"]
    tp = _traces_path(path)
    if os.path.exists(tp):
        with np.load(tp) as z:
            for r in rows:
                key = entry_key(r["family"], r["args"])
                if key in z.files:
                    r["trace"] = z[key]
    return rows
