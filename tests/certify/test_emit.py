"""Emitting certificates: kinds, verdicts, witnesses, self-check, the schema."""

from __future__ import annotations

import json

import numpy as np
import pytest

from algebra.certify.attention import attention_certificate
from algebra.certify.envelope import verdict_for
from algebra.certify.formula import formula_certificate
from algebra.certify.interval import interval_certificate
from algebra.certify.rank import dimension_certificate
from algebra.models.registry import from_spec, to_spec
from algebra.certify.schema import validate
from algebra.certify.symbolic import symbolic_symmetry_fields
from algebra.errors import CertificateError, InputError
from algebra.exact.field import PrimeField
from algebra.models import MLP, DeepLinear, LightningAttention, PolynomialMap, QueryKey, quadratic_network, shallow_network

# one table of (model, claimed, assumes non-defective, expected kind, expected verdict, proven dimension)
CASES = [
    (QueryKey(5, 3), 21, False, "dimension", "confirmed", 21),
    (shallow_network(3, 4, 5), 15, False, "defect", "refuted", 14),  # Alexander-Hirschowitz
    (quadratic_network(4, 3, 5), 30, True, "defect", "hypothesis fails", 29),  # Cor. 4.2 assumes non-defective
    (quadratic_network(4, 3, 5), 30, False, "defect", "refuted", 29),  # the same count stated outright
    (MLP((2, 3, 1, 1), "t^3"), 4, False, "dimension", "confirmed", 4),  # Example B.10
    (LightningAttention(3, 2, 1), 11, False, "dimension", "confirmed", 11),
    (DeepLinear((4, 3, 5)), 17, False, "dimension", "refuted", 18),
    (DeepLinear((4, 3, 5)), 19, True, "dimension", "refuted", 18),  # above the count: no defect, so refuted
]


@pytest.mark.parametrize("model,claimed,nondefective,kind,verdict,dim", CASES, ids=lambda v: repr(v)[:40])
def test_dimension_certificates(model, claimed, nondefective, kind, verdict, dim):
    e = dimension_certificate(model, claimed=claimed, assumes_nondefective=nondefective)
    assert (e.kind, e.verdict, e.lower, e.upper) == (kind, verdict, dim, dim)
    validate(e.certificate)
    assert e.certificate["claim"]["value"] == dim
    assert (f"dimension {dim} <" in e.note) == (verdict == "hypothesis fails")


def test_lower_bound_only_and_forced_witnesses():
    e = dimension_certificate(QueryKey(3, 2), upper=False, claimed=8)
    assert e.kind == "rank_lower_bound" and e.verdict == "out of reach" and "upper" not in e.certificate
    e = dimension_certificate(shallow_network(3, 4, 5), witnesses="fields", claimed=15)
    assert e.kind == "rank_upper_bound" and (e.lower, e.upper) == (14, 15)
    for w in ("equations", "cramer", "fields"):
        assert dimension_certificate(QueryKey(3, 1), witnesses=w).upper == 5
    with pytest.raises(InputError):
        dimension_certificate(QueryKey(3, 1), witnesses="magic")


def test_symbolic_fields_match_numeric_fields():
    for model in (quadratic_network(3, 1, 3, bias=True), LightningAttention(3, 2, 2, rank=2), DeepLinear((2, 3, 2))):
        F = PrimeField(1048573)
        theta = model.random_point(np.random.default_rng(1), bound=100)
        numeric = model.symmetry_fields(theta, F)
        values = {f"t{i}": int(v) for i, v in enumerate(theta)}
        symbolic = [[int(p.evaluate(values)) % F.p for p in row] for row in symbolic_symmetry_fields(model)]
        assert symbolic == numeric.tolist()


def test_spec_round_trip():
    for model in (MLP((2, 3, 1), ["t^2 + 1/2"], bias=True), LightningAttention(3, 1, 2, rank=2), QueryKey(2, 2),
                  DeepLinear((1, 2, 3)), PolynomialMap(["a*x^2 + b"], parameters=["a", "b"], inputs=["x"])):
        assert from_spec(to_spec(model)).spec() == model.spec()
    with pytest.raises(InputError):
        from_spec({"family": "mlp"})


def test_verdict_table():
    assert verdict_for(">=", 5, 5, None) == "confirmed"
    assert verdict_for(">=", 7, 5, 6) == "refuted"
    assert verdict_for("<=", 4, 5, 9) == "refuted"
    assert verdict_for("<=", 9, 5, 9) == "confirmed"
    assert verdict_for("==", 6, 5, 7) == "out of reach"
    assert verdict_for("==", None, 5, 7) == "out of reach"


def test_formula_and_interval_certificates():
    e = formula_certificate("query_key", 6, 4, 2)
    assert e.certificate["formula"]["lambda"] == "27/2" and e.certificate["formula"]["multiplicity"] == 1
    validate(e.certificate)
    with pytest.raises(InputError):
        formula_certificate("eval", 1)
    from algebra.attention_rank.certificates import approximation_rank_certificates

    res = approximation_rank_certificates(np.eye(3), np.eye(3), 6.0, 0.25)
    e = interval_certificate(res["upper_svd"], statement="upper")
    assert e.kind == "interval_inequality" and e.certificate["source"] == {"statement": "upper"}
    claim = e.certificate["claim"]
    assert (claim["relation"], claim["value"]) == (res["upper_svd"]["relation"], res["upper_svd"]["bound"])
    validate(e.certificate)
    bad = dict(res["upper_svd"], bound="0x1p-60")  # no rank-k approximant has error below 2^-60 here
    with pytest.raises(CertificateError, match="does not hold"):
        interval_certificate(bad)


@pytest.mark.parametrize("claimed, verdict", [(3, "confirmed"), (2, "refuted"), (4, "refuted")])
def test_attention_certificate_verdict_is_computed(claimed, verdict):
    """softmax(6 I_3) at eps = 1/4: rows within 4/(e^6 + 2) < 1 - eps of the identity's, so r_eps = 3."""
    e = attention_certificate(np.eye(3), np.eye(3), 6.0, 0.25, claimed=claimed)
    assert (e.kind, e.lower, e.upper, e.verdict) == ("attention_rank", 3, 3, verdict)
    validate(e.certificate)


# -- formula certificates: the printed value, a second route, a computed verdict ------------------
FORMULAS = [  # (name, args, the second route the claim must name)
    ("query_key", (6, 4, 2), "Aoyagi & Watanabe (2005) with (M, N, H, r) = (d, d, k, r)"),
    ("reduced_rank_regression", (2, 7, 2, 1), "Aoyagi (2024), Theorem 1, at depth 2 (widths M, H, N)"),
    ("deep_linear_network", ([5, 3, 4], 1), "Aoyagi & Watanabe (2005) (depth 2)"),
    ("deep_linear_network", ([4, 3, 3, 5], 1), "Aoyagi (2024), Theorem 1, re-evaluated (no independent route at depth > 2)"),
]


@pytest.mark.parametrize("name,args,route", FORMULAS, ids=lambda v: str(v)[:30])
def test_formula_certificates_state_the_paper_and_the_route(name, args, route):
    from fractions import Fraction

    from algebra.slt.formulas import query_key_closed_forms

    e = formula_certificate(name, *args)
    c = e.certificate
    validate(c)
    assert c["claim"]["route"] == route and c["claim"]["agrees"] is True and e.verdict == "confirmed"
    if name == "query_key":  # the stated value is the printed (44), the value (46) agrees too
        assert Fraction(c["formula"]["stated"]["lambda"]) == query_key_closed_forms(*args)["46"]


def test_a_misprinted_library_formula_cannot_be_certified(monkeypatch):
    """The stated value is the checker's own evaluation of (44): a library misprint is refused, not certified."""
    from fractions import Fraction

    from algebra.errors import CertificateError
    from algebra.slt import formulas

    real = formulas.query_key

    def misprint(d, k, r):
        lc = real(d, k, r)
        return type(lc)(lc.lam + Fraction(1, 2), lc.multiplicity, lc.theorem, lc.case, lc.inputs)

    monkeypatch.setattr(formulas, "query_key", misprint)
    with pytest.raises(CertificateError, match="printed formula re-evaluated"):
        formula_certificate("query_key", 6, 4, 2)


def test_rlct_certificate_and_hypotheses():
    from algebra.certify.formula import rlct_certificate
    from algebra.errors import DomainError
    from algebra.claims.grokking import modular_addition_map

    e = rlct_certificate(quadratic_network(3, 2, 2), stated={"lambda": 4, "where": "Corollary 4.2"})
    assert e.certificate["formula"]["lambda"] == "4" and e.verdict == "confirmed"  # rank K(d+p-1) = 8
    e = rlct_certificate(modular_addition_map(2, 1), stated={"lambda": 5, "where": "Corollary 5.4"})
    # one neuron on the one-hot pairs: (u_a + v_b)^2 is invariant under (u + c, v - c): 3p - 2 = 4, not 3p - 1 = 5
    assert (e.lower, e.verdict, e.certificate["claim"]["agrees"]) == (4, "refuted", False)
    import algebra.certify.formula as formula

    lower_only = dimension_certificate(QueryKey(3, 2), upper=False)
    with pytest.MonkeyPatch.context() as mp:  # only a lower bound proven: lambda = rank / 2 is not certified
        mp.setattr(formula, "dimension_certificate", lambda *a, **k: lower_only)
        with pytest.raises(DomainError, match="only rank >= 8"):
            rlct_certificate(QueryKey(3, 2))


# -- entry points for the user's own questions -------------------------------------------------
def test_certify_model_writes_what_verify_accepts(tmp_path):
    from algebra.certify.questions import certify_model
    from algebra.cli import main

    path = tmp_path / "c.json"
    e = certify_model(MLP((3, 4, 1), "t^2", bias=True), path)  # the done-when check
    assert (e.kind, e.lower, e.upper) == ("dimension", 10, 10)
    assert main(["verify", str(path)]) == 0
    user = PolynomialMap(["a*x^2 + b*x*y", "a*b*y^2"], parameters=["a", "b"], inputs=["x", "y"])
    e = certify_model(user, tmp_path / "u.json")
    assert e.lower == e.upper == 2 and main(["verify", str(tmp_path / "u.json")]) == 0
    e = certify_model(quadratic_network(3, 1, 2), tmp_path / "l.json", quantity="lambda")
    assert e.certificate["formula"]["lambda"] == "5/2" and main(["verify", str(tmp_path / "l.json")]) == 0


def test_certify_secant_and_polynomial_route(tmp_path):
    from algebra.certify.questions import certify_secant
    from algebra.models.registry import as_polynomial_map
    from algebra.models.segre_veronese import segre_veronese, veronese

    e = certify_secant(veronese(5, 3), 7, tmp_path / "s.json")  # Alexander-Hirschowitz: 34, not 35
    assert (e.lower, e.upper) == (34, 34)
    # sigma_2 of P^1 x v_2(P^2): the quadratic network (d, p, K) = (3, 2, 2), non-defective: 2 (3 + 2 - 1) = 8
    e = certify_secant(segre_veronese((2, 3), (1, 2)), 2, tmp_path / "sv.json", claimed=12)
    assert (e.lower, e.upper, e.verdict) == (8, 8, "refuted")
    for model in (MLP((2, 2, 1), "t^2 + 1/3", bias=True), LightningAttention(2, 1, 2, rank=1), DeepLinear((2, 3, 2))):
        direct, symbolic = dimension_certificate(model), dimension_certificate(as_polynomial_map(model))
        assert (direct.lower, direct.upper) == (symbolic.lower, symbolic.upper)


def test_certify_model_is_atomic_and_states_a_lower_bound_when_that_is_all(tmp_path, monkeypatch):
    import algebra.certify.questions as questions
    from algebra.errors import CertificateError

    path = tmp_path / "c.json"
    real = questions.dimension_certificate

    def no_upper(model, **kw):
        if kw.get("upper", True):
            raise CertificateError("the Cramer identity failed at every seed")
        return real(model, **kw)

    monkeypatch.setattr(questions, "dimension_certificate", no_upper)
    e = questions.certify_model(QueryKey(3, 2), path)
    assert e.kind == "rank_lower_bound" and e.verdict == "out of reach" and "only the lower bound" in e.note
    assert json.loads(path.read_text())["claim"]["relation"] == ">="

    def broken(model, **kw):
        raise CertificateError("boom")

    monkeypatch.setattr(questions, "dimension_certificate", broken)
    with pytest.raises(CertificateError):
        questions.certify_model(QueryKey(3, 2), tmp_path / "never.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.json"]  # no half-written file, no temp file
