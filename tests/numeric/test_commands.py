"""Tests for `neuroalgebra llc ...` (algebra.cli.numeric)."""

import json

import pytest

from algebra.cli import main


def test_llc_rrr_json_keys(capsys):
    code = main(["llc", "rrr", "--M", "2", "--N", "2", "--H", "1", "--r", "1", "--fast", "--json"])
    out = json.loads(capsys.readouterr().out)
    for key in ("estimate", "stderr", "ci95", "exact_lambda", "multiplicity", "relative_error",
                "verdict", "seed", "settings"):
        assert key in out
    assert out["exact_lambda"] == "3/2" and out["multiplicity"] == 1
    assert code == (0 if out["verdict"] == "ok" else 1)
    # issue 22: the target, the finite-temperature (Laplace) prediction and the exact value side by side
    assert out["target"] == "population"
    ft = out["finite_temperature"]
    assert len(ft["laplace"]) == len(ft["nbetas"]) == len(out["per_temperature"])
    assert ft["hessian"]["rank"] == 3 and abs(ft["laplace"][-1] - 1.5) < 0.01  # regular rank-1 point: 3/2
    assert out["bias_allowance"] is not None and out["supports"]


def test_llc_regular_table(capsys):
    main(["llc", "regular", "--in-dim", "2", "--fast"])
    out = capsys.readouterr().out
    assert "exact lambda" in out and "1 (m = 1)" in out
    assert "Laplace prediction" in out and "target" in out and "supports" in out




def test_llc_refuses_a_size_before_allocating(capsys):
    """The issue's example: exit 2 with a message naming --M's value, not a 74.5 GiB MemoryError."""
    code = main(["llc", "rrr", "--M", "100000", "--N", "5", "--H", "5", "--r", "0"])
    err = capsys.readouterr().err
    assert code == 2
    assert "M=100000" in err and "GiB" in err and "Traceback" not in err


@pytest.mark.slow  # 1.3-2.6 s end to end (the default run stays at half its earlier worker-seconds)
def test_llc_poly_goes_through_the_suite_entry(capsys, monkeypatch):
    """llc poly uses run_entry like every other family (no second Newton/parse path);
    the exact value comes from the Newton polyhedron."""
    import algebra.claims.llc_suites as suites

    seen = []
    real = suites.run_entry
    monkeypatch.setattr(suites, "run_entry", lambda *a, **k: seen.append(a[:2]) or real(*a, **k))
    main(["llc", "poly", "x^2*y", "y^2", "--fast", "--json"])
    assert seen == [("poly", ("x^2*y", "y^2"))]
    out = json.loads(capsys.readouterr().out)
    assert out["exact_lambda"] == "3/8" and out["multiplicity"] == 1


def test_suite_has_no_unused_sample_size_option():
    from algebra.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["llc", "suite", "--n", "100"])
    args = build_parser().parse_args(["llc", "suite", "--which", "validation"])
    assert args.which == "validation"


@pytest.mark.parametrize("argv", [
    ["llc", "rrr", "--M", "0", "--N", "2", "--H", "1", "--r", "1"],
    ["llc", "dln", "--widths", "3,0,2", "--r", "1"],
    ["llc", "rrr", "--M", "2", "--N", "2", "--H", "1", "--r", "1", "--chains", "1"],
    ["llc", "rrr", "--M", "2", "--N", "2", "--H", "1", "--r", "3"],
    ["llc", "dln", "--widths", "3,x", "--r", "1"],
    ["llc", "poly", "x*y + 1", "--fast"],
    ["llc", "poly", "__import__('os')", "--fast"],
])
def test_bad_input_exits_2(argv, capsys):
    """Bad values exit with status 2 and a one-line message (argparse or InputError)."""
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse rejects a bad typed option itself
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert "error" in err and "Traceback" not in err


def test_llc_quadratic_takes_lambda_from_the_certified_dimension(capsys):
    from algebra.slt.regular import quadratic_network_coefficient

    code = main(["llc", "quadratic", "--d", "2", "--outputs", "1", "--width", "2", "--n", "100000",
                 "--fast", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["exact_lambda"] == str(quadratic_network_coefficient(2, 1, 2).lam) and out["multiplicity"] == 1
    # n = 10^5 caps the temperature ladder, which the verdict reports
    assert code == 1 and any("too small" in r for r in out["reasons"])
