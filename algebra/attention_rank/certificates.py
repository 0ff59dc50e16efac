"""Approximation-rank certificates for softmax attention matrices (the producing side).

For queries ``Q`` (m x d), keys ``K`` (n x d) and inverse temperature ``beta``
the attention matrix is ``A = softmax_rows(beta * Q @ K.T)``.  Its
maximum-row-l1 approximation rank at error ``eps`` is

    r_eps(A) = min { rank(B) : max_i ||A_i - B_i||_1 <= eps }

(Sui & Zhang, *The Approximation Rank of Softmax Attention*, Section 2.1).
This module searches, in float64, for the finite objects that prove bounds on
``r_eps(A)`` for the FULL matrix and returns them as plain data
(:func:`attention_rank_witness`, carrying ``Q``, ``K`` and ``beta`` exactly);
:func:`algebra.certify.attention.attention_rank_certificate` writes them into
a sealed ``attention_rank`` certificate.  The independent checker (:mod:`algebra.checker.attention`)
rebuilds ``A`` in ball arithmetic, re-proves each bound and derives the
structured claim; the inequalities it checks are:

* **upper** -- an explicit ``B`` with ``max_i ||A_i - B_i||_1 <= eps``, so
  ``r_eps(A) <= rank(B)``: truncated-SVD factors ``B = L @ R`` (``L`` is
  m x k, entries rounded to binary32 to keep files short; the error is
  re-measured after rounding), representative rows ``B_i = A_{assign(i)}``
  (rank <= number of distinct rows; paper, Appendix A), or ``B = A``.
* **lower** -- a row selection ``S`` and a one-hot decoder ``D`` with
  ``||S A D - I_M||_inf + eps < 1``; ``S`` and ``D`` are l1 contractions, so
  for any eps-approximant ``B``, ``||S B D - I_M|| < 1``, ``S B D`` is
  invertible (Neumann series) and ``rank(B) >= M`` (paper, (D.4), (E.17)).

The float search keeps a relative margin ``_MARGIN`` below each bound, far
above the ball enclosures' width (~1e-20 at the checker's 80 bits).

The older ``interval_inequality`` payload form (straight-line programs, used
by the catalogue through :func:`approximation_rank_certificates`) is still
produced, on the full matrix; it is evaluated by the checker's single ball
evaluator (:func:`check_interval_inequality` calls it).  Its claim is only
"target < bound": prefer the ``attention_rank`` certificate, whose claim is
the rank bound itself.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from algebra.errors import CertificateError, InputError
from algebra.exact.rounding import binary64_hex

__all__ = [
    "encode_number",
    "exact_eps",
    "eps_bounds",
    "attention_matrix",
    "row_l1_errors",
    "upper_svd_certificate",
    "upper_representative_certificate",
    "lower_certificate",
    "approximation_rank_certificates",
    "upper_rank_float",
    "lower_rank_float",
    "attention_rank_witness",
    "certified_range",
    "single_thread_blas",
    "check_interval_inequality",
]

# Safety margin (relative to eps) kept between the float64 error of a chosen
# construction and the claimed bound; the checker's ball enclosures are
# ~1e-20 wide at these sizes, float64 round-off ~1e-14.
_MARGIN = 1e-9


# --------------------------------------------------------------------------
# numbers and arrays in the certificate format
# --------------------------------------------------------------------------
def encode_number(x: Any) -> str:
    """Encode an exact real number as a certificate string.

    Floats become the checker's short hex spelling
    (:func:`algebra.exact.rounding.binary64_hex`: exact binary64, trailing
    zero digits dropped, zero unsigned); ints and Fractions become ``"p"`` or ``"p/q"``.

    Examples
    --------
    >>> encode_number(0.75), encode_number(0.1), encode_number(-0.0)
    ('0x1.8p-1', '0x1.999999999999ap-4', '0x0p+0')
    >>> encode_number(Fraction(3, 4)), encode_number(-2), float.fromhex(encode_number(1.0))
    ('3/4', '-2', 1.0)
    >>> encode_number(float('nan'))
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid x=nan: expected a finite real number
    """
    if isinstance(x, (bool, np.bool_)):
        raise InputError("x", x, "a finite real number")
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, Fraction):
        return f"{x.numerator}/{x.denominator}" if x.denominator != 1 else str(x.numerator)
    return binary64_hex(x)


def exact_eps(eps) -> Fraction:
    """The exact tolerance a user means: a Fraction as given, a float by its decimal text.

    ``0.15`` is not a binary64 number; the certificate's ``eps`` is ``3/20``,
    the value typed.

    Examples
    --------
    >>> exact_eps(0.15), exact_eps(Fraction(1, 4)), exact_eps(0.25)
    (Fraction(3, 20), Fraction(1, 4), Fraction(1, 4))
    >>> exact_eps(1.0)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid eps=1.0: expected a number in (0, 1)
    """
    if isinstance(eps, (bool, np.bool_)) or not isinstance(eps, (int, float, Fraction, np.integer, np.floating)):
        raise InputError("eps", eps, "a number in (0, 1)")
    e = eps if isinstance(eps, Fraction) else Fraction(repr(float(eps))) if np.isfinite(eps) else None
    if e is None or not 0 < e < 1:
        raise InputError("eps", eps, "a number in (0, 1)")
    return e


def eps_bounds(eps) -> tuple[Fraction, Fraction]:
    """Exact ``(low, high)`` readings of a float tolerance: its binary64 value and its decimal text.

    Payload bounds use ``low`` for upper certificates and ``high`` for lower
    ones, so every payload holds whichever of the two values a user meant.

    Examples
    --------
    >>> lo, hi = eps_bounds(0.15)
    >>> lo < Fraction(3, 20) == hi
    True
    >>> eps_bounds(0.25)
    (Fraction(1, 4), Fraction(1, 4))
    """
    a, b = Fraction(float(eps)), Fraction(repr(float(eps)))
    return min(a, b), max(a, b)


def _array(M: Any) -> dict:
    """Encode a 2-D array (float64 / int / Fraction entries) in row-major order."""
    if isinstance(M, np.ndarray) and M.dtype != object:
        M = np.asarray(M, dtype=np.float64)
        if M.ndim == 1:
            M = M[None, :]
        return {"shape": [int(M.shape[0]), int(M.shape[1])], "data": [encode_number(v) for v in M.ravel().tolist()]}
    rows = [list(r) for r in M]
    return {"shape": [len(rows), len(rows[0])], "data": [encode_number(v) for r in rows for v in r]}


def single_thread_blas():
    """Context limiting BLAS to one thread (threadpoolctl, when installed).

    The matrices here are small (<= a few hundred rows): a multi-threaded
    OpenBLAS on a shared 2-core machine made a 128 x 128 SVD 40x slower
    (0.44 s against 0.01 s, measured).  Without threadpoolctl this is a no-op.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - optional
        import contextlib

        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _check_qk(Q, K, beta, eps):
    Q = np.asarray(Q, dtype=np.float64)
    K = np.asarray(K, dtype=np.float64)
    if Q.ndim != 2 or K.ndim != 2 or Q.shape[1] != K.shape[1] or 0 in Q.shape or 0 in K.shape:
        raise InputError("Q, K", (Q.shape, K.shape), "nonempty matrices (m, d) and (n, d)")
    if not (np.all(np.isfinite(Q)) and np.all(np.isfinite(K))):
        raise InputError("Q, K", "non-finite entries", "finite real entries")
    if not (np.isfinite(float(beta)) and beta >= 0):
        raise InputError("beta", beta, "a finite number >= 0")
    if not (0 < eps < 1):
        raise InputError("eps", eps, "a number in (0, 1)")
    return Q, K, float(beta), float(eps)


def attention_matrix(Q, K, beta) -> np.ndarray:
    """Row-softmax attention ``softmax_rows(beta * Q @ K.T)`` in float64.

    Examples
    --------
    >>> A = attention_matrix([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], 0.0)
    >>> A.tolist()
    [[0.5, 0.5]]
    >>> attention_matrix([[1e300]], [[1e300]], 1.0)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid Q, K='shapes (1, 1), (1, 1)': expected entries whose scores beta Q K^T are finite in float64
    """
    Q, K = np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        S = float(beta) * (Q @ K.T)
    if not np.isfinite(S).all():  # an overflow would make A NaN, and the searches below never end on NaN
        raise InputError("Q, K", f"shapes {Q.shape}, {K.shape}", "entries whose scores beta Q K^T are finite in float64")
    S -= S.max(axis=1, keepdims=True)
    E = np.exp(S)
    return E / E.sum(axis=1, keepdims=True)


def row_l1_errors(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Row-wise l1 distances ``||A_i - B_i||_1``."""
    return np.abs(np.asarray(A) - np.asarray(B)).sum(axis=1)


# --------------------------------------------------------------------------
# the float searches (one per construction)
# --------------------------------------------------------------------------
def _svd_factors(A: np.ndarray, target: float) -> tuple[int, np.ndarray, np.ndarray, float]:
    """Smallest k whose truncated SVD, with factors rounded to binary32, has row-l1 error <= target.

    The error is not monotone in k in general, so every k is scanned upward;
    the residual ``A - A_k`` is updated by one rank-one term per step.  A
    full-rank factorisation always exists (``k = min(m, n)``), so the scan ends.
    """
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    R = A - (U[:, :1] * s[0]) @ Vt[:1]
    for k in range(1, len(s) + 1):
        if float(np.abs(R).sum(axis=1).max()) <= target:
            L32 = (U[:, :k] * s[:k]).astype(np.float32).astype(np.float64)
            R32 = Vt[:k].astype(np.float32).astype(np.float64)
            err = float(row_l1_errors(A, L32 @ R32).max())
            if err <= target:
                return k, L32, R32, err
        if k < len(s):
            R -= np.outer(U[:, k] * s[k], Vt[k])
    k = len(s)  # binary32 rounding spoiled every k: the exact factors A = A @ I
    return k, A, np.eye(A.shape[1]), 0.0  # pragma: no cover - needs k = min(m, n) = n


def _pairwise_l1(A: np.ndarray) -> np.ndarray:
    D = np.empty((A.shape[0], A.shape[0]))
    for i in range(A.shape[0]):
        D[i] = np.abs(A - A[i]).sum(axis=1)
    return D


def _greedy_cover(D: np.ndarray, radius: float) -> np.ndarray:
    """Greedy set cover: assign each row to a representative within ``radius``."""
    covers = D <= radius
    uncovered = np.ones(D.shape[0], dtype=bool)
    assign = np.full(D.shape[0], -1, dtype=np.int64)
    while uncovered.any():
        c = int(np.argmax((covers & uncovered[None, :]).sum(axis=1)))
        newly = covers[c] & uncovered
        assign[newly] = c
        uncovered &= ~newly
    return assign


def _representatives(A: np.ndarray, target: float) -> tuple[int, np.ndarray, float]:
    assign = _greedy_cover(_pairwise_l1(A), target)
    return len(set(assign.tolist())), assign, float(row_l1_errors(A, A[assign]).max())


def _greedy_lower(A: np.ndarray, eps: float) -> tuple[list[int], np.ndarray, float]:
    """Select rows with disjoint key cores each carrying mass > (1+eps)/2; decoder and float error."""
    need = 0.5 * (1.0 + eps) + 1e-9
    order_keys = np.argsort(-A, axis=1)
    cores = []
    for i in range(A.shape[0]):
        cum = np.cumsum(A[i, order_keys[i]])
        size = int(np.searchsorted(cum, need)) + 1
        if size <= A.shape[1] and cum[size - 1] >= need:
            cores.append((size, i, set(order_keys[i, :size].tolist())))
    cores.sort(key=lambda c: (c[0], c[1]))
    used: set[int] = set()
    sel: list[int] = []
    core_sets: list[set[int]] = []
    for _, i, core in cores:
        if core & used:
            continue
        sel.append(i)
        core_sets.append(core)
        used |= core
    M = len(sel)
    dec = np.zeros(A.shape[1], dtype=np.int64)
    for c, core in enumerate(core_sets):
        dec[list(core)] = c
    rest = [j for j in range(A.shape[1]) if j not in used]
    if M and rest:
        dec[rest] = np.argmax(A[np.ix_(sel, rest)], axis=0)
    if M == 0:
        return sel, dec, np.inf
    err = float(np.abs(A[sel] @ np.eye(M)[dec] - np.eye(M)).sum(axis=1).max())
    return sel, dec, err


def _lower_search(A: np.ndarray, eps: float) -> tuple[list[int], list[int], float]:
    """Greedy selection/decoder, or the always-valid ``M = 1`` one (row 0, every key to 0, error 0)."""
    sel, dec, err = _greedy_lower(A, eps)
    if len(sel) >= 2 and err < (1.0 - eps) * (1.0 - _MARGIN):
        return sel, dec.tolist(), err
    return [0], [0] * A.shape[1], 0.0


# --------------------------------------------------------------------------
# attention_rank certificates (the claim is the rank bound)
# --------------------------------------------------------------------------
def attention_rank_witness(Q, K, beta, eps, *, bounds: str = "both", lower=None) -> dict:
    """The finite objects that prove bounds on ``r_eps(softmax_rows(beta Q K^T))``, as plain certificate blocks.

    Returns ``{"eps", "matrix", "approximant"?, "selection"?}``: the exact
    tolerance (encoded), ``Q``, ``K`` and ``beta`` exactly, the upper
    approximant and the lower selection/decoder found by the float searches.
    :func:`algebra.certify.attention.attention_rank_certificate` puts them into
    an ``attention_rank`` certificate, has the checker derive the claim and seals it.

    Parameters
    ----------
    Q, K : array_like, shapes (m, d), (n, d)
        Queries and keys: float64 arrays (each entry is its exact binary64
        value) or nested lists of ints / Fractions (exact rationals, for
        synthetic constructions).
    beta : float, int or Fraction
        Inverse temperature (exact value as given).
    eps : float or Fraction
        Maximum-row-l1 error in (0, 1); a float is read as its decimal text
        (:func:`exact_eps`).
    bounds : {'both', 'lower', 'upper'}
        Which bounds to look for (keyword-only).
    lower : (rows, decoder), optional
        A selection/decoder to use instead of the greedy search (a
        construction's own witness).

    Examples
    --------
    >>> w = attention_rank_witness(np.eye(4), np.eye(4), 0.0, 0.25, bounds="upper")
    >>> sorted(w), w["eps"], w["approximant"]
    (['approximant', 'eps', 'matrix'], '1/4', {'method': 'rows', 'assign': [0, 0, 0, 0]})
    >>> attention_rank_witness(np.eye(2), np.eye(2), 1.0, 0.2, bounds="sideways")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid bounds='sideways': expected 'both', 'lower' or 'upper'
    """
    if bounds not in ("both", "lower", "upper"):
        raise InputError("bounds", bounds, "'both', 'lower' or 'upper'")
    e = exact_eps(eps)
    exact_inputs = not (isinstance(Q, np.ndarray) and isinstance(K, np.ndarray))
    Qf, Kf, beta_f, eps_f = _check_qk(np.array(Q, dtype=np.float64), np.array(K, dtype=np.float64),
                                      float(beta), float(e))
    A = attention_matrix(Qf, Kf, beta_f)
    out: dict = {"eps": encode_number(e),
                 "matrix": {"Q": _array(Q if exact_inputs else Qf), "K": _array(K if exact_inputs else Kf),
                            "beta": encode_number(beta if isinstance(beta, (int, Fraction)) else float(beta))}}
    with single_thread_blas():
        if bounds in ("both", "upper"):
            out["approximant"] = _upper_block(A, eps_f * (1.0 - _MARGIN))
        if bounds in ("both", "lower"):
            rows, dec = lower if lower is not None else _lower_search(A, eps_f)[:2]
            out["selection"] = {"rows": [int(i) for i in rows], "decoder": [int(c) for c in dec]}
    return out


def _upper_block(A: np.ndarray, target: float) -> dict:
    """The cheapest-to-store approximant of smallest rank: B = A, representative rows, or factors."""
    m, n = A.shape
    k_rep, assign, _ = _representatives(A, target)
    k_svd, L, R, _ = _svd_factors(A, target)
    best = min(min(m, n), k_rep, k_svd)
    if best == min(m, n):
        return {"method": "full"}
    if k_rep == best:
        return {"method": "rows", "assign": assign.tolist()}
    return {"method": "factors", "L": _array(L), "R": _array(R)}


def certified_range(cert: dict) -> tuple:
    """``(lower, upper)`` of a checked ``attention_rank`` claim (``None`` for a missing side).

    Examples
    --------
    >>> certified_range({"claim": {"relation": "in", "value": [2, 9]}}), certified_range(
    ...     {"claim": {"relation": ">=", "value": 3}})
    ((2, 9), (3, None))
    """
    rel, v = cert["claim"]["relation"], cert["claim"]["value"]
    return {"in": lambda: tuple(v), "==": lambda: (v, v), ">=": lambda: (v, None), "<=": lambda: (None, v)}[rel]()


# --------------------------------------------------------------------------
# interval_inequality payloads (straight-line programs; the catalogue's kind)
# --------------------------------------------------------------------------
def _attention_inputs(Q, K, beta) -> tuple[dict, dict, list]:
    arrays = {"Q": _array(Q), "K": _array(K)}
    scalars = {"beta": encode_number(beta)}
    program = [
        {"out": "KT", "op": "transpose", "args": ["K"]},
        {"out": "S", "op": "matmul", "args": ["Q", "KT"]},
        {"out": "Sb", "op": "scale", "args": ["S", "beta"]},
        {"out": "A", "op": "softmax_rows", "args": ["Sb"]},
    ]
    return arrays, scalars, program


def _row_l1_max_steps(a: str, b: str) -> list:
    return [
        {"out": "E", "op": "sub", "args": [a, b]},
        {"out": "Eabs", "op": "abs", "args": ["E"]},
        {"out": "rows", "op": "row_sums", "args": ["Eabs"]},
        {"out": "err", "op": "max_all", "args": ["rows"]},
    ]


def upper_svd_certificate(Q, K, beta, eps) -> tuple[int, dict, float]:
    """Smallest truncated-SVD rank ``k`` with row-l1 error <= eps, as a payload on the full matrix.

    Returns ``(k, payload, float_error)``; ``B = L @ R`` with ``L`` of shape (m, k).

    Examples
    --------
    >>> k, payload, err = upper_svd_certificate(np.eye(3), np.eye(3), 8.0, 0.25)
    >>> k, payload["relation"], check_interval_inequality(payload)["verified"]
    (3, '<=', True)
    """
    Q, K, beta, eps = _check_qk(Q, K, beta, eps)
    A = attention_matrix(Q, K, beta)
    k, L, R, err = _svd_factors(A, eps * (1.0 - _MARGIN))
    arrays, scalars, program = _attention_inputs(Q, K, beta)
    arrays["L"], arrays["R"] = _array(L), _array(R)
    program = program + [{"out": "B", "op": "matmul", "args": ["L", "R"]}] + _row_l1_max_steps("A", "B")
    payload = {"arrays": arrays, "scalars": scalars, "program": program,
               "target": "err", "relation": "<=", "bound": encode_number(eps_bounds(eps)[0])}
    return k, payload, err


def upper_representative_certificate(Q, K, beta, eps) -> tuple[int, dict, float]:
    """Representative-row upper payload: at most ``M`` distinct rows of ``A`` within eps.

    Examples
    --------
    >>> Q = np.array([[1.0, 0.0], [1.0, 0.01], [0.0, 1.0]])
    >>> M, payload, err = upper_representative_certificate(Q, Q, 4.0, 0.25)
    >>> M, len(set(payload["indices"]["assign"])), check_interval_inequality(payload)["verified"]
    (2, 2, True)
    """
    Q, K, beta, eps = _check_qk(Q, K, beta, eps)
    M, assign, err = _representatives(attention_matrix(Q, K, beta), eps * (1.0 - _MARGIN))
    arrays, scalars, program = _attention_inputs(Q, K, beta)
    program = program + [{"out": "B", "op": "take_rows", "args": ["A", "assign"]}] + _row_l1_max_steps("A", "B")
    payload = {"arrays": arrays, "scalars": scalars, "indices": {"assign": assign.tolist()},
               "program": program, "target": "err", "relation": "<=",
               "bound": encode_number(eps_bounds(eps)[0])}
    return M, payload, err


def lower_payload(Q, K, beta, eps, sel, dec) -> dict:
    """The payload ``||S A D - I_M||_inf < 1 - eps`` for a given selection and decoder."""
    M = len(sel)
    arrays, scalars, program = _attention_inputs(Q, K, beta)
    program = program + [
        {"out": "SA", "op": "take_rows", "args": ["A", "sel"]},
        {"out": "IM", "op": "identity", "args": [str(M)]},
        {"out": "D", "op": "take_rows", "args": ["IM", "dec"]},
        {"out": "SAD", "op": "matmul", "args": ["SA", "D"]},
    ] + _row_l1_max_steps("SAD", "IM")
    return {"arrays": arrays, "scalars": scalars,
            "indices": {"sel": [int(i) for i in sel], "dec": [int(c) for c in dec]},
            "program": program, "target": "err", "relation": "<",
            "bound": encode_number(1 - eps_bounds(eps)[1])}


def lower_certificate(Q, K, beta, eps) -> tuple[int, dict | None, float]:
    """Greedy selection/decoder lower payload ``||S A D - I_M|| < 1 - eps`` on the full matrix.

    Returns ``(M, payload, float_error)``; ``payload`` is None when no
    certificate with ``M >= 2`` was found (``r_eps(A) >= 1`` always holds,
    since ``B = 0`` has error 1 > eps).

    Examples
    --------
    >>> M, payload, err = lower_certificate(np.eye(4), np.eye(4), 6.0, 0.25)
    >>> M, payload["relation"], check_interval_inequality(payload)["verified"]
    (4, '<', True)
    """
    Q, K, beta, eps = _check_qk(Q, K, beta, eps)
    sel, dec, err = _lower_search(attention_matrix(Q, K, beta), eps)
    if len(sel) < 2:
        return 1, None, float("inf")
    return len(sel), lower_payload(Q, K, beta, eps, sel, dec), err


def approximation_rank_certificates(Q, K, beta, eps, *, seed=0) -> dict:
    """Upper and lower ``interval_inequality`` payloads for the FULL matrix ``softmax_rows(beta Q K^T)``.

    Parameters
    ----------
    Q, K : array_like, shapes (m, d), (n, d)
    beta : float
    eps : float
        ``0 < eps < 1``.
    seed : int
        Recorded in the result; the constructions are deterministic.

    Returns
    -------
    dict
        ``upper_svd``, ``upper_representative``, ``lower`` (payload or None),
        their ranks, ``upper_rank`` (the smaller upper), float64 errors of the
        constructions, ``shape``, ``beta``, ``eps``, ``seed``.

    Examples
    --------
    >>> out = approximation_rank_certificates(np.eye(5), np.eye(5), 6.0, 0.25)
    >>> out["lower_rank"], out["upper_rank"]
    (5, 5)
    >>> approximation_rank_certificates(np.eye(5), np.eye(5), 6.0, 1.5)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid eps=1.5: expected a number in (0, 1)
    """
    shape = [int(np.shape(Q)[0]), int(np.shape(K)[0])]
    with single_thread_blas():
        k_svd, p_svd, e_svd = upper_svd_certificate(Q, K, beta, eps)
        k_rep, p_rep, e_rep = upper_representative_certificate(Q, K, beta, eps)
        k_low, p_low, e_low = lower_certificate(Q, K, beta, eps)
    return {"upper_svd": p_svd, "upper_representative": p_rep, "lower": p_low,
            "upper_rank": min(k_svd, k_rep), "upper_svd_rank": k_svd, "upper_representative_rank": k_rep,
            "lower_rank": k_low,
            "errors": {"upper_svd": e_svd, "upper_representative": e_rep,
                       "lower": e_low if p_low is not None else None},
            "shape": shape,
            "beta": float(beta), "eps": float(eps), "seed": seed}


def upper_rank_float(Q, K, beta, eps, *, method="svd") -> int:
    """Float64 estimate of an upper-construction rank on the full matrix (NOT certified).

    ``method`` is ``"svd"`` (smallest truncated-SVD rank) or
    ``"representative"`` (greedy representative rows).  Use
    :func:`algebra.certify.attention.attention_rank_certificate` for a checked bound.

    Examples
    --------
    >>> upper_rank_float(np.eye(3), np.eye(3), 0.0, 0.1, method="svd")
    1
    """
    Q, K, beta, eps = _check_qk(Q, K, beta, eps)
    A = attention_matrix(Q, K, beta)
    target = eps * (1.0 - _MARGIN)
    if method == "svd":
        return _svd_factors(A, target)[0]
    if method == "representative":
        return _representatives(A, target)[0]
    raise InputError("method", method, "'svd' or 'representative'")


def lower_rank_float(Q, K, beta, eps) -> int:
    """``M`` of the greedy selection/decoder in float64 (NOT certified; 1 when none with M >= 2).

    Examples
    --------
    >>> lower_rank_float(np.eye(4), np.eye(4), 6.0, 0.25), lower_rank_float(np.eye(4), np.eye(4), 0.0, 0.25)
    (4, 1)
    """
    Q, K, beta, eps = _check_qk(Q, K, beta, eps)
    return len(_lower_search(attention_matrix(Q, K, beta), eps)[0])


def check_interval_inequality(payload: dict, *, prec: int = 80) -> dict:
    """Evaluate an ``interval_inequality`` payload with the checker's ball evaluator at ``prec`` bits.

    Returns ``{"verified": bool, "target": str, "bound": str, "relation": str}``;
    verified only when the whole enclosure of the target satisfies the relation.

    Raises
    ------
    CertificateError
        If the payload is malformed.

    Examples
    --------
    >>> p = {"scalars": {"x": "1/3"}, "arrays": {}, "program": [
    ...     {"out": "y", "op": "exp", "args": ["x"]}],
    ...     "target": "y", "relation": "<", "bound": "1.4"}
    >>> check_interval_inequality(p)["verified"]
    True
    >>> p["bound"] = "1.3"; check_interval_inequality(p)["verified"]
    False
    """
    from algebra.checker import Reject, evaluate_program

    try:
        value, _, ok = evaluate_program(payload, prec=prec)
    except Reject as exc:
        raise CertificateError(f"malformed payload: {exc}") from None
    return {"verified": ok, "target": str(value), "bound": payload["bound"], "relation": payload["relation"]}
