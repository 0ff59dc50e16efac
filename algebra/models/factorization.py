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

from algebra.models.base import NoInputModel, layer_widths, positive_int
from algebra.models.polynomial import Polynomial

__all__ = ["QueryKey", "DeepLinear", "bordered_minors", "bordered_minor_values", "bordered_minor_gradients"]


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


#: Largest bordered minor written out: a 6 x 6 determinant has 720 terms.
MAX_MINOR_SIZE = 6


def _has_bordered_minors(n_rows: int, n_cols: int, r: int) -> bool:
    return r < min(n_rows, n_cols) and r + 1 <= MAX_MINOR_SIZE


def _determinants(S: np.ndarray, F) -> np.ndarray:
    """Determinants of a stack ``S`` of ``m x m`` matrices over ``F`` (Leibniz, vectorized over the stack)."""
    n, m = S.shape[0], S.shape[1]
    total = F.zeros(n)
    for perm in permutations(range(m)):
        term = F.ones(n)
        for i, j in enumerate(perm):
            term = F.mul(term, S[:, i, j])
        total = F.add(total, term) if _perm_sign(perm) > 0 else F.sub(total, term)
    return total


def bordered_minor_values(C: np.ndarray, r: int, F) -> np.ndarray:
    """Values of the bordered ``(r+1)``-minors of the matrix ``C`` (order of :func:`bordered_minors`).

    Examples
    --------
    >>> from algebra.exact.field import PrimeField
    >>> bordered_minor_values(np.array([[1, 2], [3, 4]]), 1, PrimeField(101)).tolist()   # 1*4 - 2*3
    [99]
    """
    n_rows, n_cols = C.shape
    if not _has_bordered_minors(n_rows, n_cols, r):
        return F.zeros(0)
    base = list(range(r))
    S = np.stack([C[np.ix_(base + [i], base + [j])] for i in range(r, n_rows) for j in range(r, n_cols)])
    return _determinants(S, F)


def bordered_minor_gradients(C: np.ndarray, r: int, F) -> np.ndarray:
    """Gradients of the bordered ``(r+1)``-minors at ``C``: the cofactors, shape ``(#minors, C.size)``.

    The gradient of ``det C[R, S]`` with respect to ``C[R_a, S_b]`` is the
    cofactor ``(-1)^(a+b) det C[R - R_a, S - S_b]``: numbers at the point, no
    symbolic differentiation.

    Examples
    --------
    >>> from algebra.exact.field import PrimeField
    >>> bordered_minor_gradients(np.array([[1, 2], [3, 4]]), 1, PrimeField(101)).tolist()
    [[4, 98, 99, 1]]
    """
    n_rows, n_cols = C.shape
    if not _has_bordered_minors(n_rows, n_cols, r):
        return F.zeros((0, C.size))
    base = list(range(r))
    pairs = [(base + [i], base + [j]) for i in range(r, n_rows) for j in range(r, n_cols)]
    S = np.stack([C[np.ix_(R, Cs)] for R, Cs in pairs])
    G = F.zeros((len(pairs), C.size))
    m = r + 1
    idx = np.arange(len(pairs))
    for a in range(m):
        for b in range(m):
            keep_r = [i for i in range(m) if i != a]
            keep_c = [j for j in range(m) if j != b]
            cof = _determinants(S[:, keep_r][:, :, keep_c], F)
            if (a + b) % 2:
                cof = F.neg(cof)
            cols = np.array([R[a] * n_cols + Cs[b] for R, Cs in pairs])
            G[idx, cols] = cof
    return G


def bordered_minors(n_rows: int, n_cols: int, r: int, variables: tuple) -> list:
    """The ``(r+1)``-minors of an ``n_rows x n_cols`` matrix containing its leading ``r x r`` block.

    Examples
    --------
    >>> names = tuple(f"c{i}" for i in range(4))
    >>> [p.to_text() for p in bordered_minors(2, 2, 1, names)]
    ['c0*c3 - c1*c2']
    """
    if not _has_bordered_minors(n_rows, n_cols, r):
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

    def to_spec(self) -> dict:
        """The model in the checker's self-contained form (its :meth:`spec`; registered in
        :mod:`algebra.models.registry`).

        Examples
        --------
        >>> QueryKey(3, 2).to_spec(), DeepLinear([2, 3, 2]).to_spec()
        ({'family': 'qk', 'd': 3, 'k': 2}, {'family': 'linear', 'widths': [2, 3, 2]})
        """
        return dict(self.spec())

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

    @abstractmethod
    def _product_shape(self) -> tuple:
        """``(rows, cols)`` of the product matrix."""

    @abstractmethod
    def _rank_bound(self) -> int:
        """The rank every product has at most (its bordered ``(r+1)``-minors vanish on the image)."""

    def image_equations(self) -> list:
        return bordered_minors(*self._product_shape(), self._rank_bound(), self.output_variables())

    def image_equation_count(self) -> int:
        n_rows, n_cols = self._product_shape()
        r = self._rank_bound()
        return (n_rows - r) * (n_cols - r) if _has_bordered_minors(n_rows, n_cols, r) else 0

    def image_equation_degree(self) -> int:
        return self._rank_bound() + 1 if self.image_equation_count() else 0

    def _product(self, theta, F) -> np.ndarray:
        return self.forward(theta, np.zeros((1, 0), dtype=np.int64), F).reshape(self._product_shape())

    def image_equation_values(self, theta, field) -> list:
        return list(bordered_minor_values(self._product(theta, field), self._rank_bound(), field))

    def image_equation_gradients(self, theta, field) -> np.ndarray:
        return bordered_minor_gradients(self._product(theta, field), self._rank_bound(), field)


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

    @classmethod
    def from_spec(cls, spec: dict) -> "QueryKey":
        """Inverse of :meth:`to_spec`."""
        return cls(spec["d"], spec["k"])

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

    def _product_shape(self) -> tuple:
        return (self.d, self.d)

    def _rank_bound(self) -> int:
        return min(self.d, self.k)

    def joint_degree(self) -> int:
        return 2


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
        self.widths = layer_widths("widths", widths)

    def param_blocks(self) -> list:
        w = self.widths
        return [(f"W{l}", (w[l], w[l - 1])) for l in range(1, len(w))]

    def spec(self) -> dict:
        return {"family": self.family, "widths": list(self.widths)}

    @classmethod
    def from_spec(cls, spec: dict) -> "DeepLinear":
        """Inverse of :meth:`to_spec`."""
        return cls(spec["widths"])

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

    def _product_shape(self) -> tuple:
        return (self.widths[-1], self.widths[0])

    def _rank_bound(self) -> int:
        return self.rank_bound

    def joint_degree(self) -> int:
        return len(self.widths) - 1
