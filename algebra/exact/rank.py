"""Exact ranks with witnesses: GF(p) through python-flint, Q through fmpq_mat.

Why these routes (measured on the 2-core CI machine, see BENCHMARKS.md):

* ``nmod_mat.rank`` / ``rref`` is the fastest exact rank available from
  Python; a 2000 x 2000 matrix takes under a second, about as long as
  numpy's float SVD of the same matrix.  Converting a numpy array to an
  ``nmod_mat`` goes through a flat Python list (``ndarray.tolist``), which is
  the cheapest constructor python-flint offers.
* a *witness* is a nonsingular ``r x r`` submatrix.  Its columns are the
  pivot columns of ``rref(J)``; its rows are the pivot columns of
  ``rref(J[:, cols]^T)``.  When ``J`` has full row rank, or its leading
  ``r`` rows already give a nonzero minor (one determinant), the second
  elimination is skipped.
* over Q, ``fmpq_mat.rank`` (fraction-free inside flint) is exact but slow;
  it is used for cross-checks and on request.

A nonzero ``r x r`` minor of ``J(theta)`` modulo ``p`` is a nonzero integer,
so the rank over Q at ``theta`` is at least ``r``; the generic rank is at
least the rank at any point.  Hence ``rank_mod_p`` proves a lower bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from algebra.errors import InputError

__all__ = [
    "RankWitness",
    "rank_mod_p",
    "rank_with_witness",
    "rank_over_q",
    "rank_float",
    "det_mod_p",
    "to_nmod_mat",
]


@dataclass(frozen=True)
class RankWitness:
    """``rank`` and the row/column indices of a nonsingular ``rank x rank`` submatrix."""

    rank: int
    rows: tuple
    cols: tuple
    prime: int | None


def to_nmod_mat(J: np.ndarray, p: int):
    """Convert an integer array (entries already reduced or not) to ``flint.nmod_mat``."""
    import flint

    J = np.asarray(J)
    if J.ndim != 2:
        raise InputError("matrix", f"shape {J.shape}", "a 2-d array")
    m, n = J.shape
    if J.dtype == object:
        flat = [int(v) % p for v in J.ravel()]
    else:
        flat = np.mod(J.astype(np.int64), p).ravel().tolist()
    # fmpz_mat from a flat list, then reduction, is ~30% faster than the
    # nmod_mat list constructor (python-flint 0.9, measured on 1500 x 1500).
    return flint.nmod_mat(flint.fmpz_mat(m, n, flat), p)


def rank_mod_p(J: np.ndarray, p: int) -> int:
    """Rank of ``J`` modulo the prime ``p``.

    Examples
    --------
    >>> rank_mod_p(np.array([[1, 2], [2, 4]]), 7)
    1
    >>> rank_mod_p(np.array([[1, 2], [3, 4]]), 2)   # det = -2 vanishes mod 2
    1
    """
    if min(np.shape(J)) == 0:
        return 0
    return int(to_nmod_mat(J, p).rank())


def _pivot_columns(R, rank: int, ncols: int) -> tuple:
    """Pivot columns of a matrix in reduced row echelon form (scans ~ncols entries)."""
    cols, j = [], 0
    for i in range(rank):
        while j < ncols and int(R[i, j]) == 0:
            j += 1
        cols.append(j)
        j += 1
    return tuple(cols)


def rank_with_witness(J: np.ndarray, p: int) -> RankWitness:
    """Rank modulo ``p`` and a nonsingular ``r x r`` submatrix (rows, cols).

    Examples
    --------
    >>> w = rank_with_witness(np.array([[0, 0, 0], [1, 2, 3], [2, 4, 7]]), 101)
    >>> w.rank, w.rows, w.cols
    (2, (1, 2), (0, 2))
    >>> det_mod_p(np.array([[1, 3], [2, 7]]), 101) != 0
    True
    """
    J = np.asarray(J)
    m, n = J.shape
    if m == 0 or n == 0:
        return RankWitness(0, (), (), p)
    A = to_nmod_mat(J, p)
    R, r = A.rref()
    r = int(r)
    cols = _pivot_columns(R, r, n)
    if r == m:
        rows = tuple(range(m))
    elif r and int(to_nmod_mat(J[:r][:, list(cols)], p).det()) != 0:
        # the leading rows usually suffice for generic sample Jacobians: one
        # r x r determinant (~r^3/3) instead of a second elimination (~r^2 m)
        rows = tuple(range(r))
    else:
        B = to_nmod_mat(np.asarray(J)[:, list(cols)].T, p)
        R2, r2 = B.rref()
        rows = _pivot_columns(R2, int(r2), m)
    return RankWitness(r, rows, cols, p)


def det_mod_p(S: np.ndarray, p: int) -> int:
    """Determinant of a square integer matrix modulo ``p``."""
    S = np.asarray(S)
    if S.shape[0] != S.shape[1]:
        raise InputError("matrix", f"shape {S.shape}", "a square matrix")
    if S.shape[0] == 0:
        return 1
    return int(to_nmod_mat(S, p).det())


def rank_over_q(J: np.ndarray) -> int:
    """Exact rank over Q of a matrix of ints or Fractions (python-flint ``fmpq_mat``).

    Examples
    --------
    >>> rank_over_q(np.array([[Fraction(1, 2), 1], [1, 2]], dtype=object))
    1
    """
    import flint

    J = np.asarray(J)
    m, n = J.shape
    if m == 0 or n == 0:
        return 0
    flat = []
    for v in J.ravel():
        f = Fraction(v) if not isinstance(v, (int, np.integer)) else Fraction(int(v))
        flat.append(flint.fmpq(f.numerator, f.denominator))
    return int(flint.fmpq_mat(m, n, flat).rank())


def rank_float(J: np.ndarray, *, rtol: float | None = None) -> int:
    """Numerical rank from a float64 SVD (what the proof-free tools do).

    ``rtol`` defaults to numpy's ``max(m, n) * eps`` relative to the largest
    singular value.  Proves nothing; used only as a peer in tests/benchmarks.
    """
    J = np.asarray(J, dtype=np.float64)
    if min(J.shape) == 0:
        return 0
    return int(np.linalg.matrix_rank(J, rtol=rtol))
