"""Learning coefficients equal to half a *certified* rank or dimension.

When the model is regular in its identifiable coordinates, ``lambda = r/2``
with ``m = 1``, where ``r`` is the rank of the parameter map's Jacobian (the
dimension of the image).  Here ``r`` is never assumed: it comes from the
dimension engine (:func:`algebra.engine.dimension`, a rank
computed modulo a prime with a matching upper bound) or from an exact rank
over Q, and only a certified value is reported as ``lambda``.

* Quadratic networks ``x -> V (W x + b)^2 + c`` (grokking paper, Theorem 4.1):
  ``lambda = dim sigma_K(X) / 2``, the dimension of the secant variety, i.e.
  the generic Jacobian rank.  The paper's closed forms (Corollary 4.2 without
  bias; Theorems G.1 and G.2 for one output with bias) are computed alongside
  and the disagreement in defective cases is flagged.
* The lazy random-feature regime (grokking paper, Section 5.1, Theorem 5.2):
  the model ``V -> F V`` with frozen features ``F = sigma(X W)`` is linear in
  ``V``, so ``lambda = p rank(F) / 2``; the rank is computed exactly and
  compared with the paper's ``p min(l, K) / 2``.
* The NTK model (grokking paper, Theorem 5.1): ``lambda = rank(I)/2`` with
  ``I`` the Fisher matrix of the linearised model; its rank is the Jacobian
  rank on the data points, computed by the dimension engine.
"""

from __future__ import annotations

from fractions import Fraction
import numpy as np

from algebra.errors import DomainError, InputError
from algebra.slt.formulas import LearningCoefficient, _integer, _positive

__all__ = [
    "quadratic_network_coefficient",
    "quadratic_network_paper_value",
    "random_feature_model",
    "ntk_model",
]

THEOREM_41 = "grokking paper, Theorem 4.1 (lambda = certified secant dimension / 2)"
THEOREM_52 = "grokking paper, Theorem 5.2 (lazy random features: lambda = p rank(F) / 2)"
THEOREM_51 = "grokking paper, Theorem 5.1 (NTK: lambda = rank(I) / 2)"


def quadratic_network_paper_value(d: int, outputs: int, width: int, *, bias: bool = False) -> tuple[Fraction | None, str]:
    """The grokking paper's closed form for a quadratic network, and which result gives it.

    * no bias: Corollary 4.2, ``K(d+p-1)/2`` if ``K(d+p-1) < p d(d+1)/2``,
      else ``p d(d+1)/4``;
    * bias, one output, ``K >= d``: Theorem G.1, ``(d+1)(d+2)/4``;
    * bias, one output, ``K < d``: Theorem G.2, ``(K(2d-K+1)/2 + K + 1)/2``;
    * bias with several outputs: no closed form in the paper (``None``).

    Examples
    --------
    >>> quadratic_network_paper_value(6, 3, 4)
    (Fraction(16, 1), 'Corollary 4.2 (subabundant)')
    >>> quadratic_network_paper_value(4, 1, 2, bias=True)
    (Fraction(5, 1), 'Theorem G.2')
    """
    d, p, K = _positive("d", d), _positive("outputs", outputs), _positive("width", width)
    if not bias:
        expected, ambient = K * (d + p - 1), p * d * (d + 1) // 2
        if expected < ambient:
            return Fraction(expected, 2), "Corollary 4.2 (subabundant)"
        return Fraction(p * d * (d + 1), 4), "Corollary 4.2 (superabundant)"
    if p != 1:
        return None, "no closed form in the paper (bias with several outputs)"
    if K >= d:
        return Fraction((d + 1) * (d + 2), 4), "Theorem G.1"
    return Fraction(Fraction(K * (2 * d - K + 1), 2) + K + 1, 2), "Theorem G.2"


def _certified(result, what: str) -> int:
    if not result.certified:
        raise DomainError(
            f"{what}: the dimension is not certified (lower bound {result.lower_bound}, "
            f"upper bound {result.upper_bound}); lambda is only bracketed by half these"
        )
    return int(result.dimension)


def quadratic_network_coefficient(d: int, outputs: int, width: int, *, bias: bool = False, seed: int = 0) -> LearningCoefficient:
    """RLCT of a quadratic network at a generic point: half the certified secant dimension.

    Parameters
    ----------
    d, outputs, width : int
        Input dimension ``d``, number of outputs ``p``, hidden width ``K``.
    bias : bool
        Include the biases ``b`` and ``c`` (Theorems G.1/G.2 setting).
    seed : int
        Seed of the dimension engine's random point.

    Returns
    -------
    LearningCoefficient
        ``extra`` holds the certified dimension, its bounds, the seed, the
        paper's closed form (``paper_value``, ``paper_result``) and
        ``agrees_with_paper`` and ``verdict`` (``confirmed``, ``hypothesis fails``
        -- Corollary 4.2 assumes a non-defective architecture --, ``refuted`` or
        ``out of reach``).

    Raises
    ------
    InputError
        On non-positive sizes.
    DomainError
        If the dimension engine cannot certify the dimension.

    Examples
    --------
    >>> lc = quadratic_network_coefficient(6, 3, 4)
    >>> str(lc.lam), lc.extra["agrees_with_paper"]
    ('16', True)
    >>> lc = quadratic_network_coefficient(4, 1, 2)     # rank-2 symmetric matrices: defective
    >>> str(lc.lam), lc.extra["paper_value"], lc.extra["agrees_with_paper"], lc.extra["verdict"]
    ('7/2', '4', False, 'hypothesis fails')

    References
    ----------
    .. [1] The grokking paper, Corollary 4.2 (lambda = half the secant dimension of a non-defective architecture).
    .. [2] Watanabe, *Algebraic Geometry and Statistical Learning Theory* (2009), Sec. 1.4.
    """
    from algebra.engine import dimension
    from algebra.models import QuadraticNetwork

    d, p, K = _positive("d", d), _positive("outputs", outputs), _positive("width", width)
    if not isinstance(bias, bool):
        raise InputError("bias", bias, "True or False")
    seed = _integer("seed", seed, 0, "a non-negative integer")
    res = dimension(QuadraticNetwork(d=d, outputs=p, width=K, bias=bias), seed=seed)
    dim = _certified(res, f"quadratic network (d={d}, outputs={p}, width={K}, bias={bias})")
    paper, which = quadratic_network_paper_value(d, p, K, bias=bias)
    lam = Fraction(dim, 2)
    extra = {
        "certified_dimension": dim,
        "lower_bound": int(res.lower_bound),
        "upper_bound": int(res.upper_bound),
        "ambient_dimension": int(res.ambient_dimension),
        "parameter_count": int(res.parameter_count),
        "seed": seed,
        "paper_value": None if paper is None else str(paper),
        "paper_result": which,
        "agrees_with_paper": None if paper is None else paper == lam,
    }
    # The verdict vocabulary of the certificate catalogue.  Corollary 4.2 is
    # stated for non-defective architectures only: when the certified dimension
    # is below the expected count min(K(d+p-1), p d(d+1)/2), its hypothesis is
    # false and the corollary says nothing ("hypothesis fails"), it is not refuted.
    expected = min(K * (d + p - 1), p * d * (d + 1) // 2)
    if paper is None:
        verdict = "out of reach"
    elif paper == lam:
        verdict = "confirmed"
    elif which.startswith("Corollary 4.2") and dim < expected:
        verdict = "hypothesis fails"
        extra["failed_hypothesis"] = f"non-defective architecture: certified dimension {dim} < expected count {expected}"
    else:
        verdict = "refuted"
    extra["verdict"] = verdict
    case = f"generic point; certified dimension {dim} of {res.ambient_dimension} (identifiable space)"
    if verdict == "hypothesis fails":
        case += f"; the paper's {which} ({paper}) does not apply: the architecture is defective"
    elif verdict == "refuted":
        case += f"; the paper's {which} gives {paper}, refuted"
    inputs = {"d": d, "outputs": p, "width": K, "bias": bias}
    return LearningCoefficient(lam, 1, THEOREM_41, case, inputs, extra)


def random_feature_model(
    d: int, outputs: int, width: int, n_points: int, *, degree: int = 2, seed: int = 0, inputs: np.ndarray | None = None
) -> LearningCoefficient:
    """RLCT of the lazy random-feature model ``V -> sigma(X W) V`` (grokking paper, Thm 5.2).

    The features ``F = sigma(X W)`` (``sigma(t) = t^degree``) are frozen, so the
    model is linear in ``V`` (``width x outputs``) and regular in the
    identifiable coordinates: ``lambda = outputs * rank(F) / 2`` with ``m = 1``.
    ``rank(F)`` is computed exactly over Q at integer ``X`` and ``W`` drawn
    from ``seed``.  The paper's value ``outputs * min(l, K) / 2`` uses
    ``l = dim span{sigma(X w) : w}``, the rank of the degree-``degree``
    monomial evaluation matrix of ``X``; it is computed too and compared.

    Parameters
    ----------
    d, outputs, width, n_points : int
        Input dimension, outputs ``p``, number of features ``K``, data points ``n``.
    degree : int
        Power activation ``sigma(t) = t^degree`` (>= 1).
    seed : int
        Seeds ``X`` (unless given) and ``W`` via ``numpy.random.SeedSequence``.
    inputs : ndarray of int, optional
        The data matrix ``X`` (``n_points x d``) to use instead of a random one.

    Examples
    --------
    >>> lc = random_feature_model(3, 2, 4, 10)
    >>> str(lc.lam), lc.extra["rank_F"], lc.extra["l"], lc.extra["agrees_with_paper"]
    ('4', 4, 6, True)
    """
    from algebra.exact.rank import rank_over_q

    d, p, K, n = _positive("d", d), _positive("outputs", outputs), _positive("width", width), _positive("n_points", n_points)
    degree = _positive("degree", degree)
    seed = _integer("seed", seed, 0, "a non-negative integer")
    ss_x, ss_w = np.random.SeedSequence(seed).spawn(2)
    if inputs is None:
        X = np.random.default_rng(ss_x).integers(-5, 6, size=(n, d))
    else:
        X = np.asarray(inputs)
        if X.shape != (n, d) or not np.issubdtype(X.dtype, np.integer):
            raise InputError("inputs", f"array of shape {X.shape}", f"an integer array of shape ({n}, {d})")
    W = np.random.default_rng(ss_w).integers(-5, 6, size=(d, K))
    Z = X.astype(object) @ W.astype(object)
    F = np.vectorize(lambda t: int(t) ** degree, otypes=[object])(Z)
    rank_F = rank_over_q(F)
    # l: rank of [x_i^alpha] over monomials alpha of degree `degree` (span of (x.w)^degree over w).
    exps = _monomial_exponents(d, degree)
    Mon = np.array([[int(np.prod([int(x[j]) ** a[j] for j in range(d)])) for a in exps] for x in X], dtype=object)
    l = rank_over_q(Mon)
    lam = Fraction(p * rank_F, 2)
    paper = Fraction(p * min(l, K), 2)
    extra = {"rank_F": rank_F, "l": l, "seed": seed, "paper_value": str(paper), "agrees_with_paper": paper == lam}
    case = f"frozen features of exact rank {rank_F} (n={n}, K={K}, l={l})"
    spec = {"d": d, "outputs": p, "width": K, "n_points": n, "degree": degree}
    return LearningCoefficient(lam, 1, THEOREM_52, case, spec, extra)


def _monomial_exponents(d: int, degree: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []

    def rec(prefix: list[int], left: int, k: int) -> None:
        if k == d - 1:
            out.append(tuple(prefix + [left]))
            return
        for a in range(left, -1, -1):
            rec(prefix + [a], left - a, k + 1)

    rec([], degree, 0)
    return out


def ntk_model(model, n_points: int, *, seed: int = 0) -> LearningCoefficient:
    """RLCT of the NTK linearisation of ``model`` on ``n_points`` generic inputs (Thm 5.1).

    ``lambda = rank(I)/2`` where ``I = E[w phi phi^T]`` has the rank of the
    Jacobian of the outputs on the data points; the dimension engine computes
    that rank in sample mode (a rank modulo a prime, a lower bound) and it is
    reported only when it meets the upper bound ``min(dim, n * outputs)``.

    Examples
    --------
    >>> from algebra.models import QuadraticNetwork
    >>> lc = ntk_model(QuadraticNetwork(d=3, outputs=1, width=2), 4)
    >>> str(lc.lam), lc.extra["rank"]
    ('2', 4)
    """
    from algebra.engine import dimension

    from algebra.models.base import Model

    if not isinstance(model, Model):
        raise InputError("model", type(model).__name__, "a model from algebra.models")
    n = _positive("n_points", n_points)
    seed = _integer("seed", seed, 0, "a non-negative integer")
    res = dimension(model, mode="sample", samples=n, seed=seed)
    # The Jacobian on n points has at most n * outputs rows: that caps the upper bound.
    cap = min(int(res.upper_bound), n * int(model.n_outputs))
    rank = int(res.lower_bound)
    if rank != cap:
        raise DomainError(f"NTK Jacobian on {n} points: rank {rank} is not certified (upper bound {cap})")
    extra = {"rank": rank, "parameter_count": int(res.parameter_count), "seed": seed, "samples": int(res.samples)}
    return LearningCoefficient(
        Fraction(rank, 2), 1, THEOREM_51, f"Jacobian rank {rank} on {n} generic points", {"model": res.spec, "n_points": n}, extra
    )
