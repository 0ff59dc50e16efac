"""Local learning coefficient estimators with honest error bars.

Chain-wise estimator (grokking paper, Appendix B, eq. after (7))::

    lambda_hat_beta = nbeta * (1/T sum_t L_n(w_t) - L_n(w*)),

averaged over chains.  Its standard error is ``nbeta * sd(L) / sqrt(ESS)``
with the multi-chain effective sample size of
:func:`algebra.numeric.diagnostics.effective_sample_size`, so within-chain
autocorrelation *and* disagreement between chains widen the interval (not
only the spread of the chain means, as devinterp's ``llc/std``).

Temperature fit (same appendix, "Temperature sweep"): since
``nbeta (E L - L*) = lambda - (m - 1)/log(nbeta) + o(1)`` (eq. (7)),
:func:`multi_temperature` regresses ``lambda_hat_j`` on ``1/log(nbeta_j)``
by weighted least squares.  The calibration uses the fit as a diagnostic
only (its slope bounds the remaining bias; its intercept is not reported:
at reachable ``nbeta`` the ``o(1)`` terms dominate on m = 1 models, see
:mod:`algebra.numeric.calibration`).  :func:`tempered_expectation` computes
the exact finite-``nbeta`` target by quadrature for models with at most two
parameters, the reference that tests hold the samplers to.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from algebra.errors import InputError
from algebra.numeric.diagnostics import burnin_report, effective_sample_size, split_rhat

__all__ = ["LLCEstimate", "estimate_llc", "MultiTemperatureEstimate", "multi_temperature",
           "tempered_expectation"]

Z95 = 1.959963984540054


@dataclass(frozen=True)
class LLCEstimate:
    """One chain-wise LLC estimate at a single ``nbeta``.

    Attributes
    ----------
    estimate, stderr : float
        Mean over non-divergent chains and its ESS-based standard error.
    ci95 : tuple of float
        ``estimate -+ 1.96 stderr``.
    chain_estimates : tuple of float
        Per-chain ``nbeta (mean L - L*)`` (NaN for divergent chains).
    ess, rhat : float
        Effective sample size of the loss trace and split R-hat.
    burnin : int
        Draws discarded by :func:`~algebra.numeric.diagnostics.detect_burnin`
        (searched over the whole trace, so it can exceed ``num_draws``, the
        draws kept).
    num_draws : int
        Draws kept after the burn-in.
    divergent : tuple of (chain, step)
        Chains left out, with the step at which each diverged.
    accept_rate : float or None
        Mean Metropolis acceptance (MALA/HMC).
    seed : int
        Root seed of the run; ``chain_spawn_keys`` name each chain's stream.
    rhat_radius : float
        Split R-hat of ``||w - w*||^2`` (NaN when the run has no radius
        trace).  Informational, not part of the verdict: it also flags the
        slow drift along exactly flat gauge orbits of factorised models
        (``B A = (B G)(G^-1 A)``), which does not bias the loss (measured:
        1.3-2.2 on RRR and DLN models whose estimates are accurate).
    energy_divergence_fraction : float or None
        HMC only: fraction of recorded transitions of the kept chains whose
        energy error exceeded :data:`~algebra.numeric.samplers.ENERGY_DIVERGENCE`.
        Informational: at the calibration's acceptance target 0.65 it is
        6-32% on every singular model of the suite, accurate or not (the
        step jitter up to ``1.5 eps`` alone crosses the leapfrog stability
        limit on some transitions); at 0.9 it is <= 1% except on funnels.
    """

    estimate: float
    stderr: float
    ci95: tuple
    chain_estimates: tuple
    ess: float
    rhat: float
    burnin: int
    num_draws: int
    nbeta: float
    divergent: tuple
    accept_rate: float | None
    seed: int
    chain_spawn_keys: tuple = field(repr=False, default=())
    settings: dict = field(repr=False, default_factory=dict)
    rhat_radius: float = float("nan")
    energy_divergence_fraction: float | None = None
    burnin_at_window_end: bool = False

    def to_json(self) -> dict:
        return {
            "estimate": self.estimate, "stderr": self.stderr, "ci95": list(self.ci95),
            "chain_estimates": [None if math.isnan(v) else v for v in self.chain_estimates],
            "ess": self.ess, "rhat": self.rhat, "burnin": self.burnin, "num_draws": self.num_draws,
            "nbeta": self.nbeta, "divergent": [list(d) for d in self.divergent],
            "accept_rate": self.accept_rate, "seed": self.seed, "settings": dict(self.settings),
            "rhat_radius": None if math.isnan(self.rhat_radius) else self.rhat_radius,
            "energy_divergence_fraction": self.energy_divergence_fraction,
            "burnin_at_window_end": self.burnin_at_window_end,
        }


def estimate_llc(run, *, burnin: int | str = "auto") -> LLCEstimate:
    """Chain-wise LLC estimate from a :class:`~algebra.numeric.samplers.SamplerRun`.

    Parameters
    ----------
    run : SamplerRun
    burnin : int or "auto"
        Draws to drop at the start of every chain; ``"auto"`` uses MSER.

    Raises
    ------
    InputError
        If every chain diverged or ``burnin`` leaves fewer than 8 draws.

    Examples
    --------
    >>> from algebra.numeric.models import linear_regression_model
    >>> from algebra.numeric.samplers import sample
    >>> run = sample(linear_regression_model(2, n=10**9), method="hmc", nbeta=1e4, num_chains=8,
    ...              num_draws=400, num_warmup=200, seed=3)
    >>> est = estimate_llc(run)
    >>> abs(est.estimate - 1.0) < 4 * est.stderr   # exact lambda = 2/2
    True
    """
    losses = np.asarray(run.losses, dtype=float)
    ok = run.divergent_step < 0
    divergent = tuple((int(c), int(s)) for c, s in enumerate(run.divergent_step) if s >= 0)
    if not np.any(ok):
        raise InputError("run", "all chains diverged", "at least one non-divergent chain")
    good = losses[ok]
    at_end = False
    if burnin == "auto":
        report = burnin_report(good)
        b, at_end = report["burnin"], report["at_window_end"]
    elif isinstance(burnin, (int, np.integer)) and burnin >= 0:
        b = int(burnin)
    else:
        raise InputError("burnin", burnin, "'auto' or a nonnegative integer")
    if good.shape[1] - b < 8:
        raise InputError("burnin", burnin, f"at most {good.shape[1] - 8} (8 draws must remain)")
    kept = good[:, b:]
    scaled = run.nbeta * (kept - run.loss_star)
    per_chain = np.full(losses.shape[0], np.nan)
    per_chain[ok] = scaled.mean(axis=1)
    est = float(scaled.mean())
    ess = effective_sample_size(scaled)
    sd = float(scaled.std(ddof=1))
    se = sd / math.sqrt(max(ess, 1.0))
    rhat = split_rhat(scaled) if scaled.shape[1] >= 8 else float("nan")
    acc = None if run.accept_rate is None else float(np.mean(run.accept_rate[ok]))
    radii = getattr(run, "radii", None)
    rhat_r = float("nan")
    if radii is not None and kept.shape[1] >= 8:
        rhat_r = split_rhat(np.asarray(radii, dtype=float)[ok][:, b:])
    return LLCEstimate(est, se, (est - Z95 * se, est + Z95 * se), tuple(per_chain.tolist()),
                       ess, rhat, b, int(kept.shape[1]), float(run.nbeta), divergent, acc,
                       int(run.seed), tuple(tuple(k) for k in run.chain_spawn_keys),
                       dict(run.settings), rhat_r, _energy_fraction(run, ok), bool(at_end))


def _energy_fraction(run, ok) -> float | None:
    counts = getattr(run, "energy_errors", None)
    if counts is None:
        return None
    return float(np.sum(np.asarray(counts)[ok]) / (np.sum(ok) * run.losses.shape[1]))


@dataclass(frozen=True)
class MultiTemperatureEstimate:
    """Intercept of ``lambda_hat(nbeta) = a + b / log(nbeta)`` (weighted least squares)."""

    estimate: float
    stderr: float
    ci95: tuple
    slope: float
    slope_stderr: float
    nbetas: tuple
    estimates: tuple
    chi2: float

    def to_json(self) -> dict:
        return {"estimate": self.estimate, "stderr": self.stderr, "ci95": list(self.ci95),
                "slope": self.slope, "slope_stderr": self.slope_stderr,
                "nbetas": list(self.nbetas), "estimates": list(self.estimates), "chi2": self.chi2}


def multi_temperature(estimates) -> MultiTemperatureEstimate:
    """Bias-reduced estimate from chain-wise estimates at several ``nbeta``.

    The slope estimates ``-(m - 1)`` (grokking paper, eq. (7)); the intercept
    is the bias-reduced lambda.  Standard errors come from the weighted
    least-squares covariance, inflated by ``sqrt(chi2/dof)`` when the fit
    is worse than the error bars say.

    Examples
    --------
    >>> from types import SimpleNamespace as E
    >>> pts = [E(nbeta=t, estimate=3.0 - 1.0 / math.log(t), stderr=0.01) for t in (1e3, 1e4, 1e5)]
    >>> mt = multi_temperature(pts)
    >>> round(mt.estimate, 6), round(mt.slope, 6)
    (3.0, -1.0)
    """
    pts = list(estimates)
    if len(pts) < 2 or len({p.nbeta for p in pts}) < 2:
        raise InputError("estimates", len(pts), "estimates at two or more distinct nbeta")
    x = np.array([1.0 / math.log(p.nbeta) for p in pts])
    y = np.array([p.estimate for p in pts])
    s = np.array([max(p.stderr, 1e-12) for p in pts])
    A = np.stack([np.ones_like(x), x], axis=1) / s[:, None]
    coef, *_ = np.linalg.lstsq(A, y / s, rcond=None)
    cov = np.linalg.inv(A.T @ A)
    resid = (y - coef[0] - coef[1] * x) / s
    dof = len(pts) - 2
    chi2 = float(resid @ resid)
    if dof > 0 and chi2 / dof > 1.0:
        cov = cov * (chi2 / dof)
    se = float(math.sqrt(cov[0, 0]))
    a = float(coef[0])
    return MultiTemperatureEstimate(a, se, (a - Z95 * se, a + Z95 * se), float(coef[1]),
                                    float(math.sqrt(cov[1, 1])), tuple(float(p.nbeta) for p in pts),
                                    tuple(float(v) for v in y), chi2)


def tempered_expectation(model, nbeta: float, gamma: float, *, points: int = 2001,
                         half_width: float | None = None, core: float | None = None) -> float:
    """Exact ``E[nbeta (L_n - L_n(w*))]`` under the localized tempered posterior, by quadrature.

    The value a sampler's chain-wise estimate converges to at this
    ``nbeta`` (finite-``nbeta`` bias included), for models with one or two
    parameters: the density ``exp(-nbeta (L - L*) - gamma/2 ||w - w*||^2)``
    is integrated on a regular grid of ``points`` per coordinate over
    ``w* +- half_width`` (trapezoid rule, spectrally accurate for smooth
    integrands that vanish at the edges; default half width
    ``sqrt(120 / gamma)``, where the localizing prior alone is ``e^-60``).
    The grid must resolve the posterior: a few points per ``nbeta^-1/2``.
    With ``core``, the nodes are ``w* + core sinh(u)`` for ``u`` uniform (fine
    spacing ``~core`` near ``w*``, growing geometrically outwards: funnels
    and heavy arms at large ``nbeta`` need no huge uniform grid); the
    trapezoid rule then runs in ``u`` with weight ``core cosh(u)``.

    Examples
    --------
    A regular model gives ``sum_i nbeta h_i / (2 (nbeta h_i + gamma))``, here ``2 * 100/101 / 2``:

    >>> from algebra.numeric.models import linear_regression_model
    >>> round(tempered_expectation(linear_regression_model(2, n=10**12), 100.0, 1.0, points=801), 4)
    0.9901
    """
    w0 = np.asarray(model.w_star, dtype=float)
    P = w0.size
    if P > 2:
        raise InputError("model", getattr(model, "name", model), "a model with at most 2 parameters")
    if not gamma > 0 and half_width is None:
        raise InputError("half_width", half_width, "a number when gamma = 0")
    r = math.sqrt(120.0 / gamma) if half_width is None else float(half_width)
    l0 = float(model.loss(w0[None])[0])
    if core is None:
        offsets = np.linspace(-r, r, int(points))
        jac = np.ones_like(offsets)
    else:
        u = np.linspace(-math.asinh(r / core), math.asinh(r / core), int(points))
        offsets, jac = core * np.sinh(u), core * np.cosh(u)
    grids = [w0[i] + offsets for i in range(P)]
    mesh = np.stack(np.meshgrid(*grids, indexing="ij"), axis=-1).reshape(-1, P)
    J = np.prod(np.stack(np.meshgrid(*([jac] * P), indexing="ij"), axis=-1).reshape(-1, P), axis=1)
    U = nbeta * (model.loss(mesh) - l0)
    logp = -U - 0.5 * gamma * np.sum((mesh - w0) ** 2, axis=1)
    wts = np.exp(logp - logp.max()) * J
    return float(np.sum(wts * U) / np.sum(wts))
