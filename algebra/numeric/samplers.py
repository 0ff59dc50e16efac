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

__all__ = ["SamplerRun", "METHODS", "sample", "extend_run"]

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
    inv_mass : ndarray (P,) or None
        HMC's diagonal inverse mass after warm-up (ones unless adapted),
        so that :func:`sample` can continue the chains (``init``,
        ``step_size`` and ``inv_mass`` of this run, ``num_warmup=0``).
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
    inv_mass: np.ndarray = field(repr=False, default=None)

    @property
    def divergent(self) -> np.ndarray:
        return self.divergent_step >= 0


class _Streams:
    """Per-chain random streams, drawn in blocks so the Python loop over chains is rare."""

    def __init__(self, seed: int, chains: int, dim: int, block: int | None = None):
        # a block of normals is (block, chains, dim), built from one (block, dim) draw per chain: at
        # 256 rows that was 2 x 20 MiB per chain at P = 10^4 (the "~56 MiB per chain" of the network-
        # scale runs), so the block holds at most 2^17 numbers per chain (1 MiB).  Each chain's
        # generator yields the same sequence whatever the block (numpy draws consecutively).
        if block is None:
            block = max(1, min(256, (1 << 17) // max(int(dim), 1)))
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


# -- the pieces of one run ------------------------------------------------------------------------
# ``sample`` validates, sets up a _Target, a _Kernel and the starting _Chains, then _run_chains
# applies one step function per iteration (the four share a signature: _STEPS), freezes divergent
# chains, lets _WarmUp adapt the step size (and HMC's mass matrix) and lets _Trace record the draws.


@dataclass(frozen=True)
class _Target:
    """The potential ``U(w) = nbeta L_n(w) + gamma/2 ||w - w*||^2`` of the localized tempered posterior."""

    model: object
    w_star: np.ndarray
    nbeta: float
    gamma: float

    def __call__(self, W, batch=None) -> tuple:
        """``(U, grad U, L_n)`` at every row of ``W``; ``batch`` (chains, b) picks minibatch samples."""
        model = self.model
        loss, g = model.loss_and_grad(W, batch) if batch is not None else model.loss_and_grad(W)
        diff = W - self.w_star
        U = self.nbeta * loss + 0.5 * self.gamma * np.sum(diff**2, axis=1)
        return U, self._grad(g, diff), loss

    def gradient(self, W) -> np.ndarray:
        """``grad U`` alone, as :meth:`__call__` computes it (the leapfrog's inner steps need no ``U``)."""
        return self._grad(self.model.loss_and_grad(W)[1], W - self.w_star)

    def _grad(self, g, diff) -> np.ndarray:
        # gamma = 1 (the calibrated procedure's) multiplies exactly: skip that pass over (chains, P)
        return self.nbeta * g + (diff if self.gamma == 1.0 else self.gamma * diff)


@dataclass
class _Chains:
    """Positions ``W`` (chains, P) of every chain and the potential ``U``, its gradient ``G`` and ``L_n`` there."""

    W: np.ndarray
    U: np.ndarray
    G: np.ndarray
    loss: np.ndarray


@dataclass
class _Kernel:
    """What a step function reads besides the chains and ``eps``: the fixed options and per-method state.

    ``inv_mass`` is HMC's diagonal ``M^-1`` (set by :class:`_WarmUp` when it adapts the mass);
    ``v_rms`` RMSProp-SGLD's running second moments (started at the curvature ``stiff``);
    ``jitter`` HMC's step multipliers ``(low, high)``: uniform between them when ``high / low <= 3``,
    log-uniform otherwise (see :func:`_hmc_step`).
    """

    target: _Target
    streams: _Streams
    noise: float
    batch_size: int | None
    leapfrog_steps: int
    rmsprop_alpha: float
    rmsprop_eps: float
    stiff: float | None
    inv_mass: np.ndarray
    v_rms: np.ndarray | None = None
    jitter: tuple = (0.5, 1.5)


def _drift_gradient(chains: _Chains, kernel: _Kernel) -> np.ndarray:
    """``grad U`` for an unadjusted Langevin step: the full-batch one, or a fresh minibatch's."""
    if kernel.batch_size is None:
        return chains.G
    model = kernel.target.model
    batch = kernel.streams.batch(model.X.shape[0], int(kernel.batch_size))
    return kernel.target(chains.W, batch)[1]


def _sgld_step(chains: _Chains, eps: np.ndarray, kernel: _Kernel) -> tuple:
    """One SGLD step ``w <- w - eps/2 grad U + noise sqrt(eps) xi`` (Welling & Teh 2011).

    Returns
    -------
    (chains, accept, energy_divergent) : tuple
        The moved chains; no acceptance and no energy error (both ``None``).
    """
    Gb = _drift_gradient(chains, kernel)
    xi = kernel.streams.normal()
    W = chains.W - 0.5 * eps[:, None] * Gb + kernel.noise * np.sqrt(eps)[:, None] * xi
    return _Chains(W, *kernel.target(W)), None, None


def _rmsprop_sgld_step(chains: _Chains, eps: np.ndarray, kernel: _Kernel) -> tuple:
    """One SGLD step preconditioned by RMSProp's ``1 / (sqrt(V) + rmsprop_eps)`` (Li et al. 2016).

    Returns
    -------
    (chains, accept, energy_divergent) : tuple
        As :func:`_sgld_step`; ``kernel.v_rms`` is updated.
    """
    Gb = _drift_gradient(chains, kernel)
    xi = kernel.streams.normal()
    g2 = Gb**2
    if kernel.v_rms is None:
        # E_p[(dU/dw_i)^2] = E_p[d^2U/dw_i^2] (integration by parts), so the
        # curvature is the stationary value of V; starting from g^2 ~ 0 at w*
        # would blow the first steps up by 1/sqrt(rmsprop_eps)
        kernel.v_rms = np.full_like(chains.W, kernel.stiff)
    alpha = kernel.rmsprop_alpha
    kernel.v_rms = alpha * kernel.v_rms + (1 - alpha) * g2
    pre = 1.0 / (np.sqrt(kernel.v_rms) + kernel.rmsprop_eps)
    W = chains.W - 0.5 * eps[:, None] * pre * Gb + kernel.noise * np.sqrt(eps[:, None] * pre) * xi
    return _Chains(W, *kernel.target(W)), None, None


def _metropolis(chains: _Chains, proposal: _Chains, log_a: np.ndarray, streams: _Streams) -> _Chains:
    """Each chain moves to its proposal with probability ``min(1, exp(log_a))``."""
    take = np.log(streams.uniform()) < log_a
    return _Chains(np.where(take[:, None], proposal.W, chains.W), np.where(take, proposal.U, chains.U),
                   np.where(take[:, None], proposal.G, chains.G), np.where(take, proposal.loss, chains.loss))


def _mala_step(chains: _Chains, eps: np.ndarray, kernel: _Kernel) -> tuple:
    """One MALA step: the Langevin proposal ``N(w - eps/2 grad U, noise^2 eps I)`` and its Metropolis test.

    Returns
    -------
    (chains, accept, energy_divergent) : tuple
        The chains after the test, the acceptance probabilities, ``None``.
    """
    noise, W, G = kernel.noise, chains.W, chains.G
    xi = kernel.streams.normal()
    se = eps[:, None]
    mean_fwd = W - 0.5 * se * G
    Wp = mean_fwd + noise * np.sqrt(se) * xi
    proposal = _Chains(Wp, *kernel.target(Wp))
    mean_bwd = Wp - 0.5 * se * proposal.G
    # the proposal is N(mean, noise^2 eps I): its density must use the same
    # variance, or the chain targets exp(-U / noise^2) instead of exp(-U)
    var_q = 2.0 * noise**2 * eps
    log_q_fwd = -np.sum((Wp - mean_fwd) ** 2, axis=1) / var_q
    log_q_bwd = -np.sum((W - mean_bwd) ** 2, axis=1) / var_q
    log_a = (chains.U - proposal.U) + log_q_bwd - log_q_fwd
    log_a = np.where(np.isfinite(log_a), log_a, -np.inf)
    acc = np.exp(np.minimum(log_a, 0.0))
    return _metropolis(chains, proposal, log_a, kernel.streams), acc, None


def _hmc_step(chains: _Chains, eps: np.ndarray, kernel: _Kernel) -> tuple:
    """One HMC transition: ``leapfrog_steps`` leapfrog steps of a jittered size, then the Metropolis test.

    Returns
    -------
    (chains, accept, energy_divergent) : tuple
        The chains after the test, the acceptance probabilities, and which trajectories' energy
        error exceeded :data:`ENERGY_DIVERGENCE`.
    """
    streams, inv_mass, steps = kernel.streams, kernel.inv_mass, kernel.leapfrog_steps
    # with the unit mass (the default) every product with ``inv_mass`` is exact, so leaving them out
    # changes no bit of the chains and saves passes over (chains, P) arrays at every leapfrog step
    unit = bool(np.all(inv_mass == 1.0))
    p = streams.normal() if unit else streams.normal() / np.sqrt(inv_mass)
    # step jittered per chain and iteration: a fixed trajectory length can be a
    # whole period on near-Gaussian directions and return to its start
    # (measured: regular 2-parameter model, ESS 61 of 4800).  A wide, log-uniform
    # jitter also gives a chain on a funnel arm, where the adapted step is past
    # the local stability limit, some steps short enough to move there.
    lo, hi = kernel.jitter
    u = streams.uniform()
    mult = lo + (hi - lo) * u if hi <= 3 * lo else lo * (hi / lo) ** u
    se = (eps * mult)[:, None]
    drift = se if unit else se * inv_mass  # the same factor at every leapfrog step, formed once
    Wq, Gq = chains.W, chains.G
    pq = p - 0.5 * se * Gq
    for i in range(int(steps)):
        Wq = Wq + drift * pq
        if i < steps - 1:
            pq = pq - se * kernel.target.gradient(Wq)
        else:  # the potential and the loss only where the trajectory ends
            Uq, Gq, lossq = kernel.target(Wq)
    pq = pq - 0.5 * se * Gq
    if unit:
        log_a = (chains.U + 0.5 * np.sum(p**2, axis=1)) - (Uq + 0.5 * np.sum(pq**2, axis=1))
    else:
        log_a = (chains.U + 0.5 * np.sum(inv_mass * p**2, axis=1)) \
            - (Uq + 0.5 * np.sum(inv_mass * pq**2, axis=1))
    log_a = np.where(np.isfinite(log_a), log_a, -np.inf)
    wild = log_a < -ENERGY_DIVERGENCE
    acc = np.exp(np.minimum(log_a, 0.0))
    return _metropolis(chains, _Chains(Wq, Uq, Gq, lossq), log_a, streams), acc, wild


#: One step function per method, all ``step(chains, eps, kernel) -> (chains, accept, energy_divergent)``.
_STEPS = {"sgld": _sgld_step, "rmsprop_sgld": _rmsprop_sgld_step, "mala": _mala_step, "hmc": _hmc_step}


class _WarmUp:
    """Warm-up adaptation shared by every method.

    Step size: Robbins-Monro on ``log eps`` towards ``accept_target`` (methods that report an
    acceptance), averaged over the second half of the warm-up (or of what is left of it after the
    last mass update) and fixed at the end: to the median over chains (``step_pool="median"``) or
    to each chain's own average (``"chain"``: a chain that spent the warm-up in a narrow region
    keeps the small step it needs there).

    Mass (HMC only):

    ``adapt_mass=True``
        One window: the pooled per-coordinate variance of warm-up steps ``[W/5, 2W/5)``.
    ``adapt_mass="windowed"``
        Stan's windowed adaptation (Stan Reference Manual, "HMC algorithm parameters"): an
        initial buffer of 15% of the warm-up, then slow windows of 25, 50, 100, ... steps (the
        last stretched to end where a terminal buffer of 10% starts); at the end of each window
        the pooled variance of the live chains' positions over that window, shrunk towards a
        small multiple of its median as Stan shrinks towards ``10^-3``
        (``k/(k+5) var + 5/(k+5) 10^-3 median(var)`` for ``k`` steps), becomes ``M^-1``.

    Either way ``M^-1`` is normalised to geometric mean 1 (so ``eps`` keeps its meaning as the
    typical step) and the step-size adaptation restarts after each update.
    """

    def __init__(self, chains: int, dim: int, num_warmup: int, *, adapt: bool, adapt_mass, accept_target,
                 step_pool: str = "median"):
        self.chains, self.num_warmup = chains, num_warmup
        self.adapt, self.adapt_mass, self.accept_target = adapt, adapt_mass, accept_target
        self.step_pool = step_pool
        self.windows = _mass_windows(num_warmup, adapt_mass)
        self.dim = dim
        self._reset_window()
        self.t0 = 0  # the step the step-size adaptation (re)started at
        self.log_eps_sum, self.log_eps_count = np.zeros(chains), 0

    def _reset_window(self) -> None:
        self.mass_sum, self.mass_sq, self.mass_count = np.zeros(self.dim), np.zeros(self.dim), 0
        self.window_steps = 0

    def _mass(self, t: int, W: np.ndarray, ok: np.ndarray, kernel: _Kernel) -> None:
        """Pool the live chains' positions in the current window; at its end set ``kernel.inv_mass``."""
        window = next(((a, b) for a, b in self.windows if a <= t < b), None)
        if window is None:
            return
        self.mass_sum += W[ok].sum(axis=0)
        self.mass_sq += (W[ok] ** 2).sum(axis=0)
        self.mass_count += int(ok.sum())
        self.window_steps += 1
        if t == window[1] - 1 and self.mass_count > 1:
            var = self.mass_sq / self.mass_count - (self.mass_sum / self.mass_count) ** 2
            var = np.maximum(var, 1e-12 * max(float(var.max()), 1e-300))
            if self.adapt_mass == "windowed":
                k = self.window_steps
                var = k / (k + 5.0) * var + 5.0 / (k + 5.0) * 1e-3 * float(np.median(var))
            scale = float(np.exp(np.mean(np.log(var))))
            kernel.inv_mass = var / scale
            self.t0 = t + 1
            self.log_eps_sum[:] = 0.0
            self.log_eps_count = 0
            self._reset_window()

    def update(self, t: int, W: np.ndarray, ok: np.ndarray, accept, eps: np.ndarray, kernel: _Kernel) -> np.ndarray:
        """The step sizes after warm-up step ``t`` (``ok``: chains not diverged; ``accept`` may be None)."""
        if self.adapt_mass:
            self._mass(t, W, ok, kernel)
        if self.adapt and accept is not None:
            # Robbins-Monro on log eps towards the acceptance target
            rate = 1.0 / (1.0 + max(t - self.t0, 0)) ** 0.6
            eps = eps * np.exp(2.0 * rate * (accept - self.accept_target))
            if t >= (self.num_warmup + self.t0) // 2:
                self.log_eps_sum += np.log(eps)
                self.log_eps_count += 1
        if t == self.num_warmup - 1 and self.adapt and self.log_eps_count:
            mean_log = self.log_eps_sum / self.log_eps_count
            if self.step_pool == "chain":
                eps = np.exp(mean_log)
            else:
                eps = np.full(self.chains, float(np.exp(np.median(mean_log))))
        return eps


def _mass_windows(num_warmup: int, adapt_mass) -> list:
    """The ``[start, end)`` warm-up steps whose positions set the mass matrix (:class:`_WarmUp`).

    Examples
    --------
    >>> _mass_windows(1000, True)
    [(200, 400)]
    >>> _mass_windows(1000, "windowed")
    [(150, 175), (175, 225), (225, 325), (325, 900)]
    >>> _mass_windows(1000, False)
    []
    """
    W = int(num_warmup)
    if not adapt_mass:
        return []
    if adapt_mass is not True:
        start, end = int(0.15 * W), W - int(0.1 * W)
        out, size, a = [], 25, start
        while a + size < end:
            b = a + size
            if b + 2 * size > end:  # the next window would not fit: stretch this one to the end
                b = end
            out.append((a, b))
            a, size = b, 2 * size
        return [w for w in out if w[1] > w[0]] or ([(start, end)] if end > start else [])
    return [(W // 5, 2 * W // 5)] if 2 * W // 5 > W // 5 else []


class _Trace:
    """The recorded loss and radius traces, warm-up losses, acceptance sums and HMC energy errors."""

    def __init__(self, chains: int, num_draws: int, num_warmup: int, *, keep_warmup: bool, hmc: bool):
        self.losses, self.radii = np.empty((chains, num_draws)), np.empty((chains, num_draws))
        self.warm = np.empty((chains, num_warmup)) if keep_warmup else None
        self.accepted = np.zeros(chains)
        self.energy_errors = np.zeros(chains, dtype=int) if hmc else None

    def record(self, i: int, chains: _Chains, accept, ok: np.ndarray, w_star: np.ndarray) -> None:
        """Draw ``i`` (counted after the warm-up); ``ok``: the chains not diverged."""
        self.losses[:, i] = chains.loss
        self.radii[:, i] = np.sum((chains.W - w_star) ** 2, axis=1)
        if accept is not None:
            self.accepted += np.where(ok, accept, 0.0)


def _freeze_divergent(chains: _Chains, active: np.ndarray, t: int, divergent_step: np.ndarray, target: _Target,
                      loss_star: float, divergence_limit: float) -> None:
    """Chains that were ``active`` and now have a non-finite or runaway loss are frozen at ``w*`` (in place)."""
    W, loss = chains.W, chains.loss
    bad = active & (~np.isfinite(loss) | ~np.all(np.isfinite(W), axis=1)
                    | (target.nbeta * (loss - loss_star) > divergence_limit))
    if np.any(bad):
        divergent_step[bad] = t
        W[bad] = target.w_star
        U_b, G_b, loss_b = target(W[bad])
        chains.U[bad], chains.G[bad], loss[bad] = U_b, G_b, loss_b


def _run_chains(step, chains: _Chains, eps: np.ndarray, kernel: _Kernel, warmup: _WarmUp, trace: _Trace, *,
                total: int, loss_star: float, divergence_limit: float, progress: str | None = None) -> tuple:
    """Apply ``step`` ``total`` times (warm-up first); returns ``(chains, eps, divergent_step)``.

    ``progress``: a tqdm bar with this description on stderr.
    """
    target, num_warmup = kernel.target, warmup.num_warmup
    divergent_step = np.full(len(eps), -1)
    steps = range(total)
    if progress is not None:
        from tqdm.auto import tqdm

        steps = tqdm(steps, desc=progress, unit="step", leave=True, mininterval=1.0, disable=False)
    # proposals that overflow are rejected (or flagged as divergent) below
    with np.errstate(over="ignore", invalid="ignore"):
        for t in steps:
            active = divergent_step < 0
            chains, acc, wild = step(chains, eps, kernel)
            if wild is not None and t >= num_warmup:
                trace.energy_errors += wild & (divergent_step < 0)
            _freeze_divergent(chains, active, t, divergent_step, target, loss_star, divergence_limit)
            if t < num_warmup:
                eps = warmup.update(t, chains.W, divergent_step < 0, acc, eps, kernel)
                if trace.warm is not None:
                    trace.warm[:, t] = chains.loss
            else:
                trace.record(t - num_warmup, chains, acc, divergent_step < 0, target.w_star)
    return chains, eps, divergent_step


def _check_options(model, method, nbeta, gamma, noise, counts: dict, batch_size, adapt, accept_target,
                   adapt_mass) -> tuple:
    """Refuse bad options of :func:`sample` (``InputError`` naming the argument); returns
    ``(nbeta, gamma, noise, adapt, accept_target, adapt_mass)`` with the defaults filled in."""
    if method not in METHODS:
        raise InputError("method", method, "one of " + ", ".join(METHODS))
    nbeta = _check_positive("nbeta", nbeta)
    gamma = _check_positive("gamma", gamma, allow_zero=True)
    noise = _check_positive("noise", noise, allow_zero=method != "mala")
    if method == "hmc" and noise != 1.0:
        # HMC draws a fresh momentum; there is no injected noise to scale
        raise InputError("noise", noise, "1.0 for method='hmc' (it has no injected noise)")
    for name, (v, lo) in counts.items():
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
    if adapt_mass not in (False, True, "windowed"):
        raise InputError("adapt_mass", adapt_mass, "False, True or 'windowed'")
    if adapt_mass and method != "hmc":
        raise InputError("adapt_mass", adapt_mass, "False unless method='hmc'")
    return nbeta, gamma, noise, adapt, accept_target, adapt_mass


def _initial_step_size(model, method: str, nbeta: float, gamma: float, step_size) -> tuple:
    """``(step_size, stiff)``: the checked initial ``eps`` (default ``0.1 / stiff``, RMSProp
    ``0.1 / sqrt(stiff)``) and ``stiff = nbeta h + gamma``, where needed (else ``None``)."""
    stiff = None
    if step_size is None or method == "rmsprop_sgld":
        stiff = nbeta * top_curvature(model) + gamma  # largest curvature of U at w*
    if step_size is None:
        # RMSProp divides by sqrt(V) ~ sqrt(stiff), so its step is in those units
        step_size = 0.1 / (np.sqrt(stiff) if method == "rmsprop_sgld" else stiff)
    arr = np.asarray(step_size, dtype=float) if not isinstance(step_size, str) else None
    if arr is not None and arr.ndim == 1:
        if not np.all(np.isfinite(arr)) or not np.all(arr > 0):
            raise InputError("step_size", step_size, "finite numbers > 0")
        return arr, stiff
    return _check_positive("step_size", step_size), stiff


def _initial_positions(w_star: np.ndarray, chains: int, init, init_scale: float, nbeta: float,
                       streams: _Streams) -> np.ndarray:
    """``init`` (checked to be (chains, P)), else ``w* + init_scale N(0, I) / sqrt(nbeta)``."""
    W = np.repeat(w_star[None], chains, axis=0)
    if init is not None:
        init = np.asarray(init, dtype=float)
        if init.shape != (chains, w_star.size):
            raise InputError("init", init.shape, f"an array of shape ({chains}, {w_star.size})")
        return init.copy()
    if init_scale:
        W = W + init_scale * streams.normal() / np.sqrt(nbeta)
    return W


def sample(model, *, method: str = "mala", nbeta: float, gamma: float = 1.0,
           step_size: float | None = None, num_chains: int = 8, num_draws: int = 1000,
           num_warmup: int = 500, adapt: bool | None = None, batch_size: int | None = None,
           leapfrog_steps: int = 8, noise: float = 1.0, rmsprop_alpha: float = 0.99,
           rmsprop_eps: float = 1e-8, divergence_limit: float | None = None,
           init_scale: float = 0.0, seed: int = 0, keep_warmup: bool = False,
           adapt_mass: bool | str | None = None, init: np.ndarray | None = None,
           accept_target: float | None = None, inv_mass: np.ndarray | None = None,
           jitter: tuple = (0.5, 1.5), step_pool: str = "median", progress: str | None = None) -> SamplerRun:
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
    step_size : float or ndarray (chains,), optional
        An array gives every chain its own step (to continue a run: its ``step_size``).
    inv_mass : ndarray (P,), optional
        HMC's starting diagonal ``M^-1`` (default ones; to continue a run: its ``inv_mass``).
    jitter : (float, float)
        HMC's step multipliers per chain and transition: uniform in ``[low, high]`` when
        ``high <= 3 low`` (default ``(0.5, 1.5)``), log-uniform otherwise.
    step_pool : {"median", "chain"}
        How the adapted steps are fixed at the end of the warm-up: the median over chains, or
        each chain's own.
    progress : str, optional
        Show a tqdm bar (stderr) with this description.

    Returns
    -------
    SamplerRun

    Raises
    ------
    InputError
        For an unknown method or a nonpositive parameter.

    Examples
    --------
    >>> from algebra.numeric.models import linear_regression_model
    >>> m = linear_regression_model(2, n=10**6)
    >>> run = sample(m, method="mala", nbeta=100.0, num_chains=4, num_draws=200, num_warmup=200)
    >>> run.losses.shape, bool(run.accept_rate.mean() > 0.3)
    ((4, 200), True)
    >>> sample(m, method="nuts", nbeta=100.0)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid method='nuts': expected one of sgld, rmsprop_sgld, mala, hmc
    """
    if step_pool not in ("median", "chain"):
        raise InputError("step_pool", step_pool, "'median' or 'chain'")
    try:
        jitter = (float(jitter[0]), float(jitter[1]))
    except (TypeError, ValueError, IndexError):
        raise InputError("jitter", jitter, "two numbers 0 < low <= high") from None
    if not (np.isfinite(jitter[0]) and np.isfinite(jitter[1]) and 0 < jitter[0] <= jitter[1]):
        raise InputError("jitter", jitter, "two finite numbers 0 < low <= high")
    counts = {"num_chains": (num_chains, 1), "num_draws": (num_draws, 1), "num_warmup": (num_warmup, 0),
              "leapfrog_steps": (leapfrog_steps, 1)}
    nbeta, gamma, noise, adapt, accept_target, adapt_mass = _check_options(
        model, method, nbeta, gamma, noise, counts, batch_size, adapt, accept_target, adapt_mass)
    w_star = np.asarray(model.w_star, dtype=float)
    P, C = w_star.size, int(num_chains)
    from algebra.numeric.models import check_memory

    # about a dozen (chains, P) arrays live at once (positions, gradients, momenta, proposals)
    check_memory([("num_chains", num_chains, 12.0 * int(num_chains) * P,
                   f"{num_chains} chains of {P} parameters"),
                  ("num_chains", num_chains, 2.0 * int(num_chains) * (int(num_draws) + int(num_warmup)),
                   f"the loss and radius traces ({num_chains} chains x {num_draws} draws)")])
    if divergence_limit is None:
        divergence_limit = 1000.0 * (P + 1)
    step_size, stiff = _initial_step_size(model, method, nbeta, gamma, step_size)

    streams = _Streams(seed, C, P)
    target = _Target(model, w_star, nbeta, gamma)
    loss_star = float(model.loss(w_star[None])[0])
    W = _initial_positions(w_star, C, init, init_scale, nbeta, streams)
    if inv_mass is None:
        inv_mass = np.ones(P)
    else:
        inv_mass = np.asarray(inv_mass, dtype=float)
        if inv_mass.shape != (P,) or not np.all(np.isfinite(inv_mass)) or not np.all(inv_mass > 0):
            raise InputError("inv_mass", inv_mass.shape, f"{P} finite numbers > 0")
    eps0 = np.asarray(step_size, dtype=float)
    if eps0.ndim == 1 and eps0.shape != (C,):
        raise InputError("step_size", eps0.shape, f"a number or an array of {C} numbers (one per chain)")
    kernel = _Kernel(target, streams, noise, batch_size, leapfrog_steps, rmsprop_alpha, rmsprop_eps, stiff,
                     inv_mass=inv_mass.copy(), jitter=jitter)
    warmup = _WarmUp(C, P, int(num_warmup), adapt=adapt, adapt_mass=adapt_mass, accept_target=accept_target,
                     step_pool=step_pool)
    trace = _Trace(C, int(num_draws), int(num_warmup), keep_warmup=keep_warmup, hmc=method == "hmc")
    chains, eps, divergent_step = _run_chains(
        _STEPS[method], _Chains(W, *target(W)), np.broadcast_to(eps0, (C,)).astype(float), kernel, warmup, trace,
        total=int(num_warmup) + int(num_draws), loss_star=loss_star, divergence_limit=divergence_limit,
        progress=progress)

    accept_rate = trace.accepted / num_draws if method in ACCEPT_TARGET else None
    trace.losses[divergent_step >= 0] = np.nan
    trace.radii[divergent_step >= 0] = np.nan
    settings = {
        "method": method, "nbeta": nbeta, "gamma": gamma,
        "step_size": float(step_size) if eps0.ndim == 0 else "per chain", "jitter": list(jitter),
        "step_pool": step_pool,
        "num_chains": C, "num_draws": int(num_draws), "num_warmup": int(num_warmup),
        "adapt": bool(adapt), "batch_size": batch_size, "leapfrog_steps": int(leapfrog_steps),
        "adapt_mass": adapt_mass if adapt_mass == "windowed" else bool(adapt_mass), "accept_target": accept_target, "noise": noise,
        "divergence_limit": float(divergence_limit), "init_scale": init_scale, "n": getattr(model, "n", None),
    }
    return SamplerRun(trace.losses, loss_star, nbeta, gamma, eps.copy(), accept_rate, divergent_step,
                      int(seed), streams.spawn_keys, settings, final=chains.W, warmup_losses=trace.warm,
                      radii=trace.radii, energy_errors=trace.energy_errors, inv_mass=kernel.inv_mass.copy())


def extend_run(model, run: SamplerRun, *, num_draws: int, seed: int, progress: str | None = None) -> SamplerRun:
    """``run`` continued by ``num_draws`` more draws: no warm-up, its final positions, steps and mass.

    The continuation draws from the child streams of ``seed`` (give a seed not used before);
    a chain that had diverged stays out (its draws stay NaN).  The settings record every
    continuation's seed and length under ``"extended"``.

    Examples
    --------
    >>> from algebra.numeric.models import linear_regression_model
    >>> m = linear_regression_model(2, n=10**9)
    >>> run = sample(m, method="hmc", nbeta=1e4, num_chains=4, num_draws=100, num_warmup=100, seed=0)
    >>> longer = extend_run(m, run, num_draws=50, seed=1)
    >>> longer.losses.shape, longer.settings["extended"]
    ((4, 150), [[1, 50]])
    """
    st = run.settings
    more = sample(model, method=st["method"], nbeta=run.nbeta, gamma=run.gamma,
                  step_size=np.asarray(run.step_size, dtype=float), num_chains=st["num_chains"],
                  num_draws=int(num_draws), num_warmup=0, adapt=False, batch_size=st.get("batch_size"),
                  leapfrog_steps=st["leapfrog_steps"], noise=st["noise"], divergence_limit=st["divergence_limit"],
                  seed=int(seed), init=run.final, accept_target=st.get("accept_target"),
                  inv_mass=run.inv_mass, jitter=tuple(st.get("jitter", (0.5, 1.5))),
                  step_pool=st.get("step_pool", "median"), progress=progress)
    old_n = run.losses.shape[1]
    total = st["num_warmup"] + old_n  # steps so far: old_n counts the earlier continuations' draws too
    was = run.divergent_step >= 0
    div = np.where(was, run.divergent_step, np.where(more.divergent_step >= 0, more.divergent_step + total, -1))
    losses = np.concatenate([run.losses, more.losses], axis=1)
    radii = np.concatenate([run.radii, more.radii], axis=1)
    losses[div >= 0] = np.nan
    radii[div >= 0] = np.nan
    acc = None
    if run.accept_rate is not None:
        acc = (run.accept_rate * old_n + more.accept_rate * int(num_draws)) / (old_n + int(num_draws))
    energy = None if run.energy_errors is None else run.energy_errors + more.energy_errors
    settings = dict(st, extended=[*st.get("extended", []), [int(seed), int(num_draws)]])
    return SamplerRun(losses, run.loss_star, run.nbeta, run.gamma, run.step_size, acc, div, run.seed,
                      run.chain_spawn_keys, settings, final=more.final, warmup_losses=run.warmup_losses,
                      radii=radii, energy_errors=energy, inv_mass=run.inv_mass)


def top_curvature(model, *, iterations: int = 50, seed: int = 0) -> float:
    """Largest Hessian eigenvalue of ``L_n`` at ``w*`` by power iteration on Hessian-vector products.

    Examples
    --------
    >>> from algebra.numeric.models import linear_regression_model
    >>> round(top_curvature(linear_regression_model(3, n=10**8)), 2)
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
