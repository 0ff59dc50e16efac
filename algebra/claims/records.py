"""Paper claims about dimensions, as data the certificate catalogue consumes.

A :class:`DimensionClaim` says "the neuromanifold of ``model`` has dimension
``claimed``" (or "at least"/"at most"), citing where a paper says so.  The
catalogue (:mod:`algebra.certify`) computes the certified dimension of the
model, compares, and writes a certificate: *confirmed* when the certified
value matches the claim, *refuted* when a certified value contradicts a claim
under its own hypotheses, *hypothesis fails* when a stated hypothesis (e.g.
a non-defective architecture) is certified false, *out of reach* when the
bounds do not decide it.  A :class:`LambdaClaim` says "lambda = value" (or a
range) for a model regular in its identifiable coordinates, with its
:class:`Hypothesis` list (decided by arithmetic or by a certified dimension);
:func:`modular_addition_map` is the data-restricted model of the grokking
paper's Section 5.  Nothing here stores a computed result: only what the paper says.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from algebra.models.base import Model

__all__ = ["DimensionClaim"]


@dataclass(frozen=True)
class DimensionClaim:
    """One checkable dimension statement of a paper.

    Parameters
    ----------
    id : str
        Stable identifier, used as the certificate file name (``[a-z0-9_-]+``).
    paper : str
        File name (stem) of the paper in ``../shared/papers/``.
    location : str
        Section/equation/theorem, e.g. ``"Appendix B.10"``, ``"Corollary 4.2"``.
    statement : str
        The claim in words.
    model : Model
        The parametrization map the claim is about.
    claimed : int
        The dimension the paper states (or implies).
    relation : str
        ``"=="`` (default), ``">="`` or ``"<="``.
    group : str
        Catalogue section (e.g. ``"secant"``, ``"proximity"``, ``"attention"``).
    notes : dict
        Informational facts for the index (how the claim was found, how to reproduce it).
    assumes_nondefective : bool
        The paper states ``claimed`` only for non-defective architectures: a
        certified defect then makes the verdict ``hypothesis fails``.
    """

    id: str
    paper: str
    location: str
    statement: str
    model: Model
    claimed: int
    relation: str = "=="
    group: str = "dimension"
    notes: dict = field(default_factory=dict)
    assumes_nondefective: bool = False


# -- claims tested by the geometry sweeps (issue 4) ------------------------------------------------

GROKKING = "grokking-basin-selection-llc"
PROXIMITY = "proximity-bias-submodels"
AH = "alexander-hirschowitz"

#: Alexander–Hirschowitz (J. Algebraic Geom. 4, 1995): the only defective secants of Veronese
#: varieties v_d(P^{n-1}) with d >= 3 are these (n, d, k); each has defect one.
AH_EXCEPTIONS = ((3, 4, 5), (4, 4, 9), (5, 4, 14), (5, 3, 7))


def _stratum_tangent_map(d: int, dout: int, tokens: int, A, V):
    """The differential of ``phi(A, V)(X) = V X X^T A X`` at a fixed point, as a linear map of ``(B, Vdot)``.

    Its neuromanifold is ``J_{A,V}`` of the proximity-bias paper (Lemma D.3 for
    ``tokens > 1``, Lemma E.1 for ``tokens = 1``); the dimension is the rank of
    the differential at ``(A, V)``.
    """
    import sympy

    from algebra.models import PolynomialMap

    Bs = sympy.Matrix(d, d, sympy.symbols(f"b0:{d * d}"))
    Vd = sympy.Matrix(dout, d, sympy.symbols(f"w0:{dout * d}"))
    X = sympy.Matrix(d, tokens, sympy.symbols(f"x0:{d * tokens}"))
    A, V = sympy.Matrix(A), sympy.Matrix(V)
    G = X * X.T
    Y = Vd * G * A * X + V * G * Bs * X
    params = [str(s) for s in list(Bs) + list(Vd)]
    inputs = [str(s) for s in X]
    return PolynomialMap([sympy.expand(e) for e in Y], parameters=params, inputs=inputs)


def geometry_claims(fast: bool) -> list:
    """Paper claims tested by the secant, proximity and singular-locus sweeps.

    * Corollary 4.2 / G.10 of the grokking paper assumes the quadratic network
      ``(d, p, K)`` non-defective: every defective case the secant sweep finds
      (``d <= 8, p <= 6, K <= 12``; fast: ``d <= 4, p <= 3, K <= 5``) is listed
      with the claimed (expected) dimension -- found by computation, not
      hard-coded; ``notes`` carry the certified flattening upper bound.
    * the Alexander–Hirschowitz exceptions (shallow networks ``sum v_i (w_i.x)^d``);
    * Lemmas D.3 and E.1 of the proximity-bias paper at their exceptional strata,
      as the dimension of the differential at a stratum point.

    Examples
    --------
    >>> ids = [c.id for c in geometry_claims(fast=True)]
    >>> "grokking-cor42-d4-p3-K5" in ids and "ah-exception-n3-d4-k5" in ids
    True
    """
    from math import comb

    from algebra.geometry.secant import sweep_quadratic
    from algebra.models import quadratic_network, shallow_network

    out = []
    d_max, p_max, k_max = (4, 3, 5) if fast else (8, 6, 12)
    for r in sweep_quadratic(d_max, p_max, k_max):
        if not r.defective:
            continue
        p, d = r.variety["factors"]
        K = r.k
        expected = min(K * (p + d - 1), p * d * (d + 1) // 2)
        out.append(DimensionClaim(
            f"grokking-cor42-d{d}-p{p}-K{K}", GROKKING, "Corollary 4.2 / G.10",
            f"quadratic network (d, p, K) = ({d}, {p}, {K}), assumed non-defective: "
            "dim = min(K(p+d-1), p d(d+1)/2)",
            quadratic_network(d, p, K), expected, group="quadratic", assumes_nondefective=True,
            notes={"found_by": f"secant sweep d<={d_max}, p<={p_max}, K<={k_max}",
                   "secant_lower_bound": r.lower_bound, "secant_upper_bound": r.upper_bound,
                   "upper_bound_reason": r.upper_bound_reason,
                   "reproduce": f"neuroalgebra secant --variety segre-veronese --factors {p},{d} --degrees 1,2 --k {K} --json"}))
    exceptions = AH_EXCEPTIONS[:1] + AH_EXCEPTIONS[3:] if fast else AH_EXCEPTIONS
    for n, deg, k in exceptions:
        expected = min(k * n, comb(n + deg - 1, deg))
        out.append(DimensionClaim(
            f"ah-exception-n{n}-d{deg}-k{k}", AH, "Alexander–Hirschowitz theorem (1995)",
            f"sigma_{k} of v_{deg}(P^{n - 1}) is defective: the shallow network sum_i v_i (w_i.x)^{deg} "
            f"of width {k} on {n} inputs has dim = min(k n, binom(n+d-1, d)) - 1 = {expected - 1}",
            shallow_network(n, deg, k), expected - 1, group="secant",
            notes={"reproduce": f"neuroalgebra secant --variety veronese --n {n} --degree {deg} --k {k} --json"}))
    sizes = [(2, 1), (2, 2)] if fast else [(2, 1), (2, 2), (3, 1), (3, 2)]
    for d, dp in sizes:
        k, q, h = list(range(1, d + 1)), [2 - i for i in range(d)], list(range(3, 3 + dp))
        A = [[ki * qj for qj in q] for ki in k]
        V = [[hi * kj for kj in k] for hi in h]
        out.append(DimensionClaim(
            f"proximity-lemmaD3-exceptional-d{d}-dp{dp}", PROXIMITY, "Lemma D.3",
            f"t = 2 tokens, A = k q^T, V = h k^T (d={d}, d'={dp}): dim J_(A,V) = d^2 + d d' - d",
            _stratum_tangent_map(d, dp, 2, A, V), d * d + d * dp - d, group="singular",
            notes={"k": k, "q": q, "h": h}))
        w = [1 + 2 * i for i in range(d)]
        S = [[(k[i] * w[j] + k[j] * w[i]) for j in range(d)] for i in range(d)]  # 2 sym(k w^T)
        out.append(DimensionClaim(
            f"proximity-lemmaE1-exceptional-d{d}-dp{dp}", PROXIMITY, "Lemma E.1",
            f"t = 1, V = h v^T, S = sym(v w^T) (v^T x divides Q_S; d={d}, d'={dp}): the differential has a "
            f"d-dimensional affine kernel, rank = d d' + binom(d+1, 2) - d",
            _stratum_tangent_map(d, dp, 1, S, V), d * dp + comb(d + 1, 2) - d, group="singular",
            notes={"v": k, "w": w, "h": h, "rank_in_symmetric_coordinates": True}))
    return out


__all__ += ["geometry_claims", "AH_EXCEPTIONS"]


# -- learning-coefficient claims (grokking paper, Section 5) --------------------------------------


@dataclass(frozen=True)
class Hypothesis:
    """One hypothesis of a claim: either decided by arithmetic (``holds``) or by a certified dimension
    (``nondefective``: the model must reach its expected count ``min(ambient, P - symmetries)``;
    ``injective``: the model -- a linear map -- must have Jacobian rank equal to its parameter count)."""

    text: str
    holds: bool | None = None
    nondefective: Model | None = None
    injective: Model | None = None


@dataclass(frozen=True)
class LambdaClaim:
    """A learning coefficient a paper states for a model regular in its identifiable coordinates.

    ``stated`` is ``{"lambda": Fraction, "where": str}`` or ``{"lower": .., "upper": .., "where": ..}``;
    the true value is ``rank / 2`` of the certified Jacobian rank of ``model``
    (:func:`algebra.certify.emit.rlct_certificate`).
    """

    id: str
    paper: str
    location: str
    statement: str
    model: Model
    stated: dict
    hypotheses: tuple = ()
    group: str = "lambda"
    notes: dict = field(default_factory=dict)


def modular_addition_map(p: int, K: int, *, lazy_seed: int | None = None):
    """The data-restricted, centred quadratic network of modular addition (grokking paper, Section 5).

    The map is :class:`algebra.grokking.references.DataRestrictedQuadratic` on all
    ``p^2`` one-hot pairs ``x = e_a + e_{p+b}`` (``d = 2p``): ``(W, V) ->`` the centred
    predictions ``P_1^perp (X W)^2 V`` (times ``p^2``, which keeps the rank).  With
    ``lazy_seed`` the first layer ``W`` is frozen at random integers drawn from that
    seed (the lazy / random-feature regime of Theorem 5.2) and the result is the
    polynomial map of ``V`` alone.

    Examples
    --------
    >>> m = modular_addition_map(2, 1)
    >>> m.parameter_count, m.n_outputs, m.n_inputs
    (6, 8, 0)
    >>> modular_addition_map(2, 3, lazy_seed=0).parameter_count
    6
    """
    import numpy as np

    from algebra.certify.symbolic import PolynomialField
    from algebra.grokking.references import DataRestrictedQuadratic
    from algebra.grokking.task import modular_addition
    from algebra.models import PolynomialMap

    task = modular_addition(p, 1.0)
    model = DataRestrictedQuadratic(p, K, task.a, task.b)
    if lazy_seed is None:
        return model
    W = np.random.default_rng(np.random.SeedSequence(lazy_seed)).integers(-9, 10, size=2 * p * K)
    F = PolynomialField(p * K)  # the parameters are V only
    theta = np.concatenate([F.array(W), F.variables()])
    outputs = np.asarray(model.forward(theta, None, F)).ravel()
    return PolynomialMap([F._lift(y) for y in outputs], parameters=F.names)


def grokking_lambda_claims(fast: bool) -> list:
    """Corollaries 5.3 and 5.4 of the grokking paper for modular addition, at small ``p`` and ``K``.

    * Corollary 5.4 states ``lambda = K(3p - 1)/2`` for the late-stage (Stage II)
      solution, assuming ``K(d+p-1) < p d(d+1)/2`` (``d = 2p``) and a
      non-defective architecture ``(d, p, K)``.  Under the paper's own setting
      (squared loss, data uniform on the finite data set) lambda is half the rank
      of the data-restricted map :func:`modular_addition_map`.
    * Corollary 5.3 states ``p(2p-1)/2 <= lambda <= pK/2`` in the lazy regime
      (``sigma(t) = t^2``, ``2p - 1 < K << p^2``): half the rank of ``V -> P_1^perp F V``
      at a random frozen first layer.

    The hypotheses are decided by code (arithmetic, or a certified dimension);
    nothing here stores a computed value.

    Examples
    --------
    >>> [c.id for c in grokking_lambda_claims(fast=True)]
    ['grokking-cor54-p2-K2', 'grokking-cor53-p3-K6']
    """
    from fractions import Fraction

    from algebra.models import quadratic_network

    out = []
    for p, K in [(2, 2)] if fast else [(2, 1), (2, 2), (2, 3), (3, 1), (3, 2), (3, 4)]:
        d = 2 * p
        out.append(LambdaClaim(
            f"grokking-cor54-p{p}-K{K}", GROKKING, "Corollary 5.4",
            f"modular addition mod p = {p}, width K = {K} (d = 2p = {d}): the Stage-II LLC is lambda = K(3p-1)/2",
            modular_addition_map(p, K), {"lambda": Fraction(K * (3 * p - 1), 2), "where": "grokking paper, Corollary 5.4"},
            hypotheses=(
                Hypothesis(f"subabundant: K(d+p-1) = {K * (d + p - 1)} < p d(d+1)/2 = {p * d * (d + 1) // 2}",
                           holds=K * (d + p - 1) < p * d * (d + 1) // 2),
                Hypothesis(f"the architecture (d, p, K) = ({d}, {p}, {K}) is non-defective",
                           nondefective=quadratic_network(d, p, K)),
            ),
            group="lambda", notes={"model": "P_1^perp (X W)^2 V on the p^2 one-hot pairs, W and V free"}))
    for p, K in [(3, 6)] if fast else [(3, 6), (3, 7), (3, 8), (5, 10), (5, 12)]:
        out.append(LambdaClaim(
            f"grokking-cor53-p{p}-K{K}", GROKKING, "Corollary 5.3 (Theorem 5.2)",
            f"modular addition mod p = {p}, width K = {K}, lazy regime (first layer frozen at random): "
            "p(2p-1)/2 <= lambda <= pK/2",
            modular_addition_map(p, K, lazy_seed=1000 * p + K),
            {"lower": Fraction(p * (2 * p - 1), 2), "upper": Fraction(p * K, 2), "where": "grokking paper, Corollary 5.3"},
            hypotheses=(Hypothesis(f"2p - 1 = {2 * p - 1} < K = {K} < p^2 = {p * p}", holds=2 * p - 1 < K < p * p),),
            group="lambda", notes={"model": "P_1^perp F V with F = (X W)^2, W frozen (seed 1000 p + K), V free"}))
    return out


__all__ += ["Hypothesis", "LambdaClaim", "modular_addition_map", "grokking_lambda_claims"]


# -- graph attention (graph-attention paper, Section 3; issue 13) ---------------------------------

GRAPH = "symmetries-singularities-graph-attention-llc"

#: Designs of :func:`algebra.graph.attention.make_design` the catalogue decides Assumption 1 on:
#: ``(tag, graph, d, k, r, options, fails_on_purpose)``.  The first rows are the ``graph fisher`` /
#: ``llc graph`` benchmark designs (seed 0, radius 1, Gaussian features, default draws); the
#: last two fail on purpose (radius 0 hides every neighbour; constant features).
GRAPH_DESIGNS = (
    ("cyclic8-d4-k2-r1", "cyclic:8", 4, 2, 1, {}, False),
    ("cyclic8-d4-k2-r1-radius0", "cyclic:8", 4, 2, 1, {"radius": 0}, True),
    ("cyclic8-d4-k2-r2", "cyclic:8", 4, 2, 2, {}, False),
    ("dihedral5-d4-k3-r1", "dihedral:5", 4, 3, 1, {}, False),
    ("torus3x3-d3-k2-r1", "torus:3x3", 3, 2, 1, {}, False),
    ("hypercube3-d4-k3-r3", "hypercube:3", 4, 3, 3, {}, False),
    ("symmetric3-d3-k3-r1", "symmetric:3", 3, 3, 1, {}, False),
    ("symmetric4-d3-k2-r1", "symmetric:4", 3, 2, 1, {}, False),
    ("petersen-d3-k2-r2", "petersen", 3, 2, 2, {}, False),
    ("dihedral4-d4-k2-r0", "dihedral:4", 4, 2, 0, {}, False),
    ("cyclic8-d4-k2-r1-constant", "cyclic:8", 4, 2, 1, {"features": "constant"}, True),
)


def graph_design(graph: str, d: int, k: int, r: int, options: dict):
    """The design of a :data:`GRAPH_DESIGNS` row (seed 0)."""
    from algebra.graph.attention import make_design
    from algebra.graph.groups import parse_graph

    return make_design(parse_graph(graph), d, k, r, seed=0, **options)


def identifiability_map(design):
    """``L: Delta C -> (h_i^T Delta C (h_j - h_j0))`` of Assumption 1 as a linear polynomial map.

    One output per representative row of ``design`` and visible node ``j``
    other than the row's first visible node ``j0``, with the features taken
    as the exact rationals their floats are
    (:func:`algebra.graph.fisher._identifiability_rows`, the rows
    :func:`~algebra.graph.fisher.decide_assumption1` ranks).  Since the
    teacher probabilities are interior, ``Q(Delta C) = 0`` (17) iff every
    active row of ``J_C Delta C`` is constant on the visible nodes, i.e. iff
    ``L Delta C = 0``: Assumption 1 (18) holds iff ``rank L = d^2`` (then the
    best ``alpha`` is the smallest eigenvalue of ``Q``, positive).  A design
    where no node sees another has no such rows; its map is the single zero
    output (rank 0, the rank of the empty map).

    Examples
    --------
    >>> m = identifiability_map(graph_design("cyclic:8", 4, 2, 1, {}))
    >>> m.parameter_count, m.n_outputs
    (16, 128)
    >>> identifiability_map(graph_design("cyclic:8", 4, 2, 1, {"radius": 0})).polynomials[0].is_zero
    True
    """
    from algebra.graph.fisher import _identifiability_rows
    from algebra.models import PolynomialMap
    from algebra.models.polynomial import Polynomial

    d2 = design.d ** 2
    names = tuple(f"dC{a}_{b}" for a in range(design.d) for b in range(design.d))
    unit = [tuple(int(t == j) for t in range(d2)) for j in range(d2)]
    rows = _identifiability_rows(design) or [[0] * d2]
    return PolynomialMap([Polynomial(names, {unit[j]: c for j, c in enumerate(row) if c}) for row in rows],
                         parameters=names)


__all__ += ["GRAPH_DESIGNS", "graph_design", "identifiability_map"]
