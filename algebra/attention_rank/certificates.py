"""Approximation-rank certificates for softmax attention matrices.

For queries ``Q`` (m x d), keys ``K`` (n x d) and inverse temperature ``beta``
the attention matrix is ``A = softmax_rows(beta * Q @ K.T)``.  Its
maximum-row-l1 approximation rank at error ``eps`` is

    r_eps(A) = min { rank(B) : max_i ||A_i - B_i||_1 <= eps }

(Sui & Zhang, *The Approximation Rank of Softmax Attention*, Section 2.1).
This module builds finite certificates for both sides of ``r_eps(A)`` as
payloads of the shared ``interval_inequality`` kind (``docs/interval-inequality.md``):

* **upper, truncated SVD** -- ``B = L @ R`` with ``L`` of shape (m, k), so
  ``rank(B) <= k``; the payload claims ``max_i ||A_i - B_i||_1 <= eps``.
* **upper, representative rows** -- ``B = take_rows(A, assign)`` whose rows are
  at most ``M`` distinct rows of ``A`` (``M`` = number of distinct indices), so
  ``rank(B) <= M`` (paper, Appendix A, "Representative rows imply matrix rank").
* **lower, selection/decoder** -- a row selection ``S`` (``take_rows``) and a
  one-hot decoder ``D = take_rows(identity(M), dec)`` with
  ``||S A D - I_M||_{inf->inf} < 1 - eps``.  For any eps-approximant ``B``,
  ``S`` and ``D`` are l1 contractions, so ``||S B D - I_M|| < 1`` and ``S B D``
  is invertible (Neumann series): ``rank(B) >= M`` (paper, (D.4), (E.17)).
  A lower certificate on a subset of the rows is valid for the whole matrix.

Each payload is checked here by :func:`check_interval_inequality`, an
evaluator of the contract's straight-line programs in ``mpmath.iv`` interval
arithmetic.  It is our own check; the project's independent checker
(``algebra.checker``) is written separately from the same contract.

Why these constructions: truncated SVD is the canonical reproducible low-rank
family (not optimal in row-l1, but a constructive upper certificate);
representative rows follow the proof of the upper law; the greedy lower
certificate picks peaked rows whose "core" key sets are disjoint.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from algebra.errors import CertificateError, InputError

__all__ = [
    "encode_number",
    "decode_number",
    "eps_bounds",
    "attention_matrix",
    "row_l1_errors",
    "upper_svd_certificate",
    "upper_representative_certificate",
    "lower_certificate",
    "approximation_rank_certificates",
    "upper_rank_float",
    "single_thread_blas",
    "check_interval_inequality",
]

# Safety margin (relative to eps) kept between the float64 error of a chosen
# construction and the claimed bound, so that the interval evaluation (whose
# enclosures are ~1e-13 wide at these sizes) verifies the claim.
_MARGIN = 1e-9

# Contract limits (docs/interval-inequality.md).
_MAX_ENTRIES = 10**6
_MAX_STEPS = 10**4


# --------------------------------------------------------------------------
# numbers and arrays in the payload format
# --------------------------------------------------------------------------
def encode_number(x: Any) -> str:
    """Encode an exact real number as a payload string.

    Floats become ``float.hex`` (exact binary64); ints and Fractions become
    ``"p"`` or ``"p/q"``.

    Examples
    --------
    >>> encode_number(0.75)
    '0x1.8000000000000p-1'
    >>> encode_number(Fraction(3, 4)), encode_number(-2)
    ('3/4', '-2')
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
    xf = float(x)
    if not np.isfinite(xf):
        raise InputError("x", x, "a finite real number")
    return xf.hex()


def decode_number(text: str) -> Fraction:
    """Decode a payload number string into an exact Fraction.

    Examples
    --------
    >>> decode_number('0x1.8p-1'), decode_number('-7/2'), decode_number('0.1')
    (Fraction(3, 4), Fraction(-7, 2), Fraction(1, 10))
    >>> decode_number('1e400')
    Traceback (most recent call last):
    ...
    algebra.errors.CertificateError: number '1e400' is not a hex float, decimal, integer or p/q
    """
    if not isinstance(text, str) or len(text) > 10_000:
        raise CertificateError(f"number {text!r} is not a string of reasonable length")
    t = text.strip()
    try:
        if "x" in t.lower():
            return Fraction(float.fromhex(t))
        if "/" in t:
            p, q = t.split("/")
            return Fraction(int(p), int(q))
        if "e" in t.lower():
            raise ValueError
        return Fraction(t)
    except (ValueError, ZeroDivisionError, OverflowError):
        raise CertificateError(
            f"number {text!r} is not a hex float, decimal, integer or p/q"
        ) from None


def eps_bounds(eps) -> tuple[Fraction, Fraction]:
    """Exact ``(low, high)`` readings of a float tolerance: its binary64 value and its decimal text.

    Upper certificates claim ``error <= low`` and lower certificates use
    ``high``, so every claim holds whichever of the two values a user meant
    (``0.15`` is not a binary64 number).

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
        return {"shape": [int(M.shape[0]), int(M.shape[1])],
                "data": [float(v).hex() for v in M.ravel()]}
    rows = [list(r) for r in M]
    return {"shape": [len(rows), len(rows[0])],
            "data": [encode_number(v) for r in rows for v in r]}


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
    if not (np.isfinite(beta) and beta >= 0):
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
    """
    S = float(beta) * (np.asarray(Q, dtype=np.float64) @ np.asarray(K, dtype=np.float64).T)
    S -= S.max(axis=1, keepdims=True)
    E = np.exp(S)
    return E / E.sum(axis=1, keepdims=True)


def row_l1_errors(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Row-wise l1 distances ``||A_i - B_i||_1``."""
    return np.abs(np.asarray(A) - np.asarray(B)).sum(axis=1)


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


# --------------------------------------------------------------------------
# upper certificates
# --------------------------------------------------------------------------
def upper_svd_certificate(Q, K, beta, eps) -> tuple[int, dict, float]:
    """Smallest truncated-SVD rank ``k`` with row-l1 error <= eps, and its payload.

    Returns ``(k, payload, float_error)``.  The payload defines ``B = L @ R``
    with ``L`` of shape (m, k), so it certifies ``r_eps(A) <= k``.

    Examples
    --------
    >>> Q = np.eye(3); K = np.eye(3)
    >>> k, payload, err = upper_svd_certificate(Q, K, 8.0, 0.25)
    >>> k, payload["relation"], check_interval_inequality(payload)["verified"]
    (3, '<=', True)
    """
    Q, K, beta, eps = _check_qk(Q, K, beta, eps)
    A = attention_matrix(Q, K, beta)
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    k, err = _svd_first_rank(A, U, s, Vt, eps * (1.0 - _MARGIN))
    chosen = (k, U[:, :k] * s[:k], Vt[:k], err)
    k, L, R, err = chosen
    arrays, scalars, program = _attention_inputs(Q, K, beta)
    arrays["L"] = _array(L)
    arrays["R"] = _array(R)
    program = program + [{"out": "B", "op": "matmul", "args": ["L", "R"]}]
    program += _row_l1_max_steps("A", "B")
    payload = {"arrays": arrays, "scalars": scalars, "program": program,
               "target": "err", "relation": "<=", "bound": encode_number(eps_bounds(eps)[0])}
    return k, payload, err


def _svd_first_rank(A, U, s, Vt, target) -> tuple[int, float]:
    """Smallest k whose truncated SVD has max row-l1 error <= target.

    The error is not monotone in k in general, so every k is scanned upward;
    the residual ``A - A_k`` is updated by one rank-one term per step.
    """
    R = A - (U[:, :1] * s[0]) @ Vt[:1]
    for k in range(1, len(s) + 1):
        err = float(np.abs(R).sum(axis=1).max())
        if err <= target:
            # recompute the product exactly as the certificate will state it
            err = float(row_l1_errors(A, (U[:, :k] * s[:k]) @ Vt[:k]).max())
            if err <= target:
                return k, err
        if k < len(s):
            R -= np.outer(U[:, k] * s[k], Vt[k])
    raise CertificateError("no truncated SVD reached the requested error")  # pragma: no cover


def _greedy_cover(D: np.ndarray, radius: float) -> np.ndarray:
    """Greedy set cover: assign each row to a representative within ``radius``."""
    m = D.shape[0]
    covers = D <= radius
    uncovered = np.ones(m, dtype=bool)
    assign = np.full(m, -1, dtype=np.int64)
    while uncovered.any():
        gains = (covers & uncovered[None, :]).sum(axis=1)
        c = int(np.argmax(gains))
        newly = covers[c] & uncovered
        assign[newly] = c
        uncovered &= ~newly
    return assign


def upper_representative_certificate(Q, K, beta, eps) -> tuple[int, dict, float]:
    """Representative-row upper certificate: at most ``M`` distinct rows within eps.

    Returns ``(M, payload, float_error)``; the payload's index list
    ``assign`` has ``M`` distinct values, so ``rank(B) <= M``.

    Examples
    --------
    >>> Q = np.array([[1.0, 0.0], [1.0, 0.01], [0.0, 1.0]])
    >>> M, payload, err = upper_representative_certificate(Q, Q, 4.0, 0.25)
    >>> M, len(set(payload["indices"]["assign"])), check_interval_inequality(payload)["verified"]
    (2, 2, True)
    """
    Q, K, beta, eps = _check_qk(Q, K, beta, eps)
    A = attention_matrix(Q, K, beta)
    D = np.abs(A[:, None, :] - A[None, :, :]).sum(axis=2) if A.shape[0] <= 512 else _pairwise_l1(A)
    assign = _greedy_cover(D, eps * (1.0 - _MARGIN))
    M = len(set(assign.tolist()))
    err = float(row_l1_errors(A, A[assign]).max())
    arrays, scalars, program = _attention_inputs(Q, K, beta)
    program = program + [{"out": "B", "op": "take_rows", "args": ["A", "assign"]}]
    program += _row_l1_max_steps("A", "B")
    payload = {"arrays": arrays, "scalars": scalars, "indices": {"assign": assign.tolist()},
               "program": program, "target": "err", "relation": "<=",
               "bound": encode_number(eps_bounds(eps)[0])}
    return M, payload, err


def _pairwise_l1(A: np.ndarray) -> np.ndarray:
    D = np.empty((A.shape[0], A.shape[0]))
    for i in range(A.shape[0]):
        D[i] = np.abs(A - A[i]).sum(axis=1)
    return D


# --------------------------------------------------------------------------
# lower certificate
# --------------------------------------------------------------------------
def _greedy_lower(A: np.ndarray, eps: float) -> tuple[list[int], np.ndarray, float]:
    """Select rows with disjoint key cores each carrying mass > (1+eps)/2."""
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
    dec = np.empty(A.shape[1], dtype=np.int64)
    for c, core in enumerate(core_sets):
        dec[list(core)] = c
    rest = [j for j in range(A.shape[1]) if j not in used]
    if M and rest:
        dec[rest] = np.argmax(A[np.ix_(sel, rest)], axis=0)
    if M == 0:
        return sel, dec, np.inf
    Dm = np.eye(M)[dec]
    err = float(np.abs(A[sel] @ Dm - np.eye(M)).sum(axis=1).max())
    return sel, dec, err


def lower_certificate(Q, K, beta, eps) -> tuple[int, dict | None, float]:
    """Selection/decoder lower certificate ``||S A D - I_M|| < 1 - eps``.

    Returns ``(M, payload, float_error)``; ``payload`` is None when no
    certificate with ``M >= 2`` was found (``r_eps(A) >= 1`` always holds,
    since ``B = 0`` has error 1 > eps).

    Examples
    --------
    >>> Q = np.eye(4)
    >>> M, payload, err = lower_certificate(Q, Q, 6.0, 0.25)
    >>> M, payload["relation"], check_interval_inequality(payload)["verified"]
    (4, '<', True)
    """
    Q, K, beta, eps = _check_qk(Q, K, beta, eps)
    A = attention_matrix(Q, K, beta)
    sel, dec, err = _greedy_lower(A, eps)
    M = len(sel)
    if M < 2 or not err < (1.0 - eps) * (1.0 - _MARGIN):
        return 1, None, float("inf")
    arrays, scalars, program = _attention_inputs(Q, K, beta)
    program = program + [
        {"out": "SA", "op": "take_rows", "args": ["A", "sel"]},
        {"out": "IM", "op": "identity", "args": [str(M)]},
        {"out": "D", "op": "take_rows", "args": ["IM", "dec"]},
        {"out": "SAD", "op": "matmul", "args": ["SA", "D"]},
    ] + _row_l1_max_steps("SAD", "IM")
    payload = {"arrays": arrays, "scalars": scalars,
               "indices": {"sel": [int(i) for i in sel], "dec": dec.tolist()},
               "program": program, "target": "err", "relation": "<",
               "bound": encode_number(1 - eps_bounds(eps)[1])}
    return M, payload, err


def approximation_rank_certificates(Q, K, beta, eps, *, seed=0, max_rows=32, max_cols=128) -> dict:
    """Upper and lower approximation-rank certificates for ``softmax_rows(beta Q K^T)``.

    Parameters
    ----------
    Q, K : array_like, shapes (m, d), (n, d)
        Queries and keys (float64; every entry is taken as the exact binary64 value).
    beta : float
        Inverse temperature (taken as its exact binary64 value).
    eps : float
        Maximum-row-l1 error, ``0 < eps < 1``.
    seed : int
        Seed of the row subsample used when ``m > max_rows``.
    max_rows, max_cols : int
        Certificate size limits that keep a pure-Python interval check to a
        few seconds.  Larger inputs are certified on a sub-instance: a random
        subset of ``max_rows`` query rows (all keys) for the upper
        certificates, the first ``max_rows`` rows of the greedy selection on
        the full matrix for the lower one (valid for the whole matrix), and
        the first ``max_cols`` keys when ``n > max_cols``; ``"rows"``,
        ``"lower_rows"`` and ``"cols"`` record it.
        Float ranks for the whole matrix are reported as ``*_full``.

    Returns
    -------
    dict
        ``upper_svd``, ``upper_representative``, ``lower`` (payload or None),
        ``upper_rank`` (min of the two upper certificates), ``upper_svd_rank``,
        ``upper_representative_rank``, ``lower_rank``, float errors, the
        sub-instance description and the seed.

    Examples
    --------
    >>> Q = np.eye(5)
    >>> out = approximation_rank_certificates(Q, Q, 6.0, 0.25)
    >>> out["lower_rank"], out["upper_rank"]
    (5, 5)
    >>> approximation_rank_certificates(Q, Q, 6.0, 1.5)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid eps=1.5: expected a number in (0, 1)
    """
    with single_thread_blas():
        return _approximation_rank_certificates(Q, K, beta, eps, seed, max_rows, max_cols)


def _approximation_rank_certificates(Q, K, beta, eps, seed, max_rows, max_cols) -> dict:
    Q, K, beta, eps = _check_qk(Q, K, beta, eps)
    m, n = Q.shape[0], K.shape[0]
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    rows = np.arange(m) if m <= max_rows else np.sort(rng.choice(m, size=max_rows, replace=False))
    cols = np.arange(min(n, max_cols))
    Qs, Ks = Q[rows], K[cols]
    k_svd, p_svd, e_svd = upper_svd_certificate(Qs, Ks, beta, eps)
    k_rep, p_rep, e_rep = upper_representative_certificate(Qs, Ks, beta, eps)
    # A lower certificate on any row subset is valid for the whole matrix, so
    # its rows are not the random subsample but the greedy selection on the
    # full matrix (first max_rows of it).
    lower_rows = rows
    if len(rows) < m:
        sel_full, _, err_full = _greedy_lower(attention_matrix(Q, K[cols], beta), eps)
        if len(sel_full) >= 2 and err_full < (1.0 - eps) * (1.0 - _MARGIN):
            lower_rows = np.sort(np.asarray(sel_full[:max_rows]))
    k_low, p_low, e_low = lower_certificate(Q[lower_rows], Ks, beta, eps)
    out = {
        "upper_svd": p_svd, "upper_representative": p_rep, "lower": p_low,
        "upper_rank": min(k_svd, k_rep), "upper_svd_rank": k_svd,
        "upper_representative_rank": k_rep, "lower_rank": k_low,
        "errors": {"upper_svd": e_svd, "upper_representative": e_rep,
                   "lower": e_low if p_low is not None else None},
        "shape": [m, n], "rows": rows.tolist(), "lower_rows": np.asarray(lower_rows).tolist(),
        "cols": cols.tolist(),
        "subsampled": bool(len(rows) < m or len(cols) < n),
        "beta": beta, "eps": eps, "seed": seed,
    }
    if out["subsampled"]:
        out["upper_svd_rank_full"] = upper_rank_float(Q, K, beta, eps, method="svd")
        out["upper_representative_rank_full"] = upper_rank_float(Q, K, beta, eps, method="representative")
    return out


def upper_rank_float(Q, K, beta, eps, *, method="svd") -> int:
    """Float64 upper-certificate rank on the full matrix (no payload).

    ``method`` is ``"svd"`` (smallest truncated-SVD rank) or
    ``"representative"`` (greedy representative rows).

    Examples
    --------
    >>> upper_rank_float(np.eye(3), np.eye(3), 0.0, 0.1, method="svd")
    1
    """
    Q, K, beta, eps = _check_qk(Q, K, beta, eps)
    A = attention_matrix(Q, K, beta)
    target = eps * (1.0 - _MARGIN)
    if method == "svd":
        U, s, Vt = np.linalg.svd(A, full_matrices=False)
        return _svd_first_rank(A, U, s, Vt, target)[0]
    if method == "representative":
        return len(set(_greedy_cover(_pairwise_l1(A), target).tolist()))
    raise InputError("method", method, "'svd' or 'representative'")


# --------------------------------------------------------------------------
# our own interval check of a payload
# --------------------------------------------------------------------------
def _iv_number(text: str, iv):
    f = decode_number(text)
    if f.denominator == 1:
        return iv.mpf(f.numerator)
    return iv.mpf(f.numerator) / f.denominator


def _nonzero(a) -> bool:
    return not (a.a == 0 and a.b == 0)


class _IvMat:
    __slots__ = ("rows", "shape")

    def __init__(self, rows):
        self.rows = rows
        self.shape = (len(rows), len(rows[0]) if rows else 0)


def _iv_eval(payload: dict, iv) -> tuple[Any, Any]:
    env: dict[str, Any] = {}
    if not isinstance(payload, dict):
        raise CertificateError("payload is not a JSON object")
    for name, arr in payload.get("arrays", {}).items():
        shape = arr.get("shape")
        data = arr.get("data")
        if (not isinstance(shape, list) or len(shape) != 2
                or not all(isinstance(s, int) and s > 0 for s in shape)):
            raise CertificateError(f"array {name!r}: bad shape {shape!r}")
        if shape[0] * shape[1] > _MAX_ENTRIES or len(data) != shape[0] * shape[1]:
            raise CertificateError(f"array {name!r}: data length does not match shape")
        vals = [_iv_number(t, iv) for t in data]
        env[name] = _IvMat([vals[i * shape[1]:(i + 1) * shape[1]] for i in range(shape[0])])
    for name, text in payload.get("scalars", {}).items():
        env[name] = _IvMat([[_iv_number(text, iv)]])
    indices = payload.get("indices", {})
    program = payload.get("program", [])
    if len(program) > _MAX_STEPS:
        raise CertificateError("program too long")

    def get(a):
        if a not in env:
            raise CertificateError(f"undefined name {a!r}")
        return env[a]

    def idx(a, bound):
        ix = indices.get(a)
        if not isinstance(ix, list) or not all(isinstance(i, int) and 0 <= i < bound for i in ix) or not ix:
            raise CertificateError(f"index list {a!r} missing or out of range")
        return ix

    def same(X, Y, op):
        if X.shape != Y.shape:
            raise CertificateError(f"{op}: shapes {X.shape} and {Y.shape} differ")

    for step in program:
        op, args, out = step.get("op"), step.get("args", []), step.get("out")
        if op == "identity":
            size = int(args[0])
            if size <= 0 or size * size > _MAX_ENTRIES:
                raise CertificateError("identity: bad size")
            one, zero = iv.mpf(1), iv.mpf(0)
            res = [[one if i == j else zero for j in range(size)] for i in range(size)]
        elif op == "transpose":
            X = get(args[0])
            res = [list(c) for c in zip(*X.rows)]
        elif op == "matmul":
            X, Y = get(args[0]), get(args[1])
            if X.shape[1] != Y.shape[0]:
                raise CertificateError(f"matmul: shapes {X.shape} and {Y.shape}")
            if X.shape[0] * Y.shape[1] > _MAX_ENTRIES:
                raise CertificateError("matmul: result too large")
            cols = list(zip(*Y.rows))
            # exact zeros (one-hot decoders) are skipped: they contribute exactly 0
            res = [[iv.fsum([a * b for a, b in zip(r, c) if _nonzero(a) and _nonzero(b)] or [iv.mpf(0)])
                    for c in cols] for r in X.rows]
        elif op in ("add", "sub", "mul"):
            X, Y = get(args[0]), get(args[1])
            same(X, Y, op)
            f = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b}[op]
            res = [[f(a, b) for a, b in zip(r, s)] for r, s in zip(X.rows, Y.rows)]
        elif op == "scale":
            X, s = get(args[0]), get(args[1])
            if s.shape != (1, 1):
                raise CertificateError("scale: second argument is not a scalar")
            c = s.rows[0][0]
            res = [[a * c for a in r] for r in X.rows]
        elif op == "exp":
            res = [[iv.exp(a) for a in r] for r in get(args[0]).rows]
        elif op == "abs":
            res = [[abs(a) for a in r] for r in get(args[0]).rows]
        elif op == "softmax_rows":
            res = []
            for r in get(args[0]).rows:
                shift = max(a.b for a in r)
                e = [iv.exp(a - shift) for a in r]
                tot = iv.fsum(e)
                res.append([x / tot for x in e])
        elif op == "row_sums":
            res = [[iv.fsum(r)] for r in get(args[0]).rows]
        elif op in ("max_all", "min_all"):
            flat = [a for r in get(args[0]).rows for a in r]
            if op == "max_all":
                res = [[iv.mpf([max(a.a for a in flat), max(a.b for a in flat)])]]
            else:
                res = [[iv.mpf([min(a.a for a in flat), min(a.b for a in flat)])]]
        elif op == "take_rows":
            X = get(args[0])
            res = [list(X.rows[i]) for i in idx(args[1], X.shape[0])]
        elif op == "take_cols":
            X = get(args[0])
            ix = idx(args[1], X.shape[1])
            res = [[r[j] for j in ix] for r in X.rows]
        else:
            raise CertificateError(f"unknown op {op!r}")
        env[out] = _IvMat(res)
    target = get(payload.get("target"))
    if target.shape != (1, 1):
        raise CertificateError("target is not 1x1")
    return target.rows[0][0], _iv_number(payload["bound"], iv)


def check_interval_inequality(payload: dict, *, prec: int = 60) -> dict:
    """Evaluate an ``interval_inequality`` payload in mpmath interval arithmetic.

    Returns ``{"verified": bool, "target": "[lo, hi]", "bound": str, ...}``; verified
    only when the whole enclosure of the target lies strictly on the safe
    side of the bound.

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
    from mpmath import iv  # lazy: only the checking route needs it

    old = iv.prec
    iv.prec = prec
    try:
        value, bound = _iv_eval(payload, iv)
        rel = payload.get("relation")
        if rel == "<=":
            ok = value.b <= bound.a
        elif rel == "<":
            ok = value.b < bound.a
        elif rel == ">=":
            ok = value.a >= bound.b
        elif rel == ">":
            ok = value.a > bound.b
        else:
            raise CertificateError(f"unknown relation {rel!r}")
        return {"verified": bool(ok), "target": str(value),
                "bound": payload["bound"], "relation": rel}
    finally:
        iv.prec = old
