"""Exact rational linear programming (two-phase simplex over ``Fraction``).

The Newton-polyhedron computations need a handful of small LPs whose answers
must be exact, so a dense tableau simplex over :class:`fractions.Fraction`
with Bland's rule is used: it cannot cycle, needs no tolerance, and for the
sizes that occur here (tens of rows and columns) it is fast enough.  Every
optimum comes with a dual vector, and :func:`verify_optimal` replays the
certificate (primal feasibility, dual feasibility, equal objectives) with no
search, so a caller never has to trust the pivoting.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from algebra.errors import CertificateError, DomainError
from algebra.exact.rational import solve_q

__all__ = ["LinearProgramResult", "solve_standard_form", "verify_optimal"]


@dataclass(frozen=True)
class LinearProgramResult:
    """Result of ``min c.x  s.t.  A x = b, x >= 0``.

    Attributes
    ----------
    status : str
        ``"optimal"``, ``"infeasible"`` or ``"unbounded"``.
    x : tuple of Fraction
        An optimal vertex (empty unless optimal).
    y : tuple of Fraction
        Dual solution with ``A^T y <= c`` and ``b.y = c.x`` (empty unless optimal).
    value : Fraction or None
        The optimal value ``c.x``.
    """

    status: str
    x: tuple
    y: tuple
    value: Fraction | None


def _pivot(tab: list[list[Fraction]], row: int, col: int) -> None:
    # Only the pivot row's nonzero columns change the other rows: the Newton LPs' tableaux are mostly zeros, and
    # skipping them (exact arithmetic, same pivots) made a 17-point polyhedron about 10 times faster.
    piv = tab[row][col]
    src = tab[row]
    nonzero = [j for j, v in enumerate(src) if v]
    pr = list(src)
    for j in nonzero:
        pr[j] = src[j] / piv
    tab[row] = pr
    for i, r in enumerate(tab):
        if i != row and r[col] != 0:
            f = r[col]
            r = list(r)
            for j in nonzero:
                r[j] = r[j] - f * pr[j]
            tab[i] = r


def _simplex(tab: list[list[Fraction]], basis: list[int], cost_row: int, allowed: int) -> bool:
    """Run Bland's-rule simplex on ``tab`` (objective in row ``cost_row``).

    The objective row holds reduced costs; columns ``>= allowed`` never enter.
    Returns False when unbounded.
    """
    m = len(basis)
    while True:
        obj = tab[cost_row]
        col = next((j for j in range(allowed) if obj[j] < 0), None)
        if col is None:
            return True
        best = None
        for i in range(m):
            a = tab[i][col]
            if a > 0:
                ratio = tab[i][-1] / a
                if best is None or ratio < best[0] or (ratio == best[0] and basis[i] < basis[best[1]]):
                    best = (ratio, i)
        if best is None:
            return False
        _pivot(tab, best[1], col)
        basis[best[1]] = col


def solve_standard_form(
    c: Sequence, A: Sequence[Sequence], b: Sequence
) -> LinearProgramResult:
    """Solve ``min c.x`` subject to ``A x = b``, ``x >= 0`` exactly.

    Parameters
    ----------
    c : sequence of numbers (n)
    A : sequence of m rows of n numbers
    b : sequence of m numbers

    Returns
    -------
    LinearProgramResult
        With a verified primal/dual pair when optimal.

    Examples
    --------
    >>> res = solve_standard_form([1, 1], [[1, 2]], [4])   # min x+y, x+2y = 4
    >>> res.status, res.value, res.x
    ('optimal', Fraction(2, 1), (Fraction(0, 1), Fraction(2, 1)))
    >>> solve_standard_form([1], [[1], [1]], [1, 2]).status
    'infeasible'
    >>> solve_standard_form([-1, 0], [[1, -1]], [0]).status
    'unbounded'
    """
    c = [Fraction(v) for v in c]
    A = [[Fraction(v) for v in row] for row in A]
    b = [Fraction(v) for v in b]
    m, n = len(A), len(c)
    A0, b0 = [list(row) for row in A], list(b)
    flipped = [v < 0 for v in b]
    for i in range(m):
        if b[i] < 0:
            A[i] = [-v for v in A[i]]
            b[i] = -b[i]
    # Phase 1: artificials n..n+m-1, objective = sum of artificials.
    tab = [A[i] + [Fraction(int(i == k)) for k in range(m)] + [b[i]] for i in range(m)]
    cost1 = [-sum((A[i][j] for i in range(m) if A[i][j]), Fraction(0)) for j in range(n)] + [Fraction(0)] * m
    cost1.append(-sum(b, Fraction(0)))
    tab.append(cost1)
    basis = list(range(n, n + m))
    _simplex(tab, basis, m, n + m)
    if tab[m][-1] != 0:
        return LinearProgramResult("infeasible", (), (), None)
    # Drive artificials out of the basis; drop redundant rows.
    keep = []
    for i in range(m):
        if basis[i] >= n:
            col = next((j for j in range(n) if tab[i][j] != 0), None)
            if col is None:
                continue  # redundant equation
            _pivot(tab, i, col)
            basis[i] = col
        keep.append(i)
    tab = [tab[i][:n] + [tab[i][-1]] for i in keep]
    basis = [basis[i] for i in keep]
    # Phase 2: reduced costs of c.
    obj = list(c) + [Fraction(0)]
    for i, bi in enumerate(basis):
        if obj[bi] != 0:
            f = obj[bi]
            obj = [a - f * v for a, v in zip(obj, tab[i])]
    tab.append(obj)
    if not _simplex(tab, basis, len(basis), n):
        return LinearProgramResult("unbounded", (), (), None)
    x = [Fraction(0)] * n
    for i, bi in enumerate(basis):
        x[bi] = tab[i][-1]
    # Duals: any y with B^T y = c_B (redundant rows make y non-unique; solve_q sets the free unknowns to 0).
    BT = np.array([[A[r][bj] for r in range(m)] for bj in basis], dtype=object).reshape(len(basis), m)
    try:
        y = solve_q(BT, [c[bj] for bj in basis])
    except DomainError:  # pragma: no cover - B^T y = c_B is always solvable
        raise CertificateError("LP duals: inconsistent system") from None
    # Undo the row sign flips so that y refers to the caller's rows.
    y_out = tuple(-v if f else v for v, f in zip(y, flipped))
    value = sum((ci * xi for ci, xi in zip(c, x)), Fraction(0))
    result = LinearProgramResult("optimal", tuple(x), y_out, value)
    verify_optimal(c, A0, b0, result)
    return result


def verify_optimal(c: Sequence, A: Sequence[Sequence], b: Sequence, result: LinearProgramResult) -> None:
    """Check a primal/dual optimality certificate exactly; raise CertificateError if wrong.

    ``A`` and ``b`` are the problem as passed to :func:`solve_standard_form`.

    Examples
    --------
    >>> res = LinearProgramResult("optimal", (Fraction(1),), (Fraction(1),), Fraction(1))
    >>> verify_optimal([1], [[1]], [1], res)
    >>> bad = LinearProgramResult("optimal", (Fraction(2),), (Fraction(1),), Fraction(2))
    >>> verify_optimal([1], [[1]], [1], bad)
    Traceback (most recent call last):
    ...
    algebra.errors.CertificateError: LP certificate: A x != b
    """
    x, y = result.x, result.y
    if any(v < 0 for v in x):
        raise CertificateError("LP certificate: x has a negative entry")
    # zero entries are skipped (the sums are exact either way; the Newton LPs are mostly zeros)
    for row, bi in zip(A, b):
        if sum((Fraction(a) * v for a, v in zip(row, x) if a and v), Fraction(0)) != Fraction(bi):
            raise CertificateError("LP certificate: A x != b")
    for j, cj in enumerate(c):
        if sum((Fraction(A[i][j]) * y[i] for i in range(len(A)) if A[i][j] and y[i]), Fraction(0)) > Fraction(cj):
            raise CertificateError("LP certificate: A^T y > c")
    primal = sum((Fraction(cj) * v for cj, v in zip(c, x)), Fraction(0))
    dual = sum((Fraction(bi) * v for bi, v in zip(b, y)), Fraction(0))
    if primal != dual or primal != result.value:
        raise CertificateError("LP certificate: c.x != b.y")
