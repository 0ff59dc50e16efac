"""Forgeries with an independent oracle: every mutation is re-sealed; the expected answer is its meaning.

Each case names what the mutation *means* (a false value, a claim about a
different object, a weaker but true claim, a broken witness of a true claim,
provenance that is not part of the proof) and therefore whether a sound
checker must refuse it or may accept it.  The truth comes from theory
(``conftest.BASES``), never from the producer's evaluator.  The forger is
assumed to know the checker's canonical rendering (``kernel.rank_claim``) and
to re-render the text after editing a value.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

import algebra.checker.attention as att
import algebra.checker.files as chkfiles
from algebra.checker import core as chk
from algebra.checker import model as mdl
from algebra.checker import rank as rnk
from algebra.checker import formula as fml
from algebra.certify.canonical import render, seal

CERTS = Path(__file__).resolve().parents[2] / "certificates"


def fresh(base, name) -> dict:
    return json.loads(json.dumps(base[name][0]))


def verdict(cert) -> bool:
    try:
        chk.check(seal(cert))
    except chk.Reject:
        return False
    return True


def rerender(cert, **changes) -> dict:
    """A forger who edits the structured claim and re-renders its text with the checker's own renderer."""
    claim = dict(cert["claim"], **changes)
    model = mdl.Model(cert["model"])
    cert["claim"] = rnk.rank_claim(cert["kind"], model, cert["model"], claim["value"], claim.get("expected"))
    return cert


# -- value, text, relation ------------------------------------------------------------------
@pytest.mark.parametrize("name", ["qk-fields", "qk-equations", "linear-cramer", "quadratic-orthogonal",
                                  "shallow-ah-defect", "attention-rank", "polynomial-inputs"])
def test_a_false_value_is_refused_even_with_consistent_text(base_certificates, name):
    truth = base_certificates[name][1]
    for delta in (-1, 1):
        c = fresh(base_certificates, name)
        assert c["claim"]["value"] == truth  # the base claim is the theorem's value
        assert not verdict(rerender(c, value=truth + delta))  # false: the true rank is `truth`


def test_the_text_is_a_rendering_not_free_words(base_certificates):
    c = fresh(base_certificates, "quadratic-orthogonal")
    c["claim"]["text"] = c["claim"]["text"].replace("exactly 5", "exactly 6")
    assert "exactly 6" in c["claim"]["text"] and not verdict(c)
    c = fresh(base_certificates, "quadratic-orthogonal")
    c["claim"]["text"] += " (and the paper is right)"
    assert not verdict(c)


def test_a_weaker_true_relation_is_accepted_and_a_stronger_false_one_refused(base_certificates):
    c = fresh(base_certificates, "shallow-ah-defect")  # true rank 14
    c["kind"] = "rank_lower_bound"  # "rank >= 14": true, and the minor proves it
    del c["upper"]
    assert verdict(rerender(c))
    c = fresh(base_certificates, "shallow-ah-defect")
    c["kind"] = "rank_upper_bound"  # "rank <= 14": true, the Cramer fields prove it
    del c["lower"]
    assert verdict(rerender(c))
    c = fresh(base_certificates, "shallow-ah-defect")
    c["kind"] = "rank_upper_bound"
    del c["lower"]
    assert not verdict(rerender(c, value=13))  # "rank <= 13": false


# -- defects: the expected count is the checker's, not the file's ---------------------------------
def test_the_expected_count_of_a_defect_is_derived(base_certificates):
    c = fresh(base_certificates, "shallow-ah-defect")  # expected count min(15, 20 - 5) = 15
    assert c["claim"]["expected"] == 15
    for forged in (10**6, 16, 14):
        assert not verdict(rerender(c, expected=forged))
    c = fresh(base_certificates, "qk-fields")  # rank 3 = expected count of A B^T (d=2, k=1): no defect
    c["kind"] = "defect"
    c["claim"]["expected"] = 4
    assert not verdict(c)
    c = fresh(base_certificates, "shallow-ah-defect")
    c["kind"] = "dimension"  # dropping the defect leaves a true dimension claim
    c["claim"].pop("expected")
    assert verdict(rerender(c))


# -- the object a claim is about --------------------------------------------------------------
def test_a_claim_moved_to_another_model_is_refused(base_certificates):
    c = fresh(base_certificates, "quadratic-orthogonal")  # (3, 2, 1), t^2, rank 5
    c["model"]["activations"] = [["0", "0", "0", "1"]]  # t^3: another model; the claim still names the old one
    assert not verdict(c)
    c = fresh(base_certificates, "qk-fields")
    c["model"]["k"] = 2  # A B^T with k = 2 has 8 parameters: the certificate's point is not one of its points
    assert not verdict(rerender(c))


def test_a_true_claim_about_a_rescaled_model_is_accepted(base_certificates):
    """Activation 2 t^2 instead of t^2 has the same rank (5) and the same rescaling fields: a true claim."""
    c = fresh(base_certificates, "quadratic-orthogonal")
    c["model"]["activations"] = [["0", "0", "2"]]
    assert verdict(rerender(c))
    assert "activation 2*t^2" in c["claim"]["text"]


def test_a_polynomial_coefficient_change_is_a_different_object(base_certificates):
    c = fresh(base_certificates, "polynomial-inputs")
    c["model"]["polynomials"][1][0][1] = "2"  # 2 a b x^2: same rank, but not the model the claim names
    assert not verdict(c)


# -- point and witnesses ----------------------------------------------------------------------------
def test_witness_and_point_mutations(base_certificates):
    c = fresh(base_certificates, "shallow-ah-defect")
    c["point"]["theta"] = ["0"] * len(c["point"]["theta"])  # every Jacobian entry of a homogeneous map is 0
    assert not verdict(c)
    c = fresh(base_certificates, "shallow-ah-defect")
    c["lower"] = {"rows": c["lower"]["rows"][:13], "cols": c["lower"]["cols"][:13]}  # proves only rank >= 13
    assert not verdict(c)
    c = fresh(base_certificates, "qk-fields")
    c["upper"]["fields"].append(c["upper"]["fields"][0])  # a repeated kernel field: the rank bound is unchanged
    assert verdict(c)
    c = fresh(base_certificates, "qk-fields")
    c["upper"]["fields"] = c["upper"]["fields"][:-1]  # one field fewer: bound 4, the claimed 3 is not proven
    assert not verdict(c)
    c = fresh(base_certificates, "linear-cramer")
    c["upper"]["cramer"]["cols"] = c["upper"]["cramer"]["cols"][::-1]  # same block, but a set spelled unsorted
    assert not verdict(c)


# -- formulas -------------------------------------------------------------------------------------
def test_formula_forgeries(base_certificates):
    c = fresh(base_certificates, "formula-qk")  # (d, k, r) = (6, 4, 3): (44) and AW2005 agree
    c["claim"]["agrees"] = False
    assert not verdict(c)
    c = fresh(base_certificates, "formula-qk")
    c["formula"]["inputs"]["r"] = 2  # another instance: lambda changes, so the body no longer matches
    assert not verdict(c)
    c = fresh(base_certificates, "formula-linear")
    c["claim"]["route"] = "Aoyagi & Watanabe (2005) (depth 2)"  # claims a second route that does not exist at depth 3
    assert not verdict(c)


def test_regular_model_stated_value_is_provenance(base_certificates):
    """What a paper states cannot be derived; the checker re-derives only whether it agrees."""
    c = fresh(base_certificates, "formula-regular")  # lambda = 5/2 (rank 5); stated 3 -> disagrees
    assert c["claim"]["agrees"] is False
    c["formula"]["stated"]["lambda"] = "5/2"
    assert not verdict(c)  # the claim still says stated 3, disagrees
    stated = dict(c["formula"]["stated"])
    c["claim"]["stated"], c["claim"]["agrees"] = stated, True
    c["claim"]["text"] = fml.formula_claim("regular_model", c["formula"]["inputs"], "", 0, 1, "", stated)["text"]
    assert not verdict(c)  # the text must be the canonical rendering of the whole claim
    c = fresh(base_certificates, "formula-regular")
    c["formula"]["lambda"] = "3"
    assert not verdict(c)


def test_source_is_informational(base_certificates):
    c = fresh(base_certificates, "formula-rrr")
    c["source"] = {"id": "anything", "statement": "the paper says lambda = 100"}
    assert verdict(c)
    assert "source: informational, not checked" in chk.check(seal(c))


# -- attention rank: the claim binds Q, K, beta; its value and text are derived ------------------------
def _attention(interval_certificates):
    """``softmax(6 I_3)`` at eps = 1/4: true r_eps = 3 (see conftest)."""
    return json.loads(json.dumps(interval_certificates["attention-eye"][0]))


def test_an_attention_claim_with_another_value_or_text_is_refused(interval_certificates):
    truth = interval_certificates["attention-eye"][1]
    c = _attention(interval_certificates)
    assert (c["claim"]["relation"], c["claim"]["value"]) == ("==", truth) and verdict(c)
    for forged in (truth - 1, truth + 1, 50):
        c = _attention(interval_certificates)
        c["claim"]["value"] = forged  # the text still says the truth
        assert not verdict(c)
        c["claim"]["text"] = att.render_attention_claim(c["claim"])  # a forger who re-renders the text too
        assert not verdict(c)
        c = _attention(interval_certificates)
        c["claim"]["text"] = c["claim"]["text"].replace(f"== {truth} ", f"== {forged} ")  # only the text
        assert f"== {forged} " in c["claim"]["text"] and not verdict(c)


def test_attention_weaker_true_claims_are_accepted_and_false_ones_refused(interval_certificates):
    c = _attention(interval_certificates)
    del c["approximant"]  # only the lower bound: "r_eps >= 3" is true
    c["claim"].update(relation=">=")
    c["claim"]["text"] = att.render_attention_claim(c["claim"])
    assert verdict(c)
    c = _attention(interval_certificates)
    del c["selection"]  # only the upper bound: "r_eps <= 3" is true
    c["claim"].update(relation="<=")
    c["claim"]["text"] = att.render_attention_claim(c["claim"])
    assert verdict(c)
    c["claim"].update(value=2)  # "r_eps <= 2" is false
    c["claim"]["text"] = att.render_attention_claim(c["claim"])
    assert not verdict(c)
    c = _attention(interval_certificates)
    c["selection"]["rows"] = [0, 1]  # proves only r_eps >= 2 ...
    c["selection"]["decoder"] = [0, 1, -1]
    assert not verdict(c)  # ... so the claim "== 3" is not derived
    c = _attention(interval_certificates)
    c["approximant"] = {"method": "rows", "assign": [0, 0, 0]}  # one row for all: error 2 * (1 - 2/(e^6+2)) > eps
    assert not verdict(c)


def test_attention_matrix_and_eps_mutations(interval_certificates):
    c = _attention(interval_certificates)
    c["matrix"]["beta"] = "0"  # every row uniform: another matrix (its true r_eps is 1)
    assert not verdict(c)  # the claim names the old matrix
    c["claim"]["matrix"]["sha256"] = att.matrix_digest(c["matrix"])
    c["claim"]["text"] = att.render_attention_claim(c["claim"])
    assert not verdict(c)  # named correctly, the lower bound 3 fails for the uniform matrix
    c = _attention(interval_certificates)
    assert c["matrix"]["Q"]["data"][0] == "0x1p+0"
    c["matrix"]["Q"]["data"][0] = "1"  # the same number spelled as an integer: the claim names other data ...
    assert not verdict(c)
    c["claim"]["matrix"]["sha256"] = att.matrix_digest(c["matrix"])
    c["claim"]["text"] = att.render_attention_claim(c["claim"])
    assert verdict(c)  # ... renamed, it is the same matrix and the claim is true
    c["matrix"]["Q"]["data"][1] = "1"  # row 0 of Q becomes (1, 1, 0): another matrix
    assert not verdict(c)
    c = _attention(interval_certificates)
    c["claim"]["eps"] = "1/2"  # true too: 4/(e^6 + 2) + 1/2 < 1 and B = A is exact
    c["claim"]["text"] = att.render_attention_claim(c["claim"])
    assert verdict(c)
    c["claim"]["eps"] = "2/4"  # not in lowest terms: not the canonical claim
    assert not verdict(c)


# -- interval inequalities: the program, the relation and the bound are the claim --------------------
def _interval(interval_certificates):
    """``exp(1/3) < 1.4``: exp(1/3) = 1.39561..."""
    return json.loads(json.dumps(interval_certificates["interval-exp"][0]))


def test_interval_claim_forgeries(interval_certificates):
    assert 1.3956 < math.exp(1 / 3) < 1.3957  # the oracle: the standard library, not the checker
    c = _interval(interval_certificates)
    assert (c["claim"]["relation"], c["claim"]["value"]) == ("<", interval_certificates["interval-exp"][1])
    assert verdict(c)
    for forged in ("1.3", "1.39", "1.3957"):  # false, false, true -- but the payload still says 1.4
        c = _interval(interval_certificates)
        c["claim"]["value"] = forged
        assert not verdict(c)
        c["claim"]["text"] = att.render_interval_claim(c["claim"])
        assert not verdict(c)
    for bound, holds in (("1.3", False), ("1.3956", False), ("1.3957", True), ("2", True)):
        c = _interval(interval_certificates)  # payload and claim edited together: true exactly when it holds
        c["payload"]["bound"] = c["claim"]["value"] = bound
        c["claim"]["about"]["payload_sha256"] = chk.digest(c["payload"])
        c["claim"]["text"] = att.render_interval_claim(c["claim"])
        assert verdict(c) is holds, bound
    c = _interval(interval_certificates)
    c["claim"]["text"] = c["claim"]["text"].replace("< 1.4", "< 1.3")
    assert "< 1.3" in c["claim"]["text"] and not verdict(c)
    c = _interval(interval_certificates)
    c["payload"]["scalars"]["x"] = "1/2"  # exp(1/2) = 1.6487 > 1.4: another program, and false
    assert not verdict(c)
    c = _interval(interval_certificates)
    c["payload"]["relation"] = c["claim"]["relation"] = ">"  # exp(1/3) > 1.4: false
    c["claim"]["about"]["payload_sha256"] = chk.digest(c["payload"])
    c["claim"]["text"] = att.render_interval_claim(c["claim"])
    assert not verdict(c)
    c["payload"]["relation"] = c["claim"]["relation"] = "<="  # weaker and true
    c["claim"]["about"]["payload_sha256"] = chk.digest(c["payload"])
    c["claim"]["text"] = att.render_interval_claim(c["claim"])
    assert verdict(c)


# -- every committed certificate: editing the value or the number in its text is refused -------------
HEAD_SAMPLE = 2  # of the 72 committed head certificates (each re-check rebuilds a 64 x 64 matrix, twice)


def _committed():
    """One committed catalogue file of each (kind, model family, claim relation), and an evenly spaced
    sample of the committed head certificates.  A sample: every committed file is verified once, in
    tests/certify/test_schema.py; here each sampled file is edited and must then be refused."""
    picked = {}
    for p in sorted(p for p in CERTS.glob("*.json") if p.name != "index.json"):
        cert = json.loads(p.read_text())
        picked.setdefault((cert["kind"], (cert.get("model") or {}).get("family"), cert["claim"].get("relation")), p)
    heads = sorted((CERTS / "attention").glob("*.json"))
    return list(picked.values()) + heads[::max(1, len(heads) // HEAD_SAMPLE)][:HEAD_SAMPLE]


def _bump_number(text: str, first: bool = False) -> str:
    """Increase the last (``first``: the first) free-standing integer of ``text`` by one."""
    m = list(re.finditer(r"(?<![\w/.])(\d+)(?![\w/])", text))
    assert m, text
    hit = m[0] if first else m[-1]
    return text[:hit.start()] + str(int(hit.group()) + 1) + text[hit.end():]


def _bump_value(value):
    if isinstance(value, list):  # an attention range [lo, hi]
        return [value[0], value[1] + 1]
    return value + 1 if isinstance(value, int) else value + "1"


def test_every_committed_certificate_refuses_an_edited_value_or_text(tmp_path):
    files = _committed()
    if not files:
        pytest.skip("no committed certificates (run `neuroalgebra certify`)")
    kinds = set()
    for path in files:
        cert = json.loads(path.read_text())
        kinds.add(cert["kind"])
        bad = json.loads(json.dumps(cert))
        if "value" in cert["claim"]:
            bad["claim"]["value"] = _bump_value(cert["claim"]["value"])
        else:  # score_representation: its values are the ranks of the projectors (15)
            bad["claim"]["components"][0]["rank"] += 1
        target = tmp_path / path.name
        target.write_bytes(render(seal(bad)))
        assert not chk.check_file(str(target))[0], path.name
        bad = json.loads(json.dumps(cert))
        bad["claim"]["text"] = _bump_number(bad["claim"]["text"], first=cert["kind"] == "attention_rank")
        target.write_bytes(render(seal(bad)))
        assert not chk.check_file(str(target))[0], path.name
    if (CERTS / "attention").is_dir():
        assert "attention_rank" in kinds


def test_newton_distance_forgeries():
    """K = x^2 y^4 + z^6: t (1,1,1) meets the segment at mu = 3/5, t = 12/5, so lambda <= 5/12 (by hand)."""
    from algebra.certify.formula import newton_certificate

    base = newton_certificate({(2, 4, 0): 1, (0, 0, 6): 1}).certificate
    assert (base["claim"]["relation"], base["claim"]["value"], base["formula"]["distance"]) == ("<=", "5/12", "12/5")

    def mutated(changes):
        c = json.loads(json.dumps(base))
        c["formula"].update(changes)
        return c

    assert not verdict(mutated({"distance": "2", "lambda": "1/2"}))  # smaller: t v is not in the polyhedron
    assert not verdict(mutated({"distance": "3", "lambda": "1/3"}))  # larger: the dual normal does not support it
    assert not verdict(mutated({"weights": ["1/2", "1/2"]}))  # weights that do not reach t v
    assert not verdict(mutated({"normal": ["0", "0", "0"]}))  # no dual proof
    assert not verdict(mutated({"multiplicity": 1}))  # the multiplicity is not certified by a Newton distance
    c = json.loads(json.dumps(base))
    c["claim"]["relation"] = "=="  # equality needs non-degeneracy, which the checker does not decide
    assert not verdict(c)
    c = json.loads(json.dumps(base))
    c["formula"]["inputs"]["K"][0][1] = "0"  # K loses a support point: another polynomial
    assert not verdict(c)
