"""Blocked, rank-revealing LU modulo a prime on float64 BLAS.

The elimination runs in place on one ``float64`` array holding residues.
Every product of two residues ``|a|, |b| <= h`` (``h = p // 2 + 2`` after a
reduction, ``p - 1`` straight from the input) is an integer below ``2**53``,
so a float64 dot product of ``t`` such products is *exact* as long as
``t * h**2 + h < 2**53``; for ``p < 2**20`` that is 32,000 terms.  The
trailing updates of a right-looking blocked LU are therefore plain GEMMs
(the approach of FFLAS-FFPACK: Dumas, Giorgi, Pernet, "Dense linear algebra
over word-size prime fields: the FFLAS and FFPACK packages", ACM TOMS 35(3),
2008), followed by a reduction only when the accumulated bound would pass
``2**53``.

Why these choices (measured on the shared 2-core CI machine, OpenBLAS
0.3.31 SkylakeX kernels, one BLAS thread, numpy 2.4):

* **reduction** ``x - p * rint(x / p)`` costs 1.6 ns per entry; ``np.fmod``
  costs 37 ns per entry (it calls libm's ``fmod``), 23x more.  The result
  lies in ``[-p/2 - 2, p/2 + 2]`` for ``|x| < 2**53``, so for ``p >= 5`` it
  is zero exactly when ``x`` is divisible by ``p`` (the zero test of a
  pivot); ``p < 5`` takes a second pass.
* **lazy reduction**: the trailing matrix is reduced only when the bound on
  its entries would pass ``2**53`` (every ~30,000 eliminated pivots for the
  default prime), so one trailing update costs one GEMM plus one subtraction
  pass (0.7 ns per entry).
* **panels** of ``block = 256`` columns, factored recursively (halving the
  columns, Toledo 1997) down to leaves of 16 columns, each eliminated in
  one block step when its top 16 x 16 block is invertible (one flint
  inverse and one GEMM), by rank-one updates otherwise.  At 2000 x 2000,
  flat panels eliminated by rank-one updates only took 0.47 s (64 columns)
  and 0.96 s (256 columns: the rank-one updates dominate) against 0.22 s
  for LAPACK's ``dgetrf``; recursive 256-column
  panels took 0.32 s against 0.16 s for ``dgetrf`` in the same run (blocks
  of 128 and 512 columns: 0.35 s each).  Block-step leaves then took the
  CPU time from 0.055 to 0.042 s at 816 x 867 and from 0.19 to 0.14 s at
  1540 x 1617 (leaves of 32 or 64 columns: slower than 16).
* **pivoting**: any nonzero residue is a valid pivot over GF(p), and any
  invertible block a valid block pivot.  A leaf takes its top rows when
  their block is invertible; otherwise it takes, column by column, the first
  nonzero entry below the pivots found so far, and a column with none is
  dependent on the earlier pivot columns and is skipped.  The pivot rows and
  pivot columns then index a nonsingular ``rank x rank`` submatrix of the
  input (its block LU factors have invertible diagonal blocks): the witness
  minor, with no second elimination.

The rank of an integer matrix modulo ``p`` is a lower bound on its rank over
Q (a nonzero minor modulo ``p`` is a nonzero integer).
"""

from __future__ import annotations

import numbers
import operator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from algebra.errors import InputError, ResourceError

__all__ = [
    "BLOCK",
    "exact_residues",
    "LEAF",
    "Elimination",
    "blas_supports",
    "eliminate_mod_p",
    "exact_terms",
    "predicted_peak_bytes",
    "check_memory",
    "residues_mod_p",
]

_TWO53 = float(2**53)
#: columns per panel of the right-looking outer loop (see the module docstring)
BLOCK = 256
#: columns eliminated by rank-one updates at the bottom of the panel recursion
LEAF = 16
#: rows per chunk of a trailing update (bounds the GEMM temporary to CHUNK_ROWS x cols)
CHUNK_ROWS = 512


def exact_terms(p: int) -> int:
    """How many products of reduced residues a float64 sum holds exactly modulo ``p``.

    Reduced residues satisfy ``|a| <= p // 2 + 2``; the count ``t`` obeys
    ``t * (p // 2 + 2) ** 2 + (p - 1) < 2 ** 53``.

    Examples
    --------
    >>> exact_terms(1048573)
    32767
    >>> exact_terms(2**31 - 1)   # too large for float64 elimination
    0
    """
    h = p // 2 + 2
    return max(0, (2**53 - p) // (h * h))


def blas_supports(p: int) -> bool:
    """True when the float64 kernel is exact for the prime ``p`` (panels need ``BLOCK`` terms).

    Examples
    --------
    >>> blas_supports(1048573), blas_supports(2**31 - 1)
    (True, False)
    """
    return exact_terms(p) >= BLOCK


def _reduce(x: np.ndarray, p: float, pinv: float, tmp: np.ndarray | None = None) -> np.ndarray:
    """``x <- x - p * rint(x / p)`` in place; exact for ``|x| < 2**53`` (result ``|x| <= p/2 + 2``)."""
    if tmp is None:
        tmp = np.empty_like(x)
    np.multiply(x, pinv, out=tmp)
    np.rint(tmp, out=tmp)
    tmp *= p
    x -= tmp
    return x


# -- input conversion --------------------------------------------------------------------------------------------


def _object_residue(v, p: int, where, argument: str) -> int:
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)):
        return int(v) % p
    if isinstance(v, (float, np.floating)):
        if not np.isfinite(v) or float(v) != int(v):
            raise InputError(argument, f"entry {v!r} at {where}",
                             "integer entries or Fractions (a float with a fractional part is refused, not truncated)")
        return int(v) % p
    try:  # any exact integer type (numpy, flint.fmpz, gmpy2.mpz, sympy.Integer) supports __index__
        return operator.index(v) % p
    except TypeError:
        pass
    if isinstance(v, numbers.Rational) or (hasattr(v, "numerator") and hasattr(v, "denominator")):
        num, den = int(v.numerator), int(v.denominator)
        if den % p == 0:
            raise InputError(argument, f"entry {v} at {where}", f"a rational whose denominator is invertible mod {p}")
        return num * pow(den, -1, p) % p
    raise InputError(argument, f"entry {v!r} of type {type(v).__name__} at {where}", "integers or Fractions")


def residues_mod_p(J, p: int, *, overwrite: bool = False, argument: str = "matrix") -> np.ndarray:
    """The residues of an exact matrix modulo ``p`` as a C-ordered float64 array, values in ``[0, p)``.

    Integer arrays are reduced with no Python loop; float arrays must hold
    integers (a fractional part is refused with :class:`InputError`, never
    truncated); object arrays may hold ints, integral floats and rationals
    (``Fraction``, sympy ``Rational``) whose denominator is invertible mod
    ``p`` -- a rational ``a/b`` becomes ``a * b**-1 mod p``, which is what its
    value is in GF(p).

    Parameters
    ----------
    J : array_like, 2-d
    p : int
        A prime.
    overwrite : bool
        When ``J`` is a C-contiguous ``int64`` or ``float64`` array, reuse its
        memory for the result (``J`` is destroyed); otherwise a new array.
    argument : str
        The name reported in errors.

    Examples
    --------
    >>> residues_mod_p([[1, -1], [Fraction(1, 2), 6]], 7).tolist()
    [[1.0, 6.0], [4.0, 6.0]]
    >>> residues_mod_p([[0.5, 1.0]], 7)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid matrix='entry 0.5 at (0, 0)': expected integer entries or Fractions (a float with a fractional part is refused, not truncated)
    >>> residues_mod_p([[Fraction(1, 7)]], 7)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid matrix='entry 1/7 at (0, 0)': expected a rational whose denominator is invertible mod 7
    """
    a = np.asarray(J)
    if a.ndim != 2:
        raise InputError(argument, f"shape {a.shape}", "a 2-d array")
    if p >= 2**53:
        raise InputError("p", p, "a prime below 2**53 (float64 residues)")
    kind = a.dtype.kind
    if kind in "iub":
        if overwrite and a.dtype == np.int64 and a.flags.c_contiguous and a.flags.writeable and a.size:
            out = a.view(np.float64)
            step = max(1, (1 << 20) // max(1, a.shape[1]))
            for i in range(0, a.shape[0], step):
                out[i : i + step] = np.remainder(a[i : i + step], p)  # computed before it is written back
            return out
        out = np.empty(a.shape, dtype=np.float64)
        if a.size:
            np.remainder(a if kind != "b" else a.astype(np.int64), p, out=out)
        return out
    if kind == "f":
        bad = ~np.isfinite(a) | (a != np.floor(a))
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            raise InputError(argument, f"entry {a[i, j].item()!r} at ({i}, {j})",
                             "integer entries or Fractions (a float with a fractional part is refused, not truncated)")
        reuse = overwrite and a.dtype == np.float64 and a.flags.c_contiguous and a.flags.writeable
        out = a if reuse else np.array(a, dtype=np.float64, order="C")
        if out.size and np.abs(out).max() >= _TWO53:
            np.fmod(out, p, out=out)  # exact for any float; slow, so only for huge entries
        else:
            _reduce(out, float(p), 1.0 / p)
        out[out < 0] += p
        return out
    if kind == "O":
        m, n = a.shape
        flat = [_object_residue(v, p, divmod(k, n) if n else (k, 0), argument) for k, v in enumerate(a.ravel())]
        return np.array(flat, dtype=np.float64).reshape(m, n)
    raise InputError(argument, f"dtype {a.dtype}", "integer, float (integral values) or object (int/Fraction) entries")


def exact_residues(J, p: int, *, argument: str = "matrix") -> list:
    """Row-major list of the residues of ``J`` in ``[0, p)`` as Python ints, for any prime ``p``.

    The same rules as :func:`residues_mod_p` (no truncation of fractional
    floats); used where ``p`` may exceed ``2**53``.

    Examples
    --------
    >>> exact_residues([[Fraction(1, 2), 3]], 2**61 - 1)
    [1152921504606846976, 3]
    """
    a = np.asarray(J)
    if a.ndim != 2:
        raise InputError(argument, f"shape {a.shape}", "a 2-d array")
    if p < 2**53 and a.dtype.kind in "iubf":
        return residues_mod_p(a, p, argument=argument).astype(np.int64).ravel().tolist()
    n = a.shape[1]
    return [_object_residue(v, p, divmod(k, n), argument) for k, v in enumerate(a.ravel().tolist())]


# -- memory --------------------------------------------------------------------------------------------------------


def predicted_peak_bytes(rows: int, cols: int, *, method: str = "blas", overwrite: bool = False,
                         witness: bool = False) -> int:
    """Predicted peak memory (bytes) of one exact rank of a ``rows x cols`` matrix, beyond the input.

    ``method="blas"``: the float64 working array (none with ``overwrite``
    on an ``int64``/``float64`` input), the panel (gathered multipliers and
    a row-permutation copy, ``block`` columns each) and a GEMM temporary of
    ``CHUNK_ROWS`` rows.  ``method="flint"``: the residues (float64 and
    ``int64``), the Python list of the conversion (a pointer and an ``int``
    object per entry), the ``fmpz_mat`` and the ``nmod_mat`` (and the
    ``rref`` copy with ``witness``), about 70 bytes per entry.

    Examples
    --------
    >>> [round(predicted_peak_bytes(13000, 20000, **kw) / 1e9, 2)
    ...  for kw in ({}, {"overwrite": True}, {"method": "flint"})]
    [2.32, 0.24, 17.68]
    """
    rows, cols = int(rows), int(cols)
    if rows <= 0 or cols <= 0:
        return 0
    if method == "flint":
        return rows * cols * (8 + 8 + 36 + 8 + 8 + (8 if witness else 0))
    if method != "blas":
        raise InputError("method", method, "'blas' or 'flint'")
    b = min(BLOCK, cols)
    working = 0 if overwrite else 8 * rows * cols
    panel = 8 * (3 * rows * b + 2 * b * cols + b * b)
    gemm = 8 * min(CHUNK_ROWS, rows) * cols
    return working + panel + gemm + 16 * rows + 8 * cols


def check_memory(rows: int, cols: int, max_memory: int | None, *, extra: int = 0, **kw) -> int:
    """Refuse (``ResourceError``) before allocating when the predicted peak exceeds ``max_memory`` bytes.

    The peak is :func:`predicted_peak_bytes` (keywords ``kw``) plus ``extra``
    bytes the caller allocates besides.  Returns it; ``max_memory=None``
    means no limit.

    Examples
    --------
    >>> check_memory(100, 100, None) > 0
    True
    >>> check_memory(20000, 20000, 2**30)
    Traceback (most recent call last):
    ...
    algebra.errors.ResourceError: an exact rank of a 20000 x 20000 matrix needs about 3.5 GB (predicted peak), above max_memory = 1.1 GB; raise max_memory (--max-memory) or use a smaller model
    """
    need = predicted_peak_bytes(rows, cols, **kw) + int(extra)
    if max_memory is not None:
        if isinstance(max_memory, bool) or not isinstance(max_memory, (int, np.integer)) or max_memory < 0:
            raise InputError("max_memory", max_memory, "a non-negative number of bytes, or None")
        if need > max_memory:
            raise ResourceError(
                f"an exact rank of a {rows} x {cols} matrix needs about {need / 1e9:.2g} GB (predicted peak), "
                f"above max_memory = {max_memory / 1e9:.2g} GB; raise max_memory (--max-memory) or use a smaller model"
            )
    return need


# -- the elimination -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Elimination:
    """Outcome of :func:`eliminate_mod_p`.

    ``rows`` (sorted) and ``cols`` (increasing) index a nonsingular
    ``rank x rank`` submatrix modulo ``p``; ``det`` is the determinant modulo
    ``p`` of the square input (``None`` when the input is not square).
    """

    rank: int
    rows: tuple
    cols: tuple
    det: int | None


class _Context:
    """Constants of one elimination: the prime as a float, its inverse, the exact-sum bound."""

    def __init__(self, p: int):
        self.p = p
        self.fp = float(p)
        self.pinv = 1.0 / p
        self.h = p // 2 + 2
        self.sq = float(self.h) * self.h
        self.pivots: list = []
        self.swaps = 0

    def reduce(self, x, tmp=None):
        return _reduce(x, self.fp, self.pinv, tmp)


def _permute_rows(V: np.ndarray, perm: np.ndarray) -> None:
    """``V <- V[perm]`` touching only the rows that move."""
    moved = np.flatnonzero(perm != np.arange(perm.size))
    if moved.size:
        V[moved] = V[perm[moved]]


def _small_unit_lower_inverse(L: np.ndarray, ctx: _Context) -> np.ndarray:
    """Inverse modulo p of ``tril(L, -1) + I`` for a small ``k x k`` ``L`` (forward substitution, reduced)."""
    k = L.shape[0]
    X = np.eye(k)
    for i in range(1, k):
        X[i, :i] = -(L[i, :i] @ X[:i, :i])
        ctx.reduce(X[i, :i])
    return X


def _join_inverses(X1: np.ndarray, Lb: np.ndarray, X2: np.ndarray, ctx: _Context) -> np.ndarray:
    """``[[A, 0], [B, C]]^-1 = [[A^-1, 0], [-C^-1 B A^-1, C^-1]]`` from ``X1 = A^-1``, ``Lb = B``, ``X2 = C^-1``."""
    k1, k2 = X1.shape[0], X2.shape[0]
    X = np.zeros((k1 + k2, k1 + k2))
    X[:k1, :k1] = X1
    X[k1:, k1:] = X2
    if k1 and k2:
        T = Lb if _is_identity(X1) else Lb @ X1
        if not _is_identity(X2):
            ctx.reduce(T)
            T = X2 @ T
        ctx.reduce(T)
        X[k1:, :k1] = -T
    return X


class _Identity(np.ndarray):
    """An identity matrix tagged as such, so that products with it are skipped."""


def _identity(k: int) -> np.ndarray:
    return np.eye(k).view(_Identity)


def _is_identity(X) -> bool:
    return isinstance(X, _Identity)


def _apply(X: np.ndarray, B: np.ndarray, ctx: _Context) -> None:
    """``B <- X B mod p`` in place (``X`` the inverse of a unit lower-triangular factor)."""
    if X.shape[0] > 1 and not _is_identity(X):
        B[...] = X @ B
        ctx.reduce(B)


def _leaf(B: np.ndarray, ctx: _Context):
    """Eliminate a narrow panel (rows x w, entries reduced): one block step when possible, else rank-one updates.

    When the top ``w x w`` block ``A11`` is invertible modulo p (the usual
    case for a generic Jacobian), block elimination ``[A11; A21] -> [A11;
    A21 A11^-1]`` needs one small inverse (python-flint) and one GEMM: the
    ``w`` columns are all pivots, the top rows are the pivot rows, the
    multipliers are ``A21 A11^-1`` and the unit lower factor of the leaf is
    the identity.  It replaces ``w`` rounds of rank-one updates (~20 numpy
    calls each): 25--30% less time at 800 x 900 (module docstring).
    """
    import flint

    rows, w = B.shape
    perm = np.arange(rows)
    if rows >= w:
        A11 = _nmod(B[:w], ctx)
        d = int(A11.det())
        if not d and _independent_rows_to_top(B, perm, ctx):
            A11 = _nmod(B[:w], ctx)
            d = int(A11.det())
        if d:
            inv = np.array([int(v) for v in A11.inv().entries()], dtype=np.float64).reshape(w, w)
            ctx.pivots.append(d)
            low = B[w:]
            low[...] = low @ inv  # |entries| <= h, inverse in [0, p): w products per entry, exact
            ctx.reduce(low)
            return w, list(range(w)), perm, _identity(w)
    k, cols, perm2, X = _rank_one_leaf(B, ctx)
    return k, cols, perm[perm2], X


def _nmod(B: np.ndarray, ctx: _Context):
    """``flint.nmod_mat`` of a small block of residues."""
    import flint

    m, n = B.shape
    return flint.nmod_mat(m, n, [int(v) % ctx.p for v in B.ravel().tolist()], ctx.p)


def _independent_rows_to_top(B: np.ndarray, perm: np.ndarray, ctx: _Context) -> bool:
    """Swap ``w`` independent rows among the first ``4 w`` of ``B`` (rows x w) to the top, if there are.

    Structured Jacobians (zero rows, repeated monomials) often have a
    singular top block; the first independent rows are the pivot columns of
    ``rref`` of the transposed block.  Returns False (nothing moved) when the
    first ``4 w`` rows have rank below ``w``.
    """
    rows, w = B.shape
    tall = min(rows, 4 * w)
    if tall <= w:
        return False
    R, r = _nmod(B[:tall].T, ctx).rref()
    if int(r) < w:
        return False
    entries = [int(v) for v in R.entries()]
    sel, j = [], 0
    for i in range(w):  # pivot column of row i of the reduced echelon form
        while entries[i * tall + j] == 0:
            j += 1
        sel.append(j)
        j += 1
    for t, i in enumerate(sel):  # increasing, i >= t: row t is never a later selected row
        if i != t:
            B[[t, i]] = B[[i, t]]
            perm[t], perm[i] = perm[i], perm[t]
            ctx.swaps += 1
    return True


def _rank_one_leaf(B: np.ndarray, ctx: _Context):
    """Unblocked elimination of a narrow panel (rows x w, entries reduced) by rank-one updates."""
    rows, w = B.shape
    perm = np.arange(rows)
    cols = []
    t = 0
    for j in range(w):
        if t >= rows:
            break
        col = B[t:, j]
        ctx.reduce(col)
        if ctx.p < 5:  # |r| <= p/2 + 2 < p after one pass only for p >= 5
            ctx.reduce(col)
        nz = np.flatnonzero(col)
        if nz.size == 0:
            continue
        i = t + int(nz[0])
        if i != t:
            B[[t, i]] = B[[i, t]]
            perm[t], perm[i] = perm[i], perm[t]
            ctx.swaps += 1  # every row exchange of the whole elimination happens here
        piv = int(B[t, j]) % ctx.p
        ctx.pivots.append(piv)
        below = B[t + 1 :, j]
        below *= float(pow(piv, -1, ctx.p))
        ctx.reduce(below)
        if j + 1 < w and t + 1 < rows:
            u = B[t, j + 1 :]
            ctx.reduce(u)
            B[t + 1 :, j + 1 :] -= np.multiply.outer(below, u)
        cols.append(j)
        t += 1
    return t, cols, perm, _small_unit_lower_inverse(B[:t, cols], ctx)


def _panel(B: np.ndarray, ctx: _Context):
    """Rank-revealing LU of a panel (rows x w view, entries reduced), in place, recursive on column halves.

    Returns ``(k, cols, perm, X)``: the number of pivots, their columns
    (local), the row permutation applied (new row ``i`` was row ``perm[i]``)
    and the inverse ``X`` of the ``k x k`` block unit lower-triangular
    factor (identity blocks on the diagonal), which the caller applies to
    the pivot rows of the columns to the right.
    """
    rows, w = B.shape
    if w <= LEAF:
        return _leaf(B, ctx)
    h = w // 2
    k1, cols1, perm, X1 = _panel(B[:, :h], ctx)
    right = B[:, h:]
    _permute_rows(right, perm)
    if k1:
        top = right[:k1]
        _apply(X1, top, ctx)
        if rows > k1:
            low = right[k1:]
            low -= B[k1:, cols1] @ top  # the multipliers below the k1 pivots
            ctx.reduce(low)
    if k1 >= rows:
        return k1, cols1, perm, X1
    k2, cols2, perm2, X2 = _panel(right[k1:], ctx)
    left = B[k1:, :h]
    _permute_rows(left, perm2)
    perm[k1:] = perm[k1:][perm2]
    X = _join_inverses(X1, left[:k2, cols1], X2, ctx)
    return k1 + k2, cols1 + [h + c for c in cols2], perm, X


def eliminate_mod_p(A: np.ndarray, p: int, *, block: int = BLOCK) -> Elimination:
    """Rank-revealing LU of ``A`` modulo ``p``, in place; ``A`` is destroyed.

    Parameters
    ----------
    A : numpy.ndarray
        A writable C-ordered float64 array of integers with ``|a| < p``
        (as :func:`residues_mod_p` returns).
    p : int
        A prime with :func:`blas_supports` true (``p < 2**20`` and far beyond).
    block : int
        Columns per panel (default :data:`BLOCK`).

    Returns
    -------
    Elimination
        rank, witness rows and columns (original indices), and the
        determinant modulo ``p`` for square ``A``.

    Examples
    --------
    >>> A = np.array([[0., 0, 0], [1, 2, 3], [2, 4, 7]])
    >>> eliminate_mod_p(A, 101)
    Elimination(rank=2, rows=(1, 2), cols=(0, 2), det=0)
    >>> eliminate_mod_p(np.array([[2., 1], [1, 1]]), 7).det
    1
    """
    if A.dtype != np.float64 or A.ndim != 2 or not A.flags.writeable:
        raise InputError("A", f"{A.dtype} array of shape {A.shape}", "a writable 2-d float64 array")
    if not blas_supports(p):
        raise InputError("p", p, f"a prime with at least {BLOCK} exact float64 terms (below about 2**21)")
    m, n = A.shape
    ctx = _Context(int(p))
    block = max(LEAF, min(int(block), exact_terms(ctx.p)))
    perm = np.arange(m)
    cols: list = []
    r = 0
    bound = _max_abs(A)  # bound on the entries of the trailing matrix
    if bound >= _TWO53 / 2:
        raise InputError("A", f"an entry of size {bound:g}", "residues (|a| < p) as residues_mod_p returns")
    c0 = 0
    gemm_tmp = None
    while c0 < n and r < m:
        c1 = min(n, c0 + block)
        panel = A[r:, c0:c1]
        if bound > ctx.h:
            ctx.reduce(panel)
        k, local, lperm, X = _panel(panel, ctx)
        perm[r:] = perm[r:][lperm]
        cols += [c0 + j for j in local]
        if k and c1 < n:
            _permute_rows(A[r:, c1:], lperm)
            top = A[r : r + k, c1:]
            if bound > ctx.h:
                ctx.reduce(top)
            _apply(X, top, ctx)
            below = m - r - k
            if below:
                if bound + k * ctx.sq >= _TWO53:
                    ctx.reduce(A[r + k :, c1:])
                    bound = float(ctx.h)
                bound = max(bound, float(ctx.h)) + k * ctx.sq
                L21 = panel[k:, local]  # the multipliers below the k pivots (a copy)
                nc = n - c1
                if gemm_tmp is None:
                    gemm_tmp = np.empty((min(CHUNK_ROWS, m), n))
                for s in range(0, below, CHUNK_ROWS):
                    e = min(below, s + CHUNK_ROWS)
                    T = gemm_tmp[: e - s, :nc]
                    np.matmul(L21[s:e], top, out=T)
                    A[r + k + s : r + k + e, c1:] -= T
        r += k
        c0 = c1
    det = None
    if m == n:
        det = 0
        if r == n:
            det = (-1) ** ctx.swaps % ctx.p
            for v in ctx.pivots:
                det = det * v % ctx.p
    return Elimination(r, tuple(int(i) for i in np.sort(perm[:r])), tuple(cols), det)


def _max_abs(A: np.ndarray) -> float:
    """``max |a|`` over ``A`` in row chunks (no full-size temporary)."""
    out = 0.0
    step = max(1, (1 << 20) // max(1, A.shape[1]))
    for i in range(0, A.shape[0], step):
        part = A[i : i + step]
        if part.size:
            out = max(out, float(part.max()), -float(part.min()))
    return out
