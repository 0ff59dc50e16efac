"""Numpy loss models whose learning coefficient is known exactly.

Every model here is a Gaussian regression that is *linear in a composite*
``c(w)``: the prediction for features ``x`` is ``C(w) x`` with
``C(w) = reshape(c(w), (b, a))``.  The empirical loss

    L_n(w) = 1/(2n) sum_i ||y_i - C(w) x_i||^2
           = 1/2 tr(C Sxx C^T) - tr(C Sxy) + 1/2 syy

depends on the data only through the sufficient statistics
``Sxx = X^T X / n``, ``Sxy = X^T Y / n`` and ``syy = ||Y||^2 / n``, so a
full-batch loss and gradient cost ``O(b a^2 + cost of c)`` per chain and per
step, independently of ``n`` (the "exact full-batch path" of issue 6).
The statistics are either computed from explicit samples or, for Gaussian
inputs, drawn from their exact joint law (Bartlett decomposition of the
Wishart matrix ``X^T X``), which costs nothing in ``n``.

Composites
----------
:class:`FactorProduct`
    ``C = W_L ... W_1`` with ``W_i`` of shape ``(d_i, d_{i-1})``: reduced rank
    regression (widths ``(M, H, N)``), deep linear networks, the query-key
    composite ``A B^T`` (widths ``(d, k, d)``) and the regular linear model
    (one factor).
:class:`PolynomialComposite`
    ``c_k(w)`` given by polynomials, for Newton-polyhedron toys; the loss is
    then ``K(w) = 1/2 (c(w) - c*)^T Sxx (c(w) - c*)`` plus noise terms.
:class:`QuadraticForms`
    The quadratic network ``x -> V (W x)^2`` (grokking paper, Section 4) as
    ``p`` symmetric matrices ``S_j = W^T diag(V_j) W`` acting on the
    degree-2 monomial features ``x_i x_l`` (``i <= l``).

All chains are one array: methods take ``W`` of shape ``(chains, P)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import algebra.inputs as inputs
from algebra.errors import InputError, ResourceError

__all__ = [
    "MAX_BYTES",
    "check_memory",
    "FactorProduct",
    "PolynomialComposite",
    "QuadraticForms",
    "RegressionModel",
    "gaussian_statistics",
    "bilinear_statistics",
    "rrr_model",
    "dln_model",
    "qk_model",
    "linear_regression_model",
    "polynomial_model",
    "quadratic_statistics",
    "quadratic_network_model",
]


#: Largest memory a model (its statistics, samples and the per-chain arrays of a
#: 64-chain run) may need; larger sizes are refused before anything is allocated.
MAX_BYTES = 4 * 2**30
#: Chains assumed when sizing per-chain arrays (the calibration's default).
_CHAINS = 64
#: Largest ``n * features`` a model that materialises its samples may generate.
MAX_MATERIALISED = 10**10


def check_memory(terms, *, limit: int = MAX_BYTES) -> int:
    """Refuse, before allocating, a model whose arrays would not fit in ``limit`` bytes.

    Parameters
    ----------
    terms : sequence of (argument, value, float entries, what)
        Each array the model will hold, the argument that sets its size and
        its number of float64 entries.

    Returns
    -------
    int
        The total number of bytes.

    Raises
    ------
    ResourceError
        Naming the argument of the largest array, its size and the limit.

    Examples
    --------
    >>> check_memory([("M", 100000, 100000.0**2, "the input covariance (M x M)")])
    Traceback (most recent call last):
    ...
    algebra.errors.ResourceError: M=100000 needs 74.5 GiB for the input covariance (M x M); refused before allocating (limit 4 GiB, algebra.numeric.models.MAX_BYTES)
    """
    total = sum(8.0 * float(t[2]) for t in terms)
    if total > limit:
        arg, value, entries, what = max(terms, key=lambda t: float(t[2]))
        raise ResourceError(f"{arg}={value} needs {8.0 * float(entries) / 2**30:.1f} GiB for {what}; "
                            f"refused before allocating (limit {limit / 2**30:.0f} GiB, "
                            "algebra.numeric.models.MAX_BYTES)")
    return int(total)


def _check_materialised(n, features: int) -> None:
    if isinstance(n, (int, np.integer)) and n * features > MAX_MATERIALISED:
        raise ResourceError(f"n={n} materialises {n} samples of {features} features "
                            f"({n * features:.2g} > {MAX_MATERIALISED:.0e} numbers); use a smaller n")


def _positive_ints(name: str, values) -> tuple:
    return inputs.integers(values, name, minimum=1)


class FactorProduct:
    """Composite ``C = W_L ... W_1`` of a chain of matrices.

    Parameters
    ----------
    widths : sequence of int
        ``(d_0, ..., d_L)``; factor ``W_i`` has shape ``(d_i, d_{i-1})``.

    Examples
    --------
    >>> fp = FactorProduct((2, 3, 1))
    >>> fp.num_params, fp.out_dim, fp.in_dim
    (9, 1, 2)
    >>> W = np.arange(9.0)[None, :]
    >>> fp.matrix(W).shape
    (1, 1, 2)
    """

    def __init__(self, widths):
        self.widths = _positive_ints("widths", widths)
        if len(self.widths) < 2:
            raise InputError("widths", widths, "at least two widths (d0, d1, ...)")
        self.shapes = [(self.widths[i + 1], self.widths[i]) for i in range(len(self.widths) - 1)]
        sizes = [r * c for r, c in self.shapes]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        self.num_params = int(self.offsets[-1])
        self.out_dim = self.widths[-1]
        self.in_dim = self.widths[0]

    def factors(self, W: np.ndarray) -> list:
        """Split ``W`` (chains, P) into the factor matrices (chains, d_i, d_{i-1})."""
        return [
            W[:, self.offsets[i]:self.offsets[i + 1]].reshape((W.shape[0],) + s)
            for i, s in enumerate(self.shapes)
        ]

    def pack(self, factors) -> np.ndarray:
        """Inverse of :meth:`factors` for one parameter (factors without chain axis)."""
        return np.concatenate([np.asarray(f, dtype=float).reshape(-1) for f in factors])

    def matrix(self, W: np.ndarray) -> np.ndarray:
        """The composite ``C(w)`` of shape (chains, d_L, d_0)."""
        fs = self.factors(W)
        out = fs[0]
        for f in fs[1:]:
            out = np.matmul(f, out)
        return out

    def matrix_and_vjp(self, W: np.ndarray):
        """``C(w)`` and a function mapping dL/dC (chains, d_L, d_0) to dL/dw (chains, P)."""
        fs = self.factors(W)
        prefix = [fs[0]]  # prefix[i] = W_i ... W_1 (0-based: fs[i] @ ... @ fs[0])
        for f in fs[1:]:
            prefix.append(np.matmul(f, prefix[-1]))
        C = prefix[-1]

        def vjp(G: np.ndarray) -> np.ndarray:
            grads = [None] * len(fs)
            upstream = G  # = (W_L ... W_{i+1})^T G
            for i in range(len(fs) - 1, -1, -1):
                if i > 0:
                    grads[i] = np.matmul(upstream, np.swapaxes(prefix[i - 1], 1, 2))
                else:
                    grads[i] = upstream
                if i > 0:
                    upstream = np.matmul(np.swapaxes(fs[i], 1, 2), upstream)
            return np.concatenate([g.reshape(W.shape[0], -1) for g in grads], axis=1)

        return C, vjp


class PolynomialComposite:
    """Composite ``c(w) = (p_1(w), ..., p_q(w))`` given by polynomials.

    Parameters
    ----------
    polynomials : sequence of :class:`algebra.models.polynomial.Polynomial`
        All over the same variables (the parameters, in that order).

    Examples
    --------
    >>> from algebra.models.polynomial import parse_polynomial
    >>> pm = PolynomialComposite([parse_polynomial("x^2*y", variables=("x", "y"))])
    >>> C, vjp = pm.matrix_and_vjp(np.array([[2.0, 3.0]]))
    >>> C.ravel().tolist(), vjp(np.ones((1, 1, 1))).ravel().tolist()
    ([12.0], [12.0, 4.0])
    """

    def __init__(self, polynomials):
        polynomials = list(polynomials)
        if not polynomials:
            raise InputError("polynomials", polynomials, "at least one polynomial")
        self.variables = tuple(polynomials[0].variables)
        if any(tuple(p.variables) != self.variables for p in polynomials):
            raise InputError("polynomials", polynomials, "polynomials over the same variables")
        monos = sorted({e for p in polynomials for e in p.terms})
        if not monos:
            raise InputError("polynomials", polynomials, "a nonzero polynomial")
        self.exponents = np.array(monos, dtype=float).reshape(len(monos), len(self.variables))
        index = {e: i for i, e in enumerate(monos)}
        self.coefficients = np.zeros((len(polynomials), len(monos)))
        for k, p in enumerate(polynomials):
            for e, c in p.terms.items():
                self.coefficients[k, index[e]] = float(c)
        self.num_params = len(self.variables)
        self.out_dim = 1
        self.in_dim = len(polynomials)

    def matrix(self, W: np.ndarray) -> np.ndarray:
        return self.matrix_and_vjp(W)[0]

    def matrix_and_vjp(self, W: np.ndarray):
        E = self.exponents  # (T, P)
        powers = W[:, None, :] ** E[None]  # (chains, T, P)
        monos = np.prod(powers, axis=2)  # (chains, T)
        C = (monos @ self.coefficients.T)[:, None, :]  # (chains, 1, q)

        def vjp(G: np.ndarray) -> np.ndarray:
            # d mono_t / d w_p = e_tp w_p^(e_tp - 1) prod_{s != p} w_s^e_ts
            g_mono = G[:, 0, :] @ self.coefficients  # (chains, T)
            out = np.zeros_like(W)
            for p in range(W.shape[1]):
                e = E[:, p]
                lower = np.where(e > 0, W[:, None, p] ** np.maximum(e - 1, 0), 0.0)
                rest = np.prod(np.delete(powers, p, axis=2), axis=2)
                out[:, p] = np.sum(g_mono * e[None] * lower * rest, axis=1)
            return out

        return C, vjp


class QuadraticForms:
    """Composite of the quadratic network ``f(x) = V (W x)^2`` (no biases).

    ``W`` is ``(K, d)`` and ``V`` is ``(p, K)``; parameters are packed as
    ``(vec W, vec V)`` (row-major).  Output ``j`` is ``x^T S_j x`` with
    ``S_j = sum_k V_jk w_k w_k^T``, i.e. linear in the features
    ``x_i x_l`` (``i <= l``) with coefficients ``S_j,ii`` and ``2 S_j,il``.
    The composite is ``C`` of shape ``(p, d (d + 1) / 2)``.

    Examples
    --------
    >>> qf = QuadraticForms(2, 1, 1)
    >>> C, vjp = qf.matrix_and_vjp(np.array([[1.0, 2.0, 3.0]]))   # w = (1, 2), v = 3
    >>> C.ravel().tolist()       # 3 (x1 + 2 x2)^2 = 3 x1^2 + 12 x1 x2 + 12 x2^2
    [3.0, 12.0, 12.0]
    >>> vjp(np.ones((1, 1, 3))).ravel().tolist()
    [18.0, 18.0, 9.0]
    """

    def __init__(self, d: int, outputs: int, width: int):
        self.d, self.p, self.K = _positive_ints("d,outputs,width", (d, outputs, width))
        self.iu = np.triu_indices(self.d)
        self.num_params = self.K * self.d + self.p * self.K
        self.out_dim = self.p
        self.in_dim = len(self.iu[0])
        # C = S[iu] * factor: diagonal entries once, off-diagonal ones twice
        self.factor = np.where(self.iu[0] == self.iu[1], 1.0, 2.0)

    def split(self, W: np.ndarray):
        kd = self.K * self.d
        return W[:, :kd].reshape(-1, self.K, self.d), W[:, kd:].reshape(-1, self.p, self.K)

    def pack(self, Wm: np.ndarray, V: np.ndarray) -> np.ndarray:
        return np.concatenate([np.asarray(Wm, float).reshape(-1), np.asarray(V, float).reshape(-1)])

    def matrix(self, W: np.ndarray) -> np.ndarray:
        return self.matrix_and_vjp(W)[0]

    def matrix_and_vjp(self, W: np.ndarray):
        Wm, V = self.split(np.atleast_2d(W))
        S = np.einsum("cjk,cki,ckl->cjil", V, Wm, Wm)  # (chains, p, d, d)
        C = S[:, :, self.iu[0], self.iu[1]] * self.factor

        def vjp(G: np.ndarray) -> np.ndarray:
            # dL/dS_il = G_il for both (i, l) and (l, i): Gs symmetric, G on the diagonal
            Gs = np.zeros(S.shape)
            Gs[:, :, self.iu[0], self.iu[1]] = G
            Gs[:, :, self.iu[1], self.iu[0]] = G
            GW = np.einsum("cjil,ckl->cjki", Gs, Wm)  # (Gs_j w_k)_i
            gV = np.einsum("cjki,cki->cjk", GW, Wm)  # w_k^T Gs_j w_k
            gW = 2.0 * np.einsum("cjk,cjki->cki", V, GW)  # 2 sum_j V_jk Gs_j w_k
            return np.concatenate([gW.reshape(W.shape[0], -1), gV.reshape(W.shape[0], -1)], axis=1)

        return C, vjp


def gaussian_statistics(C_star: np.ndarray, n: int, rng: np.random.Generator, *,
                        noise: float = 1.0, method: str = "exact"):
    """Sufficient statistics of ``y = C* x + noise * eps`` with ``x, eps`` standard Gaussian.

    ``method="exact"`` draws ``(Sxx, Sxy, syy)`` from their exact joint law at
    cost independent of ``n``: ``X^T X = A A^T`` with ``A`` the Bartlett
    factor of a Wishart(n, I) matrix, ``X^T E = A Z`` with ``Z`` standard
    Gaussian (``X^T E`` given ``X`` is matrix normal with row covariance
    ``X^T X``), and ``||E||^2 = ||Z||^2 + chi^2((n - a) b)``.
    ``method="explicit"`` materialises the ``n`` samples (in chunks) and also
    returns them, for minibatch sampling.

    Returns
    -------
    dict with keys ``Sxx``, ``Sxy``, ``syy`` and, for ``explicit``, ``X``, ``Y``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = gaussian_statistics(np.eye(2), 10**8, rng)
    >>> bool(np.allclose(s["Sxx"], np.eye(2), atol=1e-3))
    True
    """
    C_star = np.atleast_2d(np.asarray(C_star, dtype=float))
    b, a = C_star.shape
    if not isinstance(n, (int, np.integer)) or n <= a:
        raise InputError("n", n, f"an integer sample size larger than the input dimension {a}")
    if method == "exact":
        A = np.zeros((a, a))
        for i in range(a):
            A[i, i] = np.sqrt(rng.chisquare(n - i))
            A[i, :i] = rng.standard_normal(i)
        XtX = A @ A.T
        Z = rng.standard_normal((a, b))
        XtE = noise * (A @ Z)
        EtE = noise**2 * (np.sum(Z**2) + rng.chisquare((n - a) * b))
        Sxx = XtX / n
        Sxy = (XtX @ C_star.T + XtE) / n
        syy = (np.sum((C_star @ XtX) * C_star) + 2.0 * np.sum(C_star.T * XtE) + EtE) / n
        return {"Sxx": Sxx, "Sxy": Sxy, "syy": float(syy)}
    if method == "explicit":
        X = rng.standard_normal((n, a))
        Y = X @ C_star.T + noise * rng.standard_normal((n, b))
        return {"Sxx": X.T @ X / n, "Sxy": X.T @ Y / n, "syy": float(np.sum(Y**2) / n),
                "X": X, "Y": Y}
    raise InputError("method", method, "'exact' or 'explicit'")


def bilinear_statistics(C_star: np.ndarray, n: int, rng: np.random.Generator, *,
                        noise: float = 1.0, chunk: int = 100_000, keep: bool = False):
    """Statistics of the query-key score model ``y = x^T C* z + noise * eps``.

    ``x, z`` are independent standard Gaussian vectors in ``R^d``; the
    features are ``vec(x z^T)`` (row-major, matching ``C.reshape(-1)``), so
    the model is linear in the composite ``C = A B^T`` (graph-attention
    paper, Section 3: the score of node pair ``(i, j)`` is ``x_i^T A B^T x_j``).
    Samples are generated in chunks, so memory stays ``O(chunk d^2)``
    unless ``keep`` also returns them (keys ``X``: features, ``Y``: scores).
    """
    C_star = np.asarray(C_star, dtype=float)
    d = C_star.shape[0]
    q = d * d
    c = C_star.reshape(-1)

    def draw(m):
        x = rng.standard_normal((m, d))
        z = rng.standard_normal((m, d))
        phi = (x[:, :, None] * z[:, None, :]).reshape(m, q)
        return phi, (phi @ c + noise * rng.standard_normal(m))[:, None]

    return _accumulate(draw, n, q, 1, chunk, keep)


def _accumulate(draw, n: int, q: int, b: int, chunk: int, keep: bool) -> dict:
    """Sufficient statistics of ``n`` samples drawn ``chunk`` at a time by ``draw(m) -> (phi, y)``."""
    Sxx, Sxy, syy, done = np.zeros((q, q)), np.zeros((q, b)), 0.0, 0
    kept = []
    while done < n:
        m = min(chunk, n - done)
        phi, y = draw(m)
        Sxx += phi.T @ phi
        Sxy += phi.T @ y
        syy += float(np.sum(y * y))
        if keep:
            kept.append((phi, y))
        done += m
    out = {"Sxx": Sxx / n, "Sxy": Sxy / n, "syy": syy / n}
    if keep:
        out["X"] = np.concatenate([k[0] for k in kept])
        out["Y"] = np.concatenate([k[1] for k in kept])
    return out


def quadratic_statistics(C_star: np.ndarray, d: int, n: int, rng: np.random.Generator, *,
                         noise: float = 1.0, chunk: int = 100_000, keep: bool = False):
    """Statistics of ``y = C* phi(x) + noise * eps`` with ``phi(x) = (x_i x_l)_{i <= l}``.

    ``x`` is standard Gaussian in ``R^d``; the features are not Gaussian, so
    the ``n`` samples are materialised in chunks (memory ``O(chunk d^2)``;
    ``keep`` also returns them as ``X`` (features) and ``Y``).
    """
    C_star = np.atleast_2d(np.asarray(C_star, dtype=float))
    iu = np.triu_indices(d)
    b = C_star.shape[0]

    def draw(m):
        x = rng.standard_normal((m, d))
        phi = x[:, iu[0]] * x[:, iu[1]]
        return phi, phi @ C_star.T + noise * rng.standard_normal((m, b))

    return _accumulate(draw, n, len(iu[0]), b, chunk, keep)


@dataclass
class RegressionModel:
    """Gaussian regression linear in a composite, evaluated through sufficient statistics.

    Parameters
    ----------
    name : str
        Label used in tables.
    composite : FactorProduct or PolynomialComposite
        The map ``w -> C(w)`` of shape (out_dim, in_dim).
    Sxx, Sxy, syy : arrays, float
        Sufficient statistics (see module docstring).
    n : int
        Sample size the statistics were computed from.
    w_star : ndarray
        The reference parameter (a local minimiser of ``L_n`` near the teacher,
        see :meth:`refine_minimum`).
    X, Y : ndarray, optional
        Explicit samples, needed only for minibatch gradients.
    family, params : str, dict
        Which exact formula applies and its arguments (used by the suite).

    Examples
    --------
    >>> m = rrr_model(3, 3, 2, 1, n=10**6, seed=0)
    >>> W = np.stack([m.w_star, m.w_star + 0.1])
    >>> loss, grad = m.loss_and_grad(W)
    >>> loss.shape, grad.shape, bool(loss[1] > loss[0])
    ((2,), (2, 12), True)
    """

    name: str
    composite: object
    Sxx: np.ndarray
    Sxy: np.ndarray
    syy: float
    n: int
    w_star: np.ndarray
    X: np.ndarray | None = None
    Y: np.ndarray | None = None
    family: str = ""
    params: dict = field(default_factory=dict)

    @property
    def dim(self) -> int:
        return int(self.composite.num_params)

    @classmethod
    def from_samples(cls, name: str, composite, X, Y, w_star, *, family: str = "",
                     params: dict | None = None) -> "RegressionModel":
        """The model of explicit samples ``Y ~ X C(w)^T`` (features ``X`` (n, a), targets ``Y`` (n, b)).

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((500, 2)); Y = X @ np.array([[1.0], [2.0]])
        >>> m = RegressionModel.from_samples("lin", FactorProduct((2, 1)), X, Y, np.array([1.0, 2.0]))
        >>> m.n, round(float(m.loss(m.w_star[None])[0]), 12)
        (500, 0.0)
        """
        X = np.asarray(X, dtype=float)
        Y = np.asarray(Y, dtype=float).reshape(X.shape[0], -1)
        n = X.shape[0]
        return cls(name, composite, X.T @ X / n, X.T @ Y / n, float(np.sum(Y**2) / n), n,
                   np.asarray(w_star, dtype=float).copy(), X=X, Y=Y, family=family,
                   params=dict(params or {}))

    def loss(self, W: np.ndarray) -> np.ndarray:
        """Full-batch loss for each row of ``W`` (chains, P)."""
        C = self.composite.matrix(np.atleast_2d(W))
        quad = np.einsum("kba,ac,kbc->k", C, self.Sxx, C)
        lin = np.einsum("kba,ab->k", C, self.Sxy)
        return 0.5 * quad - lin + 0.5 * self.syy

    def loss_and_grad(self, W: np.ndarray, batch: np.ndarray | None = None):
        """Loss and gradient per chain; ``batch`` (chains, B) indexes samples for minibatches."""
        W = np.atleast_2d(W)
        C, vjp = self.composite.matrix_and_vjp(W)
        if batch is None:
            CS = np.matmul(C, self.Sxx)  # (k, b, a)
            G = CS - self.Sxy.T[None]
            loss = 0.5 * np.einsum("kba,kba->k", CS, C) - np.einsum("kba,ab->k", C, self.Sxy) \
                + 0.5 * self.syy
            return loss, vjp(G)
        if self.X is None:
            raise InputError("batch", "minibatch", "a model built with explicit samples (data='explicit')")
        Xb = self.X[batch]  # (k, B, a)
        Yb = self.Y[batch]  # (k, B, b)
        resid = np.matmul(Xb, np.swapaxes(C, 1, 2)) - Yb  # (k, B, b)
        loss = 0.5 * np.mean(np.sum(resid**2, axis=2), axis=1)
        G = np.matmul(np.swapaxes(resid, 1, 2), Xb) / batch.shape[1]
        return loss, vjp(G)

    def hessian_vector(self, w: np.ndarray, V: np.ndarray, *, h: float = 1e-5) -> np.ndarray:
        """Hessian-vector products ``H(w) v`` for each row of ``V`` (central differences).

        The loss is a polynomial in ``w``; the central difference has error
        ``O(h^2 ||v||^3)`` times the third derivatives.
        """
        V = np.atleast_2d(V)
        plus = self.loss_and_grad(w[None] + h * V)[1]
        minus = self.loss_and_grad(w[None] - h * V)[1]
        return (plus - minus) / (2 * h)

    def refine_minimum(self, *, steps: int = 2000, tol: float = 1e-13) -> "RegressionModel":
        """Move ``w_star`` from the teacher to the nearby minimiser of ``L_n`` (gradient descent).

        With finite ``n`` the teacher is not a critical point of ``L_n``;
        the estimator needs ``L_n(w*)`` at a local minimum, otherwise
        ``n beta (L_n(teacher) - min L_n)`` biases every estimate.
        """
        w = self.w_star[None].copy()
        # step from the largest Hessian eigenvalue at the teacher: exact for small P,
        # power iteration on Hessian-vector products otherwise (a fixed guess made
        # the descent diverge on wide networks, e.g. loss 1e18 at K = 1000)
        P = w.shape[1]
        if P <= 400:
            H = self.hessian_vector(w[0], np.eye(P))
            top = float(np.max(np.abs(np.linalg.eigvalsh(0.5 * (H + H.T)))))
        else:
            v = np.random.default_rng(0).standard_normal(P)
            top = 1.0
            for _ in range(50):
                hv = self.hessian_vector(w[0], (v / np.linalg.norm(v))[None])[0]  # one row per vector
                top, v = float(np.linalg.norm(hv)), hv
                if top == 0.0:
                    break
        lr = 1.0 / max(top, 1.0)
        loss, g = self.loss_and_grad(w)
        for _ in range(steps):
            trial = w - lr * g
            t_loss, t_g = self.loss_and_grad(trial)
            if t_loss[0] > loss[0]:  # overshoot: never accept a step that raises the loss
                lr /= 2
                if lr < 1e-300:
                    break
                continue
            done = loss[0] - t_loss[0] < tol
            w, loss, g = trial, t_loss, t_g
            if done:
                break
        self.w_star = w[0]
        return self


def _teacher_factors(widths, r, rng, scale=1.0):
    """Factors of rank ``r`` whose unused rows/columns are exactly zero (most singular point)."""
    fs = []
    for i in range(len(widths) - 1):
        f = np.zeros((widths[i + 1], widths[i]))
        k = min(r, widths[i + 1], widths[i])
        block = rng.standard_normal((k, k))
        # well-conditioned r x r block: orthogonal times scale
        q, _ = np.linalg.qr(block)
        f[:k, :k] = scale * q
        fs.append(f)
    return fs


def _factor_memory(widths, names, n, data, features=None) -> None:
    """Size check of a factor-product model before anything is allocated."""
    d0, dL = widths[0], widths[-1]
    q = features if features is not None else d0
    P = sum(widths[i] * widths[i + 1] for i in range(len(widths) - 1))
    per_chain = _CHAINS * (P + sum(w * d0 for w in widths[1:]))
    terms = [(names[0], widths[0], q * q, f"the input covariance ({q} x {q})"),
             (names[-1], widths[-1], q * dL, f"the input-output covariance ({q} x {dL})"),
             (names[1] if len(names) > 2 else names[0], max(widths),
              per_chain, f"{_CHAINS} chains of {P} parameters and their products")]
    if data == "explicit":
        terms.append(("n", n, float(n) * (q + dL), f"{n} explicit samples"))
    check_memory(terms)


def _build(name, widths, r, *, n, seed, noise, data, family, params, stats="gaussian",
           names=None):
    names = names or ("widths",) * len(widths)
    features = widths[0] * widths[-1] if stats == "bilinear" else None
    _factor_memory(widths, names, n, data, features)
    if stats == "bilinear":
        _check_materialised(n, features)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    comp = FactorProduct(widths)
    fs = _teacher_factors(widths, r, rng)
    # random rotations on the input/output spaces make the teacher generic
    qin, _ = np.linalg.qr(rng.standard_normal((widths[0], widths[0])))
    qout, _ = np.linalg.qr(rng.standard_normal((widths[-1], widths[-1])))
    fs[0] = fs[0] @ qin
    fs[-1] = qout @ fs[-1]
    w0 = comp.pack(fs)
    C_star = comp.matrix(w0[None])[0]
    if stats == "bilinear":
        s = bilinear_statistics(C_star, n, rng, noise=noise, keep=data == "explicit")
    else:
        s = gaussian_statistics(C_star, n, rng, noise=noise, method=data)
    if stats == "bilinear":
        comp = _Flattened(comp)
    model = RegressionModel(name, comp, s["Sxx"], s["Sxy"], s["syy"], n, w0,
                            X=s.get("X"), Y=s.get("Y"), family=family, params=params)
    return model.refine_minimum()


def rrr_model(M: int, N: int, H: int, r: int, *, n: int = 10**7, seed: int = 0,
              noise: float = 1.0, data: str = "exact") -> RegressionModel:
    """Reduced rank regression ``y = B A x``, ``A`` (H x M), ``B`` (N x H), teacher rank ``r``.

    Exact learning coefficient: Aoyagi & Watanabe (2005), via
    ``algebra.slt.formulas.reduced_rank_regression(M, N, H, r)``.
    """
    M, N, H, r = _positive_ints("M,N,H", (M, N, H)) + (int(r),)
    if not 0 <= r <= min(M, N, H):
        raise InputError("r", r, f"an integer in [0, min(M, N, H)] = [0, {min(M, N, H)}]")
    return _build(f"rrr M={M} N={N} H={H} r={r}", (M, H, N), r, n=n, seed=seed, noise=noise,
                  data=data, family="rrr", params={"M": M, "N": N, "H": H, "r": r},
                  names=("M", "H", "N"))


def dln_model(widths, r: int, *, n: int = 10**7, seed: int = 0, noise: float = 1.0,
              data: str = "exact") -> RegressionModel:
    """Deep linear network ``y = W_L ... W_1 x`` with teacher of rank ``r`` (Aoyagi 2024)."""
    widths = _positive_ints("widths", widths)
    if len(widths) < 2 or not 0 <= int(r) <= min(widths):
        raise InputError("r", r, f"an integer in [0, min(widths)] = [0, {min(widths)}]")
    label = ",".join(map(str, widths))
    return _build(f"dln ({label}) r={r}", widths, int(r), n=n, seed=seed, noise=noise,
                  data=data, family="dln", params={"widths": widths, "r": int(r)})


def qk_model(d: int, k: int, r: int, *, n: int = 10**6, seed: int = 0,
             noise: float = 1.0, data: str = "statistics") -> RegressionModel:
    """Query-key composite ``C = A B^T`` (A, B of shape d x k) learning bilinear scores.

    The graph-attention paper (Theorem 2) reduces the QK block near a teacher
    of rank ``r`` to this reduced-rank matrix factorisation; the scores
    ``x^T A B^T z`` are observed with Gaussian noise, so the composite's
    Fisher metric is ``E[vec(x z^T) vec(x z^T)^T] = I``.  ``data="explicit"``
    also keeps the ``n`` feature vectors ``vec(x z^T)`` and scores.
    """
    d, k = _positive_ints("d,k", (d, k))
    if not 0 <= int(r) <= min(d, k):
        raise InputError("r", r, f"an integer in [0, min(d, k)] = [0, {min(d, k)}]")
    # C = A B^T = W2 W1 with W1 = B^T (k x d), W2 = A (d x k); the composite is
    # flattened to one row of d*d bilinear features.
    return _build(f"qk d={d} k={k} r={r}", (d, k, d), int(r), n=n, seed=seed, noise=noise,
                  data=data, family="qk", params={"d": d, "k": k, "r": int(r)},
                  stats="bilinear", names=("d", "k", "d"))


class _Flattened:
    """View a (d x d) composite as one row of d*d features (for the bilinear QK model)."""

    def __init__(self, inner):
        self.inner = inner
        self.num_params = inner.num_params
        self.out_dim = 1
        self.in_dim = inner.out_dim * inner.in_dim

    def matrix(self, W):
        C = self.inner.matrix(W)
        return C.reshape(C.shape[0], 1, -1)

    def matrix_and_vjp(self, W):
        C, vjp = self.inner.matrix_and_vjp(W)
        shape = C.shape
        return C.reshape(shape[0], 1, -1), lambda G: vjp(G.reshape(shape))


def linear_regression_model(in_dim: int, out_dim: int = 1, *, n: int = 10**7, seed: int = 0,
                  noise: float = 1.0, data: str = "exact") -> RegressionModel:
    """Linear regression ``y = W x`` with ``in_dim * out_dim`` parameters (regular: lambda = P/2)."""
    a, b = _positive_ints("in_dim,out_dim", (in_dim, out_dim))
    return _build(f"regular {b}x{a}", (a, b), min(a, b), n=n, seed=seed, noise=noise,
                  data=data, family="regular", params={"rank": a * b}, names=("in_dim", "out_dim"))


def polynomial_model(polynomials, *, w_star=None, n: int = 10**7, seed: int = 0,
                     noise: float = 1.0, data: str = "exact") -> RegressionModel:
    """Regression on Gaussian features with composite ``c(w) = (p_1(w), ...)``.

    Near ``w*`` (default: the origin) the average loss is
    ``K(w) = 1/2 (c(w) - c(w*))^T Sxx (c(w) - c(w*))``, so the learning
    coefficient is that of ``sum_k (p_k(w) - p_k(w*))^2`` (Newton polyhedron).

    Examples
    --------
    >>> from algebra.models.polynomial import parse_polynomial
    >>> m = polynomial_model([parse_polynomial("x*y")], n=10**6)
    >>> m.dim, m.family
    (2, 'poly')
    """
    comp = PolynomialComposite(polynomials)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    w0 = np.zeros(comp.num_params) if w_star is None else np.asarray(w_star, dtype=float)
    if w0.shape != (comp.num_params,):
        raise InputError("w_star", w_star, f"a point with {comp.num_params} coordinates")
    C_star = comp.matrix(w0[None])[0]
    s = gaussian_statistics(C_star, n, rng, noise=noise, method=data)
    text = "; ".join(p.to_text() for p in polynomials)
    model = RegressionModel(f"poly {text}", comp, s["Sxx"], s["Sxy"], s["syy"], n, w0,
                            X=s.get("X"), Y=s.get("Y"), family="poly", params={"polynomials": text})
    return model.refine_minimum()


def quadratic_network_model(d: int, outputs: int, width: int, *, n: int = 10**7, seed: int = 0,
                            noise: float = 1.0, data: str = "statistics") -> RegressionModel:
    """Quadratic network ``y = V (W x)^2 + noise`` with a realizable generic teacher.

    Exact learning coefficient: half the certified secant dimension (grokking
    paper, Theorem 4.1), via ``algebra.slt.regular.quadratic_network(d, p, K)``.
    The theorem needs a generic teacher (maximal Jacobian rank of
    ``w -> C(w)``): the teacher's ``W`` has orthonormal rows (in a random
    basis, ``K <= d``; Gaussian rows otherwise) and ``V`` entries of random
    sign and magnitude in ``[0.5, 1.5]``, so no unit is close to switched off.

    Examples
    --------
    >>> m = quadratic_network_model(3, 2, 2, n=10**5, seed=0)
    >>> m.dim, m.composite.in_dim, m.family
    (10, 6, 'quadratic')
    """
    d, outputs, width = _positive_ints("d,outputs,width", (d, outputs, width))
    q = d * (d + 1) // 2
    P = width * (d + outputs)
    terms = [("d", d, q * q + q * outputs, f"the feature covariance ({q} x {q})"),
             ("width", width, _CHAINS * (P + outputs * d * d), f"{_CHAINS} chains of {P} parameters"),
             ("d", d, 100_000 * q, "one chunk of samples")]
    if data == "explicit" and isinstance(n, (int, np.integer)):
        terms.append(("n", n, float(n) * (q + outputs), f"{n} explicit samples"))
    check_memory(terms)
    _check_materialised(n, q)
    comp = QuadraticForms(d, outputs, width)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    G = rng.standard_normal((comp.K, comp.d))
    if comp.K <= comp.d:
        q, _ = np.linalg.qr(G.T)
        G = q.T
    V = rng.choice([-1.0, 1.0], size=(comp.p, comp.K)) * rng.uniform(0.5, 1.5, size=(comp.p, comp.K))
    w0 = comp.pack(G, V)
    C_star = comp.matrix(w0[None])[0]
    if not isinstance(n, (int, np.integer)) or n <= comp.in_dim:
        raise InputError("n", n, f"an integer sample size larger than {comp.in_dim}")
    s = quadratic_statistics(C_star, comp.d, int(n), rng, noise=noise, keep=data == "explicit")
    model = RegressionModel(f"quadratic d={comp.d} p={comp.p} K={comp.K}", comp, s["Sxx"], s["Sxy"],
                            s["syy"], int(n), w0, X=s.get("X"), Y=s.get("Y"), family="quadratic",
                            params={"d": comp.d, "outputs": comp.p, "width": comp.K})
    return model.refine_minimum()
