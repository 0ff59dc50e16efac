"""The user's claim as data (issue 25): ``certify_model(..., claimed=)`` records a ``claimed`` member, the
independent checker judges it from the proven bounds, and ``verify`` prints and exits with that verdict.

The true dimensions here come from theory, not from the producer: MLP (2, 3, 2) with ``t^2`` fills the 6
coefficients of its two quadratic forms (ambient 6); sigma_5 of v_4(P^2) has dimension 14, not the expected
15 (Alexander-Hirschowitz); the shallow quadratic (3, 4, 5) network likewise 14 < 15; the quadratic network
(3, 1, 2) has rank 5, so lambda = 5/2 (grokking paper, Theorem 4.1).
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

from algebra.checker import core as chk
from algebra.checker import rank as rnk
from algebra.certify import certify_model, certify_secant
from algebra.certify.canonical import render, seal
from algebra.certify.envelope import claimed_member, verdict_for
from algebra.certify.rank import dimension_certificate
from algebra.checker import check_file_verdict
from algebra.cli import main
from algebra.errors import InputError
from algebra.models import MLP, quadratic_network, shallow_network
from algebra.models.segre_veronese import veronese

MLP_232 = lambda: MLP((2, 3, 2), "t^2")  # noqa: E731 - dimension 6 (ambient)


def _judged(cert: dict):
    return chk.check_verdict(cert)[1]


def test_the_claim_is_recorded_and_changes_the_file(tmp_path):
    """The reported bug: claimed=20 and claimed=18 wrote the same bytes as no claim at all."""
    files = {c: tmp_path / f"c{c}.json" for c in (None, 18, 20)}
    for c, path in files.items():
        certify_model(MLP_232(), path, claimed=c)
    data = {c: p.read_bytes() for c, p in files.items()}
    assert len(set(data.values())) == 3
    assert json.loads(data[20])["claimed"] == {"relation": "==", "value": 20}
    assert "claimed" not in json.loads(data[None])


def test_without_a_claim_the_file_is_the_old_one(tmp_path):
    """Removing the member from a file with a claim and re-sealing gives the file without a claim, byte for byte:
    the claim adds that member and nothing else (in particular no verdict, no change of kind or claim)."""
    certify_model(MLP_232(), tmp_path / "plain.json")
    certify_model(MLP_232(), tmp_path / "claimed.json", claimed=5, relation="<=")
    with_claim = json.loads((tmp_path / "claimed.json").read_text())
    assert set(with_claim["claimed"]) == {"relation", "value"}
    del with_claim["claimed"], with_claim["sha256"]
    assert render(seal(with_claim)) == (tmp_path / "plain.json").read_bytes()


@pytest.mark.parametrize("relation, value, verdict", [
    ("==", 6, "confirmed"), ("==", 20, "refuted"), ("==", 5, "refuted"),
    (">=", 6, "confirmed"), (">=", 7, "refuted"), ("<=", 6, "confirmed"), ("<=", 5, "refuted"),
])
def test_the_checker_derives_the_verdict_from_the_file(tmp_path, relation, value, verdict):
    path = tmp_path / "c.json"
    e = certify_model(MLP_232(), path, claimed=value, relation=relation)
    ok, _, judgement = check_file_verdict(str(path))
    assert ok and judgement["verdict"] == verdict == e.verdict
    assert (judgement["lower"], judgement["upper"]) == (6, 6)


def test_a_lower_bound_file_leaves_equality_out_of_reach():
    """Only ``rank >= 6`` proven: ``== 7`` is neither confirmed nor refuted, ``>= 6`` is confirmed, ``<= 5`` refuted."""
    verdicts = {}
    for rel, v in (("==", 7), (">=", 6), ("<=", 5), ("<=", 9)):
        e = dimension_certificate(MLP_232(), claimed=v, relation=rel, upper=False, record_claim=True)
        assert e.kind == "rank_lower_bound"
        verdicts[rel, v] = (_judged(e.certificate)["verdict"], e.verdict)
    assert verdicts == {("==", 7): ("out of reach",) * 2, (">=", 6): ("confirmed",) * 2,
                        ("<=", 5): ("refuted",) * 2, ("<=", 9): ("out of reach",) * 2}


def test_a_file_that_proves_less_than_the_run_reports_the_files_verdict():
    """Forced symmetry fields prove only rank <= 15 for the (3, 4, 5) network (the run knows rank >= 14 too, but a
    rank_upper_bound file drops the minor): ``== 13`` is out of reach from the file, and the verdict returned is the
    file's, with a note saying the run decided more."""
    e = dimension_certificate(shallow_network(3, 4, 5), witnesses="fields", claimed=13, record_claim=True)
    assert e.kind == "rank_upper_bound" and (e.lower, e.upper) == (14, 15)
    assert e.verdict == _judged(e.certificate)["verdict"] == "out of reach" and "'refuted'" in e.note
    e = dimension_certificate(shallow_network(3, 4, 5), witnesses="fields", claimed=16, record_claim=True)
    assert e.verdict == "refuted" and e.note == ""


#: (kind, lower, upper): the ranges a file of each kind proves (a rank_upper_bound file: 0 <= rank <= 3)
RANGES = (("dimension", 6, 6), ("defect", 4, 4), ("rank_lower_bound", 5, None), ("rank_upper_bound", 0, 3))


@pytest.mark.parametrize("kind, lo, hi", RANGES)
@pytest.mark.parametrize("rel", ("==", ">=", "<="))
def test_checker_and_emitter_judge_alike(kind, lo, hi, rel):
    """Two routes, one table: the checker's judge_claimed and the emitter's verdict_for on every claimed value
    around the range."""
    derived = {"relation": rnk.RANK_RELATION[kind], "value": lo if hi is None else hi}
    for v in range(0, 11):
        judged = chk.judge_claimed((rel, v), kind, derived)
        assert (judged["lower"], judged["upper"]) == (lo, hi)
        assert judged["verdict"] == verdict_for(rel, v, lo, hi), (kind, rel, v)


def test_the_verdict_is_never_read_from_the_file(tmp_path):
    """A forged verdict, text or any other field in the member is refused; a changed value is re-judged."""
    e = dimension_certificate(MLP_232(), claimed=20, record_claim=True)
    base = e.certificate
    assert _judged(base)["verdict"] == "refuted"
    for extra in ({"verdict": "confirmed"}, {"text": "dimension 20"}):
        forged = copy.deepcopy(base)
        forged["claimed"].update(extra)
        with pytest.raises(chk.Reject, match="claimed has unknown field"):
            chk.check(seal(forged))
    forged = copy.deepcopy(base)
    forged["verdict"] = "confirmed"
    with pytest.raises(chk.Reject, match="unknown field"):
        chk.check(seal(forged))
    retold = copy.deepcopy(base)
    retold["claimed"]["value"] = 6
    assert _judged(seal(retold))["verdict"] == "confirmed"


@pytest.mark.parametrize("member, fragment", [
    ({"relation": "==", "value": "20"}, "claimed.value must be an integer"),
    ({"relation": "==", "value": 20.0}, "claimed.value must be an integer"),
    ({"relation": "==", "value": True}, "claimed.value must be an integer"),
    ({"relation": "==", "value": -1}, "claimed.value must be an integer"),
    ({"relation": "==", "value": 2**63}, "claimed.value must be an integer"),
    ({"relation": "=", "value": 20}, "claimed.relation must be one of"),
    ({"relation": "in", "value": 20}, "claimed.relation must be one of"),
    ({"value": 20}, "claimed lacks field"),
    ("== 20", "field 'claimed' has the wrong type"),
])
def test_aliased_and_malformed_claims_are_refused(member, fragment):
    cert = copy.deepcopy(dimension_certificate(MLP_232()).certificate)
    cert["claimed"] = member
    with pytest.raises(chk.Reject, match=fragment):
        chk.check(seal(cert))


def test_kinds_without_a_judged_quantity_refuse_the_member():
    from algebra.certify.interval import interval_certificate

    p = {"arrays": {}, "scalars": {"x": "1/3"}, "program": [{"out": "y", "op": "exp", "args": ["x"]}],
         "target": "y", "relation": "<", "bound": "1.4"}
    cert = copy.deepcopy(interval_certificate(p).certificate)
    cert["claimed"] = {"relation": "<=", "value": 1}
    with pytest.raises(chk.Reject, match="unknown field"):
        chk.check(seal(cert))


def test_lambda_claims(tmp_path):
    """quantity='lambda' used to drop ``claimed``; now it is a canonical fraction the checker judges."""
    m, path = quadratic_network(3, 1, 2), tmp_path / "l.json"
    assert certify_model(m, path, quantity="lambda", claimed=Fraction(5, 2)).verdict == "confirmed"
    assert check_file_verdict(str(path))[2] == {"quantity": "lambda", "relation": "==", "value": "5/2",
                                                "lower": "5/2", "upper": "5/2", "verdict": "confirmed"}
    assert certify_model(m, path, quantity="lambda", claimed=3).verdict == "refuted"
    assert certify_model(m, path, quantity="lambda", claimed="2", relation=">=").verdict == "confirmed"
    cert = json.loads(path.read_text())
    cert["claimed"]["value"] = "10/4"  # not in lowest terms: an alias of 5/2
    del cert["sha256"]
    with pytest.raises(chk.Reject, match="lowest terms"):
        chk.check(seal(cert))
    with pytest.raises(InputError, match="a float is not exact"):
        certify_model(m, path, quantity="lambda", claimed=2.5)


def test_bad_claims_are_refused_naming_the_argument(tmp_path):
    for bad in (True, -1, "20", 2.0, 2**63):
        with pytest.raises(InputError, match=r"invalid claimed=.*expected an integer in \[0, 2\*\*63 - 1\]"):
            certify_model(MLP_232(), tmp_path / "x.json", claimed=bad)
    with pytest.raises(InputError, match="invalid relation='=': expected one of ==, >=, <="):
        claimed_member(3, "=")
    assert not (tmp_path / "x.json").exists()


def test_secant_claims(tmp_path):
    path = tmp_path / "s.json"
    assert certify_secant(veronese(3, 4), 5, path, claimed=15).verdict == "refuted"  # the expected count
    assert check_file_verdict(str(path))[2]["verdict"] == "refuted"
    assert certify_secant(veronese(3, 4), 5, path, claimed=14).verdict == "confirmed"
    assert certify_secant(veronese(3, 4), 5, path, claimed=15, relation="<=").verdict == "confirmed"


def test_verify_prints_and_exits_with_the_verdict(tmp_path, capsys):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    certify_model(MLP_232(), good, claimed=6)
    certify_model(MLP_232(), bad, claimed=20)
    assert main(["verify", str(good)]) == 0
    assert "VERIFIED; claim CONFIRMED: rank == 6" in capsys.readouterr().out
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "VERIFIED; claim REFUTED: rank == 20" in out and "recorded claims: 1 refuted" in out
    assert main(["verify", "--json", str(good), str(bad)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["all_verified"] is True and report["all_claims_confirmed"] is False
    assert [f["claimed"]["verdict"] for f in report["files"]] == ["confirmed", "refuted"]
    from algebra.checker.files import main as checker_main

    assert checker_main([str(bad)]) == 1 and checker_main([str(good)]) == 0


def test_dim_and_secant_take_a_claim(tmp_path, capsys):
    path = str(tmp_path / "d.json")
    dim = ["dim", "mlp", "--widths", "2,3,2", "--activation", "t^2", "--certificate", path]
    assert main(dim + ["--claim", "20"]) == 1
    assert "claim rank == 20: REFUTED" in capsys.readouterr().out
    assert json.loads(open(path).read())["claimed"] == {"relation": "==", "value": 20}
    assert main(dim + ["--claim", ">=6", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["certificate"]["claimed"]["verdict"] == "confirmed"
    secant = ["secant", "--variety", "veronese", "--n", "3", "--degree", "4", "--k", "5", "--certificate", path]
    assert main(secant + ["--claim", "15"]) == 1
    assert "claim rank == 15: REFUTED" in capsys.readouterr().out
    assert main(dim[:-2] + ["--claim", "6"]) == 2  # no --certificate to record it in
    assert "invalid --claim='==6': expected --claim together with --certificate FILE" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(dim + ["--claim", "=6"])
    assert info.value.code == 2 and "invalid --claim='=6'" in capsys.readouterr().err
