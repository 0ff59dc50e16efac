"""Tests for algebra.numeric.calibration: the procedure and its verdict."""

from types import SimpleNamespace

from algebra.numeric.calibration import FAST, CalibrationSettings, calibrated_llc, verdict_reasons
from algebra.numeric.models import regular_model, rrr_model


def test_regular_model_ok_and_covered():
    res = calibrated_llc(regular_model(2, 2, n=10**12, seed=0), settings=FAST, seed=2)
    assert res.verdict == "ok", res.reasons
    assert res.ci95[0] <= 2.0 <= res.ci95[1]
    assert res.chosen == "largest nbeta"
    assert len(res.per_temperature) == 3 and res.seed == 2


def test_same_seed_same_calibrated_result():
    model = rrr_model(2, 2, 1, 1, n=10**12, seed=0)
    a = calibrated_llc(model, settings=FAST, seed=5)
    b = calibrated_llc(model, settings=FAST, seed=5)
    assert a.estimate == b.estimate and a.stderr == b.stderr


def test_small_n_caps_the_temperatures_and_is_suspect():
    """nbeta must stay below n/1000; a small n shrinks the ladder and says so."""
    res = calibrated_llc(regular_model(2, n=10**6, seed=0), settings=FAST, seed=0)
    assert max(e.nbeta for e in res.per_temperature) <= 10**6 / 1e3 + 1e-9
    assert res.verdict == "suspect"
    assert any("too small" in r for r in res.reasons)


def test_too_short_chains_are_flagged():
    """A failing configuration: 10 draws at high nbeta gives low ESS / large R-hat."""
    bad = CalibrationSettings(num_chains=4, num_draws=12, num_warmup=5, draws_growth=1.0)
    res = calibrated_llc(rrr_model(3, 3, 2, 1, n=10**12, seed=0), settings=bad, seed=0)
    assert res.verdict == "suspect"
    assert any("ESS" in r or "R-hat" in r for r in res.reasons)


def test_verdict_reasons_each_diagnostic():
    base = dict(divergent=(), rhat=1.0, ess=1000.0, accept_rate=0.6, burnin=0, num_draws=100,
                nbeta=1e4)
    assert verdict_reasons(SimpleNamespace(**base)) == []
    for change, word in [({"divergent": ((0, 3),)}, "divergent"), ({"rhat": 1.2}, "R-hat"),
                         ({"ess": 50.0}, "ESS"), ({"accept_rate": 0.1}, "acceptance"),
                         ({"burnin": 200}, "burn-in"), ({"rhat": float("nan")}, "R-hat")]:
        reasons = verdict_reasons(SimpleNamespace(**{**base, **change}))
        assert len(reasons) == 1 and word in reasons[0]
