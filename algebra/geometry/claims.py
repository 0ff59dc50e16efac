"""Paper claims about dimensions, as data the certificate catalogue consumes.

A :class:`DimensionClaim` says "the neuromanifold of ``model`` has dimension
``claimed``" (or "at least"/"at most"), citing where a paper says so.  The
catalogue (:mod:`algebra.certify`) computes the certified dimension of the
model, compares, and writes a certificate: *confirmed* when the certified
value matches the claim, *refuted* (with a defect or dimension certificate)
when a certified value contradicts it, *out of reach* when the bounds do not
decide it.  Nothing here stores a computed result: only what the paper says.
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
            quadratic_network(d, p, K), expected, group="quadratic",
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
