"""Tests for algebra.numeric.estimators (known answers, tolerances in standard errors)."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from algebra.errors import InputError
from algebra.numeric.estimators import estimate_llc, multi_temperature
from algebra.numeric.models import regular_model, rrr_model
from algebra.numeric.samplers import sample


def test_regular_model_known_answer():
    """lambda = d/2 = 3 for 6 parameters; tolerance 4 standard errors."""
    from algebra.slt.formulas import regular_model as exact

    model = regular_model(3, 2, n=10**12, seed=1)
    run = sample(model, method="hmc", nbeta=1e4, gamma=1.0, num_chains=16, num_draws=500,
                 num_warmup=300, seed=4)
    est = estimate_llc(run)
    lam = float(exact(6).lam)
    assert abs(est.estimate - lam) < 4 * est.stderr, (est.estimate, est.stderr)
    assert est.ci95[0] < est.estimate < est.ci95[1]
    assert est.rhat < 1.05 and not est.divergent


def test_divergent_chains_are_left_out_and_named():
    model = rrr_model(3, 2, 2, 1, n=10**9)
    run = sample(model, method="sgld", nbeta=1e3, step_size=1e-4, num_chains=4, num_draws=100,
                 num_warmup=0, seed=0)
    run.divergent_step[2] = 17
    run.losses[2] = np.nan
    est = estimate_llc(run)
    assert est.divergent == ((2, 17),)
    assert math.isnan(est.chain_estimates[2]) and np.isfinite(est.estimate)
    run.divergent_step[:] = 5
    with pytest.raises(InputError):
        estimate_llc(run)


def test_multi_temperature_recovers_intercept_and_slope():
    rng = np.random.default_rng(0)
    lam, m = 4.0, 3
    pts = [SimpleNamespace(nbeta=t, estimate=lam - (m - 1) / math.log(t) + 0.01 * rng.standard_normal(),
                           stderr=0.01) for t in (1e3, 1e4, 1e5, 1e6)]
    mt = multi_temperature(pts)
    assert abs(mt.estimate - lam) < 4 * mt.stderr
    assert abs(mt.slope + (m - 1)) < 4 * mt.slope_stderr
    with pytest.raises(InputError):
        multi_temperature(pts[:1])


@pytest.mark.slow
def test_rrr_known_answer_within_bias_and_error():
    """RRR 3x3x2 r=1 (Aoyagi-Watanabe): |estimate - lambda| < 4 se + 3% (finite-nbeta bias)."""
    from algebra.slt.formulas import reduced_rank_regression

    model = rrr_model(3, 3, 2, 1, n=10**12, seed=0)
    lam = float(reduced_rank_regression(3, 3, 2, 1).lam)
    run = sample(model, method="hmc", nbeta=1e5, gamma=2.0, num_chains=64, num_draws=4000,
                 num_warmup=2000, seed=1)
    est = estimate_llc(run)
    assert abs(est.estimate - lam) < 4 * est.stderr + 0.03 * lam, (est.estimate, lam, est.stderr)


def test_informational_diagnostics_recorded():
    from algebra.numeric.models import regular_model
    from algebra.numeric.samplers import sample

    model = regular_model(2, n=10**12, seed=0)
    # at acceptance 0.9 the jittered step (up to 1.5 eps) stays inside the leapfrog stability
    # limit of a Gaussian target; at 0.65 it crosses it on a few percent of transitions
    hmc = estimate_llc(sample(model, method="hmc", nbeta=1e3, num_chains=8, num_draws=400,
                              num_warmup=300, seed=0, accept_target=0.9))
    assert hmc.energy_divergence_fraction == 0.0
    assert 0.9 < hmc.rhat_radius < 1.1  # a Gaussian target mixes in every coordinate
    sgld = estimate_llc(sample(model, method="sgld", nbeta=1e3, num_chains=4, num_draws=100,
                               num_warmup=100, seed=0))
    assert sgld.energy_divergence_fraction is None
    assert set(hmc.to_json()) >= {"rhat_radius", "energy_divergence_fraction"}
