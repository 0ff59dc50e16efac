"""Tests for algebra.numeric.diagnostics."""

import numpy as np
import pytest

from algebra.errors import InputError
from algebra.numeric.diagnostics import (autocorrelation, detect_burnin, effective_sample_size,
                                         hutchinson_trace, split_rhat)
from algebra.numeric.models import rrr_model


def _ar1(rho, chains, n, seed):
    rng = np.random.default_rng(seed)
    x = np.zeros((chains, n))
    e = rng.standard_normal((chains, n))
    x[:, 0] = e[:, 0] / np.sqrt(1 - rho**2)
    for t in range(1, n):
        x[:, t] = rho * x[:, t - 1] + e[:, t]
    return x


def test_ess_of_ar1_matches_theory():
    """ESS/N = (1 - rho)/(1 + rho) for an AR(1) chain."""
    x = _ar1(0.8, 8, 5000, 0)
    ratio = effective_sample_size(x) / x.size
    assert abs(ratio - 0.2 / 1.8) < 0.03


def test_ess_iid_and_autocorrelation_identity():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 2000))
    assert 0.85 < effective_sample_size(x) / x.size < 1.15
    rho = autocorrelation(x)
    assert np.allclose(rho[:, 0], 1.0)


def test_split_rhat_flags_disagreeing_and_drifting_chains():
    rng = np.random.default_rng(2)
    assert split_rhat(rng.standard_normal((4, 1000))) < 1.01
    drifting = rng.standard_normal((4, 1000)) + np.linspace(0, 3, 1000)
    assert split_rhat(drifting) > 1.1


def test_burnin_detection():
    rng = np.random.default_rng(3)
    x = np.concatenate([np.linspace(5, 0, 300), np.zeros(1700)]) + 0.2 * rng.standard_normal((4, 2000))
    b = detect_burnin(x)
    assert 200 <= b <= 400
    assert detect_burnin(rng.standard_normal((4, 2000))) < 200


def test_hutchinson_agrees_with_exact_trace():
    model = rrr_model(3, 3, 2, 1, n=10**9, seed=0)
    out = hutchinson_trace(model, num_vectors=400, seed=0)
    assert abs(out["estimate"] - out["exact"]) < 4 * out["stderr"]
    # identity: for Rademacher probes v^T H v averages to tr H, and tr H = sum of diagonal
    H = model.hessian_vector(model.w_star, np.eye(model.dim))
    assert np.isclose(np.trace(H), out["exact"])


def test_bad_input():
    with pytest.raises(InputError):
        effective_sample_size(np.zeros((2, 2)))
    with pytest.raises(InputError):
        hutchinson_trace(rrr_model(2, 2, 1, 1, n=100), num_vectors=1)


def test_burnin_report_identities_and_quiet_on_stationary_chains():
    """burn-in + kept = draws; neither failure signal fires on stationary AR(1) chains, both on a
    trace that relaxes for 70% of the run (exceeds) or to its end (window end)."""
    from algebra.numeric.diagnostics import burnin_report

    x = _ar1(0.5, 16, 2000, 4) + 4.5  # a large mean must not matter
    r = burnin_report(x)
    assert r["burnin"] + r["kept"] == 2000
    assert not r["exceeds_kept"] and not r["at_window_end"] and r["burnin"] < 200
    late = np.concatenate([np.linspace(5, 0, 1400), np.zeros(600)]) + 0.05 * _ar1(0.0, 1, 2000, 5)[0]
    assert burnin_report(late)["exceeds_kept"]
    assert burnin_report(5 * np.exp(-np.arange(2000) / 600.0))["at_window_end"]
    with pytest.raises(InputError):
        burnin_report(x, batch=0)
