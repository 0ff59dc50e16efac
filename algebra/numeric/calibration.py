"""One automatic calibration procedure for LLC estimation (version 4), with an ok/suspect verdict.

The procedure is fixed once and applied unchanged to every model (no
per-model tuning).  Every choice below was made on the calibration suite
(:data:`algebra.claims.llc_suites.SUITE`) or on exact tempered expectations,
never on the validation suite; BENCHMARKS.md ("LLC sampling") has the tables.

1. **Units.** ``h`` = largest Hessian eigenvalue of ``L_n`` at ``w*`` (power
   iteration on Hessian-vector products).  The temperature ladder is stated
   as ``nbeta h``, so rescaling the loss by ``c`` divides ``nbeta`` by ``c``
   and leaves ``nbeta L_n`` unchanged.  When the Hessian vanishes (``h``
   below ``1e-4`` times the largest eigenvalue of the input covariance,
   every direction singular, as for ``K = x^2 y^2``) that eigenvalue is used.
2. **Localization ``gamma = 1`` (parameter units), the same at every
   temperature.**  The potential is ``nbeta L_n + gamma/2 ||w - w*||^2``: with
   ``nbeta`` fixed by ``nbeta h`` and ``gamma`` not depending on the loss at
   all, a rescaled loss gives the same target, the same chains and the same
   estimate (a test checks it).  Version 1 used ``gamma = h``, which rescaling
   the loss multiplies by ``c``: on the P = 10^4 quadratic network (``h =
   1.02 10^5``) the prior outweighed the likelihood and the estimate was 44%
   low, while on the suites (``h`` of order 1) ``gamma = h`` and ``gamma =
   1`` nearly coincide.  ``gamma = 1`` keeps what the prior is for (chains
   do not drift along the exactly flat gauge orbits of factorised models,
   whose width it sets to ``1``) and its effect on the identifiable
   directions is measured, not assumed: the **localization deficit**
   (:func:`~algebra.numeric.laplace.localization_deficit`, the fraction of
   ``rank/2`` that a prior of this strength removes in the Hessian's nonzero
   directions at this ``nbeta``) above 1% at any temperature makes the
   verdict ``suspect``.
3. **Sampler: HMC** with 8 leapfrog steps (Metropolis-corrected, so no
   step-size bias), 16 chains, step adapted to acceptance 0.65 during
   warm-up, **per chain** (each chain keeps its own averaged step), and a
   step multiplier drawn log-uniformly in ``[0.25, 1.5]`` per chain and
   transition, so that a chain on a funnel arm, where the adapted step is
   past the local stability limit, still gets steps short enough to move.
   Measured on the calibration suite (BENCHMARKS.md, "LLC sampling, v2"):
   with the version-1 jitter ``[0.5, 1.5]`` the funnel ``x*y`` had 1-2
   chains frozen (acceptance 0.000-0.044) at two of three temperatures and
   came out 0.396 at ``nbeta h = 10^6`` (exact tempered value 0.4347); with
   the wide jitter no chain froze and it came out 0.443.  Stan's windowed
   diagonal mass adaptation (``adapt_mass="windowed"`` of
   :func:`~algebra.numeric.samplers.sample`) was measured and not adopted:
   it cut the ESS of quadratic d=3 p=2 K=2 from 13,337 to 3,974 and of DLN
   (3,3,3,3,3) from 3,462 to 2,631 at the first temperature (the warm-up
   variances of chains started at ``w*`` are not the posterior's), and raised
   it only on ``x*y`` (1,078 to 11,694 at the top), which the jitter fixes.
3a. **Starts (version 4: on both sides).**  The first (hottest)
   temperature's chains start at ``w*``.  At every colder one, half the chains
   start at ``w*`` again and half where the previous temperature's chains
   ended (``start="mixed"``; a chain that diverged restarts at ``w*``).  In
   the slow (singular, gauge) directions chains started at ``w*`` are
   under-dispersed and approach from below, chains from the wider hotter
   posterior over-dispersed and approach from above; split R-hat assumes
   starts dispersed about the target, and the pooled estimate sits between
   the two.  Measured on the calibration suite (BENCHMARKS.md, "Calibration
   version 4"):

   - all at ``w*`` (version 2, ``start="w_star"``): the DLN (3,3,3,3,3),
     m = 5, read 3.50, 3.57, 3.55 (-11%, a flat ladder only the noise margin
     kept ``suspect``);
   - all from the hotter chains (version 3, ``start="hotter"``): 3.50, 3.65,
     3.79 (-5.2%), a rise the allowance sees; but the funnel ``x*y`` read a
     flat 0.422, 0.418, 0.420 (exact tempered values 0.407, 0.423, 0.435);
   - with the hotter first temperature of step 5 and all from the hotter
     chains: ``x*y`` 0.390, 0.404, 0.413, 0.441 against 0.381, 0.407, 0.423,
     0.435, but six of the seventeen models came out high, +0.1% to +0.5%
     (version 3: three, up to +0.3%), the over-dispersed side;
   - mixed: the worst error on the suite 6.8% (16.0% for version 3, 11.9% all
     from the hotter chains), seven ``ok`` (six), every interval covering.

   Every result records the two groups side by side at each colder temperature
   (:func:`start_sides`, ``sides``).  This is a check that split R-hat and ESS cannot make,
   and it is not in the verdict.

4. **Lengths by diagnostics.**  At each temperature the warm-up is
   ``max(num_warmup, block / 2)`` steps times ``draws_growth`` per decade of
   ``nbeta h`` above ``growth_anchor = 10^4`` (a factor below 1 under it),
   ``block`` being the (grown) block length: 250, 500, 1,000 and 4,000
   steps on the default ladder (as measured on both suites; the last is twice
   a plain doubling, a cost, not a bias, kept so the procedure stays the one
   that was measured); then draws come
   in blocks of ``num_draws`` until split R-hat <= 1.01 and ESS >= 400, or
   ``max_draws`` (doubling per decade) are spent.  The verdict thresholds
   (R-hat 1.05, ESS 100) are looser than the stopping ones, so a run that
   stopped passes with margin; a run that hit ``max_draws`` is judged as it is.
5. **Temperatures** ``nbeta h`` in ``{10^3, 10^4, 10^5, 10^6}`` (version 3:
   from ``10^4``; :data:`VERSION3`).  ``target``
   says which learning coefficient is estimated:

   ``"population"`` (default)
       lambda of the population loss ``K`` at ``w*``.  The data-dependent
       fluctuation of the tempered posterior, of order
       ``sqrt(lambda nbeta / (2 n))`` (Watanabe's WBIC theorem), must stay
       small, so ``nbeta <= n / 10^3``; a ladder that this cap shortens
       makes the verdict ``suspect``.  (This cap reads the loss as an average
       negative log-likelihood, ``1/2 (y - f)^2`` for unit-variance noise; it
       is the one step whose outcome a rescaled loss can change.)
   ``"empirical"``
       lambda of the empirical loss ``L_n`` of the given, fixed data at
       ``w*`` (a user's data set, the grokking training set): no cap, since
       nothing is inferred about a population.  ``w*`` must be a minimum of
       ``L_n``: ``nbeta (L_n(w*) - min L_n)``, from the Laplace offset, above
       1% of the estimate makes the verdict ``suspect``.
6. **Burn-in** by MSER on the chain-averaged trace, as before.
7. **Estimate: the largest ``nbeta``.**  The reported value is the chain-wise
   estimate at the largest temperature, with its Monte Carlo standard error.
8. **Finite-temperature allowance** (multiplicity-aware).  The estimator's
   limit is approached from below, as ``lambda - (m - 1)/u + c/u^2 + ...`` with
   ``u = log(nbeta h)`` (grokking paper eq. (7); for ``m = 1`` by powers of
   ``1/nbeta``).  Under the leading term, the bias left at the top is
   ``u_first / (u_top - u_first)`` times the rise ``D`` of the ladder from its
   first to its last temperature (1.0 for ``10^3 -> 10^6``; 2.0 for version
   3's ``10^4 -> 10^6``).  On exact ladders computed by quadrature (six
   two-parameter toys, ``m = 1`` and ``m = 2``, and the products
   ``(x_1 ... x_k)^2 / 2``, ``m = k``; BENCHMARKS.md) the true remainder was
   at most 1.67 times that for ``m <= 3`` (1.48 from ``10^4``), so the
   allowance is ``A = S u_first / (u_top - u_first) max(D, 0)`` with
   ``S = 1.7`` (1.7 D; version 3: ``S = 1.5``, 3.0 D).  Both bounds hold on
   those ladders, so the allowance is the smaller of the two: from ``10^3``
   with ``S = 1.7`` and from ``10^4`` with ``S = 1.5`` (``allowance_from``).
   An m = 1 ladder whose rise is all in its first decade then pays for it
   only from ``10^4``.
   The 95% interval is asymmetric: ``[est - 1.96 se, est + A + 1.96 sqrt(se^2 + s_A^2)]``, ``s_A`` the
   allowance's own Monte Carlo error.  Because a flat ladder measured
   coarsely can hide a slow approach (m = 5 and more), the verdict uses
   the allowance of a rise two standard errors above the measured one, a
   measured rise below zero counted as zero (so noise that makes a ladder look
   falling cannot cancel the margin; on FAST chains it once did, for a value
   6% low).
   (Version 1 fitted ``a + b/log(nbeta)``; on m = 1 models power-law
   corrections posed as a ``1/log`` slope and on m = 2 models with flat
   ladders the slope under-covered; the fit is still recorded, ``multi``.)
9. **Verdict** ``ok`` unless a diagnostic fails: any divergent chain, a stuck
   chain (acceptance below 0.1 after warm-up: frozen on a funnel arm),
   split R-hat > 1.05, ESS < 100, mean acceptance outside [0.3, 0.95], an
   MSER burn-in longer than the draws it keeps or at the end of its window,
   a localization deficit above 1% at the reported (largest) temperature (at a
   hotter one the deficit only lowers that temperature's value, which widens
   the allowance: version 4 no longer flags it there), a shortened ladder, a ladder that falls
   (``D < -3 s_D``), or an allowance for ``D + 2 s_D`` above 5% of the
   estimate ("not shown converged"; 5% is the accuracy the validation suite
   is held to).  To meet that, the draws of step 4 also continue until the
   standard error is below 0.4% of the estimate (or ``max_draws``).  Each
   failure is named in ``reasons``.  No diagnostic uses an exact value.

Every result carries, beside the estimate, the **Laplace prediction** at each
temperature (:func:`~algebra.numeric.laplace.laplace_prediction` from the
Hessian spectrum at ``w*``): what a Gaussian reading of these very settings
gives, the reference a user can set against a fixed-setting SGLD number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

import algebra.inputs as inputs
from algebra.errors import InputError
from algebra.numeric.estimators import LLCEstimate, estimate_llc, multi_temperature
from algebra.numeric.laplace import hessian_spectrum, laplace_prediction, localization_deficit
from algebra.numeric.samplers import extend_run, sample, top_curvature

__all__ = ["CalibrationSettings", "CalibratedLLC", "calibrated_llc", "combine_temperatures",
           "verdict_reasons", "start_sides", "TARGETS", "FAST", "VERSION3"]

RHAT_MAX = 1.05
ESS_MIN = 100.0
ACCEPT_RANGE = (0.3, 0.95)
STUCK_ACCEPT = 0.1  # a chain accepting less than this after warm-up is frozen where it is
FALL_Z = 3.0  # a ladder falling by more than 3 standard errors is inconsistent
RISE_Z = 2.0
#: on exact ladders from nbeta h = 10^3 to 10^6 the remaining bias was at most 1.67x the leading-term value
#: for m <= 3 (``x^2*y^2``, m = 2; ``x1*x2*x3``: 1.51; BENCHMARKS.md "Calibration version 4"); version 3's
#: ladder from 10^4 needed 1.48x and used 1.5
ALLOWANCE_SAFETY = 1.7
#: where the allowance may be measured from (nbeta h) and its factor there; the smaller allowance is used
ALLOWANCE_FROM = ((1e3, ALLOWANCE_SAFETY), (1e4, 1.5))
ALLOWANCE_MAX = 0.05  # the validation suite's accuracy target
DEFICIT_MAX = 0.01
OFFSET_MAX = 0.01
FLAT_HESSIAN = 1e-4  # relative to the largest eigenvalue of the input covariance
TARGETS = ("population", "empirical")
STARTS = ("hotter", "w_star", "mixed")


@dataclass(frozen=True)
class CalibrationSettings:
    """Knobs of the procedure; the defaults are the procedure (do not tune per model).

    ``num_draws`` is the block length (draws are added a block at a time until the stopping
    rule of step 4 holds); ``max_draws`` caps them at the first temperature, both doubling per
    decade of ``nbeta`` (``draws_growth``), as does the warm-up.
    """

    method: str = "hmc"
    nbeta_scaled: tuple = (1e3, 1e4, 1e5, 1e6)
    gamma: float = 1.0
    num_chains: int = 16
    num_draws: int = 500
    max_draws: int = 4000
    draws_growth: float = 2.0
    num_warmup: int = 500
    leapfrog_steps: int = 8
    min_n_ratio: float = 1e3
    accept_target: float = 0.65
    ess_target: float = 400.0
    rhat_target: float = 1.01
    se_target: float = 0.004
    adapt_mass: object = False
    jitter: tuple = (0.25, 1.5)
    step_pool: str = "chain"
    start: str = "mixed"
    growth_anchor: float = 1e4
    allowance_from: tuple = ALLOWANCE_FROM

    def to_json(self) -> dict:
        def plain(v):
            return [plain(x) for x in v] if isinstance(v, (tuple, list)) else v

        return {k: plain(v) for k, v in self.__dict__.items()}


#: Short chains for tests and notebooks: too short for the ladder to show convergence.
FAST = CalibrationSettings(num_chains=16, num_draws=300, max_draws=300, num_warmup=300, draws_growth=1.0)

#: Version 3's ladder (from ``nbeta h = 10^4``), starts and allowance (1.5 times the leading term): its chains
#: and estimates; the verdict applies version 4's two refinements (the deficit judged at the reported
#: temperature, a rise below zero counted as zero in the margin).
VERSION3 = CalibrationSettings(nbeta_scaled=(1e4, 1e5, 1e6), allowance_from=((1e4, 1.5),), start="hotter")


@dataclass(frozen=True)
class CalibratedLLC:
    """Result of :func:`calibrated_llc`.

    ``estimate`` and ``stderr`` (Monte Carlo) are the largest temperature's; ``bias_allowance``
    is the finite-temperature correction the ladder still allows upwards; ``ci95`` combines both.
    ``target`` names the learning coefficient estimated (``"population"`` or ``"empirical"``);
    ``laplace`` is the Gaussian prediction at each temperature (None where the Hessian
    spectrum was not resolved), ``spectrum`` what it came from.  ``sides`` has, per temperature,
    the two start groups of ``start="mixed"`` (:func:`start_sides`; None where there are none).
    """

    estimate: float
    stderr: float
    ci95: tuple
    chosen: str
    per_temperature: tuple
    multi: object
    verdict: str
    reasons: tuple
    seed: int
    curvature: float
    gamma: float
    settings: dict = field(default_factory=dict)
    trace: np.ndarray = field(default=None, repr=False)
    bias_allowance: float | None = None
    target: str = "population"
    laplace: tuple = ()
    spectrum: dict | None = None
    sides: tuple = ()

    @property
    def bias_bound(self) -> float | None:
        """Version 1's name of :attr:`bias_allowance`."""
        return self.bias_allowance

    def to_json(self) -> dict:
        return {
            "estimate": self.estimate, "stderr": self.stderr, "ci95": list(self.ci95),
            "chosen": self.chosen, "verdict": self.verdict, "reasons": list(self.reasons),
            "seed": self.seed, "curvature": self.curvature, "gamma": self.gamma,
            "target": self.target, "bias_allowance": self.bias_allowance, "bias_bound": self.bias_allowance,
            "laplace": [None if v is None else float(v) for v in self.laplace],
            "spectrum": self.spectrum,
            "sides": list(self.sides),
            "per_temperature": [e.to_json() for e in self.per_temperature],
            "multi_temperature": None if self.multi is None else self.multi.to_json(),
            "settings": dict(self.settings),
        }


def verdict_reasons(est: LLCEstimate, chain_accept=None) -> list:
    """Diagnostics of one chain-wise estimate that make it suspect (empty list: none).

    ``chain_accept``: the per-chain acceptance after warm-up, for the stuck-chain check.

    Examples
    --------
    >>> from types import SimpleNamespace as E
    >>> verdict_reasons(E(divergent=((3, 17),), rhat=1.2, ess=500.0, accept_rate=0.6,
    ...                   burnin=0, num_draws=100, nbeta=1000.0))
    ['nbeta=1000: 1 divergent chain(s), first (chain 3, step 17)', 'nbeta=1000: split R-hat 1.200 > 1.05']
    >>> verdict_reasons(E(divergent=(), rhat=1.0, ess=500.0, accept_rate=0.6, burnin=0, num_draws=100,
    ...                   nbeta=10.0), chain_accept=[0.6, 0.02, 0.7])
    ['nbeta=10: 1 stuck chain(s) (acceptance < 0.1 after warm-up), first chain 1 at 0.020']
    """
    out = []
    tag = f"nbeta={est.nbeta:g}"
    if est.divergent:
        c, s = est.divergent[0]
        out.append(f"{tag}: {len(est.divergent)} divergent chain(s), first (chain {c}, step {s})")
    if chain_accept is not None:
        acc = np.asarray(chain_accept, dtype=float)
        live = set(range(acc.size)) - {c for c, _ in est.divergent}
        stuck = [c for c in sorted(live) if acc[c] < STUCK_ACCEPT]
        if stuck:
            out.append(f"{tag}: {len(stuck)} stuck chain(s) (acceptance < {STUCK_ACCEPT:g} after warm-up), "
                       f"first chain {stuck[0]} at {acc[stuck[0]]:.3f}")
    if not (est.rhat <= RHAT_MAX):
        out.append(f"{tag}: split R-hat {est.rhat:.3f} > {RHAT_MAX}")
    if est.ess < ESS_MIN:
        out.append(f"{tag}: ESS {est.ess:.0f} < {ESS_MIN:.0f}")
    if est.accept_rate is not None and not ACCEPT_RANGE[0] <= est.accept_rate <= ACCEPT_RANGE[1]:
        out.append(f"{tag}: acceptance {est.accept_rate:.2f} outside {ACCEPT_RANGE}")
    if est.burnin > est.num_draws:
        out.append(f"{tag}: burn-in {est.burnin} draws exceeds the {est.num_draws} kept")
    if getattr(est, "burnin_at_window_end", False):
        out.append(f"{tag}: burn-in minimiser at the end of the search window, trace still relaxing")
    return out


def _units(model) -> float:
    """``h`` of step 1: the top Hessian eigenvalue, or the input covariance's when the Hessian vanishes."""
    h = top_curvature(model)
    Sxx = getattr(model, "Sxx", None)
    data_scale = float(np.linalg.eigvalsh(Sxx)[-1]) if Sxx is not None else None
    if data_scale is not None and h < FLAT_HESSIAN * data_scale:
        # every direction is singular (e.g. K = x^2 y^2; what power iteration
        # finds is finite-n noise of order 1/sqrt(n)): take the units from the
        # input covariance of the regression instead
        return data_scale
    if not h > 0:
        raise InputError("model", getattr(model, "name", model),
                         "a model with nonzero curvature at w* or an input covariance Sxx")
    return h


def _ladder(s: CalibrationSettings, h: float, n, target: str) -> tuple:
    """The temperatures ``nbeta`` and the reasons the ladder was shortened (step 5)."""
    if target == "empirical" or n is None:
        return sorted({float(v / h) for v in s.nbeta_scaled}), []
    cap = n * h / s.min_n_ratio
    nbetas = sorted({float(min(v, cap) / h) for v in s.nbeta_scaled})
    if len(nbetas) < len(s.nbeta_scaled) or max(s.nbeta_scaled) > cap:
        return nbetas, [f"n={n} too small for the temperature ladder of the population target "
                        f"(nbeta <= n/{s.min_n_ratio:g}); used nbeta {[float(f'{b:.6g}') for b in nbetas]}; "
                        f"for the learning coefficient of this data set's own loss use target='empirical'"]
    return nbetas, []


def _sample_temperature(model, s: CalibrationSettings, nb: float, gamma: float, decade: float, seed: int,
                        bar: str | None = None, progress=None, init=None):
    """Warm-up, then blocks of draws until the stopping rule of step 4 (or ``max_draws``).

    The warm-up is ``max(num_warmup, block // 2)`` scaled by the growth (step 4 says what that gives);
    ``init`` are the chains' starting points (step 3a), ``None`` for ``w*``.
    """
    grow = s.draws_growth ** decade
    block = max(8, int(round(s.num_draws * grow)))
    cap = max(block, int(round(s.max_draws * grow)))
    warm = max(s.num_warmup, block // 2)
    warm = int(round(warm * grow)) if s.draws_growth != 1.0 else warm
    seeds = np.random.SeedSequence(seed).generate_state(1 + cap // block + 1)
    run = sample(model, method=s.method, nbeta=nb, gamma=gamma, num_chains=s.num_chains, num_draws=block,
                 num_warmup=warm, leapfrog_steps=s.leapfrog_steps, seed=int(seeds[0]),
                 accept_target=s.accept_target, adapt_mass=s.adapt_mass if s.method == "hmc" else None,
                 jitter=tuple(s.jitter), step_pool=s.step_pool, progress=bar, init=init)
    k = 1
    while run.losses.shape[1] + block <= cap:
        try:
            est = estimate_llc(run)
        except InputError:
            break
        if (est.ess >= s.ess_target and est.rhat <= s.rhat_target and est.burnin <= est.num_draws
                and est.stderr <= s.se_target * abs(est.estimate)):
            break
        if progress is not None:
            progress(f"  nbeta={nb:.4g}: {run.losses.shape[1]} draws, ESS {est.ess:.0f}, "
                     f"R-hat {est.rhat:.3f}, se {est.stderr:.2g}: more draws")
        run = extend_run(model, run, num_draws=block, seed=int(seeds[k]), progress=bar)
        k += 1
    return run


def _restart_points(run, w_star) -> np.ndarray:
    """The chains' final positions, a chain that diverged (non-finite) put back at ``w*``."""
    W = np.array(run.final, dtype=float, copy=True)
    bad = ~np.all(np.isfinite(W), axis=1) | np.asarray(run.divergent, dtype=bool)
    W[bad] = np.asarray(w_star, dtype=float)
    return W


def calibrated_llc(model, *, settings: CalibrationSettings | None = None, seed: int = 0,
                   progress=None, target: str = "population", bar: bool = False) -> CalibratedLLC:
    """Estimate the LLC of ``model`` at ``w*`` with the automatic calibration (module docstring).

    Parameters
    ----------
    model : RegressionModel, TorchModel or compatible
        With ``w_star``, ``n``, ``loss``, ``loss_and_grad`` and ``hessian_vector``.
    settings : CalibrationSettings, optional
        Defaults to :class:`CalibrationSettings` (the procedure); :data:`FAST`
        shortens the chains for tests and notebooks.
    seed : int
        Root seed; temperature ``j`` uses the ``j``-th child of its SeedSequence.
    progress : callable, optional
        Called with a short string after the spectrum and after each temperature.
    target : {"population", "empirical"}
        Which learning coefficient is estimated (step 5 of the module docstring).
    bar : bool
        Show a tqdm bar per temperature on stderr (terminals only); ``progress`` also hears
        of every block of draws added.

    Returns
    -------
    CalibratedLLC

    Raises
    ------
    InputError
        For an unknown ``target``, a model without curvature or input covariance at ``w*``,
        or one on which every chain diverges at every temperature.

    References
    ----------
    The chain-wise estimator and its ``-(m-1)/log(nbeta)`` correction: the grokking paper,
    Appendix B, eq. (7) (``../shared/papers``); Watanabe, *Algebraic Geometry and Statistical
    Learning Theory* (2009), Thm 6.2 and the WBIC theorem for the temperature cap; Betancourt,
    "A Conceptual Introduction to Hamiltonian Monte Carlo" (2017) for the HMC diagnostics.

    Examples
    --------
    >>> from algebra.numeric.models import linear_regression_model
    >>> res = calibrated_llc(linear_regression_model(2, n=10**12), settings=FAST, seed=1)
    >>> abs(res.estimate - 1.0) < 4 * res.stderr, res.target, round(res.laplace[-1], 3)
    (True, 'population', 1.0)

    Rescaling the loss changes nothing (``nbeta`` scales down as ``h`` scales up, ``gamma`` stays);
    by a power of two every floating-point step is exact, so the chains are the same to the bit
    (another factor gives the same target but chaotic HMC paths part after a few hundred steps):

    >>> from dataclasses import replace
    >>> m = linear_regression_model(2, n=10**12)
    >>> c = 2.0**20
    >>> big = replace(m, Sxx=c * m.Sxx, Sxy=c * m.Sxy, syy=c * m.syy)
    >>> calibrated_llc(big, settings=FAST, seed=1).estimate == res.estimate
    True

    A data set too small for the population ladder is refused for that target, not for its own loss:

    >>> small = linear_regression_model(2, n=200, seed=0)
    >>> calibrated_llc(small, settings=FAST, seed=1).reasons[0].startswith("n=200 too small")
    True
    >>> calibrated_llc(small, settings=FAST, seed=1, target="empirical").target
    'empirical'
    """
    _needs = ("w_star", "n", "loss", "loss_and_grad", "hessian_vector")
    if model is None or any(not hasattr(model, a) for a in _needs):
        raise InputError("model", model, "a RegressionModel, TorchModel or an object with " + ", ".join(_needs))
    inputs.choice(target, "target", TARGETS)
    inputs.seed(seed, "seed")
    s = inputs.settings(settings, "settings", CalibrationSettings)
    if s.start not in STARTS:
        raise InputError("settings.start", s.start, "one of " + ", ".join(STARTS))
    h = _units(model)
    gamma = float(s.gamma)
    n = getattr(model, "n", None)
    nbetas, reasons = _ladder(s, h, n, target)
    floor = 10.0 / math.sqrt(n) if (target == "population" and n) else 0.0
    spec = hessian_spectrum(model, scale=h, floor=floor)
    laplace = tuple(laplace_prediction(spec, nb, gamma) if spec.resolved else None for nb in nbetas)
    if progress is not None:
        progress(f"Hessian at w*: rank {spec.rank} ({spec.method}), h = {h:.4g}, gamma = {gamma:g}")
    child_seeds = np.random.SeedSequence(seed).generate_state(len(nbetas))
    per, sides, trace, init = [], [], None, None
    for j, nb in enumerate(nbetas):
        run = _sample_temperature(model, s, nb, gamma, math.log10(nb * h / s.growth_anchor), int(child_seeds[j]),
                                  bar=f"LLC nbeta h={nb * h:.0e} ({j + 1}/{len(nbetas)})" if bar else None,
                                  progress=progress, init=init)
        if s.start in ("hotter", "mixed"):  # step 3a: the next, colder temperature starts where these ended
            init = _restart_points(run, model.w_star)
            if s.start == "mixed":  # the first half of the chains at w* again: starts on both sides
                init[: s.num_chains // 2] = np.asarray(model.w_star, dtype=float)
        try:
            est = estimate_llc(run)
        except InputError:
            reasons.append(f"nbeta={nb:g}: all chains diverged")
            continue
        per.append(est)
        sides.append(start_sides(est, s.num_chains // 2) if s.start == "mixed" and j > 0 else None)
        # nbeta (L - L*) per chain at the largest temperature, thinned to <= 500 draws
        thin = max(1, run.losses.shape[1] // 500)
        trace = run.nbeta * (run.losses[:, ::thin] - run.loss_star)
        reasons.extend(verdict_reasons(est, run.accept_rate))
        if j == len(nbetas) - 1 and spec.resolved and spec.rank and localization_deficit(spec, nb, gamma) > DEFICIT_MAX:
            reasons.append(f"nbeta={nb:g}: the localizing prior removes "
                           f"{100 * localization_deficit(spec, nb, gamma):.1f}% of rank/2 in the identifiable "
                           f"directions (> {100 * DEFICIT_MAX:g}%)")
        if target == "empirical" and spec.offset is not None and nb * spec.offset > OFFSET_MAX * max(est.estimate, 1e-12):
            reasons.append(f"nbeta={nb:g}: w* is not a minimum of L_n: nbeta (L_n(w*) - min L_n) ~ "
                           f"{nb * spec.offset:.3g} (> {100 * OFFSET_MAX:g}% of the estimate)")
        if progress is not None:
            progress(f"nbeta h={nb * h:.0e}: {est.estimate:.4g} +- {est.stderr:.2g} "
                     f"({run.losses.shape[1]} draws, R-hat {est.rhat:.3f}, ESS {est.ess:.0f})")
    if not per:
        raise InputError("model", getattr(model, "name", model), "a model on which some chain converges")
    comb = combine_temperatures(per, h=h, safety=s.allowance_from)
    reasons.extend(comb["reasons"])
    return CalibratedLLC(comb["estimate"], comb["stderr"], comb["ci95"], comb["chosen"], tuple(per),
                         comb["multi"], "suspect" if reasons else "ok", tuple(reasons), int(seed), float(h),
                         gamma, {**s.to_json(), "nbetas": nbetas, "target": target}, trace,
                         comb["bias_allowance"], target, laplace, spec.to_json(), tuple(sides))


def start_sides(est, half: int) -> dict | None:
    """The two start groups of ``start="mixed"`` at one temperature (step 3a), side by side.

    Chains ``[0, half)`` started at ``w*`` (under-dispersed in the slow directions: from below), the
    others where the hotter chains ended (over-dispersed: from above).  Their means of the chain-wise
    estimates, each with the standard error from the chain-to-chain spread (which holds however slowly
    a chain mixes), the difference ``hotter - w_star`` and ``z`` = difference / its standard error
    (Welch).  A large ``|z|`` says the slow directions have not relaxed by the end of the run: split
    R-hat and ESS can pass while the two groups still differ (BENCHMARKS.md, "Where the cost goes":
    DLN (20,30,20,30,20) at ``nbeta h = 10^5``).  Recorded beside the estimate; **not part of the
    verdict** (the calibration suite has no model on which it decides anything, so no threshold
    was designed there).

    Returns None when a group has fewer than two live chains; ``z`` is None when the groups differ
    but neither varies (every chain frozen where it started).

    >>> from types import SimpleNamespace as E
    >>> d = start_sides(E(chain_estimates=(1.0, 1.2, 0.8, 1.0, 2.0, 2.2, 1.8, float("nan"))), 4)
    >>> d["w_star"], round(d["hotter"], 6), round(d["difference"], 6), d["chains"], round(d["z"], 1)
    (1.0, 2.0, 1.0, [4, 3], 7.1)
    """
    c = np.asarray(est.chain_estimates, dtype=float)
    groups = [g[np.isfinite(g)] for g in (c[:half], c[half:])]
    if min(g.size for g in groups) < 2:
        return None
    means = [float(g.mean()) for g in groups]
    ses = [float(g.std(ddof=1) / math.sqrt(g.size)) for g in groups]
    diff, s_diff = means[1] - means[0], math.hypot(*ses)
    return {"w_star": means[0], "w_star_se": ses[0], "hotter": means[1], "hotter_se": ses[1],
            "difference": diff, "z": diff / s_diff if s_diff > 0 else (0.0 if diff == 0 else None),
            "chains": [int(g.size) for g in groups]}


def combine_temperatures(per, *, h: float = 1.0, safety=ALLOWANCE_FROM) -> dict:
    """Reported estimate, interval and ladder diagnostics from per-temperature estimates (steps 7-9).

    Parameters
    ----------
    per : sequence of LLCEstimate (or objects with ``nbeta``, ``estimate``, ``stderr``)
    h : float
        The units of step 1: the allowance reads the ladder in ``u = log(nbeta h)``.
    safety : float or sequence of (nbeta h, factor)
        The factor on the leading-term remainder (step 8), from the first temperature, or the
        starting temperatures and their factors (:func:`_allowance_starts`); the smallest
        allowance they give is used.  Version 3's: ``((1e4, 1.5),)``.

    Returns
    -------
    dict with ``estimate``, ``stderr`` (Monte Carlo, largest temperature), ``bias_allowance``
    (float, or None for a single temperature), ``allowance_from`` (the ``nbeta`` it was measured
    from, or None), ``ci95``, ``chosen`` (``"largest nbeta"``), ``multi`` (the ``a + b/log(nbeta)``
    fit, for the record, or None) and ``reasons``.

    Examples
    --------
    A ladder still rising like ``lambda - 1/log(nbeta)`` (``m = 2``) is not extrapolated; the
    allowance covers what is left (here 0.072): from ``10^3`` it would be ``1.7 D = 0.123``, from
    ``10^4`` ``3.0 D = 0.109``, and the smaller is taken:

    >>> from types import SimpleNamespace as E
    >>> pts = [E(nbeta=t, estimate=3.0 - 1.0 / math.log(t), stderr=0.002) for t in (1e3, 1e4, 1e5, 1e6)]
    >>> c = combine_temperatures(pts)
    >>> c["chosen"], round(c["estimate"], 3), round(c["bias_allowance"], 3), c["reasons"], c["ci95"][1] > 3.0
    ('largest nbeta', 2.928, 0.109, [], True)
    >>> c["allowance_from"]
    10000.0

    The Newton toy ``x*y`` (exact 1/2, ``m = 2``), whose ladder rises by 5% of its value,
    cannot be shown converged, and neither can a flat ladder measured too coarsely:

    >>> pts = [E(nbeta=1e4, estimate=0.389, stderr=0.005), E(nbeta=1e5, estimate=0.395, stderr=0.006),
    ...        E(nbeta=1e6, estimate=0.415, stderr=0.006)]
    >>> combine_temperatures(pts)["reasons"][0].startswith("not shown converged")
    True
    >>> flat = [E(nbeta=t, estimate=3.5, stderr=0.04) for t in (1e4, 1e5, 1e6)]
    >>> combine_temperatures(flat)["reasons"][0].startswith("not shown converged")
    True

    Estimates that fall as ``nbeta`` grows contradict the approach from below:

    >>> pts = [E(nbeta=t, estimate=v, stderr=0.002) for t, v in ((1e4, 3.2), (1e5, 3.1), (1e6, 3.03))]
    >>> combine_temperatures(pts)["reasons"][0].startswith("ladder inconsistent")
    True
    """
    per = sorted(per, key=lambda e: e.nbeta)
    if not per:
        raise InputError("per", per, "at least one per-temperature estimate")
    top = per[-1]
    reasons = []
    est, se = float(top.estimate), float(top.stderr)
    multi = multi_temperature(per) if len(per) >= 2 else None
    z = 1.959963984540054
    if len(per) < 2:
        reasons.append("not shown converged: one temperature, no ladder to bound the finite-nbeta bias")
        return {"estimate": est, "stderr": se, "bias_allowance": None, "ci95": (est - z * se, est + z * se),
                "chosen": "largest nbeta", "multi": None, "reasons": reasons, "allowance_from": None}
    first = per[0]
    u_top = math.log(top.nbeta * h)
    s_first = math.hypot(se, float(first.stderr))
    rise_all = est - float(first.estimate)
    best = None
    for i, S in _allowance_starts(per, h, safety):
        start = per[i]
        u_first = math.log(start.nbeta * h)
        # under the leading term -(m-1)/u the bias left at u_top is u_first / (u_top - u_first)
        # times the rise from u_first (1.0 for 10^3 -> 10^6, 2.0 for 10^4 -> 10^6); the rise over
        # the ladder, not its last decade, because it is larger against the same noise
        ratio = S * u_first / (u_top - u_first) if u_first > 0 else math.inf
        rise = est - float(start.estimate)
        s_rise = math.hypot(se, float(start.stderr))
        # the verdict asks that even a rise 2 standard errors above the measured one stays within
        # ALLOWANCE_MAX: a flat ladder measured coarsely can hide a slow (high-multiplicity) approach
        # (a rise measured below zero counts as zero: noise that makes the ladder look falling must not
        # cancel the margin, the more so as the smaller of several starts' allowances is taken)
        reach = ratio * (max(rise, 0.0) + RISE_Z * s_rise)
        if best is None or reach < best[0]:  # each start's bound holds on the exact ladders: the smaller holds
            best = (reach, ratio, rise, s_rise, start)
    reach, ratio, rise, s_rise, start = best
    allowance = ratio * max(rise, 0.0)
    s_allow = ratio * s_rise
    falls = [(a, b) for a, b in zip(per, per[1:])
             if b.estimate - a.estimate < -FALL_Z * math.hypot(a.stderr, b.stderr)]
    if rise_all < -FALL_Z * s_first or falls:
        a, b = falls[0] if falls else (first, top)
        drop = (b.estimate - a.estimate) / math.hypot(a.stderr, b.stderr)
        reasons.append(f"ladder inconsistent: estimates fall as nbeta grows ({a.estimate:.4g} at nbeta={a.nbeta:g} "
                       f"-> {b.estimate:.4g} at {b.nbeta:g}, {drop:.1f} standard errors; the finite-temperature "
                       f"value approaches lambda from below)")
    if reach > ALLOWANCE_MAX * abs(est):
        reasons.append(f"not shown converged: the ladder rose by {rise:.3g} +- {s_rise:.2g} from nbeta="
                       f"{start.nbeta:.6g}, which allows "
                       f"up to {reach:.3g} ({100 * reach / abs(est):.0f}% > {100 * ALLOWANCE_MAX:.0f}%) still to come")
    ci = (est - z * se, est + allowance + z * math.hypot(se, s_allow))
    return {"estimate": est, "stderr": se, "bias_allowance": float(allowance), "ci95": ci,
            "chosen": "largest nbeta", "multi": multi, "reasons": reasons, "allowance_from": float(start.nbeta)}


def _allowance_starts(per, h: float, safety) -> list:
    """``(index, factor)`` of the ladder points the allowance may be measured from (step 8).

    ``safety`` is a factor (from the first temperature) or ``(nbeta h, factor)`` pairs; a pair
    applies to the temperature within a quarter decade of its ``nbeta h`` (never the top one).
    When no pair matches (a ladder the population cap shortened), the first pair's factor is
    used from the first temperature.

    >>> from types import SimpleNamespace as E
    >>> per = [E(nbeta=t) for t in (1e3, 1e4, 1e5, 1e6)]
    >>> _allowance_starts(per, 1.0, ((1e3, 1.7), (1e4, 1.5)))
    [(0, 1.7), (1, 1.5)]
    >>> _allowance_starts(per[1:], 1.0, ((1e3, 1.7), (1e4, 1.5))), _allowance_starts(per, 1.0, 2.0)
    ([(0, 1.5)], [(0, 2.0)])
    """
    if isinstance(safety, (int, float)):
        return [(0, float(safety))]
    out = []
    for nbh, S in safety:
        for i, e in enumerate(per[:-1]):
            if abs(math.log10(e.nbeta * h / nbh)) < 0.25:
                out.append((i, float(S)))
                break
    return out or [(0, float(safety[0][1]))]
