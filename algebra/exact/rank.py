"""Exact ranks with witnesses: GF(p) by blocked LU on float64 BLAS or python-flint, Q through fmpq_mat.

Why these routes (``method="auto"``; measured on the 2-core CI machine, one
BLAS thread, figures in BENCHMARKS.md, section "Jacobian rank"):

* ``"blas"`` -- :func:`algebra.exact.elimination.eliminate_mod_p`, a blocked
  rank-revealing LU modulo ``p`` in place on one float64 array (exact GEMMs,
  FFLAS-FFPACK style).  It returns the witness minor (pivot rows and
  columns) from the same elimination, where flint needs a second ``rref``.
* ``"flint"`` -- ``nmod_mat.rank`` / ``rref`` after converting the residues
  through a flat Python list (the cheapest constructor python-flint offers).
  It wins on small matrices, where the per-leaf Python overhead of the
  blocked LU (~0.2 ms per 16 columns) dominates, and it is the only route for
  primes too large for exact float64 products
  (:func:`~algebra.exact.elimination.blas_supports`).  flint stays the
  reference the tests compare the kernel against.
* ``method="auto"`` takes flint below :data:`FLINT_MAX_ENTRIES` = 20,000
  entries and the blocked LU from there (it was 50,000 before the leaves
  became single block steps).  Measured (``rank_mod_p`` including the
  conversion, best of 7, one BLAS thread, load average 4--6 on the 2 cores;
  flint / blocked, ms): dense planted-rank matrices 60 x 80: 0.63 / 0.59,
  100 x 120: 1.7 / 1.0, 200 x 200: 10.4 / 2.5, 260 x 260: 20 / 4.0;
  Jacobians of the benchmark models (structured, rank-deficient):
  70 x 121: 1.1 / 0.95, shallow 120 x 135: 2.3 / 2.3, 120 x 181: 3.1 / 2.3,
  shallow 220 x 242: 13.9 / 9.5; but sparse symmetry fields 65 x 181:
  1.5 / 6.5 (the engine peels those first: :mod:`algebra.engine.fields`).
* over Q, ``fmpq_mat.rank`` (fraction-free inside flint) is exact but slow;
  it is used for cross-checks and on request.

Every route reduces its input exactly: integers modulo ``p``, a Fraction
``a/b`` as ``a * b**-1`` (refused when ``p`` divides ``b``), and a float only
when it is an integer -- ``rank_mod_p([[0.5, 1], [1, 2]], p)`` raises
:class:`~algebra.errors.InputError` instead of truncating ``0.5`` to ``0``.

A nonzero ``r x r`` minor of ``J(theta)`` modulo ``p`` is a nonzero integer,
so the rank over Q at ``theta`` is at least ``r``; the generic rank is at
least the rank at any point.  Hence ``rank_mod_p`` proves a lower bound, and
so does the rank of a row sketch ``R J`` (:func:`sketched_rank_mod_p`),
since ``rank(R J) <= rank(J)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from algebra.errors import InputError
from algebra.exact.elimination import (
    blas_supports,
    check_memory,
    eliminate_mod_p,
    exact_residues,
    residues_mod_p,
    rref_pivot_columns,
)
from algebra.exact.rational import rank_q

__all__ = [
    "FLINT_MAX_ENTRIES",
    "METHODS",
    "RankWitness",
    "SketchedRank",
    "rank_mod_p",
    "rank_with_witness",
    "sketched_rank_mod_p",
    "rank_over_q",
    "rank_float",
    "det_mod_p",
    "to_nmod_mat",
]

METHODS = ("auto", "blas", "flint")
#: below this many entries ``method="auto"`` uses flint (see the module docstring)
FLINT_MAX_ENTRIES = 20_000


@dataclass(frozen=True)
class RankWitness:
    """``rank`` and the row/column indices of a nonsingular ``rank x rank`` submatrix."""

    rank: int
    rows: tuple
    cols: tuple
    prime: int | None


def _shape(J, argument: str = "matrix") -> tuple:
    shape = np.shape(J)
    if len(shape) != 2:
        raise InputError(argument, f"shape {shape}", "a 2-d array")
    return shape


def _route(shape: tuple, p: int, method: str) -> str:
    if method not in METHODS:
        raise InputError("method", method, "one of " + ", ".join(METHODS))
    if method == "blas" and not blas_supports(p):
        raise InputError("p", p, "a prime below about 2**21 for method='blas' (exact float64 products)")
    if method != "auto":
        return method
    m, n = shape
    return "blas" if blas_supports(p) and m * n >= FLINT_MAX_ENTRIES else "flint"


def to_nmod_mat(J, p: int):
    """Convert an exact matrix (ints, integral floats, Fractions) to ``flint.nmod_mat``.

    Examples
    --------
    >>> to_nmod_mat([[Fraction(1, 2), 1]], 7)
    [4, 1]
    """
    import flint

    m, n = _shape(J)
    # fmpz_mat from a flat list, then reduction, is ~30% faster than the
    # nmod_mat list constructor (python-flint 0.9, measured on 1500 x 1500).
    return flint.nmod_mat(flint.fmpz_mat(m, n, exact_residues(J, p)), p)


def _eliminate(J, p: int, overwrite: bool, columns=None):
    return eliminate_mod_p(residues_mod_p(J, p, overwrite=overwrite, columns=columns), p)


def _restrict(shape: tuple, columns) -> tuple:
    """The shape of ``J[:, columns]`` (``columns`` increasing indices), after checking them."""
    if columns is None:
        return shape
    cols = np.asarray(columns)
    if cols.ndim != 1 or (cols.size and (cols.dtype.kind not in "iu" or cols.min() < 0 or cols.max() >= shape[1]
                                         or (np.diff(cols) <= 0).any())):
        raise InputError("columns", columns, f"increasing column indices below {shape[1]}")
    return shape[0], cols.size


def rank_mod_p(J, p: int, *, method: str = "auto", max_memory: int | None = None, overwrite: bool = False,
               columns=None) -> int:
    """Rank of ``J`` modulo the prime ``p``.

    Parameters
    ----------
    J : array_like, 2-d
        Integers, integral floats, or rationals (``Fraction``) whose
        denominators are invertible modulo ``p``.
    p : int
        A prime.
    method : {"auto", "blas", "flint"}
        See the module docstring; ``auto`` picks the faster exact route.
    max_memory : int, optional
        Refuse (:class:`~algebra.errors.ResourceError`) before allocating
        when the predicted peak (bytes) is above this.
    overwrite : bool
        Allow the blocked route to reuse the memory of a C-contiguous
        ``int64`` / ``float64`` ``J`` (then destroyed) instead of a copy.
    columns : sequence of int, optional
        Rank ``J[:, columns]`` (increasing indices) instead, gathered while
        the residues are formed (no separate copy with ``overwrite``).

    Examples
    --------
    >>> rank_mod_p(np.array([[1, 2], [2, 4]]), 7)
    1
    >>> rank_mod_p(np.array([[1, 2], [3, 4]]), 2)   # det = -2 vanishes mod 2
    1
    >>> rank_mod_p([[Fraction(1, 2), 1], [1, 2]], 7)  # exactly singular over Q
    1
    >>> rank_mod_p([[1/2, 1], [1, 2]], 7)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid matrix='entry 0.5 at (0, 0)': expected integer entries or Fractions (a float with a fractional part is refused, not truncated)
    """
    shape = _restrict(_shape(J), columns)
    route = _route(shape, p, method)
    if min(shape) == 0:
        return 0
    check_memory(*shape, max_memory, method=route, overwrite=overwrite)
    if route == "flint":
        return int(to_nmod_mat(J if columns is None else np.asarray(J)[:, columns], p).rank())
    return _eliminate(J, p, overwrite, columns).rank


def _flint_witness(J, p: int) -> RankWitness:
    m, n = _shape(J)
    R, r = to_nmod_mat(J, p).rref()
    r = int(r)
    cols = tuple(rref_pivot_columns(R, r, n))
    J = np.asarray(J)
    if r == m:
        rows = tuple(range(m))
    elif r and int(to_nmod_mat(J[:r][:, list(cols)], p).det()) != 0:
        # the leading rows usually suffice for generic sample Jacobians: one
        # r x r determinant (~r^3/3) instead of a second elimination (~r^2 m)
        rows = tuple(range(r))
    else:
        R2, r2 = to_nmod_mat(J[:, list(cols)].T, p).rref()
        rows = tuple(rref_pivot_columns(R2, int(r2), m))
    return RankWitness(r, rows, cols, p)


def rank_with_witness(J, p: int, *, method: str = "auto", max_memory: int | None = None,
                      overwrite: bool = False, columns=None) -> RankWitness:
    """Rank modulo ``p`` and a nonsingular ``r x r`` submatrix (rows, cols).

    The blocked route reads the witness off its own pivots (one
    elimination); the flint route needs ``rref`` of ``J`` and, unless the
    leading rows work, of ``J[:, cols]^T``.  Keywords as in :func:`rank_mod_p`; with ``columns`` the
    witness columns are still indices of ``J``.

    Examples
    --------
    >>> w = rank_with_witness(np.array([[0, 0, 0], [1, 2, 3], [2, 4, 7]]), 101)
    >>> w.rank, w.rows, w.cols
    (2, (1, 2), (0, 2))
    >>> det_mod_p(np.array([[1, 3], [2, 7]]), 101) != 0
    True
    """
    shape = _restrict(_shape(J), columns)
    route = _route(shape, p, method)
    if min(shape) == 0:
        return RankWitness(0, (), (), p)
    check_memory(*shape, max_memory, method=route, overwrite=overwrite, witness=True)
    if route == "flint":
        w = _flint_witness(J if columns is None else np.asarray(J)[:, columns], p)
    else:
        e = _eliminate(J, p, overwrite, columns)
        w = RankWitness(e.rank, e.rows, e.cols, p)
    if columns is None:
        return w
    return RankWitness(w.rank, w.rows, tuple(int(columns[c]) for c in w.cols), p)


def det_mod_p(S, p: int, *, method: str = "auto", max_memory: int | None = None) -> int:
    """Determinant of a square exact matrix modulo ``p`` (in ``[0, p)``).

    Examples
    --------
    >>> det_mod_p([[2, 1], [1, 1]], 7), det_mod_p([[1, 2], [2, 4]], 7)
    (1, 0)
    >>> det_mod_p([[1, 2, 3]], 7)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid matrix='shape (1, 3)': expected a square matrix
    """
    m, n = _shape(S)
    if m != n:
        raise InputError("matrix", f"shape {(m, n)}", "a square matrix")
    route = _route((m, n), p, method)
    if m == 0:
        return 1
    check_memory(m, n, max_memory, method=route)
    if route == "flint":
        return int(to_nmod_mat(S, p).det())
    return int(_eliminate(S, p, False).det)


@dataclass(frozen=True)
class SketchedRank:
    """Rank of a row sketch ``R J`` modulo ``p``: a proven lower bound on ``rank(J)``.

    ``sketched`` is False when no sketch was needed (``rows >= J.shape[0]``;
    then ``rank`` is ``rank(J)`` itself).  ``witness`` (when asked) indexes
    a nonsingular minor of ``R J`` -- its rows are rows *of the sketch*, its
    columns are columns of ``J``; for a certificate on ``J`` itself use
    :func:`rank_with_witness` (on ``J``, or on ``J[:, witness.cols]``).
    """

    rank: int
    sketched: bool
    rows: int
    seed: int
    prime: int
    witness: RankWitness | None = None


def sketched_rank_mod_p(J, p: int, *, expected_rank: int | None = None, oversample: int = 8, seed: int = 0,
                        witness: bool = False, max_memory: int | None = None) -> SketchedRank:
    """Rank modulo ``p`` of ``R J`` for a random ``s x m`` matrix ``R``, ``s = expected_rank + oversample``.

    ``rank(R J) <= rank(J)`` for every ``R``, so the result is a proven lower
    bound.  When ``R`` is uniform over GF(p) and ``J`` has rank ``r <= s``,
    ``R U`` (``U`` a basis of the column space) is a uniform ``s x r``
    matrix, so ``rank(R J) < r`` with probability at most
    ``p**(r - s) / (p - 1)`` (below ``2**-180`` for ``s >= r + 8`` and the
    default prime).  Worth it for tall Jacobians (sample mode, data-
    restricted maps): the sketch is one exact GEMM, and ``J``'s residues are
    formed one row chunk at a time, so the peak memory is that of ``R J``.

    Parameters
    ----------
    J : array_like, 2-d
    p : int
        A prime supported by the float64 kernel (``p < 2**21``).
    expected_rank : int, optional
        An upper bound on the rank (default: the number of columns).
    oversample : int
        Extra sketch rows beyond ``expected_rank``.
    seed : int
        Seeds ``R`` through ``numpy.random.SeedSequence`` (recorded in the result).
    witness : bool
        Also return the witness minor of ``R J``.
    max_memory : int, optional
        As in :func:`rank_mod_p`.

    Examples
    --------
    >>> U = np.arange(1, 601).reshape(300, 2) % 17
    >>> J = U @ np.array([[1, 2, 3], [4, 5, 7]])          # 300 x 3, rank 2
    >>> s = sketched_rank_mod_p(J, 1048573, seed=1)
    >>> s.rank, s.sketched, s.rows
    (2, True, 11)
    """
    m, n = _shape(J)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError("seed", seed, "a non-negative integer")
    if isinstance(oversample, bool) or not isinstance(oversample, (int, np.integer)) or oversample < 0:
        raise InputError("oversample", oversample, "a non-negative integer")
    if not blas_supports(p):
        raise InputError("p", p, "a prime below about 2**21 (exact float64 sketch)")
    target = n if expected_rank is None else int(expected_rank)
    if target < 0:
        raise InputError("expected_rank", expected_rank, "a non-negative integer")
    s = min(m, target + int(oversample))
    if s >= m or n == 0:
        w = rank_with_witness(J, p, max_memory=max_memory) if witness else None
        r = w.rank if w else rank_mod_p(J, p, max_memory=max_memory)
        return SketchedRank(r, False, m, int(seed), p, w)
    h = p // 2
    # R entries in [-h, h], residues of J in [0, p): a chunk of t rows of J sums exactly when
    # t * h * (p - 1) + p < 2**53 (16,384 rows for the default prime); 1024 keeps R's chunk small
    chunk = max(1, min(1024, (2**53 - p) // max(1, h * (p - 1))))
    check_memory(s, n, max_memory, method="blas", extra=8 * (s * n + 2 * s * chunk + 2 * chunk * n))
    a = np.asarray(J)
    rng = np.random.default_rng(np.random.SeedSequence(int(seed)))
    out = np.zeros((s, n))
    tmp = np.empty((s, n))
    for i in range(0, m, chunk):
        part = residues_mod_p(a[i : i + chunk], p, argument="J")
        R = rng.integers(-h, h + 1, size=(s, part.shape[0])).astype(np.float64)
        np.matmul(R, part, out=tmp)
        out += tmp
        out -= p * np.rint(out / p)
    out[out < 0] += p
    e = eliminate_mod_p(out, p)
    wit = RankWitness(e.rank, e.rows, e.cols, p) if witness else None
    return SketchedRank(e.rank, True, s, int(seed), p, wit)


def rank_over_q(J: np.ndarray) -> int:
    """Exact rank over Q of a matrix of ints or Fractions (:func:`algebra.exact.rational.rank_q`, ``fmpq_mat``).

    Examples
    --------
    >>> rank_over_q(np.array([[Fraction(1, 2), 1], [1, 2]], dtype=object))
    1
    """
    return rank_q(J)


def rank_float(J: np.ndarray, *, rtol: float | None = None) -> int:
    """Numerical rank from a float64 SVD (what the proof-free tools do).

    ``rtol`` defaults to numpy's ``max(m, n) * eps`` relative to the largest
    singular value.  Proves nothing; used only as a peer in tests/benchmarks.
    """
    J = np.asarray(J, dtype=np.float64)
    if min(J.shape) == 0:
        return 0
    return int(np.linalg.matrix_rank(J, rtol=rtol))
