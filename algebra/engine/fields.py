"""Kernel fields at a point: the rank behind the symmetry rung, and the columns it proves dependent.

If vector fields ``X_1, ..., X_s`` satisfy ``J X_j = 0`` identically, the
generic kernel of ``J`` has dimension at least their generic rank, which is
at least their rank at any point; modulo ``p`` the rank is at most the rank
over Q.  So ``P - rank_p X(theta)`` bounds the generic rank of ``J`` from
above at any integer point ``theta``.

**Cheap exact rank.** Built-in fields are sparse and mostly triangular: in
an MLP the rescaling field of a neuron of the first hidden layer is the
only field touching that neuron's input weights, and the rescaling field
of a neuron feeding the readout the only one touching its readout weight.  A
column with a single nonzero entry (a *singleton*) is a pivot that needs no
elimination: ``rank [[a, u], [0, S']] = 1 + rank S'`` for ``a != 0``.
:func:`symmetry_pivots` peels singleton columns (repeatedly: removing a
pivot row can create new ones) and eliminates only what is left, by the
exact blocked LU; the result is the same exact rank modulo ``p``, with a
nonsingular maximal minor of the fields (its columns).

**Column groups** (:func:`peel_groups`) generalise singletons.  If the
columns ``G`` are zero outside the rows ``R_G`` (their common support) and
``A = S[R_G, G]`` has full row rank ``k = |R_G|``, then, rows and columns
permuted, ``S = [[A, X], [0, Y]]`` and ``rank S = k + rank Y``: a
combination ``a^T [A X] + b^T [0 Y] = 0`` forces ``a^T A = 0``, so ``a = 0``
and ``b^T Y = 0``.  Repeating on ``Y`` gives a block triangular minor
whose diagonal blocks are the groups' nonsingular ``k x k`` minors.  The
O(diag v) rotation fields of an MLP layer are such a cascade: the columns
of row ``j`` of that layer's weights are touched only by the fields of the
pairs ``(i, j)``, with entries ``v_i W[i, :]``, so each group is a ``k x
(n + 1)`` elimination (``k < h``) instead of one ``C(h, 2) x h (n + 1)``
elimination of all of them; a group that is not of full row rank at the
point is left to the final elimination, so the rank stays exact.

**Dependent columns of J.** When ``S[:, C]`` is nonsingular (``C`` those
columns, ``s = |C|``) and ``J S^T = 0`` at the point, ``J[:, C] = -J[:, N]
S[:, N]^T S[:, C]^{-T}`` for the other columns ``N``: ``rank J = rank J[:,
N]``.  The engine ranks ``J[:, N]`` (``P - s`` columns, no dependent
column for a model whose fields explain its whole kernel); that is a
proven lower bound whatever the fields are (a column submatrix), and only
its sharpness rests on the identity, which the symmetry rung tests anyway.
"""

from __future__ import annotations

import numpy as np

from algebra.exact.rank import rank_with_witness

__all__ = ["symmetry_rank", "symmetry_pivots", "peel_singletons", "peel_groups"]


def peel_singletons(S: np.ndarray) -> tuple:
    """Pivots ``(rows, cols)`` of the singleton columns of ``S`` (peeled repeatedly), and the rows and columns left.

    Returns ``(pivot_rows, pivot_cols, rest_rows, rest_cols)`` (index
    arrays): ``rank S = len(pivot_cols) + rank S[rest_rows][:, rest_cols]``
    exactly (over any field: each pivot column has one nonzero among the
    rows still present), and ``S[pivot_rows + rest pivot rows, pivot_cols +
    rest pivot cols]`` is block triangular, nonsingular when the rest's
    block is.

    Examples
    --------
    >>> S = np.array([[1, 0, 5, 0], [2, 3, 0, 0], [4, 6, 0, 0]])
    >>> pr, pc, rr, rc = peel_singletons(S)
    >>> pr.tolist(), pc.tolist(), rr.tolist(), rc.tolist()
    ([0], [2], [1, 2], [0, 1])
    """
    nz = np.asarray(S) != 0
    rows = np.arange(nz.shape[0])
    cols = np.flatnonzero(nz.any(axis=0))
    nz = nz[:, cols]
    pivot_rows, pivot_cols = [], []
    while nz.size:
        single = np.flatnonzero(np.count_nonzero(nz, axis=0) == 1)
        if not single.size:
            break
        owner = nz[:, single].argmax(axis=0)  # the one row of each singleton column
        owner, first = np.unique(owner, return_index=True)  # columns sharing a row: one pivot, the rest become zero
        pivot_rows.append(rows[owner])
        pivot_cols.append(cols[single[first]])
        keep_r = np.ones(rows.size, dtype=bool)
        keep_r[owner] = False
        nz = nz[keep_r]
        rows = rows[keep_r]
        keep_c = nz.any(axis=0)
        nz = nz[:, keep_c]
        cols = cols[keep_c]
    return _cat(pivot_rows), _cat(pivot_cols), rows, cols


def peel_groups(S: np.ndarray, p: int) -> tuple:
    """Pivots ``(rows, cols)`` of the column groups of ``S`` of full row rank modulo ``p``, and the rows and columns left.

    Columns with the same nonzero rows form a group; a group whose ``k``
    rows (among those still present) have rank ``k`` on its columns is
    peeled: its rows, and the columns of a nonsingular ``k x k`` minor (by
    :func:`~algebra.exact.rank.rank_with_witness`), are pivots, and the
    group's other columns leave with it (zero on the rows left).  Returns
    ``(pivot_rows, pivot_cols, rest_rows, rest_cols)``: ``rank S =
    len(pivot_cols) + rank S[rest_rows][:, rest_cols]`` modulo ``p``
    exactly, and ``S[pivot_rows + rest pivot rows, pivot_cols + rest
    pivot cols]`` is block triangular, nonsingular when the rest's block is
    (module docstring).  Groups are tried by increasing size of their
    support, repeatedly while one is peeled.

    Examples
    --------
    >>> S = np.array([[1, 2, 0, 0, 5], [3, 4, 7, 7, 0], [0, 0, 1, 2, 0]])
    >>> pr, pc, rr, rc = peel_groups(S, 101)      # {4}: row 0; then {2, 3}: rows 1, 2 ({0, 1} is then zero)
    >>> pr.tolist(), pc.tolist(), rr.tolist(), rc.tolist()
    ([0, 1, 2], [4, 2, 3], [], [])
    >>> pr, pc, rr, rc = peel_groups(np.array([[1, 2], [2, 4]]), 101)   # one group of rank 1 < 2 rows: kept
    >>> pr.tolist(), rr.tolist(), rc.tolist()
    ([], [0, 1], [0, 1])
    """
    S = np.asarray(S)
    mask = S != 0  # one byte per entry: the rounds gather supports from it, never from S
    rows = np.arange(S.shape[0])
    cols = np.flatnonzero(mask.any(axis=0))
    pivot_rows, pivot_cols = [], []
    progress = True
    while progress and rows.size and cols.size:
        progress = False
        nz = mask[np.ix_(rows, cols)]
        # one byte string per column: its support among the rows present
        keys = np.ascontiguousarray(np.packbits(nz, axis=0).T)
        keys = keys.view(np.dtype((np.void, keys.shape[1]))).ravel()
        _, first, group_of = np.unique(keys, return_index=True, return_inverse=True)
        by_group = np.argsort(group_of, kind="stable")
        members_of = np.split(by_group, np.flatnonzero(np.diff(group_of[by_group])) + 1)
        sizes = nz.sum(axis=0)[first]
        alive = np.ones(rows.size, dtype=bool)  # rows not yet peeled in this round
        peeled_cols = np.zeros(cols.size, dtype=bool)
        for g in np.argsort(sizes, kind="stable"):  # small supports first
            members = members_of[g]
            support = np.flatnonzero(nz[:, members[0]] & alive)
            if not support.size or support.size > members.size:
                continue
            w = rank_with_witness(S[np.ix_(rows[support], cols[members])], p)
            if w.rank != support.size:
                continue
            pivot_rows.append(rows[support])
            pivot_cols.append(cols[members[list(w.cols)]])
            alive[support] = False
            peeled_cols[members] = True
            progress = True
        rows, cols = rows[alive], cols[~peeled_cols]
        cols = cols[mask[np.ix_(rows, cols)].any(axis=0)]
    return _cat(pivot_rows), _cat(pivot_cols), rows, cols


def _cat(parts: list) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def symmetry_pivots(model, theta, field) -> tuple:
    """``(rank, cols)``: rank modulo ``field.p`` of ``model``'s symmetry fields at ``theta``, and the
    columns (parameters, increasing) of a nonsingular ``rank x rank`` minor of the fields.

    Singleton columns are pivots at no cost, then column groups of full row
    rank (module docstring); the rest is eliminated by
    :func:`~algebra.exact.rank.rank_with_witness`.

    Examples
    --------
    >>> from algebra.exact.field import PrimeField
    >>> from algebra.models import MLP
    >>> m = MLP((2, 3, 1), "t^2", bias=True)       # 3 rescalings and 3 rotations of diag(v)
    >>> r, cols = symmetry_pivots(m, m.random_point(np.random.default_rng(0)), PrimeField(1048573))
    >>> r, len(cols) == r
    (6, True)
    """
    S = model.symmetry_fields(theta, field)
    if not S.shape[0]:
        return 0, ()
    pivot_rows, pivot_cols, rows, cols = peel_singletons(S)
    rest = ()
    if rows.size and cols.size:
        _, group_cols, g_rows, g_cols = peel_groups(S[np.ix_(rows, cols)], field.p)
        rest = tuple(cols[group_cols])
        if g_rows.size and g_cols.size:
            w = rank_with_witness(S[np.ix_(rows[g_rows], cols[g_cols])], field.p)
            rest += tuple(cols[g_cols[list(w.cols)]])
    chosen = sorted(int(c) for c in (*pivot_cols, *rest))
    return len(chosen), tuple(chosen)


def symmetry_rank(model, theta, field) -> int:
    """Rank modulo ``field.p`` of ``model``'s symmetry fields at ``theta``.

    Examples
    --------
    >>> from algebra.exact.field import PrimeField
    >>> from algebra.models import QueryKey
    >>> m = QueryKey(5, 3)
    >>> symmetry_rank(m, m.random_point(np.random.default_rng(0)), PrimeField(1048573))
    9
    """
    return symmetry_pivots(model, theta, field)[0]
