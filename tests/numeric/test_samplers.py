"""Tests for algebra.numeric.samplers."""

import numpy as np
import pytest

from algebra.errors import InputError
from algebra.numeric.models import rrr_model, regular_model
from algebra.numeric.samplers import sample, top_curvature


@pytest.fixture(scope="module")
def rrr():
    return rrr_model(3, 3, 2, 1, n=10**9, seed=0)


def test_zero_noise_sgld_is_a_gradient_step(rrr):
    """With noise=0 one SGLD step is exactly w - eps/2 (nbeta grad L(w) + gamma (w - w*))."""
    rng = np.random.default_rng(0)
    W0 = rrr.w_star + 0.1 * rng.standard_normal((3, rrr.dim))
    eps, nbeta, gamma = 1e-3, 50.0, 2.0
    run = sample(rrr, method="sgld", nbeta=nbeta, gamma=gamma, step_size=eps, noise=0.0,
                 num_chains=3, num_draws=1, num_warmup=0, init=W0)
    _, g = rrr.loss_and_grad(W0)
    expected = W0 - 0.5 * eps * (nbeta * g + gamma * (W0 - rrr.w_star))
    assert np.allclose(run.final, expected, rtol=1e-14, atol=0)
    # many zero-noise steps from w* do not move (w* is a critical point, up to 1e-9)
    still = sample(rrr, method="sgld", nbeta=nbeta, gamma=gamma, step_size=eps, noise=0.0,
                   num_chains=1, num_draws=50, num_warmup=0)
    assert np.allclose(still.final[0], rrr.w_star, atol=1e-9)


@pytest.mark.parametrize("method", ["sgld", "rmsprop_sgld", "mala", "hmc"])
def test_same_seed_same_result(rrr, method):
    kw = dict(method=method, nbeta=1e3, num_chains=3, num_draws=50, num_warmup=20)
    a = sample(rrr, seed=11, **kw)
    b = sample(rrr, seed=11, **kw)
    c = sample(rrr, seed=12, **kw)
    assert np.array_equal(a.losses, b.losses)
    assert not np.array_equal(a.losses, c.losses)
    assert a.seed == 11 and len(a.chain_spawn_keys) == 3


def test_chain_streams_do_not_depend_on_chain_count(rrr):
    """Chain i draws from child i of the SeedSequence, whatever the number of chains."""
    kw = dict(method="sgld", nbeta=1e3, step_size=1e-4, num_draws=30, num_warmup=0, seed=5)
    two = sample(rrr, num_chains=2, **kw)
    five = sample(rrr, num_chains=5, **kw)
    assert np.array_equal(two.losses, five.losses[:2])


def test_divergence_is_reported_per_chain(rrr):
    run = sample(rrr, method="sgld", nbeta=1e4, step_size=1.0, num_chains=4, num_draws=20,
                 num_warmup=0, seed=0)
    assert np.all(run.divergent)
    assert np.all((run.divergent_step >= 0) & (run.divergent_step < 20))
    assert np.all(np.isnan(run.losses))


def test_mala_and_hmc_target_the_gaussian_exactly():
    """Regular model: nbeta (E L - L*) = d/2 - gamma/(2 nbeta) tr H^-1 (Gaussian target)."""
    model = regular_model(2, 2, n=10**12, seed=0)
    for method in ("mala", "hmc"):
        run = sample(model, method=method, nbeta=1e3, gamma=1.0, num_chains=16, num_draws=600,
                     num_warmup=300, seed=3)
        vals = run.nbeta * (run.losses - run.loss_star)
        est = vals.mean()
        # Sxx = I up to 1e-6; E[nbeta K] = sum_i a/(2(a + gamma)) with a = nbeta, 4 coords
        exact = 4 * 0.5 * 1e3 / (1e3 + 1.0)
        se = vals.std() / np.sqrt(vals.size / 10)  # conservative: 10 draws per independent sample
        assert abs(est - exact) < 4 * se, (method, est, exact, se)
        assert 0.3 < run.accept_rate.mean() < 0.95


def test_minibatch_sgld_runs_and_records_full_batch_loss():
    model = rrr_model(3, 2, 2, 1, n=2000, seed=0, data="explicit")
    run = sample(model, method="sgld", nbeta=200.0, batch_size=50, num_chains=2, num_draws=30,
                 num_warmup=10, seed=0)
    assert run.losses.shape == (2, 30) and np.all(np.isfinite(run.losses))
    with pytest.raises(InputError):
        sample(rrr_model(3, 2, 2, 1, n=10**6), method="sgld", nbeta=10.0, batch_size=5)
    with pytest.raises(InputError):
        sample(model, method="mala", nbeta=10.0, batch_size=5)


def test_top_curvature_regular():
    assert abs(top_curvature(regular_model(3, n=10**10)) - 1.0) < 1e-3


def test_bad_parameters(rrr):
    with pytest.raises(InputError):
        sample(rrr, nbeta=-1.0)
    with pytest.raises(InputError):
        sample(rrr, nbeta=10.0, num_chains=0)
    with pytest.raises(InputError):
        sample(rrr, nbeta=10.0, method="sgld", adapt_mass=True)


def test_radius_and_energy_traces():
    """radii = ||w - w*||^2 per draw; energy errors counted for HMC only, none on a Gaussian target."""
    model = regular_model(2, n=10**12, seed=0)
    run = sample(model, method="hmc", nbeta=1e3, num_chains=4, num_draws=50, num_warmup=50, seed=0)
    assert run.radii.shape == run.losses.shape and np.all(run.radii >= 0)
    W = np.asarray(run.final)
    assert np.allclose(run.radii[:, -1], np.sum((W - model.w_star) ** 2, axis=1))
    assert run.energy_errors.shape == (4,) and run.energy_errors.sum() == 0
    mala = sample(model, method="mala", nbeta=1e3, num_chains=2, num_draws=10, num_warmup=10, seed=0)
    assert mala.energy_errors is None


def test_accept_target_moves_the_acceptance():
    model = regular_model(2, n=10**12, seed=0)
    rates = [sample(model, method="hmc", nbeta=1e3, num_chains=8, num_draws=200, num_warmup=300,
                    seed=1, accept_target=t).accept_rate.mean() for t in (0.5, 0.9)]
    assert abs(rates[0] - 0.5) < 0.1 and rates[1] > 0.85
    with pytest.raises(InputError):
        sample(model, method="sgld", nbeta=10.0, accept_target=0.9)
    with pytest.raises(InputError):
        sample(model, method="hmc", nbeta=10.0, accept_target=1.5)


@pytest.mark.parametrize("noise", [0.5, 2.0])
def test_mala_with_scaled_noise_still_targets_the_posterior(noise):
    """MALA's proposal N(w - eps/2 grad U, noise^2 eps I) enters the acceptance test with that
    variance, so the chain targets exp(-U) whatever noise is (a density that ignores noise
    targets a different law: the regular model's nbeta (E L - L*) moves off d/2)."""
    model = regular_model(2, 2, n=10**12, seed=0)
    run = sample(model, method="mala", nbeta=1e3, gamma=1.0, num_chains=16, num_draws=800,
                 num_warmup=400, noise=noise, seed=3)
    vals = run.nbeta * (run.losses - run.loss_star)
    exact = 4 * 0.5 * 1e3 / (1e3 + 1.0)
    se = vals.std() / np.sqrt(vals.size / 20)
    assert abs(vals.mean() - exact) < 4 * se, (noise, vals.mean(), exact, se)
    assert run.settings["noise"] == noise


def test_noise_options_that_do_nothing_are_refused(rrr):
    with pytest.raises(InputError, match="noise"):
        sample(rrr, method="hmc", nbeta=10.0, noise=0.5)
    with pytest.raises(InputError, match="noise"):
        sample(rrr, method="mala", nbeta=10.0, noise=0.0)


def test_sizes_are_refused_before_allocating(rrr):
    from algebra.errors import ResourceError

    with pytest.raises(ResourceError, match="num_chains=100000000"):
        sample(rrr, method="sgld", nbeta=10.0, num_chains=10**8)
