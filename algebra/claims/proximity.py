"""Claims of the proximity-bias paper (``proximity-bias-submodels``): MLP submodels, lightning attention, CNNs.

* :func:`submodel_claims`: Example B.10 (``dim F = dim F' = 4``), Lemma D.3 /
  Section 4.1 (multi-token lightning attention ``dim X_d = d^2 + d d' - 1``),
  Appendix E (single token ``dim X_d = d d' + binom(d+1, 2) - 1``),
  Proposition E.3 (rank-constrained single token: the symmetric part has
  rank ``<= min(2a, d)``) and the rank-``a`` multi-token count of Appendix D.1;
* :func:`cnn_claims`: Figure 6 / Appendix C / G.6 -- Figure 6 as explicit
  polynomial maps, the inactive-channel subnetworks (the CNN proximity sweep
  included) as :class:`~algebra.claims.records.SubnetworkClaim`;
* :func:`stratum_claims`: Lemmas D.3 and E.1 at their exceptional strata, as
  the rank of the differential at a stratum point.
"""

from __future__ import annotations

import json
from math import comb

from algebra.claims import PROXIMITY
from algebra.claims.records import DimensionClaim, SubnetworkClaim
from algebra.geometry.cnn_proximity import _cases, differential_map, figure6_model, polynomial_map, subnetwork_point
from algebra.geometry.proximity import _rng
from algebra.models import MLP, LightningAttention, PolynomialMap
from algebra.models.cnn import CNN, cnn_from_text

__all__ = ["submodel_claims", "cnn_claims", "stratum_claims"]


def submodel_claims(fast: bool) -> list:
    """Example B.10 and the lightning-attention dimension counts of Sections 4.1-4.2 and Appendices D-E.

    Examples
    --------
    >>> [c.id for c in submodel_claims(fast=True)][:3]
    ['proximity-b10-F', 'proximity-b10-Fprime', 'proximity-attention-multi-d2-dp1-t2']
    """
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


# -- CNNs (Figure 6, Appendix C / G.6; issue 16) -------------------------------------------------


def _label(case: dict) -> str:
    parts = [case["input"], case["filters"], case["channels"], case["strides"], f"d{case['dense'] or 0}",
             case["activation"].replace("^", "").replace("+", "p"), "b" if case["bias"] else "nb",
             "l" + case["inactive"].replace(":", "c")]
    return "_".join(p.replace(",", "-") for p in parts)


def _subnetwork_claim(cid: str, full: CNN, inactive: dict, location: str, words: str, notes: dict) -> SubnetworkClaim:
    sub = CNN(full.input_shape, full.filters, channels=full.channels, strides=full.strides,
              activations=full.activations, bias=full.bias, dense=full.dense, inactive=inactive)
    (rng,) = _rng(7, 1)
    theta = tuple(int(v) for v in subnetwork_point(full, sub.inactive, rng, bound=50))  # small entries: short files
    inact = {str(k): list(v) for k, v in sub.inactive.items()}
    statement = f"{words}: at a generic point of the subnetwork with inactive channels {json.dumps(inact)}, " \
                "rank d phi > dim F', so the normal spaces over F' cannot fill H: no proximity bias"
    return SubnetworkClaim(cid, PROXIMITY, location, statement, full, sub.inactive, theta,
                           notes=dict(notes, cnn=full.spec(), theta=list(theta), inactive=inact))


def cnn_claims(fast: bool) -> list:
    """The paper's CNN claims: :class:`~algebra.claims.records.DimensionClaim` and :class:`~algebra.claims.records.SubnetworkClaim`.

    * Figure 6 / Appendix G.6: ``f = c (a x1 + b x2)^2 + e (a x2 + b x3)^2`` has
      ``dim F = 3`` (four parameters, one rescaling), in ``H = span F`` of
      dimension 5 (no ``x1 x3``);
    * Appendix C on Figure 6: at a generic point of each subnetwork
      ``a = 0``, ``b = 0``, ``c = 0``, ``e = 0`` the differential keeps rank
      ``dim F = 3`` (so ``N_F(f)`` has dimension at most ``5 - 3``, below
      what the 2-dimensional ``F'`` needs to fill ``H``); these two as explicit
      polynomial maps (:func:`~algebra.geometry.cnn_proximity.polynomial_map`,
      :func:`~algebra.geometry.cnn_proximity.differential_map`);
    * Appendix C for inactive channels, natively (the checker evaluates the CNN
      and its differential, :func:`algebra.certify.subnetwork.judge_subnetwork`):
      four small CNNs fixed in advance (fast: one) and every case of
      :data:`~algebra.geometry.cnn_proximity.SWEEP_CASES` (fast: the
      ``cnn_sweep(fast=True)`` subset).  What each certificate proves:
      ``rank d phi(theta') >= r`` at the stated point ``theta'`` of ``F'``
      (checked to lie on ``F'``) and ``dim F' <= b`` by the upper-bound
      witnesses of ``F'`` (symmetry fields or Cramer fields, verified by the
      checker), hence ``r > b >= dim F'`` when confirmed.  As in
      :func:`~algebra.geometry.cnn_proximity.cnn_proximity`, the rank is proven
      at one random point of ``F'``, not at every point.

    Examples
    --------
    >>> [c.id for c in cnn_claims(fast=True)][:2]
    ['proximity-cnn-fig6-F', 'proximity-cnn-fig6-a0']
    """
    out = []
    fig = figure6_model()
    out.append(DimensionClaim(
        "proximity-cnn-fig6-F", PROXIMITY, "Figure 6, Appendix G.6",
        "the CNN f(x) = c (a x1 + b x2)^2 + e (a x2 + b x3)^2 has dim F = 3 (4 parameters, one rescaling)",
        polynomial_map(fig), 3, group="cnn", notes={"cnn": fig.spec(), "parameters": "t0..t3 = a, b, c, e; t4..t6 = x1..x3"}))
    points = {"a = 0": [0, 3, 5, 7], "b = 0": [2, 0, 5, 7], "c = 0": [2, 3, 0, 7], "e = 0": [2, 3, 5, 0]}
    for name, theta in points.items():
        tag = name.replace(" = ", "")
        out.append(DimensionClaim(
            f"proximity-cnn-fig6-{tag}", PROXIMITY, "Section 3.1 (last remark), Appendix C, Figure 6",
            f"at a generic point of the subnetwork {name} of Figure 6's CNN, rank d phi = dim F = 3, so "
            "N_F(f) ⊆ im(d phi)^perp has dimension <= 2 and there is no proximity bias toward it",
            differential_map(fig, theta), 3, group="cnn",
            notes={"cnn": fig.spec(), "theta": theta, "subnetwork": name}))
    archs = [(4, [2], (1, 2), None, "t^2", 1, {1: [0]}), (5, [2, 2], (1, 2, 1), None, "t^2", None, {1: [0]}),
             (5, [2], (1, 2), None, "t^3", 1, {1: [1]}), (6, [2, 2], (1, 2, 2), None, "t^2", 1, {2: [0]})]
    for n, filters, channels, strides, act, dense, inactive in archs[: 1 if fast else None]:
        full = CNN(n, filters, channels=channels, strides=strides, activations=act, dense=dense)
        label = "-".join(str(v) for v in [n, *filters, *channels, act.replace("^", ""), dense or 0])
        out.append(_subnetwork_claim(f"proximity-cnn-inactive-{label}", full, inactive, "Section 3.1 (last remark), Appendix C",
                                     f"CNN input {n}, filters {filters}, channels {list(channels)}, activation {act}, "
                                     f"dense {dense}", {}))
    for case in _cases(fast):
        sub = cnn_from_text(case["input"], case["filters"], channels=case["channels"], strides=case["strides"],
                            activation=case["activation"], bias=case["bias"], dense=case["dense"], inactive=case["inactive"])
        words = f"sweep case: CNN input {case['input']}, filters {case['filters']}, channels {case['channels']}, " \
                f"strides {case['strides']}, activation {case['activation']}, {'with' if case['bias'] else 'without'} " \
                f"biases, dense {case['dense']}"
        out.append(_subnetwork_claim(f"proximity-cnn-sweep-{_label(case)}", sub.full(), sub.inactive,
                                     "Section 3.1 (last remark), Appendix C (the CNN proximity sweep)", words,
                                     {"sweep_case": case}))
    return out


# -- exceptional strata of the attention lemmas (the singular-locus sweep, issue 4) ---------------


def _stratum_tangent_map(d: int, dout: int, tokens: int, A, V):
    """The differential of ``phi(A, V)(X) = V X X^T A X`` at a fixed point, as a linear map of ``(B, Vdot)``.

    Its neuromanifold is ``J_{A,V}`` of the proximity-bias paper (Lemma D.3 for
    ``tokens > 1``, Lemma E.1 for ``tokens = 1``); the dimension is the rank of
    the differential at ``(A, V)``.
    """
    import sympy

    Bs = sympy.Matrix(d, d, sympy.symbols(f"b0:{d * d}"))
    Vd = sympy.Matrix(dout, d, sympy.symbols(f"w0:{dout * d}"))
    X = sympy.Matrix(d, tokens, sympy.symbols(f"x0:{d * tokens}"))
    A, V = sympy.Matrix(A), sympy.Matrix(V)
    G = X * X.T
    Y = Vd * G * A * X + V * G * Bs * X
    params = [str(s) for s in list(Bs) + list(Vd)]
    inputs = [str(s) for s in X]
    return PolynomialMap([sympy.expand(e) for e in Y], parameters=params, inputs=inputs)


def stratum_claims(fast: bool) -> list:
    """Lemmas D.3 and E.1 at their exceptional strata, as the dimension of the differential at a stratum point.

    Examples
    --------
    >>> [(c.id, c.claimed) for c in stratum_claims(fast=True)][:2]
    [('proximity-lemmaD3-exceptional-d2-dp1', 4), ('proximity-lemmaE1-exceptional-d2-dp1', 3)]
    """
    out = []
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
