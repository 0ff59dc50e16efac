"""Softmax-visible interaction geometry of an attention head.

Implements the chain of Sui & Zhang, *The Approximation Rank of Softmax
Attention*, Section 3 and Appendices B, C, F:

* ``u_i = q_i - q_1``, ``U = span{u_i}``, ``s_j = P_U(k_j - k_1)``,
  ``V = span{s_j}``, ``r = dim V`` -- the visible interaction dimension (B.1).
  :func:`exact_visible_dimension` computes ``r`` exactly, as the rank over QQ
  of the logit-difference matrix ``(k_j - k_1)^T (q_i - q_1)`` (a key
  difference has zero projection on ``U`` iff it is orthogonal to every
  ``u_i``), with every float taken as its exact binary64 value.
* Chebyshev radii ``rho_Q``, ``rho_K`` (minimum enclosing balls inside a
  subspace) by :func:`minimum_enclosing_ball`, which returns an upper bound
  (the radius about an explicit centre) and a lower bound (a dual-feasible
  value) and stops when they agree to a relative tolerance.
* The SVD chain (C.1)-(C.9) and (F.1)-(F.2): residual query radius
  ``delta_{Q,r}``, key half-diameter ``omega_{K,r}``, ``tau_r^width``,
  ``tau_r^spec``, ``r_int^SVD(tau)``, ``rho_{Q,r}``, ``rho_{K,r}``,
  ``Gamma_r`` and ``log S_r``.

Everything except :func:`exact_visible_dimension` is float64 numerics (not
certificates); the radii carry a float64 bracket (``radius_upper``,
``radius_lower``) from the minimax solver's duality gap.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from algebra.errors import InputError

__all__ = [
    "minimum_enclosing_ball",
    "brute_force_enclosing_ball",
    "exact_visible_dimension",
    "visible_geometry",
    "InteractionChain",
]


def minimum_enclosing_ball(P, *, tol: float = 1e-9, max_iter: int = 100_000) -> dict:
    """Chebyshev radius ``inf_c max_i ||p_i - c||`` of a finite point set.

    Frank-Wolfe with away steps on the dual problem
    ``max_{lambda in simplex} sum_i lambda_i ||p_i||^2 - ||sum_i lambda_i p_i||^2``
    (Yildirim 2008, linearly convergent).  Every iterate gives a centre
    ``c = sum lambda_i p_i`` (so ``max_i ||p_i - c||`` is an upper bound) and a
    dual value (whose square root is a lower bound, by weak duality).  The
    centre lies in the affine hull of the points, hence inside any subspace
    that contains them.

    Parameters
    ----------
    P : array_like, shape (N, k)
    tol : float
        Stop when ``radius_upper - radius_lower <= tol * radius_upper``.

    Returns
    -------
    dict
        ``center``, ``radius_upper``, ``radius_lower``, ``radius`` (= upper),
        ``iterations``, ``converged``.

    Examples
    --------
    >>> out = minimum_enclosing_ball([[0, 0], [2, 0], [0, 2], [1, 1]])
    >>> round(out["radius"], 9), out["converged"]
    (1.414213562, True)
    >>> minimum_enclosing_ball(np.zeros((0, 2)))
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid P=(0, 2): expected a nonempty (N, k) array of finite numbers
    """
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2 or P.shape[0] == 0 or not np.all(np.isfinite(P)):
        raise InputError("P", P.shape, "a nonempty (N, k) array of finite numbers")
    N = P.shape[0]
    if N == 1 or P.shape[1] == 0:
        c = P[0].copy() if N else np.zeros(P.shape[1])
        return {"center": c, "radius_upper": 0.0, "radius_lower": 0.0, "radius": 0.0,
                "iterations": 0, "converged": True}
    # shift for conditioning; radii are translation invariant
    shift = P.mean(axis=0)
    X = P - shift
    sq = np.einsum("ij,ij->i", X, X)
    lam = np.zeros(N)
    i0 = int(np.argmax(sq))
    j0 = int(np.argmax(np.einsum("ij,ij->i", X - X[i0], X - X[i0])))
    lam[i0] = lam[j0] = 0.5
    if i0 == j0:
        lam[i0] = 1.0
    c = lam @ X
    it = 0
    converged = False
    for it in range(1, max_iter + 1):
        d2 = sq - 2.0 * (X @ c) + c @ c
        f = float(lam @ sq - c @ c)
        j = int(np.argmax(d2))
        up2 = float(d2[j])
        lo2 = max(f, 0.0)
        if up2 <= 0 or math.sqrt(up2) - math.sqrt(lo2) <= tol * math.sqrt(up2):
            converged = True
            break
        support = np.flatnonzero(lam > 0)
        i = int(support[np.argmin(d2[support])])
        gap_fw = up2 - f
        gap_away = f - float(d2[i])
        if gap_fw >= gap_away or lam[i] >= 1.0:
            t = min(1.0, gap_fw / (2.0 * up2))
            lam *= 1.0 - t
            lam[j] += t
            c = c + t * (X[j] - c)
        else:
            di2 = float(d2[i])
            tmax = lam[i] / (1.0 - lam[i])
            t = min(tmax, gap_away / (2.0 * di2)) if di2 > 0 else tmax
            lam *= 1.0 + t
            lam[i] -= t
            if t == tmax:
                lam[i] = 0.0
            c = c + t * (c - X[i])
        lam = np.maximum(lam, 0.0)
        lam /= lam.sum()
        if it % 50 == 0:
            c = lam @ X  # refresh to avoid drift
    d2 = sq - 2.0 * (X @ c) + c @ c
    f = float(lam @ sq - lam @ X @ (lam @ X))
    # upper bound: exact distances to the explicit centre
    up = float(np.sqrt(np.max(np.einsum("ij,ij->i", X - c, X - c))))
    lo = math.sqrt(max(f, 0.0))
    return {"center": c + shift, "radius_upper": up, "radius_lower": min(lo, up), "radius": up,
            "iterations": it, "converged": converged}


def brute_force_enclosing_ball(P) -> float:
    """Chebyshev radius by enumerating circumballs of all supports of size <= k+1.

    Exponential; for testing :func:`minimum_enclosing_ball` on small sets.

    Examples
    --------
    >>> round(brute_force_enclosing_ball([[0, 0], [2, 0], [1, 3]]), 9)
    1.666666667
    """
    P = np.asarray(P, dtype=np.float64)
    N, k = P.shape
    best = math.inf
    for size in range(1, min(N, k + 1) + 1):
        for S in itertools.combinations(range(N), size):
            B = P[list(S)]
            if size == 1:
                c = B[0]
            else:
                D = B[1:] - B[0]
                G = D @ D.T
                rhs = 0.5 * np.einsum("ij,ij->i", D, D)
                try:
                    alpha = np.linalg.solve(G, rhs)
                except np.linalg.LinAlgError:
                    continue
                c = B[0] + alpha @ D
            r = float(np.sqrt(np.max(np.einsum("ij,ij->i", P - c, P - c))))
            best = min(best, r)
    return best


def _to_int_matrix(M: np.ndarray) -> tuple[list[list[int]], int]:
    """Exact integer matrix ``M * 2**(-e)`` for a float64 array, and ``e``."""
    mant, expo = np.frexp(M)
    nz = mant != 0
    if not nz.any():
        return [[0] * M.shape[1] for _ in range(M.shape[0])], 0
    emin = int(expo[nz].min()) - 53
    ints = (mant * 2.0**53).astype(np.int64)
    shifts = (expo - 53 - emin).astype(np.int64)
    rows = []
    for i in range(M.shape[0]):
        rows.append([int(a) << int(s) if a else 0 for a, s in zip(ints[i], shifts[i])])
    return rows, emin


def exact_visible_dimension(Q, K) -> int:
    """Exact visible interaction dimension ``r = dim V`` over the rationals.

    ``r = rank((K - k_1)(Q - q_1)^T)``, computed with python-flint integer
    matrices from the exact binary64 values of ``Q`` and ``K``.

    Examples
    --------
    >>> Q = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    >>> K = [[0, 0, 5], [1, 1, 5], [2, 2, 7]]
    >>> exact_visible_dimension(Q, K)
    1
    >>> exact_visible_dimension(np.eye(3), np.eye(3))
    2
    """
    import flint

    Q = np.asarray(Q, dtype=np.float64)
    K = np.asarray(K, dtype=np.float64)
    if Q.ndim != 2 or K.ndim != 2 or Q.shape[1] != K.shape[1]:
        raise InputError("Q, K", (Q.shape, K.shape), "matrices (m, d) and (n, d)")
    if Q.shape[0] < 2 or K.shape[0] < 2:
        return 0
    def diffs(M):  # exact integer differences, one common power-of-two scale per matrix
        rows, _ = _to_int_matrix(M)
        return [[x - y for x, y in zip(r, rows[0])] for r in rows[1:]]

    Qd, Kd = diffs(Q), diffs(K)
    Qm, Km = flint.fmpz_mat(Qd), flint.fmpz_mat(Kd)
    bound = min(Q.shape[0] - 1, K.shape[0] - 1, Q.shape[1])
    # Fast exact route: rank mod p is a lower bound of the rank over QQ; when it
    # reaches the trivial upper bound min(m-1, n-1, d) the rank is exact.
    p = 2**61 - 1
    Qp = flint.nmod_mat(Qm.nrows(), Qm.ncols(), [int(x) % p for x in Qm.entries()], p)
    Kp = flint.nmod_mat(Km.nrows(), Km.ncols(), [int(x) % p for x in Km.entries()], p)
    rp = (Kp * Qp.transpose()).rank()
    if rp == bound:
        return int(rp)
    return int((Km * Qm.transpose()).rank())


def _orth_basis(M: np.ndarray, rtol: float | None = None) -> np.ndarray:
    """Orthonormal basis (columns) of the row space of ``M`` (numerical rank)."""
    if M.size == 0:
        return np.zeros((M.shape[1], 0))
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    if rtol is None:
        rtol = max(M.shape) * np.finfo(np.float64).eps
    rank = int((s > rtol * (s[0] if len(s) else 0.0)).sum()) if len(s) and s[0] > 0 else 0
    return Vt[:rank].T


def visible_geometry(Q, K, beta: float = 1.0) -> dict:
    """Exact visible quotient: ``U``, ``V``, ``r``, ``rho_Q``, ``rho_K``, ``Gamma`` (B.1), (B.9).

    Returns
    -------
    dict
        ``dim_U`` and ``r_numeric`` (numerical ranks), ``r_exact`` (exact
        rank over QQ), ``rho_Q``, ``rho_K`` (Chebyshev radii of ``P_V u_i`` and
        ``s_j`` with their brackets) and ``Gamma = beta rho_Q rho_K``.

    Examples
    --------
    >>> g = visible_geometry([[0, 0], [1, 0]], [[0, 0], [0, 3], [2, 0]], beta=2.0)
    >>> g["r_exact"], g["rho_Q"], g["rho_K"], g["Gamma"]
    (1, 0.5, 1.0, 1.0)
    """
    Q = np.asarray(Q, dtype=np.float64)
    K = np.asarray(K, dtype=np.float64)
    u = Q - Q[0]
    BU = _orth_basis(u)
    s = (K - K[0]) @ BU
    BV = _orth_basis(s)
    uc = (u @ BU) @ BV
    sc = s @ BV
    mq = minimum_enclosing_ball(uc) if BV.shape[1] else {"radius": 0.0, "radius_lower": 0.0}
    mk = minimum_enclosing_ball(sc) if BV.shape[1] else {"radius": 0.0, "radius_lower": 0.0}
    return {"dim_U": int(BU.shape[1]), "r_numeric": int(BV.shape[1]),
            "r_exact": exact_visible_dimension(Q, K),
            "rho_Q": mq["radius"], "rho_Q_lower": mq["radius_lower"],
            "rho_K": mk["radius"], "rho_K_lower": mk["radius_lower"],
            "Gamma": float(beta) * mq["radius"] * mk["radius"]}


def _log1p_ratio(gamma: float, gap: float) -> float:
    """``log(1 + gamma / gap^2)`` for ``gamma >= 0 < gap``, also where ``gap^2`` underflows (``--eps 1e-300``).

    Examples
    --------
    >>> math.isclose(_log1p_ratio(3.0, 1.0), math.log(4.0)), round(_log1p_ratio(1.0, 1e-300), 3)
    (True, 1381.551)
    """
    q = gap * gap
    if gamma == 0:
        return 0.0
    if gamma <= q:
        return math.log1p(gamma / q)
    return math.log(gamma) - 2 * math.log(gap) + math.log1p(q / gamma)


class InteractionChain:
    """The SVD chain (F.1)-(F.2) for one head in float64, cached across beta and eps.

    Parameters
    ----------
    Q, K : array_like
        Queries (m, d) and keys (n, d).  The temperature is applied later:
        every method takes the inverse temperature ``beta`` multiplying
        ``Q K^T``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> Q = rng.normal(size=(12, 3)); K = rng.normal(size=(12, 3))
    >>> ch = InteractionChain(Q, K)
    >>> ch.r_visible, ch.tau_width(ch.r_visible, 1.0)
    (3, 0.0)
    >>> r = ch.r_int(0.5, 0.1); 0 <= r <= 3 and ch.tau_width(r, 0.5) <= 0.1
    True
    """

    def __init__(self, Q, K):
        Q = np.asarray(Q, dtype=np.float64)
        K = np.asarray(K, dtype=np.float64)
        if Q.ndim != 2 or K.ndim != 2 or Q.shape[1] != K.shape[1] or len(Q) == 0 or len(K) == 0:
            raise InputError("Q, K", (Q.shape, K.shape), "nonempty matrices (m, d) and (n, d)")
        u = Q - Q[0]
        BU = _orth_basis(u)
        self.uc = u @ BU
        self.s = (K - K[0]) @ BU
        Z = self.s - self.s.mean(axis=0)
        _, sig, Vt = np.linalg.svd(Z, full_matrices=False) if Z.size else (None, np.zeros(0), np.zeros((0, 0)))
        tol = max(Z.shape) * np.finfo(np.float64).eps * (sig[0] if len(sig) else 0.0)
        self.r_visible = int((sig > tol).sum()) if len(sig) else 0
        self.sigma = sig
        self.Vt = Vt[:self.r_visible] if len(sig) else np.zeros((0, self.uc.shape[1]))
        self.rho_QU = minimum_enclosing_ball(self.uc)["radius"] if self.uc.shape[1] else 0.0
        self._cache: dict[int, tuple[float, float]] = {}
        self._proj: dict[int, tuple[float, float]] = {}

    def residual(self, r: int) -> tuple[float, float]:
        """``(delta_{Q,r}, omega_{K,r})`` of (C.5) for the top-``r`` SVD subspace."""
        if not 0 <= r <= self.r_visible:
            raise InputError("r", r, f"an integer in [0, {self.r_visible}]")
        if r not in self._cache:
            W = self.Vt[:r]
            xi = self.uc - (self.uc @ W.T) @ W
            zeta = self.s - (self.s @ W.T) @ W
            delta = minimum_enclosing_ball(xi)["radius"] if xi.shape[1] else 0.0
            sq = np.einsum("ij,ij->i", zeta, zeta)
            D2 = sq[:, None] + sq[None, :] - 2.0 * (zeta @ zeta.T)
            omega = 0.5 * math.sqrt(max(float(D2.max()), 0.0))
            if r == self.r_visible:
                omega = 0.0  # residual keys vanish identically (W_r = V)
            self._cache[r] = (delta, omega)
        return self._cache[r]

    def tau_width(self, r: int, beta: float) -> float:
        """``tau_r^width = 2 tanh(beta delta_{Q,r} omega_{K,r} / 2)`` (C.6)."""
        d, w = self.residual(r)
        return 2.0 * math.tanh(beta * d * w / 2.0)

    def tau_spec(self, r: int, beta: float) -> float:
        """``tau_r^spec = 2 tanh(beta rho_{Q,U} sigma_{r+1}(Z) / (2 sqrt 2))`` (C.4)."""
        s = float(self.sigma[r]) if r < len(self.sigma) and r < self.r_visible else 0.0
        return 2.0 * math.tanh(beta * self.rho_QU * s / (2.0 * math.sqrt(2.0)))

    def r_int(self, beta: float, tau: float) -> int:
        """``r_int^SVD(tau) = min{r : tau_r^width <= tau}`` (C.9); binary search (monotone in r)."""
        lo, hi = 0, self.r_visible
        while lo < hi:
            mid = (lo + hi) // 2
            if self.tau_width(mid, beta) <= tau:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def projected_radii(self, r: int) -> tuple[float, float]:
        """``(rho_{Q,r}, rho_{K,r})`` of (C.7)."""
        if r not in self._proj:
            W = self.Vt[:r]
            if r == 0:
                self._proj[r] = (0.0, 0.0)
            else:
                self._proj[r] = (minimum_enclosing_ball(self.uc @ W.T)["radius"],
                                 minimum_enclosing_ball(self.s @ W.T)["radius"])
        return self._proj[r]

    def chain(self, beta: float, eps: float, *, tau: float | None = None) -> dict:
        """The deterministic chain (F.1)-(F.2) at ``r = r_int^SVD(tau)``, default ``tau = eps/3``."""
        if not (0 < eps < 1):
            raise InputError("eps", eps, "a number in (0, 1)")
        tau = eps / 3.0 if tau is None else tau
        r = self.r_int(beta, tau)
        delta, omega = self.residual(r)
        tw = self.tau_width(r, beta)
        rq, rk = self.projected_radii(r)
        gamma = beta * rq * rk
        logS = 0.5 * r * _log1p_ratio(gamma, eps - tw) if tw < eps else math.inf
        return {"r_visible": self.r_visible, "r_int": r, "tau": tau,
                "sigma_next": float(self.sigma[r]) if r < self.r_visible else 0.0,
                "delta_Q": delta, "omega_K": omega, "tau_width": tw,
                "tau_spec": self.tau_spec(r, beta), "rho_Q_r": rq, "rho_K_r": rk,
                "Gamma_r": gamma, "log_S_r": logS}
