"""Batched samplers of the localized tempered posterior (all chains as one array).

The target is the density ``exp(-U(w))`` with potential

    U(w) = nbeta * L_n(w) + gamma/2 * ||w - w*||^2,

the localized tempered posterior of the grokking paper's Appendix B (weight
``nbeta = n * beta``, localization ``gamma``).  Four samplers are provided,
all advancing every chain at once on an array of shape ``(chains, P)``:

``sgld``
    Langevin step ``w <- w - eps/2 grad U + sqrt(eps) xi`` (Welling & Teh
    2011; the devinterp convention), full-batch or minibatch.  With zero
    noise it is exactly a gradient step of size ``eps/2`` on ``U``.
``rmsprop_sgld``
    The same with an RMSProp diagonal preconditioner (Li et al. 2016,
    without the small correction term).
``mala``
    Metropolis-adjusted Langevin: the SGLD proposal plus an accept/reject
    test, so the chain targets ``exp(-U)`` exactly; reports acceptance.
``hmc``
    Hamiltonian Monte Carlo with a fixed number of leapfrog steps and a
    jittered step size, for ground truth on small models.

Randomness: one integer ``seed`` expands with :class:`numpy.random.SeedSequence`
into one child per chain (each child spawns streams for noise, uniforms and
minibatch indices), so a chain's draws do not depend on how many chains run
beside it.  The seed and the chains' spawn keys are recorded in the result.

Divergence: a chain whose parameters or loss become non-finite, or whose
``nbeta * (L - L*)`` exceeds ``divergence_limit``, is frozen at that step,
reported with the step index, and left out of the estimates.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from algebra.errors import InputError

__all__ = ["SamplerRun", "METHODS", "sample"]

METHODS = ("sgld", "rmsprop_sgld", "mala", "hmc")

# Acceptance targets used while adapting the step size during warm-up:
# 0.574 is the optimal MALA rate (Roberts & Rosenthal 1998), 0.65 HMC's
# (Beskos et al. 2013).
ACCEPT_TARGET = {"mala": 0.574, "hmc": 0.65}
# Energy error of one HMC trajectory counted as a divergent transition (Stan's threshold).
ENERGY_DIVERGENCE = 1000.0


@dataclass
class SamplerRun:
    """Raw output of :func:`sample`.

    Attributes
    ----------
    losses : ndarray (chains, draws)
        Full-batch ``L_n`` at every recorded draw (after warm-up).
    loss_star : float
        ``L_n(w*)`` at the reference point.
    nbeta, gamma : float
        Target parameters.
    step_size : ndarray (chains,)
        Step size used after warm-up.
    accept_rate : ndarray (chains,) or None
        Metropolis acceptance after warm-up (MALA, HMC).
    divergent_step : ndarray (chains,) of int
        Step (counted from the first warm-up step) at which the chain
        diverged, or -1.
    seed : int
        The root seed; ``chain_spawn_keys`` identify each chain's stream.
    settings : dict
        Everything needed to rerun.
    radii : ndarray (chains, draws)
        ``||w - w*||^2`` at every recorded draw: the slow coordinate of
        singular models (excursions along flat valleys), which the loss
        trace can hide, used for the parameter-space mixing diagnostic.
    energy_errors : ndarray (chains,) or None
        HMC only: number of recorded transitions whose leapfrog energy
        error exceeded :data:`ENERGY_DIVERGENCE` (Stan's "divergent
        transitions", Betancourt 2017): the step is too large for some
        region of the posterior (a funnel), which the chain then rarely
        enters, so the estimate is biased although every chain agrees.
    """

    losses: np.ndarray
    loss_star: float
    nbeta: float
    gamma: float
    step_size: np.ndarray
    accept_rate: np.ndarray | None
    divergent_step: np.ndarray
    seed: int
    chain_spawn_keys: list
    settings: dict
    final: np.ndarray = field(repr=False, default=None)
    warmup_losses: np.ndarray = field(repr=False, default=None)
    radii: np.ndarray = field(repr=False, default=None)
    energy_errors: np.ndarray = field(repr=False, default=None)

    @property
    def divergent(self) -> np.ndarray:
        return self.divergent_step >= 0


class _Streams:
    """Per-chain random streams, drawn in blocks so the Python loop over chains is rare."""

    def __init__(self, seed: int, chains: int, dim: int, block: int = 256):
        root = np.random.SeedSequence(seed)
        self.children = root.spawn(chains)
        self.spawn_keys = [list(c.spawn_key) for c in self.children]
        self.normal_rngs, self.uniform_rngs, self.batch_rngs = [], [], []
        for c in self.children:
            a, b, d = c.spawn(3)
            self.normal_rngs.append(np.random.default_rng(a))
            self.uniform_rngs.append(np.random.default_rng(b))
            self.batch_rngs.append(np.random.default_rng(d))
        self.dim, self.block = dim, block
        self._normal = None
        self._n_pos = block
        self._unif = None
        self._u_pos = block

    def normal(self) -> np.ndarray:
        if self._n_pos == self.block:
            self._normal = np.stack([g.standard_normal((self.block, self.dim)) for g in self.normal_rngs], axis=1)
            self._n_pos = 0
        out = self._normal[self._n_pos]
        self._n_pos += 1
        return out

    def uniform(self) -> np.ndarray:
        if self._u_pos == self.block:
            self._unif = np.stack([g.random(self.block) for g in self.uniform_rngs], axis=1)
            self._u_pos = 0
        out = self._unif[self._u_pos]
        self._u_pos += 1
        return out

    def batch(self, n: int, size: int) -> np.ndarray:
        return np.stack([g.integers(0, n, size) for g in self.batch_rngs])


def _check_positive(name, value, allow_zero=False):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(name, value, "a finite number") from None
    if not np.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise InputError(name, value, "a finite number >= 0" if allow_zero else "a finite number > 0")
    return v


def sample(model, *, method: str = "mala", nbeta: float, gamma: float = 1.0,
           step_size: float | None = None, num_chains: int = 8, num_draws: int = 1000,
           num_warmup: int = 500, adapt: bool | None = None, batch_size: int | None = None,
           leapfrog_steps: int = 8, noise: float = 1.0, rmsprop_alpha: float = 0.99,
           rmsprop_eps: float = 1e-8, divergence_limit: float | None = None,
           init_scale: float = 0.0, seed: int = 0, keep_warmup: bool = False,
           adapt_mass: bool | None = None, init: np.ndarray | None = None,
           accept_target: float | None = None) -> SamplerRun:
    """Run ``num_chains`` chains of ``method`` on ``exp(-nbeta L_n - gamma/2 ||w - w*||^2)``.

    Parameters
    ----------
    model : object
        Provides ``w_star`` (P,), ``loss(W)`` and ``loss_and_grad(W, batch=None)``
        on batched parameters ``W`` (chains, P); see :mod:`algebra.numeric.models`.
    method : {"sgld", "rmsprop_sgld", "mala", "hmc"}
    nbeta, gamma : float
        Inverse temperature ``n beta`` and localization strength.
    step_size : float, optional
        Initial step ``eps``.  Default: ``0.1 / (nbeta * h + gamma)`` with
        ``h`` the largest Hessian eigenvalue at ``w*`` (power iteration);
        for RMSProp-SGLD ``0.1 / sqrt(nbeta * h + gamma)``, since its
        preconditioner ``1/sqrt(V)`` starts at ``V = nbeta * h + gamma``.
    num_chains, num_draws, num_warmup : int
        Draws are recorded after the warm-up; MALA and HMC adapt ``eps``
        during warm-up (``adapt=True`` by default for them) towards
        :data:`ACCEPT_TARGET` and then fix it to the median over chains.
    batch_size : int, optional
        Minibatch size for SGLD/RMSProp-SGLD gradients (model must hold
        explicit samples); the recorded loss is always the full-batch loss.
    noise : float
        Multiplier of the injected noise (0 turns SGLD into gradient descent).
        MALA proposes from ``N(w - eps/2 grad U, noise^2 eps I)`` and uses that
        density in its acceptance test, so it targets ``exp(-U)`` for every
        ``noise > 0``; HMC has no injected noise (``noise`` must stay 1).
    divergence_limit : float, optional
        A chain diverges when ``nbeta (L - L*)`` exceeds this
        (default ``1000 * (P + 1)``) or anything becomes non-finite.
    adapt_mass : bool, optional
        HMC only (default False): a diagonal mass matrix equal to
        the inverse of the per-coordinate posterior variance, pooled over
        chains from warm-up steps ``[W/5, 2W/5)``; the step-size adaptation
        restarts after it is set.  Coordinates of singular models differ
        in posterior width by orders of magnitude (``nbeta^-1/2`` regular,
        ``nbeta^-1/4`` or flatter singular), which an isotropic step cannot serve.
    init_scale : float
        Chains start at ``w* + init_scale * N(0, I) / sqrt(nbeta)``.
    seed : int
        Root of the :class:`numpy.random.SeedSequence`.
    init : ndarray (chains, P), optional
        Explicit starting points (overrides ``init_scale``).
    accept_target : float, optional
        Acceptance rate the warm-up adapts ``eps`` to (MALA/HMC); default
        :data:`ACCEPT_TARGET` of the method.

    Returns
    -------
    SamplerRun

    Raises
    ------
    InputError
        For an unknown method or a nonpositive parameter.

    Examples
    --------
    >>> from algebra.numeric.models import regular_model
    >>> m = regular_model(2, n=10**6)
    >>> run = sample(m, method="mala", nbeta=100.0, num_chains=4, num_draws=200, num_warmup=200)
    >>> run.losses.shape, bool(run.accept_rate.mean() > 0.3)
    ((4, 200), True)
    >>> sample(m, method="nuts", nbeta=100.0)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid method='nuts': expected one of sgld, rmsprop_sgld, mala, hmc
    """
    if method not in METHODS:
        raise InputError("method", method, "one of " + ", ".join(METHODS))
    nbeta = _check_positive("nbeta", nbeta)
    gamma = _check_positive("gamma", gamma, allow_zero=True)
    noise = _check_positive("noise", noise, allow_zero=method != "mala")
    if method == "hmc" and noise != 1.0:
        # HMC draws a fresh momentum; there is no injected noise to scale
        raise InputError("noise", noise, "1.0 for method='hmc' (it has no injected noise)")
    for name, v, lo in (("num_chains", num_chains, 1), ("num_draws", num_draws, 1),
                        ("num_warmup", num_warmup, 0), ("leapfrog_steps", leapfrog_steps, 1)):
        if not isinstance(v, (int, np.integer)) or v < lo:
            raise InputError(name, v, f"an integer >= {lo}")
    if batch_size is not None:
        if method not in ("sgld", "rmsprop_sgld"):
            raise InputError("batch_size", batch_size, "None for Metropolis-adjusted methods (mala, hmc)")
        if getattr(model, "X", None) is None:
            raise InputError("batch_size", batch_size, "None for a model without explicit samples")
        if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise InputError("batch_size", batch_size, "a positive integer")
    if adapt is None:
        adapt = method in ACCEPT_TARGET
    if accept_target is None:
        accept_target = ACCEPT_TARGET.get(method)
    elif method not in ACCEPT_TARGET or not 0.0 < float(accept_target) < 1.0:
        raise InputError("accept_target", accept_target, "a number in (0, 1), for mala or hmc")
    if adapt_mass is None:
        # off by default: measured on RRR 5x5x4 r=2, DLN (3,3,3,3,3) and QK d=4,
        # warm-up variances (chains still spreading from w*) gave a worse
        # mass matrix than the identity (ESS dropped 2-10x)
        adapt_mass = False
    if adapt_mass and method != "hmc":
        raise InputError("adapt_mass", adapt_mass, "False unless method='hmc'")
    w_star = np.asarray(model.w_star, dtype=float)
    P = w_star.size
    from algebra.numeric.models import check_memory

    # about a dozen (chains, P) arrays live at once (positions, gradients, momenta, proposals)
    check_memory([("num_chains", num_chains, 12.0 * int(num_chains) * P,
                   f"{num_chains} chains of {P} parameters"),
                  ("num_chains", num_chains, 2.0 * int(num_chains) * (int(num_draws) + int(num_warmup)),
                   f"the loss and radius traces ({num_chains} chains x {num_draws} draws)")])
    if divergence_limit is None:
        divergence_limit = 1000.0 * (P + 1)
    stiff = None
    if step_size is None or method == "rmsprop_sgld":
        stiff = nbeta * top_curvature(model) + gamma  # largest curvature of U at w*
    if step_size is None:
        # RMSProp divides by sqrt(V) ~ sqrt(stiff), so its step is in those units
        step_size = 0.1 / (np.sqrt(stiff) if method == "rmsprop_sgld" else stiff)
    step_size = _check_positive("step_size", step_size)

    streams = _Streams(seed, int(num_chains), P)
    C = int(num_chains)
    loss_star = float(model.loss(w_star[None])[0])
    W = np.repeat(w_star[None], C, axis=0)
    if init is not None:
        init = np.asarray(init, dtype=float)
        if init.shape != (C, P):
            raise InputError("init", init.shape, f"an array of shape ({C}, {P})")
        W = init.copy()
    elif init_scale:
        W = W + init_scale * streams.normal() / np.sqrt(nbeta)
    eps = np.full(C, float(step_size))
    inv_mass = np.ones(P)  # diagonal M^-1 (HMC)
    mass_start, mass_end = int(num_warmup) // 5, 2 * int(num_warmup) // 5
    mass_sum = np.zeros(P)
    mass_sq = np.zeros(P)
    mass_count = 0
    adapt_t0 = 0
    log_eps_sum = np.zeros(C)
    log_eps_count = 0

    def potential_and_grad(W, batch=None):
        loss, g = model.loss_and_grad(W, batch) if batch is not None else model.loss_and_grad(W)
        diff = W - w_star
        U = nbeta * loss + 0.5 * gamma * np.sum(diff**2, axis=1)
        return U, nbeta * g + gamma * diff, loss

    total = int(num_warmup) + int(num_draws)
    losses = np.empty((C, int(num_draws)))
    radii = np.empty((C, int(num_draws)))
    warm = np.empty((C, int(num_warmup))) if keep_warmup else None
    divergent_step = np.full(C, -1)
    accepted = np.zeros(C)
    energy_errors = np.zeros(C, dtype=int) if method == "hmc" else None
    v_rms = None
    U, G, loss = potential_and_grad(W)
    n_data = getattr(model, "n", None)

    # proposals that overflow are rejected (or flagged as divergent) below
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(total):
            active = divergent_step < 0
            if method in ("sgld", "rmsprop_sgld"):
                if batch_size is not None:
                    batch = streams.batch(model.X.shape[0], int(batch_size))
                    _, Gb, _ = potential_and_grad(W, batch)
                else:
                    Gb = G
                xi = streams.normal()
                if method == "sgld":
                    W = W - 0.5 * eps[:, None] * Gb + noise * np.sqrt(eps)[:, None] * xi
                else:
                    g2 = Gb**2
                    if v_rms is None:
                        # E_p[(dU/dw_i)^2] = E_p[d^2U/dw_i^2] (integration by parts), so the
                        # curvature is the stationary value of V; starting from g^2 ~ 0 at w*
                        # would blow the first steps up by 1/sqrt(rmsprop_eps)
                        v_rms = np.full_like(W, stiff)
                    v_rms = rmsprop_alpha * v_rms + (1 - rmsprop_alpha) * g2
                    pre = 1.0 / (np.sqrt(v_rms) + rmsprop_eps)
                    W = W - 0.5 * eps[:, None] * pre * Gb + noise * np.sqrt(eps[:, None] * pre) * xi
                U, G, loss = potential_and_grad(W)
                acc = None
            elif method == "mala":
                xi = streams.normal()
                se = eps[:, None]
                mean_fwd = W - 0.5 * se * G
                Wp = mean_fwd + noise * np.sqrt(se) * xi
                Up, Gp, lossp = potential_and_grad(Wp)
                mean_bwd = Wp - 0.5 * se * Gp
                # the proposal is N(mean, noise^2 eps I): its density must use the same
                # variance, or the chain targets exp(-U / noise^2) instead of exp(-U)
                var_q = 2.0 * noise**2 * eps
                log_q_fwd = -np.sum((Wp - mean_fwd) ** 2, axis=1) / var_q
                log_q_bwd = -np.sum((W - mean_bwd) ** 2, axis=1) / var_q
                log_a = (U - Up) + log_q_bwd - log_q_fwd
                log_a = np.where(np.isfinite(log_a), log_a, -np.inf)
                acc = np.exp(np.minimum(log_a, 0.0))
                take = np.log(streams.uniform()) < log_a
                W = np.where(take[:, None], Wp, W)
                U = np.where(take, Up, U)
                G = np.where(take[:, None], Gp, G)
                loss = np.where(take, lossp, loss)
            else:  # hmc
                p = streams.normal() / np.sqrt(inv_mass)
                # step jittered uniformly in [0.5, 1.5] eps per chain and iteration: a fixed
                # trajectory length can be a whole period on near-Gaussian directions and
                # return to its start (measured: regular 2-parameter model, ESS 61 of 4800)
                se = (eps * (0.5 + streams.uniform()))[:, None]
                Wq, Gq = W, G
                pq = p - 0.5 * se * Gq
                for i in range(int(leapfrog_steps)):
                    Wq = Wq + se * inv_mass * pq
                    Uq, Gq, lossq = potential_and_grad(Wq)
                    if i < leapfrog_steps - 1:
                        pq = pq - se * Gq
                pq = pq - 0.5 * se * Gq
                log_a = (U + 0.5 * np.sum(inv_mass * p**2, axis=1)) \
                    - (Uq + 0.5 * np.sum(inv_mass * pq**2, axis=1))
                log_a = np.where(np.isfinite(log_a), log_a, -np.inf)
                if t >= num_warmup:
                    energy_errors += (log_a < -ENERGY_DIVERGENCE) & (divergent_step < 0)
                acc = np.exp(np.minimum(log_a, 0.0))
                take = np.log(streams.uniform()) < log_a
                W = np.where(take[:, None], Wq, W)
                U = np.where(take, Uq, U)
                G = np.where(take[:, None], Gq, G)
                loss = np.where(take, lossq, loss)

            # divergence: non-finite or runaway loss; freeze the chain at w*
            bad = active & (~np.isfinite(loss) | ~np.all(np.isfinite(W), axis=1)
                            | (nbeta * (loss - loss_star) > divergence_limit))
            if np.any(bad):
                divergent_step[bad] = t
                W[bad] = w_star
                U_b, G_b, loss_b = potential_and_grad(W[bad])
                U[bad], G[bad], loss[bad] = U_b, G_b, loss_b

            if t < num_warmup:
                if adapt_mass and mass_start <= t < mass_end:
                    ok = divergent_step < 0
                    mass_sum += W[ok].sum(axis=0)
                    mass_sq += (W[ok] ** 2).sum(axis=0)
                    mass_count += int(ok.sum())
                if adapt_mass and t == mass_end - 1 and mass_count > 1:
                    var = mass_sq / mass_count - (mass_sum / mass_count) ** 2
                    var = np.maximum(var, 1e-12 * max(var.max(), 1e-300))
                    scale = float(np.exp(np.mean(np.log(var))))
                    inv_mass = var / scale
                    # keep the typical step per coordinate: eps * sqrt(inv_mass) ~ eps
                    adapt_t0 = t + 1
                    log_eps_sum[:] = 0.0
                    log_eps_count = 0
                if adapt and acc is not None:
                    # Robbins-Monro on log eps towards the acceptance target
                    rate = 1.0 / (1.0 + max(t - adapt_t0, 0)) ** 0.6
                    eps = eps * np.exp(2.0 * rate * (acc - accept_target))
                    if t >= (num_warmup + adapt_t0) // 2:
                        log_eps_sum += np.log(eps)
                        log_eps_count += 1
                if warm is not None:
                    warm[:, t] = loss
                if t == num_warmup - 1 and adapt and log_eps_count:
                    eps = np.full(C, float(np.exp(np.median(log_eps_sum / log_eps_count))))
            else:
                losses[:, t - num_warmup] = loss
                radii[:, t - num_warmup] = np.sum((W - w_star) ** 2, axis=1)
                if acc is not None:
                    accepted += np.where(divergent_step < 0, acc, 0.0)
    accept_rate = accepted / num_draws if method in ACCEPT_TARGET else None
    losses[divergent_step >= 0] = np.nan
    radii[divergent_step >= 0] = np.nan
    settings = {
        "method": method, "nbeta": nbeta, "gamma": gamma, "step_size": float(step_size),
        "num_chains": C, "num_draws": int(num_draws), "num_warmup": int(num_warmup),
        "adapt": bool(adapt), "batch_size": batch_size, "leapfrog_steps": int(leapfrog_steps),
        "adapt_mass": bool(adapt_mass), "accept_target": accept_target, "noise": noise, "divergence_limit": float(divergence_limit), "init_scale": init_scale,
        "n": n_data,
    }
    return SamplerRun(losses, loss_star, nbeta, gamma, eps.copy(), accept_rate, divergent_step,
                      int(seed), streams.spawn_keys, settings, final=W, warmup_losses=warm,
                      radii=radii, energy_errors=energy_errors)


def top_curvature(model, *, iterations: int = 50, seed: int = 0) -> float:
    """Largest Hessian eigenvalue of ``L_n`` at ``w*`` by power iteration on Hessian-vector products.

    Examples
    --------
    >>> from algebra.numeric.models import regular_model
    >>> round(top_curvature(regular_model(3, n=10**8)), 2)
    1.0
    """
    w = np.asarray(model.w_star, dtype=float)
    v = np.random.default_rng(seed).standard_normal(w.size)
    v /= np.linalg.norm(v)
    lam = 0.0
    for _ in range(iterations):
        hv = model.hessian_vector(w, v[None])[0]
        lam = float(v @ hv)
        norm = np.linalg.norm(hv)
        if norm == 0:
            return 0.0
        v = hv / norm
    return abs(lam)
