"""Binary64 arithmetic whose every result is the round-to-nearest of an exact value.

Floats that pass through BLAS (blocked sums, FMA or not), LAPACK or numpy's
SIMD ``exp`` differ in the last ulp from one CPU kernel to another.  The head
certificates store ``Q`` and ``K`` as exact binary64 numbers, so the forward
pass that makes them (:func:`algebra.attention_rank.heads.bert_forward` with
``method="binary64"``) uses only operations whose result is defined by the
exact value alone:

* :func:`matmul` -- ``fl(A @ B + bias)``, the exact dot products rounded once.
  Each row of ``A`` (column of ``B``) is cut, exactly, into integer slices of
  ``b`` bits on a common power-of-two grid with ``n (2^b - 1)^2 < 2^53``
  (``b = floor((53 - ceil(log2 n)) / 2)``; 21 bits for ``n = 1536``), so every
  partial sum of a slice product is an integer below ``2^53``: BLAS computes
  the slice products exactly whatever its summation order or FMA use.  The
  slice products, scaled by their grids, and the bias are summed by
  :func:`math.fsum`, which rounds the exact sum once (Ozaki, Ogita, Oishi &
  Rump, *Error-free transformations of matrix multiplication by using fast
  routines of matrix multiplication*, Numer. Algorithms 59 (2012)).
* :func:`fsum` -- row sums rounded once.
* :func:`correctly_rounded` -- a function (``exp``, ``erf``, GELU) evaluated
  in python-flint ball arithmetic and rounded once to nearest: the ball is
  recomputed at higher precision until both ends round to the same double.
* IEEE-754 basic operations (``+ - * /``, ``sqrt``), elementwise in numpy,
  are correctly rounded on every CPU and are used as they are.
"""

from __future__ import annotations

import math

import numpy as np

from algebra.errors import InputError
from algebra.exact.rounding import PRECISIONS, correctly_rounded  # the one rounding rule (re-exported here)

__all__ = ["slice_bits", "matmul", "fsum", "correctly_rounded", "PRECISIONS"]



def slice_bits(n: int) -> int:
    """Bits per integer slice for inner dimension ``n``: ``n (2^b - 1)^2 < 2^53``.

    Examples
    --------
    >>> slice_bits(32), slice_bits(384), slice_bits(1536)
    (24, 22, 21)
    >>> all(n * (2 ** slice_bits(n) - 1) ** 2 < 2 ** 53 for n in range(1, 5000))
    True
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1 or n > 2 ** 40:
        raise InputError("n", n, "an inner dimension between 1 and 2^40")
    return (53 - max(0, math.ceil(math.log2(n)))) // 2


def _row_slices(X: np.ndarray, bits: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``X = sum_k ldexp(S_k, g_k[:, None])`` exactly, with integer-valued ``|S_k| < 2^bits`` and row grids ``g_k``."""
    R = np.array(X, dtype=np.float64)
    amax = np.abs(R).max(axis=1)
    top = np.frexp(np.where(amax > 0, amax, 1.0))[1].astype(np.int64)  # |row| < 2^top
    slices, grids = [], []
    k = 0
    while np.any(R != 0):
        k += 1
        g = top - bits * k
        S = np.trunc(np.ldexp(R, -g[:, None]))     # exact: a power-of-two scaling and a truncation
        R = R - np.ldexp(S, g[:, None])            # exact: the bits of R below the grid
        slices.append(S)
        grids.append(g)
    return slices, grids


def matmul(A, B, bias=None) -> np.ndarray:
    """``fl(A @ B + bias)``: every entry the round-to-nearest binary64 of its exact value.

    Parameters
    ----------
    A : array_like, shape (m, n)
    B : array_like, shape (n, p)
    bias : array_like, shape (p,), optional
        Added inside the single rounding.

    Raises
    ------
    InputError
        On mismatched shapes or non-finite entries.

    Examples
    --------
    >>> A = np.array([[1.0, 2.0 ** -60], [3.0, -1.0]])
    >>> B = np.array([[1.0, 1.0], [1.0, 0.5]])
    >>> matmul(A, B, bias=np.array([-1.0, 0.0])).tolist()   # 1 + 2^-60 - 1 = 2^-60: one rounding
    [[8.673617379884035e-19, 1.0], [1.0, 2.5]]
    >>> X = np.random.default_rng(0).standard_normal((5, 300))
    >>> bool(np.abs(matmul(X, X.T) - X @ X.T).max() < 1e-12)
    True
    >>> matmul(np.ones((2, 3)), np.ones((2, 3)))
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid A, B shapes=((2, 3), (2, 3)): expected (m, n) and (n, p)
    """
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[0]:
        raise InputError("A, B shapes", (A.shape, B.shape), "(m, n) and (n, p)")
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(B))):
        raise InputError("A, B", "non-finite entries", "finite entries")
    m, n = A.shape
    p = B.shape[1]
    terms = [] if bias is None else [np.broadcast_to(np.asarray(bias, dtype=np.float64), (m, p))]
    if n:
        bits = slice_bits(n)
        SA, gA = _row_slices(A, bits)
        SB, gB = _row_slices(B.T, bits)
        for Sa, ga in zip(SA, gA):
            for Sb, gb in zip(SB, gB):
                # integers below 2^53 in every partial sum: exact in any BLAS order
                terms.append(np.ldexp(Sa @ Sb.T, ga[:, None] + gb[None, :]))
    if not terms:
        return np.zeros((m, p))
    stacked = np.stack(terms).reshape(len(terms), -1)
    return np.array(list(map(math.fsum, stacked.T.tolist())), dtype=np.float64).reshape(m, p)


def fsum(X, axis: int = -1) -> np.ndarray:
    """Sums along ``axis``, each the round-to-nearest of the exact sum (:func:`math.fsum`).

    Examples
    --------
    >>> fsum(np.array([[1e16, 1.0, -1e16], [0.1, 0.2, 0.3]])).tolist()   # left to right: 0.0 and 0.6000000000000001
    [1.0, 0.6]
    """
    X = np.moveaxis(np.asarray(X, dtype=np.float64), axis, -1)
    flat = X.reshape(-1, X.shape[-1]).tolist()
    return np.array(list(map(math.fsum, flat)), dtype=np.float64).reshape(X.shape[:-1])


