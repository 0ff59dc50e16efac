"""The seed-claims catalogue: one certificate per checkable claim of the papers.

Claims are data (:class:`~algebra.geometry.claims.DimensionClaim` for
dimension statements, :class:`FormulaClaim` for learning-coefficient closed
forms, :class:`AttentionRankClaim` for approximation ranks of attention matrices): what a
paper says and where, and :class:`~algebra.geometry.claims.LambdaClaim` for
learning coefficients a paper states outright (with their hypotheses).
Nothing here stores a computed value: the verdict is computed by
:func:`run_catalogue`, which writes one certificate per claim plus
``INDEX.md`` and ``index.json`` (which also list the head certificates of
``attention/`` as facts, ``certified`` when the checker verifies them: no
paper claim is at stake there).  Verdicts: ``confirmed`` (the claim holds as
stated), ``refuted`` (false under its own hypotheses), ``hypothesis fails``
(a stated hypothesis is certified false for the instance, so the claim does
not apply; the entry says which and the true value), ``out of reach``.

Sources (``../shared/papers/``):

* ``proximity-bias-submodels``: Example B.10 (``dim F = dim F' = 4``),
  Lemma D.3 / Section 4.1 (multi-token lightning attention
  ``dim X_d = d^2 + d d' - 1``), Appendix E (single token
  ``dim X_d = d d' + binom(d+1, 2) - 1``), Proposition E.3 (rank-constrained
  single token: the symmetric part has rank ``<= min(2a, d)``), the
  rank-``a`` multi-token count of Appendix D.1, and the CNN claims of
  Figure 6 / Appendix C / G.6 (:func:`algebra.geometry.cnn_proximity.cnn_claims`:
  Figure 6 as explicit polynomial maps; the inactive-channel subnetworks, the
  CNN proximity sweep included, natively as ``differential`` certificates of the
  checker's own CNN evaluator, compared with a proven bound of ``dim F'``).
* ``grokking-basin-selection-llc``: Corollary 4.2 / G.10 (quadratic networks
  ``(d, p, K)``, assumed non-defective: ``dim = min(K(p+d-1), p d(d+1)/2)``;
  a certified defect makes the verdict ``hypothesis fails``), Corollaries 5.3
  and 5.4 (learning coefficients of modular addition, checked on the
  data-restricted map at small ``p``, ``K``),
  Theorem G.1 (bias, ``K >= d``: ``(d+1)(d+2)/2``), Theorem G.2 and Example
  G.4 (bias, ``K < d``: ``K(2d-K+1)/2 + K + 1``).
* ``symmetries-singularities-graph-attention-llc``: Theorem 1 (rank
  ``2dk - k^2`` of the query-key map), Proposition 1 / (42) (orbit dimension
  ``r(2k - r)`` and stabilizer ``s^2`` of the gauge at a rank-``r`` point; the
  ``r(2d - r)`` regular coordinates), Theorems 1-2 (28), (44)-(45)
  (learning coefficients; Aoyagi & Watanabe 2005); on the designs of
  :data:`~algebra.geometry.claims.GRAPH_DESIGNS`: Assumption 1 (18) as the
  certified rank of the linear map ``L`` (``dimension`` certificate), Theorem 2
  (44)-(45) with Assumption 1 as its decided hypothesis (``hypothesis fails``
  on the designs that fail on purpose), and Lemma 1 / (13)-(15) as
  ``score_representation`` certificates (:class:`RepresentationClaim`: the
  checker derives the group, ``rho_score``, the commutation (14) and the
  projectors (15) with their ranks from the design's exact data).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from functools import lru_cache
from math import comb
from pathlib import Path

import numpy as np

from algebra.certify.canonical import render, write_atomic
from algebra.certify.emit import VERDICTS
from algebra.errors import AlgebraError, ResourceError
from algebra.geometry.claims import (
    GRAPH_DESIGNS,
    DimensionClaim,
    Hypothesis,
    LambdaClaim,
    graph_design,
    grokking_lambda_claims,
    identifiability_map,
)

__all__ = ["FormulaClaim", "AttentionRankClaim", "RepresentationClaim", "claims", "run_catalogue",
           "PAPERS", "MAX_WORK"]

PROXIMITY = "proximity-bias-submodels"
GROKKING = "grokking-basin-selection-llc"
GRAPH = "symmetries-singularities-graph-attention-llc"
SOFTMAX = "softmax-attention-approximation-rank"
PAPERS = (PROXIMITY, GROKKING, GRAPH, SOFTMAX)

#: Claims whose Jacobian would have more entries than this are *out of reach*
#: for the catalogue's time budget (the checker replays each in pure Python).
MAX_WORK = 250_000


@dataclass(frozen=True)
class FormulaClaim:
    """A closed-form learning coefficient stated by a paper (checked by re-evaluation).

    ``hypotheses`` (:class:`~algebra.geometry.claims.Hypothesis`) are decided before the
    value: a false one makes the verdict ``hypothesis fails``.
    """

    id: str
    paper: str
    location: str
    statement: str
    formula: str
    args: tuple
    group: str = "formula"
    hypotheses: tuple = ()
    notes: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RepresentationClaim:
    """Lemma 1 and (13)-(15) on a design of :data:`~algebra.geometry.claims.GRAPH_DESIGNS`.

    Certified as a ``score_representation`` certificate: the checker derives the
    group, ``rho_score``, the commutation (14) for every teacher and the projectors
    (15) with their ranks from the design's exact data; the verdict is the derived
    claim's (:func:`algebra.certify.representation.representation_certificate`).
    """

    id: str
    paper: str
    location: str
    statement: str
    graph: str
    d: int
    k: int
    r: int
    options: dict = field(default_factory=dict)
    group: str = "graph-assumption1"


@dataclass(frozen=True)
class AttentionRankClaim:
    """A stated approximation rank ``r_eps RELATION claimed`` of ``softmax_rows(beta Q K^T)``.

    Certified as an ``attention_rank`` certificate (Q, K, beta exact; the
    checker rebuilds the matrix in ball arithmetic and derives both bounds).
    """

    id: str
    paper: str
    location: str
    statement: str
    Q: tuple
    K: tuple
    beta: float
    eps: float
    claimed: int
    relation: str = "=="
    group: str = "attention-rank"


# -- the claims -----------------------------------------------------------------
def _proximity(fast: bool) -> list:
    from algebra.models import MLP, LightningAttention

    out = [
        DimensionClaim("proximity-b10-F", PROXIMITY, "Example B.10",
                       "d = (2,3,1,1), rho = t^3, no bias: F = {p^3 : p a binary cubic}, dim F = 4",
                       MLP((2, 3, 1, 1), "t^3"), 4, group="mlp"),
        DimensionClaim("proximity-b10-Fprime", PROXIMITY, "Example B.10",
                       "the submodel F' with one inactive neuron in layer 1 has dim F' = dim F = 4",
                       MLP((2, 3, 1, 1), "t^3", inactive={1: [0]}), 4, group="mlp"),
    ]
    grid = [(2, 1, 2), (2, 2, 2), (3, 2, 2)] if fast else [(d, dp, t) for d in (2, 3, 4, 5) for dp in (1, 2, 3) for t in (2, 3)]
    for d, dp, t in grid:
        out.append(DimensionClaim(
            f"proximity-attention-multi-d{d}-dp{dp}-t{t}", PROXIMITY, "Section 4.1, Lemma D.3",
            f"multi-token lightning attention (d={d}, d'={dp}, t={t} tokens, a=d): dim X_d = d^2 + d d' - 1",
            LightningAttention(d, dp, t), d * d + d * dp - 1, group="attention"))
    grid = [(2, 2), (3, 2)] if fast else [(d, dp) for d in (2, 3, 4, 5) for dp in (1, 2, 3)]
    for d, dp in grid:
        out.append(DimensionClaim(
            f"proximity-attention-single-d{d}-dp{dp}", PROXIMITY, "Section 4.2, Appendix E.1",
            f"single-token lightning attention (d={d}, d'={dp}): dim X_d = d d' + binom(d+1, 2) - 1",
            LightningAttention(d, dp, 1), d * dp + comb(d + 1, 2) - 1, group="attention"))
    grid = [(3, 1, 2)] if fast else [(3, 1, 2), (4, 1, 2), (4, 2, 2), (5, 2, 2), (5, 1, 2)]
    for d, a, dp in grid:
        k = min(2 * a, d)
        out.append(DimensionClaim(
            f"proximity-attention-single-rank-d{d}-a{a}-dp{dp}", PROXIMITY, "Proposition E.3",
            f"single-token attention with rank(A) <= {a} (d={d}, d'={dp}): the symmetric part ranges over "
            f"rank <= min(2a, d) = {k}, so dim X_a = d d' + (k d - binom(k, 2)) - 1",
            LightningAttention(d, dp, 1, rank=a), d * dp + k * d - comb(k, 2) - 1, group="attention"))
    grid = [(3, 1, 2, 2)] if fast else [(3, 1, 2, 2), (3, 2, 2, 2), (4, 2, 2, 2), (4, 3, 1, 2)]
    for d, a, dp, t in grid:
        out.append(DimensionClaim(
            f"proximity-attention-multi-rank-d{d}-a{a}-dp{dp}-t{t}", PROXIMITY, "Appendix D.1 (Lemmas D.1, D.3)",
            f"multi-token attention with rank(A) <= {a} (d={d}, d'={dp}, t={t}): rank-a matrices (dim a(2d-a)) "
            "times V, minus the scaling: dim X_a = a(2d - a) + d d' - 1",
            LightningAttention(d, dp, t, rank=a), a * (2 * d - a) + d * dp - 1, group="attention"))
    return out


def _grokking(fast: bool) -> list:
    from algebra.models import quadratic_network

    out = []
    grid = [(2, 1, 2), (3, 2, 2), (4, 3, 5)] if fast else [
        (d, p, K) for d in range(2, 7) for p in range(1, 6) for K in range(1, 9)]
    grid = grid + [(194, 97, 512)]  # the modular-addition experiment (p = 97, x in R^{2p}): out of reach
    for d, p, K in grid:
        expected = min(K * (p + d - 1), p * d * (d + 1) // 2)
        out.append(DimensionClaim(
            f"grokking-cor42-d{d}-p{p}-K{K}", GROKKING, "Corollary 4.2 / G.10",
            f"quadratic network (d, p, K) = ({d}, {p}, {K}), assumed non-defective: "
            "dim = min(K(p+d-1), p d(d+1)/2)",
            quadratic_network(d, p, K), expected, group="quadratic", assumes_nondefective=True))
    grid = [(2, 2)] if fast else [(2, 2), (2, 3), (3, 3), (3, 4), (4, 4)]
    for d, K in grid:
        out.append(DimensionClaim(
            f"grokking-thmG1-d{d}-K{K}", GROKKING, "Theorem G.1",
            f"single-output quadratic network with biases, d={d}, K={K} >= d: (Q, r, s) fill "
            "Sym_d x R^d x R, dim = (d+1)(d+2)/2",
            quadratic_network(d, 1, K, bias=True), (d + 1) * (d + 2) // 2, group="quadratic"))
    grid = [(4, 2)] if fast else [(3, 1), (3, 2), (4, 1), (4, 2), (4, 3), (5, 2), (5, 3)]
    for d, K in grid:
        loc = "Example G.4" if (d, K) == (4, 2) else "Theorem G.2"
        out.append(DimensionClaim(
            f"grokking-thmG2-d{d}-K{K}", GROKKING, loc,
            f"single-output quadratic network with biases, d={d}, K={K} < d: dim = K(2d-K+1)/2 + K + 1",
            quadratic_network(d, 1, K, bias=True), K * (2 * d - K + 1) // 2 + K + 1, group="quadratic"))
    return out


def _linear_map(outputs: list, names: list):
    from algebra.models import PolynomialMap

    return PolynomialMap(outputs, parameters=names)


def _canonical_point(d: int, k: int, r: int, seed: int) -> tuple:
    """``A* = [A_a 0]``, ``B* = [B_a 0]`` with random integer ``d x r`` active blocks."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    A = np.zeros((d, k), dtype=np.int64)
    B = np.zeros((d, k), dtype=np.int64)
    A[:, :r] = rng.integers(-9, 10, size=(d, r))
    B[:, :r] = rng.integers(-9, 10, size=(d, r))
    return A, B


def _orbit_map(d: int, k: int, r: int):
    """The gauge tangent ``E -> (A* E, -B* E^T)`` at the canonical point (linear in ``E``)."""
    A, B = _canonical_point(d, k, r, seed=1000 * d + 10 * k + r)
    names = [f"e{i}_{j}" for i in range(k) for j in range(k)]
    outs = []
    for a in range(d):
        for j in range(k):
            outs.append(" + ".join(f"({A[a, i]})*e{i}_{j}" for i in range(k)))
    for b in range(d):
        for i in range(k):
            outs.append(" + ".join(f"({-B[b, j]})*e{i}_{j}" for j in range(k)))
    return _linear_map(outs, names)


def _tangent_map(d: int, k: int, r: int):
    """The differential ``(dA, dB) -> dA B*^T + A* dB^T`` of ``(A, B) -> A B^T`` at the canonical point."""
    A, B = _canonical_point(d, k, r, seed=1000 * d + 10 * k + r)
    names = [f"a{i}_{j}" for i in range(d) for j in range(k)] + [f"b{i}_{j}" for i in range(d) for j in range(k)]
    outs = []
    for a in range(d):
        for c in range(d):
            terms = [f"({B[c, j]})*a{a}_{j}" for j in range(k)] + [f"({A[a, j]})*b{c}_{j}" for j in range(k)]
            outs.append(" + ".join(terms))
    return _linear_map(outs, names)


def _graph(fast: bool) -> list:
    from algebra.models import QueryKey

    out = []
    grid = [(3, 2), (4, 2)] if fast else [(d, k) for d in range(2, 7) for k in range(1, d + 1)]
    for d, k in grid:
        out.append(DimensionClaim(
            f"graph-thm1-rank-d{d}-k{k}", GRAPH, "Theorem 1 (proof)",
            f"query-key map (A, B) -> A B^T, d={d}, k={k}: the image of the differential at a full-rank pair "
            "has dimension q = 2dk - k^2",
            QueryKey(d, k), 2 * d * k - k * k, group="query-key"))
    grid = [(4, 3, 1)] if fast else [(4, 3, 1), (4, 3, 2), (5, 3, 1), (5, 4, 2), (6, 4, 2), (6, 5, 3)]
    for d, k, r in grid:
        s = k - r
        out.append(DimensionClaim(
            f"graph-orbit-d{d}-k{k}-r{r}", GRAPH, "Proposition 1, (42); Appendix A.4",
            f"gauge orbit of GL({k}) at a rank-{r} canonical point (d={d}): orbit dimension k^2 - s^2 = r(2k - r) "
            f"(stabilizer GL(s), s = {s}, of dimension s^2 = {s * s})",
            _orbit_map(d, k, r), r * (2 * k - r), group="query-key"))
        out.append(DimensionClaim(
            f"graph-regular-d{d}-k{k}-r{r}", GRAPH, "Proposition 1, (41), (48)",
            f"at a rank-{r} canonical point (d={d}, k={k}) the differential of (A, B) -> A B^T has rank "
            f"r(2d - r) (the regular coordinates), its kernel 2dk - r(2d - r) = r(2k - r) + 2(d - r)(k - r)",
            _tangent_map(d, k, r), r * (2 * d - r), group="query-key"))
    forms = [(4, 3, 3), (6, 4, 2)] if fast else [(d, k, r) for d in (3, 4, 6) for k in range(1, d + 1) for r in range(0, k + 1)]
    for d, k, r in forms:
        loc = "Theorem 1, (28)" if r == k else "Theorem 2, (44)-(45)"
        out.append(FormulaClaim(
            f"graph-lambda-d{d}-k{k}-r{r}", GRAPH, loc,
            f"learning coefficient of the query-key composite (d={d}, k={k}, teacher rank r={r})",
            "query_key", (d, k, r)))
    rrr = [(5, 4, 3, 1)] if fast else [(5, 4, 3, 1), (3, 3, 2, 1), (4, 2, 3, 0), (6, 6, 4, 2), (2, 7, 2, 1)]
    for M, N, H, r in rrr:
        out.append(FormulaClaim(
            f"graph-aw2005-M{M}-N{N}-H{H}-r{r}", GRAPH, "Section 4.3 (Aoyagi & Watanabe 2005, Main Theorem)",
            f"reduced rank regression (M, N, H, r) = ({M}, {N}, {H}, {r})", "reduced_rank_regression", (M, N, H, r)))
    if not fast:
        for ws, r in [((4, 3, 3, 5), 1), ((3, 2, 4), 1), ((5, 3, 4), 1)]:
            out.append(FormulaClaim(
                f"graph-aoyagi2024-{'-'.join(map(str, ws))}-r{r}", GRAPH, "related work (Aoyagi 2024, Theorem 1)",
                f"deep linear network widths {ws}, teacher rank {r}", "deep_linear_network", (list(ws), r)))
    return out


def _graph_designs(fast: bool) -> list:
    """Assumption 1 and Theorem 2 on the designs of :data:`~algebra.geometry.claims.GRAPH_DESIGNS`.

    Assumption 1 is the rank of the linear map ``L``
    (:func:`~algebra.geometry.claims.identifiability_map`): a ``dimension``
    certificate the checker replays (``rank L = d^2``: it holds; below: it
    fails).  The ``alpha`` of (18) is certified by the library's ball
    arithmetic (:func:`algebra.graph.fisher.decide_assumption1`) and only
    recorded in ``notes``: the checker does not re-derive it, and Assumption 1
    needs only ``alpha > 0``, which ``rank L = d^2`` proves.  Theorem 2's
    (44)-(45) is a ``formula`` certificate whose hypothesis, Assumption 1, is
    decided by the same rank: ``hypothesis fails`` on the failing designs.
    """
    from algebra.graph.fisher import decide_assumption1

    out = []
    rows = [GRAPH_DESIGNS[0], GRAPH_DESIGNS[1]] if fast else GRAPH_DESIGNS
    for tag, graph, d, k, r, options, fails in rows:
        design = graph_design(graph, d, k, r, options)
        L = identifiability_map(design)
        a1 = decide_assumption1(design)
        where = f"{graph}, d={d}, k={k}, r={r}" + "".join(f", {key}={v}" for key, v in options.items())
        notes = {"design": {key: design.describe()[key] for key in ("graph", "group_order", "radius", "num_draws",
                                                                    "design_size", "feature_law", "seed")},
                 "build": f"algebra.geometry.claims.graph_design({graph!r}, {d}, {k}, {r}, {options!r})"}
        if a1.alpha_lower is not None:
            notes["alpha_lower"] = str(a1.alpha_lower)
            notes["alpha_certified_by"] = (f"library ball arithmetic (python-flint arb, {a1.precision} bits, LDL^T of "
                                           "Q - alpha I); not re-derived by the checker")
        if fails:
            out.append(DimensionClaim(
                f"graph-a1-{tag}", GRAPH, "Assumption 1 (18), (20)",
                f"design {where} (fails on purpose): some Delta C != 0 changes every attention row by a constant "
                f"only, i.e. rank L < d^2 = {d * d} for L: Delta C -> (h_i^T Delta C (h_j - h_j0))",
                L, d * d - 1, relation="<=", group="graph-assumption1", notes=notes))
        else:
            out.append(DimensionClaim(
                f"graph-a1-{tag}", GRAPH, "Assumption 1 (18), (20)",
                f"design {where}: Q(Delta C) >= alpha ||Delta C||^2 with alpha > 0, i.e. L: Delta C -> "
                f"(h_i^T Delta C (h_j - h_j0)) is injective, rank L = d^2 = {d * d}",
                L, d * d, group="graph-assumption1", notes=notes))
        out.append(FormulaClaim(
            f"graph-thm2-{tag}", GRAPH, "Theorem 2, (44)-(45)" if r < k else "Theorem 1, (28); Theorem 2, (44)",
            f"learning coefficient of softmax graph attention on the design {where}, under Assumption 1",
            "query_key", (d, k, r), group="graph-assumption1",
            hypotheses=(Hypothesis(f"Assumption 1 (18) on the design: rank L = d^2 = {d * d} (entry graph-a1-{tag})",
                                   injective=L),),
            notes={"design": notes["design"]}))
    return out


def _graph_lemma1(fast: bool) -> list:
    """Lemma 1, (13)-(15) on designs of every family (both character routes: closed form and Burnside-Dixon)."""
    out = []
    for tag, graph, d, k, r, options, _ in [GRAPH_DESIGNS[0]] if fast else [GRAPH_DESIGNS[i] for i in (0, 3, 4, 5, 7)]:
        out.append(RepresentationClaim(
            f"graph-lemma1-{tag}", GRAPH, "Lemma 1 (12)-(13), (14), (15)",
            f"on the orbit-closed design {graph}, d={d}, k={k}, r={r}: rho_score is a representation, F_score "
            "commutes with it (14), and the isotypic projectors (15) are orthogonal idempotents summing to the identity",
            graph, d, k, r, options))
    return out


def _cnn(fast: bool) -> list:
    """The proximity-bias paper's CNN claims (Figure 6, Appendix C / G.6; issue 16), when present."""
    try:
        from algebra.geometry.cnn_proximity import SubnetworkClaim, cnn_claims
    except ImportError:
        return []
    return [c for c in cnn_claims(fast) if isinstance(c, (DimensionClaim, SubnetworkClaim))]


def _softmax(fast: bool) -> list:
    def eye(n):
        return tuple(tuple(float(i == j) for j in range(n)) for i in range(n))

    out = []
    for n in (5,) if fast else (3, 5, 8):
        out.append(AttentionRankClaim(
            f"softmax-identity-n{n}", SOFTMAX, "Section 2.1 (r_eps); Appendix E (selection/decoder lower certificate, (E.17))",
            f"softmax(6 I_{n}) at eps = 1/4: a row selection S and one-hot decoder D with ||S A D - I|| < 1 - eps "
            f"force every eps-approximant to have rank >= {n}, and A itself has rank {n}: r_eps = {n}",
            eye(n), eye(n), 6.0, 0.25, n))
    keys = tuple(tuple(float((3 * i + 5 * j) % 7 - 3) / 4 for j in range(3)) for i in range(6))
    zero = tuple((0.0, 0.0, 0.0) for _ in range(4))
    out.append(AttentionRankClaim(
        "softmax-zero-query-radius", SOFTMAX, "Proposition A.2 (edge case: zero query radius)",
        "queries of radius zero: every row of softmax(beta Q K^T) is the same, so r_eps = 1 at eps = 1/4 "
        "(one representative row is exact; the zero matrix misses every row by 1 > eps)", zero, keys, 3.0, 0.25, 1))
    return out


def _external(fast: bool) -> list:
    """Claims contributed by the geometry issue (``geometry_claims(fast)``), when present."""
    import importlib

    for name in ("algebra.geometry.claims", "algebra.geometry.catalogue", "algebra.geometry.secant"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        fn = getattr(module, "geometry_claims", None)
        if fn is not None:
            try:
                return [c for c in fn(fast) if isinstance(c, DimensionClaim)]
            except AlgebraError as exc:  # their sweep failed: the rest of the catalogue still runs
                import warnings

                warnings.warn(f"geometry_claims({fast}) failed: {exc}", stacklevel=2)
                return []
    return []


def claims(fast: bool = False) -> list:
    """All catalogue claims (``fast``: the CI subset).

    Examples
    --------
    >>> ids = [c.id for c in claims(fast=True)]
    >>> "grokking-cor42-d4-p3-K5" in ids and len(ids) == len(set(ids))
    True
    """
    out = (_proximity(fast) + _cnn(fast) + _grokking(fast) + grokking_lambda_claims(fast) + _graph(fast)
           + _graph_designs(fast) + _graph_lemma1(fast) + _softmax(fast))
    seen = {c.id for c in out}
    for c in _external(fast):
        if c.id not in seen:
            out.append(c)
            seen.add(c.id)
    return out


# -- running -----------------------------------------------------------------------
def _work(model) -> int:
    """Rough size of the Jacobian the certificate needs (rows x parameters)."""
    from algebra.models.base import monomial_count

    rows = min(model.ambient_dimension(), model.parameter_count + 4 * model.n_outputs)
    if model.n_inputs:
        rows = min(rows, model.n_outputs * monomial_count(model.n_inputs, model.degree, homogeneous=model.homogeneous))
    return rows * model.parameter_count


def _judge_hypotheses(hypotheses) -> tuple:
    """``(checked, failed)``: each hypothesis decided (arithmetic, or a certified rank)."""
    from algebra.certify.emit import checker_spec, dimension_certificate
    from algebra.checker import kernel

    checked, failed = [], []
    for h in hypotheses:
        holds, detail = h.holds, ""
        if h.nondefective is not None:
            e = dimension_certificate(h.nondefective)
            expected = kernel.expected_count(kernel.Model(checker_spec(h.nondefective)))
            holds = e.lower == e.upper == expected
            detail = f"certified dimension {e.lower}" + ("" if e.lower == e.upper else f"..{e.upper}") + \
                f", expected count {expected}"
        if h.injective is not None:
            e = dimension_certificate(h.injective)
            P = h.injective.parameter_count
            holds = e.lower == P
            detail = f"certified rank {e.lower}" + ("" if e.lower == e.upper else f"..{e.upper}") + f" of {P} columns"
        checked.append({"hypothesis": h.text, "holds": holds, **({"detail": detail} if detail else {})})
        if not holds:
            failed.append(h.text + (f" ({detail})" if detail else ""))
    return checked, failed


def _judge_lambda(claim, emitted) -> tuple:
    """``(verdict, note, hypotheses)`` of a :class:`LambdaClaim`: hypotheses first, then the value."""
    checked, failed = _judge_hypotheses(claim.hypotheses)
    lam = emitted.certificate["claim"]["value"]
    if failed:
        return "hypothesis fails", f"false hypothesis: {'; '.join(failed)}; the true lambda is {lam}", checked
    if emitted.certificate["claim"]["agrees"]:
        return "confirmed", "", checked
    return "refuted", f"the hypotheses hold and the certified lambda is {lam}", checked


def _stated_text(stated: dict) -> str:
    if "lambda" in stated:
        return f"lambda = {stated['lambda']}" + (f", m = {stated['multiplicity']}" if "multiplicity" in stated else "")
    return f"{stated['lower']} <= lambda <= {stated['upper']}"


def _certify_one(claim, seed: int) -> tuple:
    """``(emitted or None, reason when None, index fields)`` for one claim."""
    from algebra.certify.emit import attention_certificate, dimension_certificate, formula_certificate, rlct_certificate
    from algebra.geometry.cnn_proximity import SubnetworkClaim, judge_subnetwork

    src = {"id": claim.id, "paper": claim.paper, "location": claim.location, "statement": claim.statement}
    if isinstance(claim, FormulaClaim):
        e = formula_certificate(claim.formula, *claim.args, source=src)
        f = e.certificate["formula"]
        fields = {"says": _stated_text(f["stated"]) + f" ({f['stated']['where']})",
                  "proven": f"lambda = {f['lambda']}, m = {f['multiplicity']} ({e.certificate['claim']['route']})"}
        if claim.hypotheses:
            checked, failed = _judge_hypotheses(claim.hypotheses)
            fields["hypotheses"] = checked
            if failed:
                note = f"false hypothesis: {'; '.join(failed)}; the formula's value {f['lambda']} does not apply"
                e = type(e)(e.certificate, e.kind, e.lower, e.upper, "hypothesis fails", e.reason, note)
        return e, None, fields
    if isinstance(claim, LambdaClaim):
        if _work(claim.model) > MAX_WORK:
            return None, f"Jacobian of about {_work(claim.model):,} entries exceeds the catalogue budget of {MAX_WORK:,}", {}
        e = rlct_certificate(claim.model, stated=claim.stated, seed=seed, source=src)
        verdict, note, hyps = _judge_lambda(claim, e)
        e = type(e)(e.certificate, e.kind, e.lower, e.upper, verdict, e.reason, note)
        fields = {"says": _stated_text(e.certificate["formula"]["stated"]), "hypotheses": hyps,
                  "proven": f"lambda = {e.certificate['claim']['value']} (certified rank {e.lower} / 2)"}
        return e, None, fields
    if isinstance(claim, SubnetworkClaim):  # CNN subnetworks (Appendix C), certified natively
        e, fields = judge_subnetwork(claim, seed=seed, source=src)
        return e, None, fields
    if isinstance(claim, RepresentationClaim):
        from algebra.certify.representation import representation_certificate

        e = representation_certificate(graph_design(claim.graph, claim.d, claim.k, claim.r, claim.options), source=src)
        c = e.certificate["claim"]
        names = [x["name"] for x in e.certificate["representation"]["characters"]["irreps"]]  # labels, not claims
        fields = {"says": "rho_score is a representation (13); F_score commutes with it (14); the projectors (15) are "
                          "orthogonal idempotents summing to the identity",
                  "proven": f"(13), {'(14), ' if c['invariant'] else ''}(15) on {e.lower} score coordinates; rank Pi_rho: "
                            + ", ".join(f"Pi_{x['irrep']} ({names[x['irrep']]}) {x['rank']}" for x in c["components"])}
        return e, None, fields
    if isinstance(claim, AttentionRankClaim):
        e = attention_certificate(np.array(claim.Q), np.array(claim.K), claim.beta, claim.eps, claimed=claim.claimed,
                                  relation=claim.relation, source=src)
        proven = f"r_eps = {e.lower}" if e.lower == e.upper else f"{e.lower} <= r_eps <= {e.upper}"
        fields = {"says": f"r_eps {claim.relation} {claim.claimed}", "proven": proven, "claimed": claim.claimed,
                  "relation": claim.relation, "proven_lower": e.lower, "proven_upper": e.upper}
        return e, None, fields
    if _work(claim.model) > MAX_WORK:
        return None, f"Jacobian of about {_work(claim.model):,} entries exceeds the catalogue budget of {MAX_WORK:,}", {}
    e = dimension_certificate(claim.model, claimed=claim.claimed, relation=claim.relation, seed=seed, source=src,
                              assumes_nondefective=claim.assumes_nondefective)
    proven = f"dim = {e.lower}" if e.lower == e.upper else f"dim >= {e.lower}"
    fields = {"says": f"dim {claim.relation} {claim.claimed}", "proven": proven, "claimed": claim.claimed,
              "relation": claim.relation, "proven_lower": e.lower, "proven_upper": e.upper}
    return e, None, fields


@lru_cache(maxsize=2)
def _claims_by_id(fast: bool) -> dict:
    """``{id: claim}`` of :func:`claims` (built once per process: a sweep worker builds it for its tasks)."""
    return {c.id: c for c in claims(fast)}


def _certify_item(item: dict) -> dict:
    """One sweep task: certify claim ``item["id"]`` of the catalogue ``item["fast"]`` with ``item["seed"]``.

    Returns ``{"entry": index entry, "certificate": the certificate or None}``; nothing is
    written here, so any worker can run it and the result does not depend on which one did.
    """
    claim = _claims_by_id(item["fast"])[item["id"]]
    t0 = time.perf_counter()
    entry = {"id": claim.id, "paper": claim.paper, "location": claim.location, "statement": claim.statement,
             "group": claim.group}
    if getattr(claim, "notes", None):
        entry["notes"] = json.loads(json.dumps(claim.notes, default=str))
    try:
        emitted, why, fields = _certify_one(claim, item["seed"])
    except (AlgebraError, ResourceError) as exc:
        emitted, why, fields = None, f"{type(exc).__name__}: {exc}", {}
    cert = None
    if emitted is None:
        entry.update(verdict="out of reach", reason=why, file=None, **fields)
    else:
        cert = emitted.certificate
        entry.update(verdict=emitted.verdict, kind=emitted.kind, file=f"{claim.id}.json", sha256=cert["sha256"], **fields)
        if emitted.note:
            entry["note"] = emitted.note
    entry["seconds"] = round(time.perf_counter() - t0, 3)
    return {"entry": entry, "certificate": cert}


def run_catalogue(out_dir="certificates", *, fast: bool = False, seed: int = 0, progress: bool = True,
                  scheduler: str | None = "serial", workers: int | None = None) -> list:
    """Certify every claim, write ``<id>.json``, ``index.json`` and ``INDEX.md`` into ``out_dir``.

    Returns the index entries.  Files are written atomically; a claim that
    cannot be certified within the budget is listed as ``out of reach``.
    Claims run as tasks of :func:`algebra.sweep.run_sweep`: ``scheduler``
    ``"serial"`` (the default) runs them in this process, ``None`` on a
    ``LocalCluster`` of ``workers`` processes, an address on that Dask
    scheduler; every route writes byte-identical files (each claim carries
    its seed, and the files are written here, in catalogue order).
    Certificates in subdirectories (the committed ``attention/`` head
    certificates) are neither rewritten nor deleted; they are re-checked and
    listed in the index (:func:`algebra.attention_rank.head_certificates.index_entries`).
    """
    from algebra.sweep import run_sweep

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    items = [{"id": c_id, "fast": bool(fast), "seed": int(seed)} for c_id in _claims_by_id(bool(fast))]
    rows = run_sweep(_certify_item, items, key=lambda it: it["id"], scheduler=scheduler, workers=workers,
                     progress=progress, desc="certify")
    entries = []
    for row in rows:
        entry, cert = row["entry"], row["certificate"]
        path = out_dir / f"{entry['id']}.json"
        if cert is None:
            if path.exists():
                path.unlink()
        else:
            write_atomic(path, render(cert))
        entries.append(entry)
    if not fast:
        _remove_stale(out_dir, {e["file"] for e in entries if e.get("file")})
    write_index(out_dir, entries, fast=fast, facts=_fact_entries(out_dir))
    return entries


def _fact_entries(out_dir: Path) -> list:
    """Index rows of the certificates in ``out_dir/attention`` (re-checked now): facts, no paper claim."""
    from algebra.attention_rank.head_certificates import index_entries

    heads = out_dir / "attention"
    if not heads.is_dir():
        return []
    out = []
    for e in index_entries(heads):
        ok = e["verdict"] == "VERIFIED"
        row = {"id": e["id"], "file": f"attention/{e['file']}", "sha256": e["sha256"], "kind": e["kind"],
               "layer": e["layer"], "head": e["head"], "proven": e["proven"], "eps": e["claim"].get("eps"),
               "verdict": "certified" if ok else "not verified"}
        if not ok:
            row["reason"] = e["verdict"]
        out.append(row)
    return out


def _remove_stale(out_dir: Path, keep: set) -> None:
    """Delete certificates this tool wrote earlier for claims no longer in the catalogue.

    Only ``out_dir/*.json``: subdirectories (``attention/``) hold certificates the
    catalogue does not emit, and are never touched.
    """
    for path in out_dir.glob("*.json"):
        if path.name in keep or path.name == "index.json":
            continue
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("tool"), dict) and data["tool"].get("name") == "neuroalgebra":
            path.unlink()


def _table_row(cells) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"


def write_index(out_dir, entries: list, *, fast: bool = False, facts: list = ()) -> None:
    """``index.json`` (machine) and ``INDEX.md`` (human) next to the certificates.

    ``entries`` are the paper claims (verdicts from :data:`VERDICTS`); ``facts``
    are certificates with no paper claim at stake (the MiniLM head
    certificates), listed as ``certified`` when the checker verifies them.
    """
    from algebra import __version__

    out_dir = Path(out_dir)
    stable = [{k: v for k, v in e.items() if k != "seconds"} for e in entries]  # byte-identical re-runs
    index = {"tool": {"name": "neuroalgebra", "version": __version__}, "subset": "fast" if fast else "full",
             "claims": stable, "facts": list(facts)}
    write_atomic(out_dir / "index.json", (json.dumps(index, sort_keys=True, indent=1) + "\n").encode())
    counts = {v: sum(e["verdict"] == v for e in entries) for v in VERDICTS}
    certified = sum(f["verdict"] == "certified" for f in facts)
    lines = [
        "# Certificate index",
        "",
        "Generated by `neuroalgebra certify`" + (" --fast" if fast else "") + "; re-check every file with "
        "`neuroalgebra verify certificates/` (or `python -m algebra.checker certificates/`; both include "
        "`attention/`).",
        "",
        f"{len(entries)} claims: " + ", ".join(f"{counts[v]} {v}" for v in VERDICTS) + "."
        + (f" {len(facts)} certificates with no paper claim at stake: {certified} certified." if facts else ""),
        "",
        "Verdicts: **confirmed** -- the claim holds as stated; **refuted** -- false under its own hypotheses; "
        "**hypothesis fails** -- a hypothesis the paper states is certified false for this instance, so the claim "
        "does not apply (the row says which, and the true value); **out of reach** -- not decided within the budget. "
        "Each certificate proves the *proven* column; the *paper says* column and the source are what the paper "
        "states (informational, not checked).",
        "",
    ]
    for paper in PAPERS + tuple(sorted({e["paper"] for e in entries} - set(PAPERS))):
        rows = [e for e in entries if e["paper"] == paper]
        if not rows:
            continue
        lines += [f"## {paper}", "", "| claim | location | paper says | proven | verdict | certificate |",
                  "|---|---|---|---|---|---|"]
        for e in rows:
            says, proven = e.get("says", ""), e.get("proven") or e.get("reason", "")
            verdict = f"**{e['verdict']}**" + (f" ({e['note']})" if e.get("note") else "")
            link = f"[{e['file']}]({e['file']})" if e.get("file") else "-"
            cells = [e["statement"], e["location"], says, proven, verdict, link]
            lines.append(_table_row(cells))
        lines.append("")
    if facts:
        lines += [
            "## Facts: all-MiniLM-L6-v2 attention heads (`attention/`)",
            "",
            "One `attention_rank` certificate per head: bounds on the max-row-l1 approximation rank r_eps of the "
            "head's exact attention matrix A = softmax_rows(beta * Q @ K^T) on a fixed text (multiplier 1; "
            "Q, K, beta stored as exact binary64). No paper claim is at stake -- the softmax-attention paper's "
            "calibration (Section 4.2) is on BERT-base heads and reports aggregate medians only -- so a row is "
            "**certified** (the independent checker re-derived its claim when this index was written) or "
            "**not verified**. Details: [attention/INDEX.md](attention/INDEX.md).",
            "",
            "| layer | head | proven | eps | verdict | certificate |",
            "|---|---|---|---|---|---|",
        ]
        for f in sorted(facts, key=lambda f: (f["layer"] if f["layer"] is not None else -1, f["head"] or 0, f["id"])):
            verdict = f"**{f['verdict']}**" + (f" ({f['reason']})" if f.get("reason") else "")
            cells = [f["layer"], f["head"], f["proven"], f["eps"], verdict, f"[{f['file']}]({f['file']})"]
            lines.append(_table_row(cells))
        lines.append("")
    write_atomic(out_dir / "INDEX.md", "\n".join(lines).encode())
