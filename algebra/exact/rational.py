"""Exact linear algebra over Q: reduced row echelon form, rank, nullspace, solve, inverse.

One route, python-flint's ``fmpq_mat`` (fraction-free elimination inside
flint), for every caller that needs an exact answer over Q rather than a rank
modulo a prime (:mod:`algebra.exact.rank`).  The reduced row echelon form of
a matrix is unique, so every result below is a function of the matrix alone:
the nullspace basis is the one read off the RREF (one vector per free column
``f``, ``x[f] = 1``, ``x[pivot_i] = -R[i, f]``), and :func:`solve_q` sets the
free unknowns to zero.  These are the same bases and solutions the
hand-written Gaussian eliminations this module replaces returned.

Matrices come in as anything 2-d whose entries the Fraction constructor
reads exactly (ints, numpy integers, Fractions; a float is its exact binary
value, as :func:`algebra.exact.rank.rank_over_q` always read it); results are
``object`` arrays or lists of :class:`fractions.Fraction`.

The independent checker (:mod:`algebra.checker`) keeps its own elimination:
it imports nothing from here.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from algebra.errors import DomainError, InputError

__all__ = ["fraction_matrix", "rref_q", "rank_q", "nullspace_q", "solve_q", "inverse_q"]


def _fraction(v, argument: str) -> Fraction:
    if isinstance(v, (bool, np.bool_)):
        raise InputError(argument, f"entry {v!r}", "rational numbers")
    if isinstance(v, (int, np.integer)):
        return Fraction(int(v))
    try:
        return Fraction(v)
    except (TypeError, ValueError, OverflowError):
        raise InputError(argument, f"entry {v!r}", "rational numbers") from None


def fraction_matrix(M, *, argument: str = "matrix") -> np.ndarray:
    """``M`` as a 2-d ``object`` array of Fractions.

    Examples
    --------
    >>> fraction_matrix([[1, Fraction(1, 2)]]).tolist()
    [[Fraction(1, 1), Fraction(1, 2)]]
    >>> fraction_matrix([1, 2])
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid matrix='shape (2,)': expected a 2-d array
    >>> fraction_matrix([[0.5, "1/3"]]).tolist()
    [[Fraction(1, 2), Fraction(1, 3)]]
    >>> fraction_matrix([[float("nan")]])
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid matrix='entry nan': expected rational numbers
    """
    a = np.asarray(M, dtype=object)
    if a.ndim != 2:
        raise InputError(argument, f"shape {a.shape}", "a 2-d array")
    out = np.empty(a.shape, dtype=object)
    out.ravel()[:] = [_fraction(v, argument) for v in a.ravel()]
    return out


def _fmpq_mat(A: np.ndarray):
    import flint

    m, n = A.shape
    return flint.fmpq_mat(m, n, [flint.fmpq(v.numerator, v.denominator) for v in A.ravel()])


def _to_fractions(M, m: int, n: int) -> np.ndarray:
    out = np.empty((m, n), dtype=object)
    out.ravel()[:] = [Fraction(int(v.p), int(v.q)) for v in M.entries()]
    return out


def rref_q(M) -> tuple:
    """``(R, pivots)``: the reduced row echelon form of ``M`` over Q and its pivot columns.

    Examples
    --------
    >>> R, pivots = rref_q([[2, 4, 2], [1, 2, 3]])
    >>> R.tolist(), pivots
    ([[Fraction(1, 1), Fraction(2, 1), Fraction(0, 1)], [Fraction(0, 1), Fraction(0, 1), Fraction(1, 1)]], [0, 2])
    >>> rref_q(np.zeros((0, 3), dtype=object))[1]
    []
    """
    A = fraction_matrix(M)
    m, n = A.shape
    if m == 0 or n == 0:
        return A.copy(), []
    R, rank = _fmpq_mat(A).rref()
    R = _to_fractions(R, m, n)
    pivots = [int(np.flatnonzero(R[i] != 0)[0]) for i in range(int(rank))]
    return R, pivots


def rank_q(M) -> int:
    """Exact rank over Q.

    Examples
    --------
    >>> rank_q([[1, 2], [2, 4]]), rank_q([[Fraction(1, 2), 1], [1, 3]]), rank_q(np.zeros((0, 2), dtype=object))
    (1, 2, 0)
    """
    A = fraction_matrix(M)
    if 0 in A.shape:
        return 0
    return int(_fmpq_mat(A).rank())


def nullspace_q(M, *, columns: int | None = None) -> list:
    """A basis of ``{x in Q^n : M x = 0}``, read off the reduced row echelon form (module docstring).

    ``columns`` gives ``n`` when ``M`` has no rows (a list of no rows has no width).

    Examples
    --------
    >>> nullspace_q([[1, 2, 3]])
    [[Fraction(-2, 1), Fraction(1, 1), Fraction(0, 1)], [Fraction(-3, 1), Fraction(0, 1), Fraction(1, 1)]]
    >>> nullspace_q([], columns=2)
    [[Fraction(1, 1), Fraction(0, 1)], [Fraction(0, 1), Fraction(1, 1)]]
    """
    if columns is not None and len(M) == 0:
        M = np.zeros((0, columns), dtype=object)
    R, pivots = rref_q(M)
    n = R.shape[1]
    if columns is not None and columns != n:
        raise InputError("columns", columns, f"the number of columns of the matrix ({n})")
    basis = []
    for f in (c for c in range(n) if c not in set(pivots)):
        x = [Fraction(0)] * n
        x[f] = Fraction(1)
        for i, pc in enumerate(pivots):
            x[pc] = -R[i, f]
        basis.append(x)
    return basis


def solve_q(A, b) -> list:
    """One exact solution ``x`` of ``A x = b`` over Q, the free unknowns set to zero.

    Raises
    ------
    DomainError
        When the system is inconsistent.

    Examples
    --------
    >>> solve_q([[1, 1, 0], [0, 0, 2]], [3, 1])
    [Fraction(3, 1), Fraction(0, 1), Fraction(1, 2)]
    >>> solve_q([[1, 1], [2, 2]], [1, 3])
    Traceback (most recent call last):
    ...
    algebra.errors.DomainError: the linear system has no solution over Q
    """
    A = fraction_matrix(A, argument="A")
    m, n = A.shape
    b = fraction_matrix(np.asarray(b, dtype=object).reshape(-1, 1), argument="b")
    if b.shape[0] != m:
        raise InputError("b", f"{b.shape[0]} entries", f"{m} entries (one per row of A)")
    R, pivots = rref_q(np.concatenate([A, b], axis=1))
    if pivots and pivots[-1] == n:
        raise DomainError("the linear system has no solution over Q")
    x = [Fraction(0)] * n
    for i, c in enumerate(pivots):
        x[c] = R[i, n]
    return x


def inverse_q(M) -> np.ndarray:
    """Exact inverse of a square matrix over Q.

    Raises
    ------
    InputError
        When ``M`` is not square.
    DomainError
        When ``M`` is singular.

    Examples
    --------
    >>> inverse_q([[2, 0], [0, 4]]).tolist()
    [[Fraction(1, 2), Fraction(0, 1)], [Fraction(0, 1), Fraction(1, 4)]]
    >>> inverse_q([[1, 2], [2, 4]])
    Traceback (most recent call last):
    ...
    algebra.errors.DomainError: the matrix is singular
    """
    A = fraction_matrix(M)
    n = A.shape[0]
    if A.shape != (n, n):
        raise InputError("matrix", f"shape {A.shape}", "a square matrix")
    if n == 0:
        return A.copy()
    try:
        inv = _fmpq_mat(A).inv()
    except ZeroDivisionError:
        raise DomainError("the matrix is singular") from None
    return _to_fractions(inv, n, n)
