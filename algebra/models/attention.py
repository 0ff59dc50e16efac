"""Lightning self-attention ``phi(A, V)(X) = V X X^T A X`` (proximity-bias paper, Section 4).

``X`` is ``d x t`` (one token per column), ``V`` is ``d' x d``, ``A = K^T Q``
is ``d x d`` of rank at most ``a``.  With ``rank=None`` (or ``a = d``) ``A`` is
a free ``d x d`` matrix; with ``a < d`` the parameters are ``K, Q`` of shape
``a x d``.  ``t = 1`` is the single-token model ``x -> (Vx)(x^T A x)``, which
only sees the symmetric part ``S`` of ``A``.

Inputs are the entries of ``X`` flattened row-major (``X[b, s]`` is input
``b * t + s``); outputs are the entries of ``Y = phi(X)`` row-major.

Symmetries (kernel witnesses):

* scaling ``(A, V) -> (s A, V / s)``: field ``(A, -V)`` (or ``(K, 0, -V)``);
* for ``a < d`` the ``GL(a)`` gauge ``K -> G K, Q -> G^{-T} Q``: fields
  ``(E K, -E^T Q, 0)`` for the ``a^2`` elementary ``E``;
* for ``t = 1`` and free ``A``, the ``binom(d, 2)`` antisymmetric directions
  ``A -> A + E_ij - E_ji``.
"""

from __future__ import annotations

from math import comb

import numpy as np

from algebra.errors import InputError
from algebra.models.base import Model, positive_int

__all__ = ["LightningAttention"]


class LightningAttention(Model):
    """Lightning self-attention with ``tokens`` tokens and ``rank(A) <= rank``.

    Examples
    --------
    >>> m = LightningAttention(3, 2, 2)
    >>> m.parameter_count, m.expected_dimension()
    (15, 14)
    >>> LightningAttention(3, 2, 1).expected_dimension()   # d d' + binom(d+1, 2) - 1
    11
    >>> LightningAttention(3, 2, 2, rank=4)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid rank=4: expected an integer between 1 and d=3
    """

    family = "attention"

    def __init__(self, d: int, dout: int, tokens: int, *, rank: int | None = None):
        self.d = positive_int("d", d)
        self.dout = positive_int("dout", dout)
        self.tokens = positive_int("tokens", tokens)
        if rank is not None:
            if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or not 1 <= rank <= self.d:
                raise InputError("rank", rank, f"an integer between 1 and d={self.d}")
            rank = int(rank)
        self.rank = None if rank is None or rank == self.d else rank

    def param_blocks(self) -> list:
        d, dout = self.d, self.dout
        if self.rank is None:
            return [("A", (d, d)), ("V", (dout, d))]
        a = self.rank
        return [("K", (a, d)), ("Q", (a, d)), ("V", (dout, d))]

    def spec(self) -> dict:
        return {"family": self.family, "d": self.d, "dout": self.dout, "tokens": self.tokens, "rank": self.rank if self.rank is not None else self.d}

    # -- certificate form (registered in :mod:`algebra.models.registry`) ------
    def to_spec(self) -> dict:
        """The model in the checker's self-contained form (its :meth:`spec`: every field is an integer).

        Examples
        --------
        >>> m = LightningAttention(2, 1, 3, rank=1)
        >>> m.to_spec()["rank"], LightningAttention.from_spec(m.to_spec()).spec() == m.spec()
        (1, True)
        """
        return dict(self.spec())

    @classmethod
    def from_spec(cls, spec: dict) -> "LightningAttention":
        """Inverse of :meth:`to_spec`."""
        return cls(spec["d"], spec["dout"], spec["tokens"], rank=spec["rank"])

    @property
    def n_inputs(self) -> int:
        return self.d * self.tokens

    @property
    def n_outputs(self) -> int:
        return self.dout * self.tokens

    @property
    def degree(self) -> int:
        return 3

    @property
    def homogeneous(self) -> bool:
        return True

    def joint_degree(self) -> int:
        return 5 if self.rank is None else 6  # V (1) X X^T (2) A (1 or K^T Q: 2) X (1)

    def symmetry_count(self) -> int:
        count = 1
        if self.rank is not None:
            count += self.rank**2
        elif self.tokens == 1:
            count += comb(self.d, 2)
        return count

    def symmetry_names(self) -> list:
        names = ["scaling (A, V) -> (sA, V/s)"]
        if self.rank is not None:
            names.append(f"GL({self.rank}) gauge of A = K^T Q")
        elif self.tokens == 1:
            names.append("antisymmetric part of A (single token)")
        return names

    def _A(self, blocks, F):
        if self.rank is None:
            return blocks["A"]
        return F.matmul(blocks["K"].T, blocks["Q"])

    def forward(self, theta, X, field) -> np.ndarray:
        F = field
        blocks = self._blocks(theta, F)
        Xs = F.array(X).reshape(-1, self.d, self.tokens)
        A = self._A(blocks, F)
        G = F.matmul(Xs, np.swapaxes(Xs, 1, 2))  # X X^T, (M, d, d)
        B = F.matmul(F.matmul(blocks["V"][None], G), A[None])  # V X X^T A, (M, d', d)
        Y = F.matmul(B, Xs)
        return Y.reshape(Xs.shape[0], -1)

    def jacobian(self, theta, X, field) -> np.ndarray:
        F = field
        blocks = self._blocks(theta, F)
        d, dout, t = self.d, self.dout, self.tokens
        Xs = F.array(X).reshape(-1, d, t)
        M = Xs.shape[0]
        A = self._A(blocks, F)
        V = blocks["V"]
        G = F.matmul(Xs, np.swapaxes(Xs, 1, 2))
        AX = F.matmul(A[None], Xs)  # (M, d, t)
        GAX = F.matmul(G, AX)  # X X^T A X, (M, d, t)
        B = F.matmul(V[None], G)  # V X X^T, (M, d', d)
        parts = []
        # dY[a, c] / dV[p, q] = delta_ap * (X X^T A X)[q, c]
        eye = F.array(np.eye(dout, dtype=np.int64))
        dV = F.mul(eye[None, :, None, :, None], GAX.transpose(0, 2, 1)[:, None, :, None, :])
        # dV has shape (M, a=d', c=t, p=d', q=d)
        dV = dV.reshape(M, dout, t, dout * d)
        if self.rank is None:
            # dY[a, c] / dA[i, j] = B[a, i] X[j, c]
            dA = F.mul(B[:, :, None, :, None], np.swapaxes(Xs, 1, 2)[:, None, :, None, :])  # (M, a, c, i, j)
            parts.append(dA.reshape(M, dout, t, d * d))
        else:
            K, Q = blocks["K"], blocks["Q"]
            QX = F.matmul(Q[None], Xs)  # (M, a, t)
            BKt = F.matmul(B, K.T[None])  # (M, d', a)
            # dY[a, c] / dK[r, i] = B[a, i] (Q X)[r, c]
            dK = F.mul(B[:, :, None, None, :], np.swapaxes(QX, 1, 2)[:, None, :, :, None])  # (M, a, c, r, i)
            # dY[a, c] / dQ[r, j] = (B K^T)[a, r] X[j, c]
            dQ = F.mul(BKt[:, :, None, :, None], np.swapaxes(Xs, 1, 2)[:, None, :, None, :])  # (M, a, c, r, j)
            a = self.rank
            parts.append(dK.reshape(M, dout, t, a * d))
            parts.append(dQ.reshape(M, dout, t, a * d))
        parts.append(dV)
        J = np.concatenate(parts, axis=3)  # (M, a, c, P)
        return J.reshape(M * dout * t, self.parameter_count)

    def symmetry_fields(self, theta, field) -> np.ndarray:
        F = field
        blocks = self._blocks(theta, F)
        d = self.d
        rows = []
        if self.rank is None:
            rows.append(np.concatenate([blocks["A"].ravel(), F.neg(blocks["V"]).ravel()]))
            if self.tokens == 1:
                for i in range(d):
                    for j in range(i + 1, d):
                        E = F.zeros((d, d))
                        E[i, j] = F.scalar(1)
                        E[j, i] = F.scalar(-1)
                        rows.append(np.concatenate([E.ravel(), F.zeros(blocks["V"].size)]))
        else:
            K, Q, V = blocks["K"], blocks["Q"], blocks["V"]
            a = self.rank
            rows.append(np.concatenate([K.ravel(), F.zeros(Q.size), F.neg(V).ravel()]))
            for i in range(a):
                for j in range(a):
                    dK = F.zeros(K.shape)
                    dK[i, :] = K[j, :]
                    dQ = F.zeros(Q.shape)
                    dQ[j, :] = F.neg(Q[i, :])
                    rows.append(np.concatenate([dK.ravel(), dQ.ravel(), F.zeros(V.size)]))
        return np.stack(rows)
