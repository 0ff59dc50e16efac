"""Closed-form learning coefficients (RLCT lambda and multiplicity m), exact.

Every function returns a :class:`LearningCoefficient` whose ``lam`` is a
:class:`fractions.Fraction` and which records the theorem and the case of the
theorem that applied, so that a reader can check the answer by hand.

Sources
-------
* Aoyagi, M. & Watanabe, S. (2005). Stochastic complexities of reduced rank
  regression in Bayesian estimation. *Neural Networks* 18(7), 924-933,
  Main Theorem (four cases).  The same case split is used by the R package
  ``sBIC`` (``learnCoef.ReducedRankRegressions``).
* Aoyagi, M. (2024). Consideration on the learning efficiency of
  multiple-layered neural networks with linear units. *Neural Networks* 172,
  106132, Theorem 1 (lambda and the order ``a(l - a) + 1`` of the pole).
* "Symmetries and singularities of graph attention" (graph-attention paper in
  ``shared/papers``), Theorem 1 (28) and Theorem 2 (44)-(46).
* Regular models: Watanabe, *Algebraic Geometry and Statistical Learning
  Theory* (2009), lambda = d/2 with m = 1 for a regular model of dimension d.

Models whose lambda is half a *certified* dimension (quadratic networks,
random-feature models) live in :mod:`algebra.slt.regular`; they need the
dimension engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import Any, Sequence

import algebra.inputs as inputs
from algebra.errors import DomainError, InputError

#: Most layers of :func:`deep_linear_network` (its index search is quadratic in them: 1,000 layers take ~0.1 s,
#: 200,001 took hours).
MAX_DLN_LAYERS = 1000

__all__ = [
    "LearningCoefficient",
    "reduced_rank_regression",
    "deep_linear_network",
    "query_key",
    "query_key_closed_forms",
    "regular_model_coefficient",
]

AW2005 = "Aoyagi & Watanabe (2005), Main Theorem"
AOYAGI2024 = "Aoyagi (2024), Theorem 1"
GRAPH_ATTENTION_T1 = "graph-attention paper, Theorem 1 (28)"
GRAPH_ATTENTION_T2 = "graph-attention paper, Theorem 2 (44)-(45)"
REGULAR = "Watanabe (2009), regular model: lambda = d/2, m = 1"


@dataclass(frozen=True)
class LearningCoefficient:
    """An exact learning coefficient with its provenance.

    Parameters
    ----------
    lam : Fraction
        The real log canonical threshold lambda.
    multiplicity : int
        The order m of the largest pole of the zeta function.
    theorem : str
        The theorem that gives the value (author, year, number).
    case : str
        Which case of the theorem applied, in words.
    inputs : dict
        The validated inputs, JSON-friendly.
    extra : dict
        Further JSON-friendly facts (e.g. a paper's closed form and whether it
        agrees); empty for the pure formulas.

    Examples
    --------
    >>> lc = regular_model_coefficient(3)
    >>> lc.to_json()["lambda"], lc.multiplicity
    ('3/2', 1)
    """

    lam: Fraction
    multiplicity: int
    theorem: str
    case: str
    inputs: dict
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """Return a JSON-ready dict; ``lambda`` is an exact string such as ``"13/4"``."""
        out: dict[str, Any] = {
            "lambda": str(self.lam),
            "multiplicity": self.multiplicity,
            "theorem": self.theorem,
            "case": self.case,
            "inputs": dict(self.inputs),
        }
        if self.extra:
            out["extra"] = dict(self.extra)
        return out


# ---------------------------------------------------------------- validation


def _integer(argument: str, value: object, minimum: int, allowed: str) -> int:
    """``value`` as an int >= minimum (:func:`algebra.inputs.integer`), or InputError."""
    return inputs.integer(value, argument, minimum=minimum, allowed=allowed)


def _positive(argument: str, value: object) -> int:
    return _integer(argument, value, 1, "a positive integer")


def _rank(argument: str, value: object, bound: int, what: str) -> int:
    allowed = f"an integer with 0 <= {argument} <= {what} = {bound}"
    r = _integer(argument, value, 0, allowed)
    if r > bound:
        raise InputError(argument, value, allowed)
    return r


# ------------------------------------------------ reduced rank regression


def reduced_rank_regression(M: int, N: int, H: int, r: int) -> LearningCoefficient:
    """RLCT of reduced rank regression, Aoyagi & Watanabe (2005), Main Theorem.

    The model is ``y = B A x + noise`` with ``x`` in R^M, ``y`` in R^N,
    ``A`` of size H x M, ``B`` of size N x H, and the true map of rank ``r``.

    * Case 1 (``N + r <= M + H``, ``M + r <= N + H``, ``H + r <= M + N``):
      ``lambda = (2(H+r)(M+N) - (M-N)^2 - (H+r)^2) / 8`` and ``m = 1`` when
      ``M + N + H + r`` is even; when it is odd lambda gains ``1/8`` and
      ``m = 2``.
    * Case 2 (``M + H < N + r``): ``lambda = (HM - Hr + Nr) / 2``, ``m = 1``.
    * Case 3 (``N + H < M + r``): ``lambda = (HN - Hr + Mr) / 2``, ``m = 1``.
    * Case 4 (``M + N < H + r``): ``lambda = MN / 2``, ``m = 1``.

    Since ``r <= min(M, N, H)`` the four cases partition the inputs.

    Parameters
    ----------
    M, N, H : int
        Input dimension, output dimension, hidden width (all >= 1).
    r : int
        Rank of the true map, ``0 <= r <= min(M, N, H)``.

    Returns
    -------
    LearningCoefficient
        ``lam`` (an exact ``Fraction``), ``multiplicity`` and the ``case`` of the theorem that applies.

    Raises
    ------
    InputError
        If a dimension is not a positive integer or ``r`` is out of range.

    Examples
    --------
    >>> lc = reduced_rank_regression(5, 4, 3, 1)
    >>> str(lc.lam), lc.multiplicity, lc.case
    ('7', 2, 'case 1 (N+r <= M+H, M+r <= N+H, H+r <= M+N), M+N+H+r odd')
    >>> str(reduced_rank_regression(1, 8, 1, 0).lam)   # case 2: M+H < N+r
    '1/2'
    >>> reduced_rank_regression(2, 2, 2, 3)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid r=3: expected an integer with 0 <= r <= min(M, N, H) = 2

    References
    ----------
    .. [1] Aoyagi, Watanabe, "Stochastic complexities of reduced rank regression in Bayesian estimation",
       Neural Networks 18 (2005), Main Theorem.
    """
    M, N, H = _positive("M", M), _positive("N", N), _positive("H", H)
    r = _rank("r", r, min(M, N, H), "min(M, N, H)")
    inputs = {"M": M, "N": N, "H": H, "r": r}
    if N + r <= M + H and M + r <= N + H and H + r <= M + N:
        base = 2 * (H + r) * (M + N) - (M - N) ** 2 - (H + r) ** 2
        where = "case 1 (N+r <= M+H, M+r <= N+H, H+r <= M+N), M+N+H+r"
        if (M + N + H + r) % 2 == 0:
            return LearningCoefficient(Fraction(base, 8), 1, AW2005, where + " even", inputs)
        return LearningCoefficient(Fraction(base + 1, 8), 2, AW2005, where + " odd", inputs)
    if M + H < N + r:
        lam, case = Fraction(H * M - H * r + N * r, 2), "case 2 (M+H < N+r)"
    elif N + H < M + r:
        lam, case = Fraction(H * N - H * r + M * r, 2), "case 3 (N+H < M+r)"
    else:  # M + N < H + r: the only remaining possibility when r <= min(M, N, H)
        lam, case = Fraction(M * N, 2), "case 4 (M+N < H+r)"
    return LearningCoefficient(lam, 1, AW2005, case, inputs)


# ---------------------------------------------------- deep linear networks


def _aoyagi_subsets(deltas: Sequence[int]) -> list[tuple[int, ...]]:
    """All index sets Sigma (|Sigma| = l + 1 >= 2) satisfying Aoyagi's conditions.

    With ``D_i = H_i - r``: ``max_{Sigma} D < min_{not Sigma} D``,
    ``sum_{Sigma} D >= l * max_{Sigma} D`` and ``sum_{Sigma} D < l * min_{not Sigma} D``.
    The first condition forces Sigma to be a set of smallest values, so only
    prefixes of the sorted order (not splitting ties) are candidates.
    """
    order = sorted(range(len(deltas)), key=lambda i: deltas[i])
    found = []
    for size in range(2, len(deltas) + 1):
        sigma, rest = order[:size], order[size:]
        ell = size - 1
        inside = [deltas[i] for i in sigma]
        total = sum(inside)
        if rest:
            low = min(deltas[i] for i in rest)
            if not (max(inside) < low and total < ell * low):
                continue
        if total >= ell * max(inside):
            found.append(tuple(sorted(sigma)))
    return found


def _aoyagi_value(widths: Sequence[int], r: int, sigma: Sequence[int]) -> tuple[Fraction, int, int, int]:
    """Return (lambda, order, l, a) of Aoyagi (2024) Theorem 1 for the set ``sigma``."""
    deltas = [h - r for h in widths]
    inside = [deltas[i] for i in sigma]
    ell = len(inside) - 1
    total = sum(inside)
    ceil = -(-total // ell)
    a = total - (ceil - 1) * ell  # 1 <= a <= l
    pairs = sum(x * y for x, y in combinations(inside, 2))
    lam = (
        Fraction(-r * r + r * (widths[0] + widths[-1]), 2)
        + Fraction(a * (ell - a), 4 * ell)
        - Fraction(ell * (ell - 1), 4) * Fraction(total, ell) ** 2
        + Fraction(pairs, 2)
    )
    return lam, a * (ell - a) + 1, ell, a


def deep_linear_network(widths: Sequence[int], r: int) -> LearningCoefficient:
    """RLCT of a deep linear network, Aoyagi (2024), Theorem 1.

    The network is ``x -> W_L ... W_1 x`` with ``W_i`` of size
    ``widths[i] x widths[i-1]`` and a true product of rank ``r``.  With
    ``D_i = widths[i] - r`` choose the index set Sigma (``|Sigma| = l + 1``) with
    ``max_Sigma D < min_{not Sigma} D``, ``sum_Sigma D >= l max_Sigma D`` and
    ``sum_Sigma D < l min_{not Sigma} D``; let ``S = sum_Sigma D``,
    ``a = S - (ceil(S/l) - 1) l``.  Then::

        lambda = (-r^2 + r(d_0 + d_L))/2 + a(l-a)/(4l) - l(l-1)/4 (S/l)^2
                 + 1/2 sum_{i<j in Sigma} D_i D_j,
        m      = a(l-a) + 1.

    For two layers this is Aoyagi & Watanabe (2005) (tested for all widths
    up to 8).  The formula is symmetric under reversing ``widths``.

    Parameters
    ----------
    widths : sequence of int
        ``(d_0, ..., d_L)`` from input to output, ``L >= 1``, all positive.
    r : int
        Rank of the true product, ``0 <= r <= min(widths)``.

    Returns
    -------
    LearningCoefficient
        ``lam`` (exact), ``multiplicity`` and the index set Sigma of the theorem.

    Raises
    ------
    InputError
        On fewer than two widths, a non-positive width, or ``r`` out of range.

    Examples
    --------
    >>> lc = deep_linear_network([4, 3, 3, 5], 1)
    >>> str(lc.lam), lc.multiplicity
    ('6', 2)
    >>> deep_linear_network([5, 3, 4], 1).lam == reduced_rank_regression(5, 4, 3, 1).lam
    True
    >>> deep_linear_network([3], 0)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid widths=[3]: expected at least two positive integers (input, ..., output)

    References
    ----------
    .. [1] Aoyagi, "Consideration on the learning efficiency of multiple-layered neural networks with linear units",
       Neural Networks 172 (2024), Theorem 1.
    .. [2] Aoyagi, Watanabe, Neural Networks 18 (2005), Main Theorem (two layers).
    """
    allowed = "at least two positive integers (input, ..., output)"
    if isinstance(widths, (str, bytes)):
        raise InputError("widths", widths, allowed)
    try:  # the layer count is bounded before any width is read: the search below is quadratic in it
        n = len(widths)
    except TypeError:
        n = None
    if n is not None and n > MAX_DLN_LAYERS + 1:
        raise InputError("widths", f"{n} entries", f"at most {MAX_DLN_LAYERS + 1} widths (MAX_DLN_LAYERS = {MAX_DLN_LAYERS})")
    try:
        raw = list(widths)
    except TypeError:
        raise InputError("widths", widths, allowed) from None
    if len(raw) < 2:
        raise InputError("widths", raw, allowed)
    try:
        ws = [_positive("widths", w) for w in raw]
    except InputError:
        raise InputError("widths", raw, allowed) from None
    r = _rank("r", r, min(ws), "min(widths)")
    deltas = [w - r for w in ws]
    candidates = _aoyagi_subsets(deltas)
    if not candidates:  # pragma: no cover - excluded by the exhaustive test over small widths
        raise DomainError(f"no index set satisfies Aoyagi's conditions for {ws}, r={r}")
    values = {_aoyagi_value(ws, r, s)[:2] for s in candidates}
    if len(values) != 1:  # pragma: no cover - the tests show the choice never matters
        raise DomainError(f"Aoyagi index sets disagree for {ws}, r={r}: {values}")
    sigma = candidates[0]
    lam, order, ell, a = _aoyagi_value(ws, r, sigma)
    case = (
        f"Sigma = {{{', '.join(str(i) for i in sigma)}}} (layer indices 0..{len(ws) - 1}), "
        f"l = {ell}, S = {sum(deltas[i] for i in sigma)}, a = {a}"
    )
    return LearningCoefficient(lam, order, AOYAGI2024, case, {"widths": ws, "r": r})


# ------------------------------------------------------ query-key composite


def query_key_closed_forms(d: int, k: int, r: int) -> dict[str, Fraction]:
    """Both printed forms of the graph-attention paper's Theorem 2: (44) and (46).

    Examples
    --------
    >>> query_key_closed_forms(6, 4, 2)
    {'44': Fraction(27, 2), '46': Fraction(27, 2)}
    """
    d, k, r = _validate_qk(d, k, r)
    s = k - r
    eq44 = Fraction(r * (2 * d - r), 2) + Fraction((d - r) * s - (s * s) // 4, 2)
    eq46 = Fraction(d * d, 2) - Fraction((2 * d - k - r) ** 2, 8) + Fraction(s % 2, 8)
    return {"44": eq44, "46": eq46}


def _validate_qk(d: int, k: int, r: int) -> tuple[int, int, int]:
    d = _positive("d", d)
    k = _integer("k", k, 1, f"an integer with 1 <= k <= d = {d}")
    if k > d:
        raise InputError("k", k, f"an integer with 1 <= k <= d = {d}")
    r = _rank("r", r, k, "k")
    return d, k, r


def query_key(d: int, k: int, r: int) -> LearningCoefficient:
    """RLCT of the query-key composite ``A B^T`` (A, B of size d x k), teacher rank r.

    Graph-attention paper, Theorem 2, equation (44) with multiplicity (45)
    (Theorem 1, equation (28), is the full-rank case ``r = k``)::

        lambda = r(2d - r)/2 + ((d - r)(k - r) - floor((k - r)^2 / 4)) / 2,
        m      = 1 if k - r is even, 2 if k - r is odd.

    This equals Aoyagi & Watanabe (2005) with ``(M, N, H, r) = (d, d, k, r)``
    and the paper's equivalent form (46); the tests check all three.

    Parameters
    ----------
    d : int
        Embedding dimension (>= 1).
    k : int
        Query/key width, ``1 <= k <= d``.
    r : int
        Rank of the teacher product, ``0 <= r <= k``.

    Returns
    -------
    LearningCoefficient
        ``lam`` (exact) and ``multiplicity``, with the closed forms (44)/(46) in ``extra``.

    Raises
    ------
    InputError
        If ``k > d``, ``r > k`` or a value is not a suitable integer.

    Examples
    --------
    >>> lc = query_key(6, 4, 2)
    >>> str(lc.lam), lc.multiplicity
    ('27/2', 1)
    >>> query_key(6, 4, 3).multiplicity
    2
    >>> query_key(3, 4, 0)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid k=4: expected an integer with 1 <= k <= d = 3

    References
    ----------
    .. [1] The graph-attention paper (*Symmetries and Singularities*), Theorem 1 eq. (28), Theorem 2 eqs. (44)-(46).
    .. [2] Aoyagi, Watanabe, Neural Networks 18 (2005), Main Theorem with ``(M, N, H) = (d, d, k)``.
    """
    d, k, r = _validate_qk(d, k, r)
    lam = query_key_closed_forms(d, k, r)["44"]
    inputs = {"d": d, "k": k, "r": r}
    if r == k:
        return LearningCoefficient(lam, 1, GRAPH_ATTENTION_T1, "full rank (r = k): lambda = (2dk - k^2)/2", inputs)
    parity = "even" if (k - r) % 2 == 0 else "odd"
    mult = 1 if parity == "even" else 2
    return LearningCoefficient(lam, mult, GRAPH_ATTENTION_T2, f"rank deficient (r < k), k - r {parity}", inputs)


# ----------------------------------------------------------- regular models


def regular_model_coefficient(rank: int) -> LearningCoefficient:
    """Regular (or minimally singular) model: ``lambda = rank / 2``, ``m = 1``.

    ``rank`` is the number of identifiable directions (the rank of the Fisher
    information or of the parameter map's Jacobian at the true parameter).

    Parameters
    ----------
    rank : int
        The rank ``>= 0`` of the Fisher information (or of the Jacobian of the parameter map) at the truth.

    Returns
    -------
    LearningCoefficient
        ``lam = rank / 2`` (exact) and ``multiplicity = 1``.

    Raises
    ------
    InputError
        A negative or non-integer ``rank``.

    Examples
    --------
    >>> str(regular_model_coefficient(7).lam)
    '7/2'
    >>> regular_model_coefficient(-1)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid rank=-1: expected a non-negative integer

    References
    ----------
    .. [1] Watanabe, *Algebraic Geometry and Statistical Learning Theory*, Cambridge (2009), Sec. 1.4 (regular
       models: lambda = d/2).
    """
    rank = _integer("rank", rank, 0, "a non-negative integer")
    return LearningCoefficient(Fraction(rank, 2), 1, REGULAR, "regular in the identifiable coordinates", {"rank": rank})

