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
  lies in ``[-p/2 - 2, p/2 + 2]`` for ``|x| < 2**53``.
* **lazy reduction**: the trailing matrix is reduced only when the bound on
  its entries would pass ``2**53`` (every ~30,000 eliminated pivots for the
  default prime), so one trailing update costs one GEMM plus one subtraction
  pass (0.7 ns per entry).
* **no triangular factor** (issue 14, second round).  A panel returns its
  pivot rows, pivot columns and the multipliers ``M = A21 A11^-1`` of the
  other rows; the Schur complement ``A22 - M A12`` uses the pivot rows as
  they are, so neither ``L11^-1 A12`` nor an explicit inverse of a block
  unit-lower factor is formed (the first version applied a dense ``k x k``
  inverse to the pivot rows of every trailing update and joined those
  inverses at every recursion node: ~25% more flops at 816 x 867).
* **panels** of :func:`panel_width` columns (128 up to 2,000 rows or
  columns, :data:`BLOCK` = 256 above), factored recursively on column
  halves (Toledo 1997) down to leaves of :data:`LEAF` = 16 columns.  In
  units of one fixed 700 x 128 x 740 GEMM measured in the same run (the
  machine's load moves absolute times 2--5x), the 816 x 816 shallow
  Jacobian took 2.3 units with 128- or 256-column panels and 16-column
  leaves, 2.5--3.4 with 64-column panels, 3.0--4.5 with 32-column leaves
  and 6.1 with 64-column leaves (a leaf's cost is converting its block to
  and from python-flint).
* **leaves**: one block step per leaf.  The pivot block is the top
  ``16 x 16`` block when it is invertible (the usual case for a generic
  Jacobian); otherwise ``16`` independent rows among up to ``64``
  candidates (for each column its sparsest rows with a nonzero there, then
  the densest rows; flint ``rref`` of their transpose) -- 9 of the 51
  leaves of the 816 x 816 shallow Jacobian need it, and it succeeds on
  all 9; otherwise the independent rows of the whole leaf and the
  independent columns among them (flint ``rref``: a leaf of rank below 16).
  Rank-one updates column by column (~10 numpy calls per column) are gone.
* **wide matrices** (fewer rows than columns, at most
  :data:`TRANSPOSE_MAX_ENTRIES` entries) are eliminated transposed: a leaf
  whose columns are dependent cannot take a block step, and a wide
  Jacobian with a large kernel has ``n - rank`` dependent columns, its
  transpose only ``m - rank``.
* **pivoting**: any nonzero residue is a valid pivot over GF(p), and any
  invertible block a valid block pivot.  The pivot rows and pivot columns
  index a nonsingular ``rank x rank`` submatrix of the input (its block LU
  factors have invertible diagonal blocks, the Schur complements of the
  successive pivot blocks): the witness minor, with no second elimination.

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
    "panel_width",
    "residues_mod_p",
    "rref_pivot_columns",
    "TRANSPOSE_MAX_ENTRIES",
]

_TWO53 = float(2**53)
#: columns per panel of the right-looking outer loop above 2,000 rows and columns (see :func:`panel_width`)
BLOCK = 256
#: columns of a leaf of the panel recursion (one block step each)
LEAF = 16
#: a wide matrix (rows < cols) with at most this many entries is eliminated transposed (a copy of 8 bytes per entry)
TRANSPOSE_MAX_ENTRIES = 2**22
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


def panel_width(rows: int, cols: int) -> int:
    """Columns per panel for a ``rows x cols`` elimination (see the module docstring for the measurements).

    Examples
    --------
    >>> panel_width(816, 867), panel_width(5000, 5000)
    (128, 256)
    """
    return 128 if min(rows, cols) <= 2000 else BLOCK


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


def residues_mod_p(J, p: int, *, overwrite: bool = False, argument: str = "matrix", columns=None) -> np.ndarray:
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
    columns : sequence of int, optional
        Keep only these columns (``J[:, columns]``); with ``overwrite`` on a
        C-contiguous ``int64`` or ``float64`` ``J`` they are gathered into
        ``J``'s memory, for ``int64`` in the same pass that reduces them (row
        chunk ``i`` is written before row ``i + step`` begins, and its new place
        ends before the next chunk's old one, so nothing is overwritten before
        it is read).

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
    in_place = overwrite and a.dtype in (np.int64, np.float64) and a.flags.c_contiguous and a.flags.writeable and a.size
    step = max(1, (1 << 20) // max(1, a.shape[1]))
    if kind in "iub" and in_place:
        if columns is None:
            out = a.view(np.float64)
            for i in range(0, a.shape[0], step):
                out[i : i + step] = np.remainder(a[i : i + step], p)  # computed before it is written back
            return out
        columns = np.asarray(columns, dtype=np.intp)
        k = columns.size
        flat = a.reshape(-1).view(np.float64)
        for i in range(0, a.shape[0], step):
            part = np.remainder(a[i : i + step][:, columns], p)  # a copy, read before it is written back
            flat[i * k : i * k + part.size] = part.ravel()
        return flat[: a.shape[0] * k].reshape(a.shape[0], k)
    if columns is not None and kind == "f" and in_place:
        # gather the columns into J's own memory, row chunk by row chunk (as above): no second matrix
        columns = np.asarray(columns, dtype=np.intp)
        k = columns.size
        flat = a.reshape(-1)
        for i in range(0, a.shape[0], step):
            part = a[i : i + step][:, columns]  # a copy, read before it is written back
            flat[i * k : i * k + part.size] = part.ravel()
        a, columns = flat[: a.shape[0] * k].reshape(a.shape[0], k), None
    if columns is not None:
        a = a[:, np.asarray(columns, dtype=np.intp)]
        overwrite = True  # a fresh copy
    if kind in "iub":
        out = np.empty(a.shape, dtype=np.float64)
        if a.size:
            np.remainder(a if kind != "b" else a.astype(np.int64), p, out=out)
        return out
    if kind == "f":
        for i0 in range(0, a.shape[0], step):  # by row chunks: no full-size temporaries
            chunk = a[i0 : i0 + step]
            bad = ~np.isfinite(chunk) | (chunk != np.floor(chunk))
            if bad.any():
                i, j = (int(v) for v in np.argwhere(bad)[0])
                raise InputError(argument, f"entry {chunk[i, j].item()!r} at ({i0 + i}, {j})",
                                 "integer entries or Fractions (a float with a fractional part is refused, not "
                                 "truncated)")
        reuse = overwrite and a.dtype == np.float64 and a.flags.c_contiguous and a.flags.writeable
        out = a if reuse else np.array(a, dtype=np.float64, order="C")
        for i0 in range(0, out.shape[0], step):  # by row chunks: temporaries of one chunk only
            chunk = out[i0 : i0 + step]
            if chunk.size and max(chunk.max(), -chunk.min()) >= _TWO53:
                np.fmod(chunk, p, out=chunk)  # exact for any float; slow, so only for huge entries
            else:
                _reduce(chunk, float(p), 1.0 / p)
            chunk[chunk < 0] += p
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
    working = 0 if overwrite else 8 * rows * cols
    if rows < cols and rows * cols <= TRANSPOSE_MAX_ENTRIES:  # eliminate_mod_p works on a transposed copy
        working += 8 * rows * cols
        rows, cols = cols, rows
    b = min(BLOCK, cols)
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

    def __init__(self, p: int, want_det: bool = False):
        self.p = p
        self.fp = float(p)
        self.pinv = 1.0 / p
        self.h = p // 2 + 2
        self.sq = float(self.h) * self.h
        self.want_det = want_det
        self.pivots: list = []
        self.swaps = 0

    def reduce(self, x, tmp=None):
        return _reduce(x, self.fp, self.pinv, tmp)


def _permute_rows(V: np.ndarray, perm: np.ndarray) -> None:
    """``V <- V[perm]`` touching only the rows that move."""
    moved = np.flatnonzero(perm != np.arange(perm.size))
    if moved.size:
        V[moved] = V[perm[moved]]


def _nmod(B: np.ndarray, ctx: _Context):
    """``flint.nmod_mat`` of a small block of reduced residues (``|b| < 2**53``, any sign)."""
    import flint

    m, n = B.shape
    # via fmpz_mat: ~100 ns per entry, against ~160 for the nmod_mat list constructor (python-flint 0.9)
    return flint.nmod_mat(flint.fmpz_mat(m, n, np.remainder(B.astype(np.int64), ctx.p).ravel().tolist()), ctx.p)


def _block_inverse(B: np.ndarray, ctx: _Context):
    """The inverse modulo p of the small square block ``B`` as a float64 array, or None when it is singular.

    Records the determinant (a pivot of the square determinant) when the elimination needs it.
    """
    A = _nmod(B, ctx)
    if ctx.want_det:
        d = int(A.det())
        if not d:
            return None
        ctx.pivots.append(d)
    try:
        inv = A.inv()
    except ZeroDivisionError:  # singular block
        return None
    w = B.shape[0]
    return np.array([int(v) for v in inv.entries()], dtype=np.float64).reshape(w, w)


def rref_pivot_columns(R, rank: int, ncols: int) -> list:
    """Pivot columns of a matrix in reduced row echelon form (``flint`` ``rref``; scans ~``ncols`` entries)."""
    cols, j = [], 0
    for i in range(rank):
        while j < ncols and int(R[i, j]) == 0:
            j += 1
        cols.append(j)
        j += 1
    return cols


def _independent_rows(B: np.ndarray, ctx: _Context) -> list:
    """The first maximal set of independent rows of ``B`` modulo p (increasing), by flint's ``rref`` of ``B^T``."""
    R, r = _nmod(B.T, ctx).rref()
    return rref_pivot_columns(R, int(r), B.shape[0])


def _rows_to_top(B: np.ndarray, sel, perm: np.ndarray, ctx: _Context) -> None:
    """Exchange the rows ``sel`` (increasing) of ``B`` into the top positions, recording the exchanges."""
    for t, i in enumerate(sel):  # increasing, i >= t: row t is never a later selected row
        if i != t:
            B[[t, i]] = B[[i, t]]
            perm[t], perm[i] = perm[i], perm[t]
            ctx.swaps += 1  # every row exchange of the whole elimination happens here


def _candidate_rows(B: np.ndarray, count: int) -> np.ndarray:
    """Up to ``count`` rows (increasing) likely to hold a nonsingular block of ``B`` (rows x w).

    For every column, its ``count / w`` sparsest rows with a nonzero there
    (in a sparse structured panel the rows private to one column make a
    triangular block), then the densest of the other rows.
    """
    Z = B != 0
    w = B.shape[1]
    density = np.count_nonzero(Z, axis=1)
    order = np.argsort(density, kind="stable")
    order = order[density[order] > 0]
    Zs = Z[order]
    first = (Zs & (np.cumsum(Zs, axis=0) <= max(1, count // w))).any(axis=1)
    picked = order[first][:count]
    if picked.size < count:  # fill up with the densest other rows
        picked = np.concatenate([picked, order[~first][::-1][: count - picked.size]])
    return np.sort(picked)


def _leaf(B: np.ndarray, ctx: _Context):
    """Eliminate a narrow panel (rows x w, entries reduced) in one block step.

    Returns ``(k, cols, perm, M)`` as :func:`_panel`.  The pivot block is
    found in three tries, cheapest first: the top ``w`` rows (the usual case
    for a generic Jacobian); ``w`` independent rows among ``4 w``
    candidates (:func:`_candidate_rows`; structured Jacobians: zero rows,
    repeated monomials); and
    otherwise the independent rows of the whole leaf and the independent
    columns among them (flint ``rref``: a leaf of rank below ``w``).  Then
    the multipliers are ``M = A21 A11^-1`` for the pivot block ``A11``: one
    small inverse (python-flint) and one GEMM instead of ``w`` rounds of
    rank-one updates (~10 numpy calls per column).
    """
    rows, w = B.shape
    perm = np.arange(rows)
    inv = _block_inverse(B[:w], ctx) if rows >= w else None
    if inv is None and rows > 4 * w:
        cand = _candidate_rows(B, 4 * w)
        sel = _independent_rows(B[cand], ctx)
        if len(sel) == w:
            _rows_to_top(B, cand[sel], perm, ctx)
            inv = _block_inverse(B[:w], ctx)
    if inv is not None:
        M = B[w:] @ inv  # |entries| <= h, inverse in [0, p): w products per entry, exact
        ctx.reduce(M)
        return w, list(range(w)), perm, M
    sel = _independent_rows(B, ctx)
    k = len(sel)
    if not k:
        return 0, [], perm, np.zeros((rows, 0))
    _rows_to_top(B, sel, perm, ctx)
    cols = _independent_rows(B[:k].T, ctx)  # k independent columns of the k pivot rows: of the whole leaf
    M = B[k:, cols] @ _block_inverse(B[:k, cols], ctx)  # the block is nonsingular by construction
    ctx.reduce(M)
    return k, cols, perm, M


def _panel(B: np.ndarray, ctx: _Context):
    """Rank-revealing block elimination of a panel (rows x w view, entries reduced), recursive on column halves.

    Returns ``(k, cols, perm, M)``: the number of pivots, their columns
    (local), the row permutation applied (new row ``i`` was row ``perm[i]``;
    the rows of ``B`` to the right of the pivot columns are permuted in
    place, the pivot rows first) and the multipliers ``M = A21 A11^-1``
    ((rows - k) x k, reduced), where ``A11`` is the nonsingular pivot block
    and ``A21`` the other rows in the pivot columns.  Every column of the
    panel is dependent on the pivot columns in the rows below the pivots,
    so the Schur complement ``A22 - M A12`` of the columns to the right is
    all that is left to eliminate: no triangular factor is ever formed.

    Combining the halves: the left half gives ``M1`` for every non-pivot
    row; the right half, updated by ``M1``, gives its pivot rows and ``M2``
    for the rest; then ``M = [M1_rest - M2 M1_piv2, M2]`` (block Gaussian
    elimination on ``[[P, Q], [R, S]]``: ``R P^-1 = M1_piv2``).
    """
    rows, w = B.shape
    if w <= LEAF:
        return _leaf(B, ctx)
    h = w // 2
    k1, cols1, perm, M1 = _panel(B[:, :h], ctx)
    if k1 >= rows:
        return k1, cols1, perm, M1
    right = B[:, h:]
    _permute_rows(right, perm)
    low = right[k1:]
    if k1:
        low -= M1 @ right[:k1]
        ctx.reduce(low)
    k2, cols2, perm2, M2 = _panel(low, ctx)
    perm[k1:] = perm[k1:][perm2]
    if not k2:
        return k1, cols1, perm, M1
    if not k1:
        return k2, [h + c for c in cols2], perm, M2
    M1 = M1[perm2]
    M = np.empty((rows - k1 - k2, k1 + k2))
    if M.shape[0]:
        left = M[:, :k1]
        np.matmul(M2, M1[:k2], out=left)
        np.subtract(M1[k2:], left, out=left)
        ctx.reduce(left)
        M[:, k1:] = M2
    return k1 + k2, cols1 + [h + c for c in cols2], perm, M


def eliminate_mod_p(A: np.ndarray, p: int, *, block: int | None = None) -> Elimination:
    """Rank-revealing LU of ``A`` modulo ``p``, in place; ``A`` is destroyed.

    Parameters
    ----------
    A : numpy.ndarray
        A writable C-ordered float64 array of integers with ``|a| < p``
        (as :func:`residues_mod_p` returns).
    p : int
        A prime with :func:`blas_supports` true (``p < 2**20`` and far beyond).
    block : int, optional
        Columns per panel (default :func:`panel_width` of the shape).

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
    if m < n and m * n <= TRANSPOSE_MAX_ENTRIES:
        # eliminate A^T: its columns are A's m rows, so at most m - rank columns are dependent (a wide
        # Jacobian with a large kernel has n - rank, each a leaf that cannot take a block step)
        e = _eliminate(np.ascontiguousarray(A.T), p, block)
        return Elimination(e.rank, e.cols, e.rows, e.det)
    return _eliminate(A, p, block)


def _eliminate(A: np.ndarray, p: int, block: int | None) -> Elimination:
    m, n = A.shape
    ctx = _Context(int(p), want_det=m == n)
    block = panel_width(m, n) if block is None else int(block)
    block = max(LEAF, min(block, exact_terms(ctx.p)))
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
        k, local, lperm, M = _panel(panel, ctx)
        perm[r:] = perm[r:][lperm]
        cols += [c0 + j for j in local]
        below = m - r - k
        if k and below and c1 < n:
            # the Schur complement: A22 <- A22 - M A12 (A12: the pivot rows, to the right of the panel)
            _permute_rows(A[r:, c1:], lperm)
            top = A[r : r + k, c1:]
            if bound > ctx.h:
                ctx.reduce(top)
            if bound + k * ctx.sq >= _TWO53:
                ctx.reduce(A[r + k :, c1:])
                bound = float(ctx.h)
            bound = max(bound, float(ctx.h)) + k * ctx.sq
            nc = n - c1
            if gemm_tmp is None:
                gemm_tmp = np.empty((min(CHUNK_ROWS, m), n))
            for s in range(0, below, CHUNK_ROWS):
                e = min(below, s + CHUNK_ROWS)
                T = gemm_tmp[: e - s, :nc]
                np.matmul(M[s:e], top, out=T)
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
