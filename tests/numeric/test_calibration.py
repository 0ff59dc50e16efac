"""Tests for algebra.numeric.calibration: the procedure and its verdict."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from algebra.numeric.calibration import (FAST, CalibrationSettings, calibrated_llc,
                                         combine_temperatures, verdict_reasons)
from algebra.numeric.models import linear_regression_model, rrr_model


# long enough for the temperature ladder to bound the finite-nbeta bias below 5%
MEDIUM = CalibrationSettings(num_chains=16, num_draws=1000, max_draws=4000, num_warmup=500, draws_growth=1.0)


@pytest.mark.slow  # over 5 s of a two-worker default run (issue 21, item 5)
def test_regular_model_ok_and_covered():
    res = calibrated_llc(linear_regression_model(2, 2, n=10**12, seed=0), settings=MEDIUM, seed=2)
    assert res.verdict == "ok", res.reasons
    assert res.bias_allowance is not None and res.bias_allowance < 0.05 * res.estimate
    assert res.target == "population" and len(res.laplace) == 4
    assert res.ci95[0] <= 2.0 <= res.ci95[1]
    assert res.chosen == "largest nbeta"
    assert len(res.per_temperature) == 4 and res.seed == 2


@pytest.mark.slow  # over 5 s of a two-worker default run (issue 21, item 5)
def test_same_seed_same_calibrated_result():
    model = rrr_model(2, 2, 1, 1, n=10**12, seed=0)
    a = calibrated_llc(model, settings=FAST, seed=5)
    b = calibrated_llc(model, settings=FAST, seed=5)
    assert a.estimate == b.estimate and a.stderr == b.stderr


def test_small_n_caps_the_temperatures_and_is_suspect():
    """nbeta must stay below n/1000; a small n shrinks the ladder and says so."""
    res = calibrated_llc(linear_regression_model(2, n=10**6, seed=0), settings=FAST, seed=0)
    assert max(e.nbeta for e in res.per_temperature) <= 10**6 / 1e3 + 1e-9
    assert res.verdict == "suspect"
    assert any("too small" in r for r in res.reasons)


def test_too_short_chains_are_flagged():
    """A failing configuration: 10 draws at high nbeta gives low ESS / large R-hat."""
    bad = CalibrationSettings(num_chains=4, num_draws=12, max_draws=12, num_warmup=5, draws_growth=1.0)
    res = calibrated_llc(rrr_model(3, 3, 2, 1, n=10**12, seed=0), settings=bad, seed=0)
    assert res.verdict == "suspect"
    assert any("ESS" in r or "R-hat" in r for r in res.reasons)


def test_verdict_reasons_each_diagnostic():
    base = dict(divergent=(), rhat=1.0, ess=1000.0, accept_rate=0.6, burnin=0, num_draws=100,
                nbeta=1e4, burnin_at_window_end=False)
    assert verdict_reasons(SimpleNamespace(**base)) == []
    for change, word in [({"divergent": ((0, 3),)}, "divergent"), ({"rhat": 1.2}, "R-hat"),
                         ({"ess": 50.0}, "ESS"), ({"accept_rate": 0.1}, "acceptance"),
                         ({"burnin": 200}, "exceeds the 100 kept"), ({"rhat": float("nan")}, "R-hat"),
                         ({"burnin_at_window_end": True}, "end of the search window")]:
        reasons = verdict_reasons(SimpleNamespace(**{**base, **change}))
        assert len(reasons) == 1 and word in reasons[0]


def _ladder(values, errors, nbetas=(1e4, 1e5, 1e6)):
    return [SimpleNamespace(nbeta=t, estimate=v, stderr=e) for t, v, e in zip(nbetas, values, errors)]


def test_fast_chains_cannot_show_convergence():
    """Short chains: the ladder's slope is too uncertain to bound the bias, so the verdict says so."""
    res = calibrated_llc(linear_regression_model(2, n=10**12), settings=FAST, seed=1)
    assert res.verdict == "suspect"
    assert any(r.startswith("not shown converged") for r in res.reasons)


def test_combine_never_extrapolates_and_carries_the_log_bias():
    """lambda - (m-1)/log(nbeta) with m = 2: the largest-nbeta value is reported, and the
    upper end of its interval covers lambda because it holds the allowance 3.0 D."""
    c = combine_temperatures(_ladder([4.0 - 1.0 / math.log(t) for t in (1e4, 1e5, 1e6)], [0.003] * 3))
    assert c["chosen"] == "largest nbeta"
    assert c["estimate"] == 4.0 - 1.0 / math.log(1e6)
    assert abs(c["multi"].slope + 1.0) < 1e-9
    assert c["ci95"][1] >= 4.0 > c["estimate"] + 1.96 * c["stderr"]
    assert c["reasons"] == []  # allowance 0.109 for a rise of 0.036: under 5% of 3.93


def test_combine_m3_ladder_is_not_shown_converged():
    """m = 3: the rise 0.072 allows 0.22 still to come, over 5% of the estimate."""
    c = combine_temperatures(_ladder([4.0 - 2.0 / math.log(t) for t in (1e4, 1e5, 1e6)], [0.003] * 3))
    assert c["ci95"][1] >= 4.0
    assert len(c["reasons"]) == 1 and c["reasons"][0].startswith("not shown converged")


def test_combine_flags_a_falling_ladder():
    """Estimates that decrease with nbeta contradict the approach from below: suspect, with the reason."""
    c = combine_temperatures(_ladder([3.3, 3.15, 3.05], [0.004] * 3))
    assert any(r.startswith("ladder inconsistent: estimates fall") for r in c["reasons"])
    rising = combine_temperatures(_ladder([2.9, 2.96, 2.99], [0.004] * 3))
    assert not any("inconsistent" in r for r in rising["reasons"])


def test_combine_flags_a_fall_inside_the_ladder():
    """First and last agree, but the middle temperature is far above both: the fall is named."""
    c = combine_temperatures(_ladder([3.0, 3.5, 3.0], [0.01] * 3))
    assert any(r.startswith("ladder inconsistent: estimates fall") and "nbeta=100000" in r for r in c["reasons"])


def test_verdict_never_reads_the_exact_value():
    """calibrated_llc has no argument through which an exact value could enter the verdict."""
    import inspect

    params = set(inspect.signature(calibrated_llc).parameters)
    assert params == {"model", "settings", "seed", "progress", "target", "bar"}
    assert not any("exact" in name or "lam" in name for name in inspect.signature(combine_temperatures).parameters)


def test_combine_flags_an_unbounded_bias_and_widens_the_interval():
    """The suite's x*y ladder (exact 1/2): the rise allows more than 5%: suspect."""
    per = _ladder([0.3888, 0.3887, 0.4127], [0.0052, 0.0084, 0.0138])
    c = combine_temperatures(per)
    assert c["chosen"] == "largest nbeta" and c["stderr"] == 0.0138
    assert len(c["reasons"]) == 1 and "not shown converged" in c["reasons"][0]
    assert c["bias_allowance"] == pytest.approx(1.5 * math.log(1e4) / math.log(100) * (0.4127 - 0.3888))  # from 10^4
    assert c["ci95"][1] > 0.4127 + c["bias_allowance"] + 1.96 * 0.0138


def test_allowance_covers_the_exact_ladder_of_x2y2_from_1e3():
    """Version 4's ladder on the exact tempered values of K = (x y)^2 / 2 squared, x^2 y^2 (lambda = 1/4,
    m = 2; quadrature, no sampling): the allowance from nbeta = 10^3 to 10^6 covers what is left, and
    it would not with version 3's safety factor (1.5; this toy needs 1.67)."""
    from algebra.numeric.estimators import tempered_expectation

    class Toy:
        w_star = np.zeros(2)

        def loss(self, W):
            W = np.atleast_2d(W)
            return 0.5 * (W[:, 0] * W[:, 1]) ** 4

    nbetas = (1e3, 1e4, 1e5, 1e6)
    F = [tempered_expectation(Toy(), t, 1.0, points=601, core=0.05 / t**0.25) for t in nbetas]
    per = _ladder(F, [1e-9] * 4, nbetas)
    assert combine_temperatures(per)["ci95"][1] >= 0.25
    assert combine_temperatures(per, safety=1.5)["ci95"][1] < 0.25
    assert combine_temperatures(per)["reasons"][0].startswith("not shown converged")  # the rise is 17% of F


def test_a_falling_noisy_ladder_keeps_its_noise_margin():
    """FAST on a regular model read 0.976, 1.021, 0.959, 0.942 +- 0.03 (lambda = 1): from 10^4 the
    ladder falls by 1.9 standard errors.  Counted as a rise of -0.079 that margin would vanish and
    the smaller of the two starts' allowances would call a 6%-low value ok; counted as zero it stays."""
    per = _ladder([0.9764, 1.0205, 0.9585, 0.9416], [0.0271, 0.0296, 0.0292, 0.0299], (1e3, 1e4, 1e5, 1e6))
    c = combine_temperatures(per)
    assert c["reasons"] and c["reasons"][0].startswith("not shown converged")
    assert c["ci95"][1] >= 1.0


def test_the_smaller_allowance_of_two_starts_is_used():
    """An m = 1-like ladder whose rise is all in its first decade: from 10^4 it is nearly flat."""
    per = _ladder([9.40, 9.96, 9.99, 10.0], [0.004] * 4, (1e3, 1e4, 1e5, 1e6))
    c = combine_temperatures(per)
    assert c["allowance_from"] == 1e4 and c["reasons"] == []
    only_first = combine_temperatures(per, safety=1.7)
    assert only_first["reasons"][0].startswith("not shown converged")


def test_combine_a_flat_coarse_ladder_is_not_shown_converged():
    """A flat ladder with 1% error bars could hide an m = 5 approach (DLN (3,3,3,3,3) came out
    3.47, 3.53, 3.46 +- 0.04 against lambda = 4): the rise 2 se above the measured one decides."""
    c = combine_temperatures(_ladder([3.47, 3.53, 3.46], [0.046, 0.037, 0.040]))
    assert c["bias_allowance"] == 0.0
    assert any(r.startswith("not shown converged") for r in c["reasons"])


def test_combine_accepts_a_flat_precise_ladder():
    c = combine_temperatures(_ladder([2.999, 3.001, 3.000], [0.006, 0.005, 0.004]))
    assert c["chosen"] == "largest nbeta" and c["reasons"] == []
    assert c["bias_allowance"] < 0.05 * 3.0


def test_combine_single_temperature():
    c = combine_temperatures(_ladder([1.0], [0.01]))
    assert c["multi"] is None and c["stderr"] == 0.01 and c["bias_allowance"] is None
    assert c["reasons"][0].startswith("not shown converged: one temperature")


def test_rescaled_loss_same_chains():
    """Scale-free localization: the loss times 2^k gives the same estimate to the bit (issue 22, item 1).

    The empirical target, because the population target's cap ``nbeta <= n/10^3`` reads the loss
    as an average negative log-likelihood, whose scale is not free."""
    from dataclasses import replace

    m = rrr_model(2, 2, 1, 1, n=10**12, seed=0)
    c = 2.0**-30
    small = replace(m, Sxx=c * m.Sxx, Sxy=c * m.Sxy, syy=c * m.syy)
    a = calibrated_llc(m, settings=FAST, seed=3, target="empirical")
    b = calibrated_llc(small, settings=FAST, seed=3, target="empirical")
    assert a.estimate == b.estimate and a.gamma == b.gamma == 1.0
    assert b.curvature == pytest.approx(c * a.curvature, rel=1e-12)


def test_a_strong_prior_is_named():
    """gamma far above nbeta h_i removes most of rank/2: the localization deficit makes it suspect."""
    res = calibrated_llc(linear_regression_model(2, n=10**12, seed=0),
                         settings=CalibrationSettings(**{**FAST.__dict__, "gamma": 1e5}), seed=0)
    assert any("localizing prior removes" in r for r in res.reasons)
    assert res.laplace[0] < 0.2  # the Gaussian prediction says so too: 2 * 10^4/(10^4 + 10^5) / 2


def test_empirical_target_has_no_cap():
    """A small data set: the population ladder is cut, the empirical one is not (issue 22, item 4)."""
    m = linear_regression_model(2, n=200, seed=0)
    pop = calibrated_llc(m, settings=FAST, seed=0)
    emp = calibrated_llc(m, settings=FAST, seed=0, target="empirical")
    assert max(e.nbeta for e in pop.per_temperature) <= 200 / 1e3 + 1e-12
    assert max(e.nbeta * pop.curvature for e in emp.per_temperature) == pytest.approx(1e6)
    assert emp.target == "empirical" and not any("too small" in r for r in emp.reasons)
    # a regular model: the empirical coefficient is d/2 = 1 at every temperature
    assert abs(emp.estimate - 1.0) < 4 * emp.stderr


def test_unknown_target_is_refused():
    from algebra.errors import InputError

    with pytest.raises(InputError, match="target"):
        calibrated_llc(linear_regression_model(2, n=10**12), target="posterior")


def test_stuck_chain_fires():
    """One chain with a step far past the stability limit never moves: named as stuck."""
    from algebra.numeric.estimators import estimate_llc
    from algebra.numeric.samplers import sample

    model = linear_regression_model(2, n=10**12, seed=0)
    steps = np.full(8, 0.1 / 1e4)
    steps[5] = 1.0  # omega eps = 100 against the leapfrog limit 2
    run = sample(model, method="hmc", nbeta=1e4, gamma=1.0, step_size=steps, num_chains=8, num_draws=200,
                 num_warmup=0, adapt=False, seed=0)
    reasons = verdict_reasons(estimate_llc(run, burnin=0), run.accept_rate)
    assert any("stuck chain" in r and "chain 5" in r for r in reasons)


# Each diagnostic fires on a real sampler run built to fail it (not only on hand-made numbers).

def test_burnin_longer_than_the_kept_draws_fires():
    """Chains started far out with a small step relax for most of the run: MSER's burn-in
    exceeds the draws it keeps, and the verdict says so."""
    from algebra.numeric.estimators import estimate_llc
    from algebra.numeric.samplers import sample

    model = linear_regression_model(2, n=10**12, seed=0)
    init = model.w_star + np.full((8, 2), 3.0)
    run = sample(model, method="sgld", nbeta=100.0, gamma=1.0, step_size=2e-4, num_chains=8,
                 num_draws=600, num_warmup=0, init=init, seed=0)
    est = estimate_llc(run)
    assert est.burnin > est.num_draws
    assert any("exceeds" in r for r in verdict_reasons(est))


def test_burnin_at_the_end_of_the_window_fires():
    """Chains still relaxing when the draws run out: the MSER minimiser is the last truncation."""
    from algebra.numeric.estimators import estimate_llc
    from algebra.numeric.samplers import sample

    model = linear_regression_model(2, n=10**12, seed=0)
    init = model.w_star + np.full((8, 2), 3.0)
    run = sample(model, method="sgld", nbeta=100.0, gamma=1.0, step_size=2e-5, num_chains=8,
                 num_draws=1000, num_warmup=0, init=init, seed=0)
    est = estimate_llc(run)
    assert est.burnin_at_window_end
    assert any("end of the search window" in r for r in verdict_reasons(est))


def test_divergent_chains_fire():
    """A step beyond the stability limit for some chains (per-chain init far out): divergent chains named."""
    from algebra.numeric.estimators import estimate_llc
    from algebra.numeric.samplers import sample

    model = rrr_model(3, 3, 2, 1, n=10**12, seed=0)
    init = np.repeat(model.w_star[None], 4, axis=0)
    init[1] += 30.0  # far out, where the curvature makes this step unstable
    run = sample(model, method="sgld", nbeta=1e3, gamma=1.0, step_size=1e-4, num_chains=4,
                 num_draws=100, num_warmup=0, init=init, seed=0)
    est = estimate_llc(run)
    assert [c for c, _ in est.divergent] == [1]
    assert any("divergent chain" in r for r in verdict_reasons(est))


def test_rhat_fires_on_chains_that_never_meet():
    """Chains started at different points with a tiny step stay apart: split R-hat > 1.05."""
    from algebra.numeric.estimators import estimate_llc
    from algebra.numeric.samplers import sample

    model = linear_regression_model(2, n=10**12, seed=0)
    init = model.w_star + np.linspace(-0.5, 0.5, 8)[:, None] * np.ones((8, 2))
    run = sample(model, method="sgld", nbeta=1e3, gamma=1.0, step_size=1e-7, num_chains=8,
                 num_draws=200, num_warmup=0, init=init, seed=0)
    est = estimate_llc(run, burnin=0)
    assert est.rhat > 1.05
    assert any("R-hat" in r for r in verdict_reasons(est))


# -- step 3a: each colder temperature starts where the hotter one ended -------------------------------------


TINY = CalibrationSettings(num_chains=4, num_draws=20, max_draws=20, num_warmup=10, draws_growth=1.0)


def _record_starts(monkeypatch):
    import algebra.numeric.calibration as C

    seen, orig = [], C.sample

    def spy(model, **kw):
        seen.append(None if kw.get("init") is None else np.array(kw["init"]))
        run = orig(model, **kw)
        seen[-1] = (seen[-1], run.final.copy())
        return run

    monkeypatch.setattr(C, "sample", spy)
    return seen


def test_start_hotter_is_version_three(monkeypatch):
    from dataclasses import replace

    seen = _record_starts(monkeypatch)
    calibrated_llc(linear_regression_model(2, n=10**12, seed=0), settings=replace(TINY, start="hotter"), seed=1)
    assert len(seen) == 4 and seen[0][0] is None  # the hottest starts at w*
    for (_, before), (start, _) in zip(seen, seen[1:]):
        assert np.array_equal(start, before)  # the next one where these ended


def test_start_w_star_is_version_two(monkeypatch):
    from dataclasses import replace

    seen = _record_starts(monkeypatch)
    calibrated_llc(linear_regression_model(2, n=10**12, seed=0), settings=replace(TINY, start="w_star"), seed=1)
    assert [s for s, _ in seen] == [None, None, None, None]


def test_the_procedure_starts_half_the_chains_back_at_w_star(monkeypatch):
    """Version 4's default, start="mixed": at each colder temperature half at w*, half where they ended."""
    seen = _record_starts(monkeypatch)
    model = linear_regression_model(2, n=10**12, seed=0)
    assert TINY.start == "mixed"
    calibrated_llc(model, settings=TINY, seed=1)
    assert seen[0][0] is None
    for (_, before), (start, _) in zip(seen, seen[1:]):
        assert np.array_equal(start[:2], np.tile(model.w_star, (2, 1)))  # 4 chains: two at w*
        assert np.array_equal(start[2:], before[2:])  # two where they ended


def test_an_unknown_start_is_refused_by_name():
    from dataclasses import replace

    from algebra.errors import InputError

    with pytest.raises(InputError, match="settings.start"):
        calibrated_llc(linear_regression_model(2, n=10**12), settings=replace(FAST, start="cold"))


def test_a_diverged_chain_restarts_at_w_star():
    from algebra.numeric.calibration import _restart_points

    final = np.array([[1.0, 2.0], [np.nan, 0.0], [3.0, 4.0]])
    run = SimpleNamespace(final=final, divergent=np.array([False, False, True]))
    out = _restart_points(run, np.array([9.0, 9.0]))
    assert out.tolist() == [[1.0, 2.0], [9.0, 9.0], [9.0, 9.0]] and np.isnan(final[1, 0])  # a copy


def test_version3_settings_keep_the_version3_ladder_starts_and_allowance():
    from dataclasses import replace

    from algebra.numeric.calibration import VERSION3

    res = calibrated_llc(linear_regression_model(2, n=10**12, seed=0),
                         settings=replace(VERSION3, **{k: getattr(TINY, k) for k in
                                                       ("num_chains", "num_draws", "max_draws", "num_warmup",
                                                        "draws_growth")}), seed=1)
    assert [round(e.nbeta * res.curvature) for e in res.per_temperature] == [10**4, 10**5, 10**6]
    assert res.settings["start"] == "hotter" and res.settings["allowance_from"] == [[1e4, 1.5]]
    per = _ladder([2.9, 2.95, 3.0], [1e-9] * 3)
    assert combine_temperatures(per, safety=VERSION3.allowance_from)["bias_allowance"] == pytest.approx(0.3)


def test_the_two_start_groups_are_recorded_beside_the_estimate():
    """start="mixed": from the second temperature on, the chains from w* and those from the hotter ends are
    compared (means of their chain-wise estimates, Welch z); the first temperature and other starts have none."""
    from dataclasses import replace

    from algebra.numeric.calibration import start_sides

    model = linear_regression_model(2, n=10**12, seed=0)
    res = calibrated_llc(model, settings=FAST, seed=3)
    assert len(res.sides) == len(res.per_temperature) and res.sides[0] is None
    for est, side in zip(res.per_temperature[1:], res.sides[1:]):
        assert side["chains"] == [8, 8]
        assert side["difference"] == pytest.approx(side["hotter"] - side["w_star"])
        # the pooled chain-wise estimate is the two groups' average when no chain diverged
        assert np.nanmean(est.chain_estimates) == pytest.approx((side["w_star"] + side["hotter"]) / 2)
    assert res.to_json()["sides"][1] == res.sides[1]
    same_chains = calibrated_llc(model, settings=replace(FAST, start="hotter"), seed=3)
    assert same_chains.sides == (None,) * len(same_chains.per_temperature)
    # a group with fewer than two live chains gives no comparison
    assert start_sides(SimpleNamespace(chain_estimates=(1.0, float("nan"), 2.0, 3.0)), 2) is None
    assert start_sides(SimpleNamespace(chain_estimates=(1.0, 1.0, 2.0, 2.0)), 2)["z"] is None
