"""One table, every door: `dim`, `secant`, `rlct`, `certify` and `--over-q` certify the same number.

Each row of tests/known_dimensions.py goes through every route that applies
to it; all must print ``certified: true`` (or its equivalent) with the known
value.  The bug this catches: two doors of the toolkit disagreeing on one
model (the issue found `dim` uncertified where `certify` proved the value).
"""

import json
from fractions import Fraction

import pytest

from algebra.cli import main
from tests.known_dimensions import KNOWN_CASES

IDS = [c.name for c in KNOWN_CASES]

#: the independent checker refuses identities of higher degree (algebra.checker.kernel.MAX_IDENTITY_DEGREE)
CHECKER_MAX_DEGREE = 2**20


def _run(argv, capsys) -> dict:
    assert main(argv) == 0, argv
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("case", KNOWN_CASES, ids=IDS)
def test_every_route_certifies_the_same_number(case, capsys):
    model = case.make()
    dim = _run(["dim", *case.argv, "--json"], capsys)
    assert (dim["dimension"], dim["certified"], dim["dimension_status"]) == (case.value, True, "certified")
    assert dim["lower_bound"] == dim["upper_bound"] == case.value
    if dim["failure_probability"] is not None:
        assert dim["identity"]["failure_log2"] <= -60

    if case.secant:
        sec = _run(["secant", *case.secant, "--json"], capsys)
        assert (sec["dimension"], sec["certified"]) == (case.value, True)

    if case.rlct:
        lc = _run(["rlct", *case.rlct, "--json"], capsys)
        assert Fraction(lc["lambda"]) == Fraction(case.value, 2)

    r = case.value
    if (r + 1) * model.joint_degree() <= CHECKER_MAX_DEGREE:
        from algebra.certify.rank import dimension_certificate

        e = dimension_certificate(model, claimed=case.value)
        assert (e.lower, e.upper, e.verdict) == (case.value, case.value, "confirmed")

    if model.parameter_count <= 40 and model.joint_degree() <= 30:
        q = _run(["dim", *case.argv, "--over-q", "--json"], capsys)
        assert (q["dimension"], q["certified"], q["field"]) == (case.value, True, "QQ")


def test_the_issues_uncertified_cases_print_certified_true(capsys):
    """The human output of `dim` says `certified: true` for the cases the issue found uncertified."""
    for argv in (["quadratic", "--d", "4", "--outputs", "3", "--width", "5"],
                 ["shallow", "--n", "3", "--degree", "4", "--width", "5"],
                 ["attention", "--d", "4", "--dout", "3", "--tokens", "1", "--rank", "2"],
                 ["mlp", "--widths", "3,2,3", "--activation", "t", "--bias"],
                 ["mlp", "--widths", "2,3,2,1", "--activation", "t^2+t", "--bias"],
                 ["polynomial", "a*c", "a*d", "b*c", "b*d", "--parameters", "a,b,c,d"],
                 ["mlp", "--widths", "2,3,1,1", "--activation", "t^3", "--over-q"]):
        assert main(["dim", *argv]) == 0
        assert "certified: true" in capsys.readouterr().out, argv


def test_uncertified_output_says_lower_bound_only(capsys):
    """When the bounds differ the JSON says the dimension is only a lower bound."""
    out = _run(["dim", "quadratic", "--d", "4", "--outputs", "3", "--width", "5", "--mode", "sample", "--samples", "2",
                "--json"], capsys)
    assert not out["certified"] and out["dimension_status"] == "lower bound only"
    assert out["dimension"] == out["lower_bound"] < out["upper_bound"]
