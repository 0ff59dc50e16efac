"""Factorization models: the query-key composite ``C = A B^T`` and deep linear networks.

Both maps have no input variables: their coefficient space is the space of
matrices, and the outputs are the entries of the product, row-major.

* :class:`QueryKey` (graph-attention paper, Section 4): ``A, B`` of shape
  ``d x k``; ``C = A B^T`` is ``d x d`` of rank ``<= min(d, k)``; the gauge
  ``(A, B) -> (A G, B G^{-T})`` gives ``k^2`` kernel fields
  ``(A E, -B E^T)``.  Generic dimension ``2dk - k^2`` for ``k <= d``.
* :class:`DeepLinear`: ``W_L ... W_1`` with ``W_l`` of shape
  ``(d_l, d_{l-1})``; each hidden layer carries a ``GL(d_l)`` gauge
  ``(W_l, W_{l+1}) -> (E W_l, -W_{l+1} E)``.  The image is the set of
  ``d_L x d_0`` matrices of rank ``<= r = min_l d_l``, of dimension
  ``r (d_0 + d_L - r)``.

Left-kernel witnesses (:meth:`image_equations`): the ``(r+1) x (r+1)``
minors of the product bordering the leading ``r x r`` block vanish on the
image; at a point where that block is invertible their gradients span the
conormal space, of dimension ``(d_L - r)(d_0 - r)``.
"""

from __future__ import annotations

from abc import abstractmethod
from fractions import Fraction
from itertools import permutations

import numpy as np

from algebra.models.base import NoInputModel, int_list, positive_int
from algebra.models.polynomial import Polynomial

__all__ = ["QueryKey", "DeepLinear", "bordered_minors"]


def _perm_sign(perm) -> int:
    sign, seen = 1, [False] * len(perm)
    for i in range(len(perm)):
        if not seen[i]:
            j, length = i, 0
            while not seen[j]:
                seen[j] = True
                j = perm[j]
                length += 1
            if length % 2 == 0:
                sign = -sign
    return sign


def _minor_polynomial(rows, cols, n_cols: int, variables: tuple) -> Polynomial:
    """The determinant of the submatrix ``C[rows, cols]`` as a polynomial in the entries of C."""
    terms: dict = {}
    nvar = len(variables)
    for perm in permutations(range(len(rows))):
        e = [0] * nvar
        for i, pi in enumerate(perm):
            e[rows[i] * n_cols + cols[pi]] += 1
        key = tuple(e)
        terms[key] = terms.get(key, 0) + _perm_sign(perm)
    return Polynomial(variables, {k: Fraction(v) for k, v in terms.items() if v})


def bordered_minors(n_rows: int, n_cols: int, r: int, variables: tuple) -> list:
    """The ``(r+1)``-minors of an ``n_rows x n_cols`` matrix containing its leading ``r x r`` block.

    Examples
    --------
    >>> names = tuple(f"c{i}" for i in range(4))
    >>> [p.to_text() for p in bordered_minors(2, 2, 1, names)]
    ['c0*c3 - c1*c2']
    """
    if r >= min(n_rows, n_cols) or r + 1 > 6:
        return []
    base = list(range(r))
    out = []
    for i in range(r, n_rows):
        for j in range(r, n_cols):
            out.append(_minor_polynomial(base + [i], base + [j], n_cols, variables))
    return out


class _MatrixProduct(NoInputModel):
    """Shared machinery: outputs are the entries of a product of matrices."""

    @abstractmethod
    def _factors(self, blocks, F) -> list:
        """Matrices whose product (left to right) is the output."""

    @abstractmethod
    def _factor_names(self) -> list:
        """``[(parameter block, is_transposed), ...]`` for each factor."""

    def forward(self, theta, X, field) -> np.ndarray:
        F = field
        mats = self._factors(self._blocks(theta, F), F)
        out = mats[0]
        for m in mats[1:]:
            out = F.matmul(out, m)
        return out.reshape(1, -1)

    def jacobian(self, theta, X, field) -> np.ndarray:
        """``d(M_1 ... M_n) = sum_i L_i dM_i R_i``; entry ``(a,c)`` w.r.t. ``M_i[p,q]`` is ``L_i[a,p] R_i[q,c]``."""
        F = field
        blocks = self._blocks(theta, F)
        mats = self._factors(blocks, F)
        names = self._factor_names()
        rows_out, cols_out = mats[0].shape[0], mats[-1].shape[1]
        J = F.zeros((rows_out * cols_out, self.parameter_count))
        offsets = self.offsets()
        for i, m in enumerate(mats):
            left = F.array(np.eye(rows_out, dtype=np.int64))
            for mm in mats[:i]:
                left = F.matmul(left, mm)
            right = F.array(np.eye(m.shape[1], dtype=np.int64))
            for mm in mats[i + 1 :]:
                right = F.matmul(right, mm)
            name, transposed = names[i]
            block = F.mul(left[:, None, :, None], right.T[None, :, None, :])  # (a, c, p, q)
            if transposed:  # the factor is B^T: parameter B[q, p]
                block = np.swapaxes(block, 2, 3)
            start, shape = offsets[name]
            J[:, start : start + int(np.prod(shape))] = block.reshape(rows_out * cols_out, -1)
        return J

    def output_variables(self) -> tuple:
        return tuple(f"c{i}" for i in range(self.n_outputs))


class QueryKey(_MatrixProduct):
    """The query-key composite ``C = A B^T`` with ``A, B`` of shape ``d x k``.

    Examples
    --------
    >>> m = QueryKey(5, 3)
    >>> m.parameter_count, m.expected_dimension()
    (30, 21)
    """

    family = "qk"

    def __init__(self, d: int, k: int):
        self.d = positive_int("d", d)
        self.k = positive_int("k", k)

    def param_blocks(self) -> list:
        return [("A", (self.d, self.k)), ("B", (self.d, self.k))]

    def spec(self) -> dict:
        return {"family": self.family, "d": self.d, "k": self.k}

    @property
    def n_outputs(self) -> int:
        return self.d * self.d

    def symmetry_count(self) -> int:
        return self.k**2

    def symmetry_names(self) -> list:
        return [f"GL({self.k}) gauge (A, B) -> (A G, B G^-T)"]

    def expected_dimension(self) -> int:
        r = min(self.d, self.k)
        return r * (2 * self.d - r)

    def _factors(self, blocks, F) -> list:
        return [blocks["A"], blocks["B"].T]

    def _factor_names(self) -> list:
        return [("A", False), ("B", True)]

    def symmetry_fields(self, theta, field) -> np.ndarray:
        F = field
        blocks = self._blocks(theta, F)
        A, B = blocks["A"], blocks["B"]
        rows = []
        for i in range(self.k):
            for j in range(self.k):
                dA = F.zeros(A.shape)
                dA[:, j] = A[:, i]  # A E_ij
                dB = F.zeros(B.shape)
                dB[:, i] = F.neg(B[:, j])  # -B E_ij^T = -B E_ji
                rows.append(np.concatenate([dA.ravel(), dB.ravel()]))
        return np.stack(rows)

    def image_equations(self) -> list:
        return bordered_minors(self.d, self.d, min(self.d, self.k), self.output_variables())


class DeepLinear(_MatrixProduct):
    """Deep linear network ``W_L ... W_1`` with widths ``(d_0, ..., d_L)``.

    Examples
    --------
    >>> m = DeepLinear((4, 3, 5))
    >>> m.parameter_count, m.expected_dimension()
    (27, 18)
    """

    family = "linear"

    def __init__(self, widths):
        self.widths = int_list("widths", widths, minimum=1, min_length=2)

    def param_blocks(self) -> list:
        w = self.widths
        return [(f"W{l}", (w[l], w[l - 1])) for l in range(1, len(w))]

    def spec(self) -> dict:
        return {"family": self.family, "widths": list(self.widths)}

    @property
    def n_outputs(self) -> int:
        return self.widths[0] * self.widths[-1]

    @property
    def rank_bound(self) -> int:
        return min(self.widths)

    def symmetry_count(self) -> int:
        return sum(w**2 for w in self.widths[1:-1])

    def symmetry_names(self) -> list:
        return [f"GL({w}) gauge of hidden layer {l}" for l, w in enumerate(self.widths[1:-1], start=1)]

    def expected_dimension(self) -> int:
        r, d0, dL = self.rank_bound, self.widths[0], self.widths[-1]
        return r * (d0 + dL - r)

    def _factors(self, blocks, F) -> list:
        L = len(self.widths) - 1
        return [blocks[f"W{l}"] for l in range(L, 0, -1)]

    def _factor_names(self) -> list:
        L = len(self.widths) - 1
        return [(f"W{l}", False) for l in range(L, 0, -1)]

    def symmetry_fields(self, theta, field) -> np.ndarray:
        F = field
        blocks = self._blocks(theta, F)
        offsets = self.offsets()
        P = self.parameter_count
        rows = []
        for l in range(1, len(self.widths) - 1):
            W, Wn = blocks[f"W{l}"], blocks[f"W{l + 1}"]
            s1, sh1 = offsets[f"W{l}"]
            s2, sh2 = offsets[f"W{l + 1}"]
            for i in range(self.widths[l]):
                for j in range(self.widths[l]):
                    vec = F.zeros(P)
                    d1 = F.zeros(sh1)
                    d1[i, :] = W[j, :]  # E_ij W
                    d2 = F.zeros(sh2)
                    d2[:, j] = F.neg(Wn[:, i])  # -W_{l+1} E_ij
                    vec[s1 : s1 + d1.size] = d1.ravel()
                    vec[s2 : s2 + d2.size] = d2.ravel()
                    rows.append(vec)
        if not rows:
            return F.zeros((0, P))
        return np.stack(rows)

    def image_equations(self) -> list:
        return bordered_minors(self.widths[-1], self.widths[0], self.rank_bound, self.output_variables())
