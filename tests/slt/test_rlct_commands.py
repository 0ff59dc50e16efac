"""`neuroalgebra rlct ...`: exact JSON answers and exit status 2 on bad input."""

import json

import pytest

from algebra.cli import main


def run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_rrr_json(capsys):
    code, out, _ = run(["rlct", "rrr", "--M", "5", "--N", "4", "--H", "3", "--r", "1", "--json"], capsys)
    data = json.loads(out)
    assert code == 0
    assert data["lambda"] == "7" and data["multiplicity"] == 2
    assert data["theorem"].startswith("Aoyagi & Watanabe (2005)") and data["case"].startswith("case 1")


def test_rrr_fraction_string(capsys):
    code, out, _ = run(["rlct", "rrr", "--M", "3", "--N", "3", "--H", "1", "--r", "0", "--json"], capsys)
    assert json.loads(out)["lambda"] == "3/2"


def test_dln_and_qk_and_regular(capsys):
    code, out, _ = run(["rlct", "dln", "--widths", "4,3,3,5", "--r", "1", "--json"], capsys)
    assert code == 0 and json.loads(out)["lambda"] == "6"
    code, out, _ = run(["rlct", "qk", "--d", "6", "--k", "4", "--r", "2", "--json"], capsys)
    assert code == 0 and json.loads(out)["lambda"] == "27/2"
    code, out, _ = run(["rlct", "regular", "--rank", "5"], capsys)
    assert code == 0 and "5/2" in out


def test_quadratic(capsys):
    code, out, _ = run(["rlct", "quadratic", "--d", "6", "--outputs", "3", "--width", "4", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["lambda"] == "16"
    assert data["extra"]["agrees_with_paper"] is True and data["extra"]["certified_dimension"] == 32


def test_poly(capsys):
    code, out, _ = run(["rlct", "poly", "x^2*y^4 + z^6", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["lambda"] == "5/12" and data["multiplicity"] == 1 and data["nondegenerate"] == "yes"
    code, out, _ = run(["rlct", "poly", "x^2*y^2", "--json"], capsys)
    data = json.loads(out)
    assert (data["lambda"], data["multiplicity"]) == ("1/2", 2)
    code, out, _ = run(["rlct", "poly", "x^2", "--variables", "x,y", "--prior", "0,3"], capsys)
    assert code == 0 and "1/2 (exact)" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["rlct", "rrr", "--M", "2", "--N", "2", "--H", "2", "--r", "3"],
        ["rlct", "dln", "--widths", "4,x", "--r", "0"],
        ["rlct", "qk", "--d", "3", "--k", "4", "--r", "0"],
        ["rlct", "poly", "__import__('os').system('true')"],
        ["rlct", "poly", "x - y"],
        ["rlct", "poly", "x^2", "--prior", "1,2"],
    ],
)
def test_bad_input_exits_2(argv, capsys):
    code, _, err = run(argv, capsys)
    assert code == 2 and "invalid" in err and "Traceback" not in err


def test_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["rlct", "rrr", "--M", "0", "--N", "1", "--H", "1", "--r", "0"])
    assert info.value.code == 2


def test_ideal_is_sum_of_squares(capsys):
    code, out, _ = run(["rlct", "ideal", "x*y", "z^2", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and (data["lambda"], data["multiplicity"]) == ("3/4", 2)
    assert data["inputs"]["K"] == "x^2*y^2 + z^4"


def test_fit(capsys, tmp_path):
    code, out, _ = run(["rlct", "fit", "x^2 + y^4", "--log2-samples", "12", "--replicates", "4", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["ci"][0] <= 0.75 <= data["ci"][1] and data["seed"] == 0
    code, _, err = run(["rlct", "fit", "0"], capsys)
    assert code == 2 and "invalid K" in err
