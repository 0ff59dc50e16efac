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

__all__ = ["symmetry_rank", "symmetry_pivots", "peel_singletons"]


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
    cat = (lambda parts: np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64))
    return cat(pivot_rows), cat(pivot_cols), rows, cols


def symmetry_pivots(model, theta, field) -> tuple:
    """``(rank, cols)``: rank modulo ``field.p`` of ``model``'s symmetry fields at ``theta``, and the
    columns (parameters, increasing) of a nonsingular ``rank x rank`` minor of the fields.

    Singleton columns are pivots at no cost (module docstring); the rest is
    eliminated by :func:`~algebra.exact.rank.rank_with_witness`.

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
        w = rank_with_witness(S[np.ix_(rows, cols)], field.p)
        rest = tuple(cols[list(w.cols)])
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
