"""Tests for algebra.numeric.suite and the suites of algebra.claims.llc_suites (exact values from algebra.slt)."""

import json
from fractions import Fraction

import pytest

from algebra.numeric.calibration import FAST
from algebra.claims.llc_suites import SUITE, build_model, exact_coefficient, run_entry
import algebra.numeric.suite as S
from algebra.numeric.suite import json_rows, summarize, write_table


def test_suite_covers_the_required_models():
    fams = [e.family for e in SUITE]
    assert len(SUITE) >= 10
    assert fams.count("rrr") >= 4 and "qk" in fams and "regular" in fams and "quadratic" in fams
    assert any(e.family == "dln" and len(e.args[0]) == 5 for e in SUITE)  # a 4-layer DLN
    cases = {exact_coefficient(e.family, e.args).case.split(",")[0].split(" (")[0]
             for e in SUITE if e.family == "rrr"}
    assert len(cases) >= 4


def test_exact_values_come_from_formulas():
    from algebra.slt import formulas

    lc = exact_coefficient("rrr", (5, 5, 5, 2))
    assert lc == formulas.reduced_rank_regression(5, 5, 5, 2)
    assert isinstance(lc.lam, Fraction)


def test_quadratic_network_lambda_is_half_the_certified_dimension():
    from algebra.slt.regular import quadratic_network_coefficient

    for e in SUITE:
        if e.family == "quadratic":
            lc = exact_coefficient(e.family, e.args)
            assert lc == quadratic_network_coefficient(*e.args)
            assert lc.lam == Fraction(lc.extra["certified_dimension"], 2) and lc.multiplicity == 1
    model = build_model("quadratic", (3, 2, 2), n=5000)
    assert model.dim == 10 and model.composite.in_dim == 6


def test_qk_numeric_model_matches_the_rrr_composite():
    """The QK composite A B^T is a (d, k, d) factor product (graph-attention paper, Thm 2)."""
    model = build_model("qk", (3, 2, 1), n=5000)
    assert model.composite.inner.widths == (3, 2, 3)
    assert exact_coefficient("qk", (3, 2, 1)).lam == exact_coefficient("rrr", (3, 3, 2, 1)).lam


@pytest.mark.slow  # over 5 s of a two-worker default run (issue 21, item 5)
def test_run_entry_fast_row_and_table():
    row = run_entry("rrr", (2, 2, 1, 1), settings=FAST, seed=0)
    for key in ("estimate", "stderr", "ci95", "exact_lambda", "multiplicity", "relative_error",
                "verdict", "seed"):
        assert key in row
    assert abs(row["relative_error"]) < 0.2
    text = write_table([row])
    assert "rrr M=2 N=2 H=1 r=1" in text
    s = summarize([row])
    assert s["models"] == 1 and s["targets_met"] is False  # fewer than 10 models
    json.dumps(json_rows([row]), default=float)


@pytest.fixture(scope="module")
def full_suite():
    from algebra.claims.llc_suites import run_suite

    return run_suite(progress=False)


@pytest.mark.slow
def test_full_suite_median_and_coverage(full_suite):
    """Issue 22 (calibration v2, measured 0.56% and 15/16): median |relative error| <= 1%, coverage >= 90%."""
    s = summarize(full_suite)
    assert s["models"] >= 10
    assert s["median_abs_relative_error"] <= 0.01
    assert s["coverage95"] >= 0.9


@pytest.mark.slow
def test_network_models_ok_are_within_5_percent(full_suite):
    """Every linear-network model (RRR, DLN, QK, regular) with verdict ok is within 5%."""
    rows = [r for r in full_suite if r["family"] != "poly" and r["verdict"] == "ok"]
    assert rows and summarize(rows)["worst_abs_relative_error"] <= 0.05


@pytest.mark.slow
def test_large_errors_are_flagged_suspect(full_suite):
    """Honesty: a model off by more than 5% must not get verdict ok (the verdict never sees lambda)."""
    bad = [r["model"] for r in full_suite if abs(r["relative_error"]) > 0.05 and r["verdict"] == "ok"]
    assert bad == []


@pytest.mark.slow
def test_full_suite_worst_case(full_suite):
    """Version 4: worst 6.8% (DLN (3,3,3,3,3), m = 5; version 3: x*y 16% low, an expected failure then)."""
    assert summarize(full_suite)["worst_abs_relative_error"] <= 0.10


def test_validation_suite_holds_the_attention_and_modular_addition_models():
    """Issue 15: the validation suite has the softmax graph-attention and modular-addition
    teacher-student models, each with an exact value computed at run time."""
    from algebra.claims.llc_suites import VALIDATION
    from algebra.slt.formulas import query_key

    fams = [e.family for e in VALIDATION]
    assert len(VALIDATION) >= 12 and fams.count("graph") >= 2 and fams.count("modadd") >= 2
    g = next(e for e in VALIDATION if e.family == "graph")
    assert exact_coefficient(g.family, g.args) == query_key(*g.args[1:])  # Assumption 1 certified on the design
    m = next(e for e in VALIDATION if e.family == "modadd")
    lc = exact_coefficient(m.family, m.args)
    assert lc.multiplicity == 1 and lc.lam == Fraction(build_model(m.family, m.args).dim - 2 * m.args[1], 2)
    with pytest.raises(Exception, match="n"):
        build_model("modadd", m.args, n=100)


@pytest.mark.slow  # over 5 s of a two-worker default run (issue 21, item 5)
def test_run_suite_reuses_rows_of_the_same_settings(monkeypatch, tmp_path):
    """``previous`` rows with the same seed and settings are kept; others are run again;
    traces survive the JSON round trip."""
    import numpy as np

    import algebra.claims.llc_suites as L
    import algebra.numeric.suite as S

    entries = (S.SuiteEntry("regular", (2, 1)), S.SuiteEntry("rrr", (2, 2, 1, 1)))
    first = L.run_suite(settings=FAST, entries=entries, progress=False)
    path = tmp_path / "rows.json"
    S.dump_rows(first, path)
    previous = S.load_rows(path)
    assert all(np.array_equal(a["trace"], b["trace"]) for a, b in zip(first, previous))
    calls = []
    real = L._entry_task
    monkeypatch.setattr(L, "_entry_task", lambda item: calls.append(item["family"]) or real(item))
    again = L.run_suite(settings=FAST, entries=entries, progress=False, previous=previous)
    assert calls == [] and all(r["reused"] for r in again)
    assert [r["estimate"] for r in again] == [r["estimate"] for r in first]
    more = entries + (S.SuiteEntry("regular", (3, 1)),)
    L.run_suite(settings=FAST, entries=more, progress=False, previous=previous)
    assert calls == ["regular"]
    other = S.CalibrationSettings(**{**FAST.__dict__, "num_draws": FAST.num_draws + 10})
    L.run_suite(settings=other, entries=entries[:1], progress=False, previous=previous)
    assert calls == ["regular", "regular"]  # different settings: not reused


def _fake_row(item):
    """A suite row as :func:`algebra.numeric.suite.llc_row` writes it, without sampling."""
    fam, args = item["family"], item["args"]
    return {"model": f"{fam} {args}", "family": fam, "args": list(args), "num_params": 2, "n": 10, "estimate": 1.0,
            "stderr": 0.1, "ci95": [0.8, 1.2], "chosen": "largest nbeta", "exact_lambda": "1", "multiplicity": 1,
            "relative_error": 0.0, "covered": True, "verdict": "ok", "reasons": [], "seed": item["seed"],
            "seconds": 0.0, "details": {"settings": item["settings"].to_json(), "bias_bound": None}, "trace": None}


def test_killed_suite_keeps_finished_rows_and_resume_redoes_only_the_rest(monkeypatch, tmp_path):
    """Issue 22 item 6 / issue 25 item 4: each finished row is on disk at once; --resume runs the missing ones."""
    import algebra.claims.llc_suites as L
    from algebra.cli import main

    entries = (S.SuiteEntry("regular", (2, 1)), S.SuiteEntry("regular", (3, 1)), S.SuiteEntry("regular", (4, 1)))
    monkeypatch.setattr(L, "SUITE", entries)
    calls = []

    def dies_on_third(item):
        calls.append(item["args"])
        if len(calls) == 3:
            raise KeyboardInterrupt  # a kill between tasks
        return _fake_row(item)

    monkeypatch.setattr(L, "_entry_task", dies_on_third)
    assert main(["llc", "suite", "--fast", "--out", str(tmp_path), "--json"]) != 0  # the CLI reports the interrupt
    kept = S.load_rows(tmp_path / "llc_suite.json")
    assert [tuple(r["args"]) for r in kept] == [(2, 1), (3, 1)]
    calls.clear()
    monkeypatch.setattr(L, "_entry_task", lambda item: calls.append(item["args"]) or _fake_row(item))
    main(["llc", "suite", "--fast", "--out", str(tmp_path), "--json", "--resume"])
    assert calls == [(4, 1)]
    assert len(S.load_rows(tmp_path / "llc_suite.json")) == 3
