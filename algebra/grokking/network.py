"""The quadratic network ``Y_hat = V (W^T X)^2`` and its centred loss, in numpy (paper Sec. 3.2).

Parameters ``theta = (vec W, vec V)`` with ``W`` of shape ``(2p, K)`` and
``V`` of shape ``(p, K)`` (the paper's shapes), each flattened row-major.
Every function takes a batch of parameter vectors ``(chains, P)``, so the
same code trains one network and advances all SGLD chains of an LLC
estimate at once.

The loss on a set of ``n`` samples is the paper's centred squared error
divided by ``n``::

    L(theta) = 1/(2n) || (Y - Y_hat) P_perp ||_F^2,   P_perp = I - 1 1^T / n,

i.e. the mean over samples of the Section 3.2 objective, the ``L_n`` whose
tempered posterior the LLC estimator samples (Appendix B).  Because
``P_perp`` is an orthogonal projection, ``dL/dY_hat = -R / n`` with ``R``
the centred residual, and the Hessian-vector product below is exact (no
finite differences: the loss is a polynomial of degree 6 in ``theta``).

:class:`CentredLoss` follows the protocol of :mod:`algebra.numeric.samplers`
(``w_star``, ``n``, ``X``, ``loss``, ``loss_and_grad``, ``hessian_vector``),
so the toolkit's samplers, estimators and Hutchinson trace apply unchanged.
"""

from __future__ import annotations

import numpy as np

from algebra.errors import InputError
from algebra.models.base import positive_int

__all__ = ["CentredLoss", "parameter_count", "split", "init_params", "predict", "HVP_FLOATS"]

#: Hessian-vector products are taken in chunks of directions holding at most this many
#: floats per ``(directions, n, K)`` array (~40 MB), so 100 Hutchinson probes of the
#: paper's size (n = 1123, K = 1024) do not need 1 GB per intermediate.
HVP_FLOATS = 5_000_000


def parameter_count(p: int, K: int) -> int:
    """``P = 2p K + p K = 3 p K``.

    Examples
    --------
    >>> parameter_count(53, 1024)
    162816
    """
    return 3 * p * K


def split(theta: np.ndarray, p: int, K: int):
    """Views ``W`` (chains, 2p, K) and ``V`` (chains, p, K) of ``theta`` (chains, P)."""
    theta = np.atleast_2d(theta)
    if theta.shape[1] != parameter_count(p, K):
        raise InputError("theta", theta.shape, f"rows of length 3pK = {parameter_count(p, K)}")
    k = 2 * p * K
    return theta[:, :k].reshape(-1, 2 * p, K), theta[:, k:].reshape(-1, p, K)


def init_params(p: int, K: int, rng: np.random.Generator) -> np.ndarray:
    """torch's default ``nn.Linear`` initialisation: ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``.

    The paper's code builds the network from two bias-free ``nn.Linear``
    layers (fan-in ``2p`` and ``K``); it does not state an initialisation,
    so we use the one its code gets by default.

    Examples
    --------
    >>> th = init_params(3, 4, np.random.default_rng(0))
    >>> th.shape, bool(np.abs(th[:24]).max() <= 6 ** -0.5)
    ((36,), True)
    """
    W = rng.uniform(-1.0, 1.0, size=(2 * p, K)) / np.sqrt(2 * p)
    V = rng.uniform(-1.0, 1.0, size=(p, K)) / np.sqrt(K)
    return np.concatenate([W.ravel(), V.ravel()])


def _hidden(W, a, b, p):
    """``W^T x`` for one-hot ``x = [e_a; e_b]``: rows ``W[a] + W[p + b]`` (chains, n, K)."""
    return W[:, a, :] + W[:, p + b, :]


def predict(theta: np.ndarray, a, b, p: int, K: int) -> np.ndarray:
    """Predictions ``Y_hat`` (chains, n, p) of the inputs ``(a_i, b_i)``.

    Examples
    --------
    >>> th = np.zeros(parameter_count(2, 1)); th[[0, 2, 4, 5]] = [1.0, 2.0, 1.0, -1.0]
    >>> predict(th, np.array([0, 1]), np.array([0, 0]), 2, 1)[0].tolist()   # (1+2)^2 = 9, (0+2)^2 = 4
    [[9.0, -9.0], [4.0, -4.0]]
    """
    W, V = split(theta, p, K)
    H = _hidden(W, np.asarray(a), np.asarray(b), p)
    return np.matmul(H * H, np.swapaxes(V, 1, 2))


class CentredLoss:
    """``L(theta) = 1/(2n) ||(Y - Y_hat) P_perp||_F^2`` on fixed samples ``(a_i, b_i, c_i)``.

    Parameters
    ----------
    p, K : int
        Modulus and hidden width.
    a, b, c : array of int
        The samples (e.g. the training triples of a
        :class:`~algebra.grokking.task.ModularAddition`).
    w_star : ndarray (P,), optional
        Reference point of the LLC estimate (the trained parameters).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.integers(0, 5, 12), rng.integers(0, 5, 12)
    >>> L = CentredLoss(5, 3, a, b, (a + b) % 5, w_star=init_params(5, 3, rng))
    >>> W = L.w_star[None] + 0.1 * rng.standard_normal((2, L.dim))
    >>> loss, g = L.loss_and_grad(W)
    >>> h = 1e-6 * rng.standard_normal(L.dim)                  # gradient = derivative
    >>> bool(abs(L.loss(W[:1] + h)[0] - L.loss(W[:1] - h)[0] - 2 * g[0] @ h) < 1e-12)
    True
    """

    def __init__(self, p: int, K: int, a, b, c, *, w_star=None):
        self.p = positive_int("--p", p, minimum=2)
        self.K = positive_int("--width", K)
        self.a, self.b, self.c = (np.asarray(v, dtype=np.int64) for v in (a, b, c))
        if not (self.a.shape == self.b.shape == self.c.shape) or self.a.ndim != 1 or self.a.size < 2:
            raise InputError("samples", self.a.shape, "three equal-length 1-d arrays of at least 2 samples")
        self.n = int(self.a.size)
        self.Y = np.zeros((self.n, self.p))
        self.Y[np.arange(self.n), self.c] = 1.0
        # explicit samples (the sampler reads X.shape[0] for minibatch indices)
        self.X = np.stack([self.a, self.b], axis=1)
        self.w_star = np.zeros(self.dim) if w_star is None else np.asarray(w_star, dtype=float)
        if self.w_star.shape != (self.dim,):
            raise InputError("w_star", self.w_star.shape, f"a vector of length {self.dim}")

    @property
    def dim(self) -> int:
        return parameter_count(self.p, self.K)

    def _parts(self, W, idx):
        """Hidden ``H``, activations ``A = H^2`` and centred residual ``R`` on samples ``idx``."""
        Wm, V = split(W, self.p, self.K)
        if idx is None:
            a, b, Y = self.a, self.b, self.Y[None]
        else:  # (chains, B) indices, one minibatch per chain
            a, b, Y = self.a[idx], self.b[idx], self.Y[idx]
        if idx is None:
            H = _hidden(Wm, a, b, self.p)
        else:
            rows = np.arange(Wm.shape[0])[:, None]
            H = Wm[rows, a, :] + Wm[rows, self.p + b, :]
        A = H * H
        E = Y - np.matmul(A, np.swapaxes(V, 1, 2))
        R = E - E.mean(axis=1, keepdims=True)
        return Wm, V, H, A, R, a, b

    def loss(self, W: np.ndarray) -> np.ndarray:
        """Full-batch loss for each row of ``W`` (chains, P)."""
        R = self._parts(np.atleast_2d(W), None)[4]
        return 0.5 * np.sum(R * R, axis=(1, 2)) / self.n

    def _scatter(self, GH, a, b, chains):
        """``dL/dW`` from ``dL/dH`` (chains, n, K): rows ``a`` and ``p + b`` receive it."""
        if a.ndim == 1:  # full batch: one-hot products (BLAS) instead of scatter-adds
            if not hasattr(self, "_onehot"):
                self._onehot = (np.eye(self.p)[self.a].T.copy(), np.eye(self.p)[self.b].T.copy())
            Oa, Ob = self._onehot
            return np.concatenate([np.matmul(Oa, GH), np.matmul(Ob, GH)], axis=1)
        gW = np.zeros((chains, 2 * self.p, self.K))
        for c in range(chains):
            np.add.at(gW[c], a[c], GH[c])
            np.add.at(gW[c], self.p + b[c], GH[c])
        return gW

    def loss_and_grad(self, W: np.ndarray, batch: np.ndarray | None = None):
        """Loss and gradient per chain; ``batch`` (chains, B) restricts both to a minibatch.

        On a minibatch the residual is centred over the batch, as a training
        step on that batch would.
        """
        W = np.atleast_2d(W)
        Wm, V, H, A, R, a, b = self._parts(W, batch)
        m = R.shape[1]
        loss = 0.5 * np.sum(R * R, axis=(1, 2)) / m
        G = -R / m  # dL/dY_hat (P_perp is an orthogonal projection)
        gV = np.matmul(np.swapaxes(G, 1, 2), A)
        GH = 2.0 * H * np.matmul(G, V)
        gW = self._scatter(GH, a, b, W.shape[0])
        return loss, np.concatenate([gW.reshape(W.shape[0], -1), gV.reshape(W.shape[0], -1)], axis=1)

    def hessian_vector(self, w: np.ndarray, D: np.ndarray) -> np.ndarray:
        """Exact Hessian-vector products ``H(w) d`` of the full-batch loss, one per row of ``D``.

        Forward-over-reverse by hand (Pearlmutter 1994): differentiate every
        line of :meth:`loss_and_grad` along ``d``.

        Examples
        --------
        >>> rng = np.random.default_rng(1)
        >>> a, b = rng.integers(0, 3, 6), rng.integers(0, 3, 6)
        >>> L = CentredLoss(3, 2, a, b, (a + b) % 3, w_star=rng.standard_normal(18))
        >>> D = rng.standard_normal((2, 18)); h = 1e-5
        >>> fd = (L.loss_and_grad(L.w_star + h * D)[1] - L.loss_and_grad(L.w_star - h * D)[1]) / (2 * h)
        >>> bool(np.allclose(L.hessian_vector(L.w_star, D), fd, atol=1e-6))
        True
        """
        D = np.atleast_2d(np.asarray(D, dtype=float))
        # directions in chunks: each one holds (n, K) arrays, and Hutchinson asks for 100 at once
        chunk = max(1, int(HVP_FLOATS // (self.n * self.K)))
        if D.shape[0] > chunk:
            return np.concatenate([self.hessian_vector(w, D[i:i + chunk]) for i in range(0, D.shape[0], chunk)])
        w = np.asarray(w, dtype=float).reshape(1, -1)
        Wm, V, H, A, R, a, b = self._parts(w, None)
        dW, dV = split(D, self.p, self.K)
        n = self.n
        dH = _hidden(dW, a, b, self.p)  # (k, n, K)
        dA = 2.0 * H * dH
        dYhat = np.matmul(dA, np.swapaxes(V, 1, 2)) + np.matmul(A, np.swapaxes(dV, 1, 2))
        dR = -(dYhat - dYhat.mean(axis=1, keepdims=True))
        G, dG = -R / n, -dR / n
        hV = np.matmul(np.swapaxes(dG, 1, 2), A) + np.matmul(np.swapaxes(G, 1, 2), dA)
        GA = np.matmul(G, V)
        dGA = np.matmul(dG, V) + np.matmul(G, dV)
        dGH = 2.0 * dH * GA + 2.0 * H * dGA
        hW = self._scatter(dGH, a, b, D.shape[0])
        return np.concatenate([hW.reshape(D.shape[0], -1), hV.reshape(D.shape[0], -1)], axis=1)

    def offset(self, theta: np.ndarray) -> np.ndarray:
        """The intercept the centred loss implies: ``mean(Y) - mean(Y_hat)`` over these samples (p,).

        ``P_perp`` removes a per-output constant, so the loss is that of the
        model plus the best constant; predictions elsewhere (validation) add
        the constant fitted on the training samples.
        """
        Yhat = predict(np.atleast_2d(theta)[:1], self.a, self.b, self.p, self.K)[0]
        return self.Y.mean(axis=0) - Yhat.mean(axis=0)

    def evaluate(self, theta: np.ndarray, offset: np.ndarray | None = None) -> tuple:
        """``(loss, accuracy)`` of the predictor ``Y_hat + offset`` on these samples.

        With ``offset=None`` it is :meth:`offset` of the same samples, and the
        loss equals :meth:`loss`; accuracy counts samples whose largest output
        is the target ``c``.

        Examples
        --------
        >>> rng = np.random.default_rng(2)
        >>> a, b = rng.integers(0, 5, 9), rng.integers(0, 5, 9)
        >>> L = CentredLoss(5, 3, a, b, (a + b) % 5)
        >>> th = init_params(5, 3, rng)
        >>> bool(np.isclose(L.evaluate(th)[0], L.loss(th)[0]))
        True
        """
        theta = np.atleast_2d(theta)[:1]
        if offset is None:
            offset = self.offset(theta)
        out = predict(theta, self.a, self.b, self.p, self.K)[0] + offset
        loss = 0.5 * float(np.sum((self.Y - out) ** 2)) / self.n
        return loss, float(np.mean(np.argmax(out, axis=1) == self.c))
