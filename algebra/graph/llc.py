"""Teacher-student learning coefficients of graph attention (paper Section 4).

The student is the QK block ``(A, B)`` (``2 d k`` parameters) of the
attention model of :mod:`algebra.graph.attention`; its loss is the exact
population KL (10) to the teacher on the orbit-closed design (no sampling
noise: ``n`` is infinite, the temperature is ``nbeta``).  The estimate is the
toolkit's automatic calibration (:func:`algebra.numeric.calibration.calibrated_llc`:
HMC, temperature ladder, verdict), unchanged; the exact value is Theorem 2,
(44) with multiplicity (45) (:func:`algebra.slt.formulas.query_key`), which
applies when Assumption 1 holds (decided by :func:`algebra.graph.fisher.decide_assumption1`).

Reference points (``point``):

``canonical``  the balanced pair (30) with zero unused columns;
``gauge``      ``(A* xi, B* xi^-T)`` for a random ``xi`` in GL(k) (Corollary 1:
               same lambda and m);
``open``       unused columns that cancel without vanishing (Section 5, the
               paper's open case; needs ``k - r >= 2``): the estimate is
               reported beside (44), which is not proved there.
"""

from __future__ import annotations

import numpy as np

from algebra.errors import InputError
from algebra.graph import POINTS
from algebra.graph.attention import AttentionDesign, make_design, open_case_pair, random_gauge
from algebra.graph.fisher import decide_assumption1, quadratic_form
from algebra.numeric.models import FactorProduct, RegressionModel

__all__ = ["GraphAttentionModel", "reference_pair", "graph_llc", "frozen_chains", "POINTS"]


class GraphAttentionModel:
    """Population KL (10) as a function of the packed factors ``w = (vec B^T, vec A)``.

    The composite is the toolkit's :class:`~algebra.numeric.models.FactorProduct`
    with widths ``(d, k, d)``: ``C = W2 W1`` with ``W1 = B^T`` and ``W2 = A``.
    Provides what the samplers need: ``w_star``, ``loss``, ``loss_and_grad``,
    ``hessian_vector``.

    Examples
    --------
    >>> from algebra.graph.groups import parse_graph
    >>> D = make_design(parse_graph("cyclic:5"), 3, 2, 1, seed=0)
    >>> m = GraphAttentionModel(D, D.A_star, D.B_star)
    >>> W = np.stack([m.w_star, m.w_star + 0.05])
    >>> loss, grad = m.loss_and_grad(W)
    >>> m.dim, bool(loss[0] < 1e-14 < loss[1]), grad.shape
    (12, True, (2, 12))
    """

    n = None  # the loss is the exact population KL

    def __init__(self, design: AttentionDesign, A: np.ndarray, B: np.ndarray, *, name: str | None = None):
        d, k = design.d, design.k
        if A.shape != (d, k) or B.shape != (d, k):
            raise InputError("A, B", (A.shape, B.shape), f"two arrays of shape ({d}, {k})")
        self.design = design
        # the composite-space Fisher (17): K~(C) ~ 1/2 vec(dC)^T Q vec(dC), the role the input
        # covariance Sxx plays for the regression models; the calibration takes its units from it
        # when the Hessian in (A, B) vanishes (r = 0: the teacher A* = B* = 0 is a critical point of order 4)
        self.Sxx = quadratic_form(design)
        self.composite = FactorProduct((d, k, d))
        self.w_star = self.composite.pack([B.T, A])
        self.name = name or f"graph {design.graph.name} d={d} k={k} r={design.r} R={design.radius}"
        self.family = "graph"

    @property
    def dim(self) -> int:
        return int(self.composite.num_params)

    def loss(self, W: np.ndarray) -> np.ndarray:
        return self.design.kl_and_grad(self.composite.matrix(np.atleast_2d(W)))[0]

    def loss_and_grad(self, W: np.ndarray, batch=None):
        if batch is not None:
            raise InputError("batch", "minibatch", "None (the population KL is a full finite sum)")
        C, vjp = self.composite.matrix_and_vjp(np.atleast_2d(W))
        kl, G = self.design.kl_and_grad(C)
        return kl, vjp(G)

    # central differences of the gradient, as for the regression models
    hessian_vector = RegressionModel.hessian_vector


def reference_pair(design: AttentionDesign, point: str, rng: np.random.Generator):
    """Factors ``(A, B)`` with ``A B^T = C*`` at the requested reference point (module docstring)."""
    if point == "canonical":
        return design.A_star, design.B_star
    if point == "gauge":
        xi = random_gauge(design.k, rng)
        return design.A_star @ xi, design.B_star @ np.linalg.inv(xi).T
    if point == "open":
        return open_case_pair(design, rng)
    raise InputError("point", point, "one of " + ", ".join(POINTS))


def frozen_chains(trace) -> int:
    """Chains whose recorded loss never changes (every proposal rejected over the kept draws).

    The zero-teacher row of the teacher-student table showed why this is worth
    counting: there every direction is quartic, the posterior is a funnel, and
    a chain that sits far out on an arm when warm-up fixes the common step
    size (the median over chains) meets a local stability limit below even
    the smallest jittered step, so it never moves again and its constant value
    enters the mean.  Informational, not a verdict criterion (the verdict
    belongs to :mod:`algebra.numeric.calibration`); divergent chains (NaN
    rows) are not counted.

    Examples
    --------
    >>> frozen_chains(np.array([[1.0, 2.0, 1.5], [8.6, 8.6, 8.6], [np.nan] * 3]))
    1
    """
    t = np.asarray(trace, dtype=float)
    ok = np.all(np.isfinite(t), axis=1)
    return int(np.sum(np.ptp(t[ok], axis=1) == 0)) if t.shape[1] > 1 else 0


def graph_llc(graph, d: int, k: int, r: int, *, radius: int = 1, point: str = "canonical",
              settings=None, seed: int = 0, num_draws: int | None = None, features: str = "gaussian",
              point_seed: int | None = None, progress=None, bar: bool = False) -> dict:
    """Sampled LLC of the QK block at a teacher of rank ``r``, beside Theorem 2 (44)/(45).

    Parameters
    ----------
    graph : SymmetricGraph or str
        A graph or a specification for :func:`algebra.graph.groups.parse_graph`.
    d, k, r, radius, num_draws, features
        The design (:func:`algebra.graph.attention.make_design`).
    point : {"canonical", "gauge", "open"}
    settings : CalibrationSettings, optional
        Default: the calibration procedure; ``FAST`` for tests.
    seed : int
        Root seed: the design uses it, the reference point and the sampler use
        children of its SeedSequence.
    point_seed : int, optional
        Seed of the gauge / open-case draw instead of the child of ``seed``
        (several gauge points on one design, Corollary 1).
    progress : callable, optional
        Called with one line of text after each temperature of the calibrated ladder
        (:func:`algebra.numeric.calibration.calibrated_llc`); ``None`` is silent.
    bar : bool
        Show a tqdm bar per temperature on stderr (``llc graph`` does unless ``--quiet``).

    Returns
    -------
    dict
        The keys of the other ``llc`` commands (``estimate, stderr, ci95,
        exact_lambda, multiplicity, relative_error, verdict, seed, settings``,
        ``model, chosen, reasons, theorem, num_params, n, details``) plus
        ``assumption1_holds``, ``alpha_lower``, ``point``, ``lambda_44`` and
        ``frozen_chains`` (:func:`frozen_chains` at the largest ``nbeta``).

    Raises
    ------
    InputError
        A design the paper's setting excludes (e.g. fewer than two unused columns for ``point="open"``).

    Examples
    --------
    >>> graph_llc("cyclic:5", 3, 2, 1, point="open")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid k - r=1: expected at least 2 unused columns for cancelling columns

    References
    ----------
    .. [1] The graph-attention paper (*Symmetries and Singularities*), Section 4, Theorem 2 eqs. (44)/(45),
       Corollary 1.
    """
    from algebra.graph.groups import SymmetricGraph, parse_graph
    from algebra.numeric.calibration import calibrated_llc
    from algebra.slt.formulas import query_key

    sg = graph if isinstance(graph, SymmetricGraph) else parse_graph(graph)
    if point not in POINTS:
        raise InputError("point", point, "one of " + ", ".join(POINTS))
    design = make_design(sg, d, k, r, radius=radius, num_draws=num_draws, features=features, seed=seed)
    a1 = decide_assumption1(design)
    point_ss, sampler_seed = np.random.SeedSequence(seed).spawn(2)
    if point_seed is not None:
        point_ss = np.random.SeedSequence(point_seed)
    A, B = reference_pair(design, point, np.random.default_rng(point_ss))
    model = GraphAttentionModel(design, A, B, name=f"graph {sg.name} d={d} k={k} r={r} R={radius} ({point})")
    res = calibrated_llc(model, settings=settings, seed=int(sampler_seed.generate_state(1)[0]), progress=progress,
                         bar=bar)
    lc = query_key(d, k, r)
    proved = a1.holds and point != "open"
    exact = lc.lam if proved else None
    theorem = (lc.theorem + " under Assumption 1 (certified)" if proved else
               "none: Assumption 1 fails" if not a1.holds else
               "none: open case (unused columns cancel without vanishing, paper Section 5)")
    return {"model": model.name, "estimate": res.estimate, "stderr": res.stderr, "ci95": list(res.ci95),
            "chosen": res.chosen, "exact_lambda": None if exact is None else str(exact),
            "multiplicity": lc.multiplicity if proved else None,
            "relative_error": None if exact is None else (res.estimate - float(exact)) / float(exact),
            "verdict": res.verdict, "reasons": list(res.reasons), "seed": seed, "settings": res.settings,
            "theorem": theorem, "num_params": model.dim, "n": None, "details": res.to_json(),
            "assumption1_holds": a1.holds,
            "alpha_lower": None if a1.alpha_lower is None else str(a1.alpha_lower),
            "point": point, "point_seed": point_seed, "lambda_44": str(lc.lam), "multiplicity_45": lc.multiplicity,
            "relative_to_44": (res.estimate - float(lc.lam)) / float(lc.lam) if lc.lam else None,
            "frozen_chains": None if res.trace is None else frozen_chains(res.trace),
            "design": design.describe()}
