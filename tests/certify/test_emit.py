"""Emitting certificates: kinds, verdicts, witnesses, self-check, the schema."""

from __future__ import annotations

import numpy as np
import pytest

from algebra.certify.emit import (
    checker_spec,
    dimension_certificate,
    formula_certificate,
    interval_certificate,
    model_from_spec,
    verdict_for,
)
from algebra.certify.schema import validate
from algebra.certify.symbolic import symbolic_symmetry_fields
from algebra.errors import InputError
from algebra.exact.field import PrimeField
from algebra.models import MLP, DeepLinear, LightningAttention, PolynomialMap, QueryKey, quadratic_network, shallow_network

# one table of (model, claimed, expected kind, expected verdict, proven dimension)
CASES = [
    (QueryKey(5, 3), 21, "dimension", "confirmed", 21),
    (shallow_network(3, 4, 5), 15, "defect", "refuted", 14),  # Alexander-Hirschowitz
    (quadratic_network(4, 3, 5), 30, "defect", "refuted", 29),  # grokking Cor. 4.2 is defective here
    (MLP((2, 3, 1, 1), "t^3"), 4, "dimension", "confirmed", 4),  # Example B.10
    (LightningAttention(3, 2, 1), 11, "dimension", "confirmed", 11),
    (DeepLinear((4, 3, 5)), 17, "dimension", "refuted", 18),
]


@pytest.mark.parametrize("model,claimed,kind,verdict,dim", CASES, ids=lambda v: repr(v)[:40])
def test_dimension_certificates(model, claimed, kind, verdict, dim):
    e = dimension_certificate(model, claimed=claimed)
    assert (e.kind, e.verdict, e.lower, e.upper) == (kind, verdict, dim, dim)
    validate(e.certificate)
    assert e.certificate["claim"]["value"] == dim


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
        assert model_from_spec(checker_spec(model)).spec() == model.spec()
    with pytest.raises(InputError):
        model_from_spec({"family": "mlp"})


def test_verdict_table():
    assert verdict_for(5, ">=", 5, 5, None) == "confirmed"
    assert verdict_for(5, ">=", 7, 5, 6) == "refuted"
    assert verdict_for(5, "<=", 4, 5, 9) == "refuted"
    assert verdict_for(5, "<=", 9, 5, 9) == "confirmed"
    assert verdict_for(5, "==", 6, 5, 7) == "out of reach"


def test_formula_and_interval_certificates():
    e = formula_certificate("query_key", 6, 4, 2)
    assert e.certificate["formula"]["lambda"] == "27/2" and e.certificate["formula"]["multiplicity"] == 1
    validate(e.certificate)
    with pytest.raises(InputError):
        formula_certificate("eval", 1)
    from algebra.attention_rank.certificates import approximation_rank_certificates

    res = approximation_rank_certificates(np.eye(3), np.eye(3), 6.0, 0.25)
    e = interval_certificate(res["upper_svd"], text="upper")
    assert e.kind == "interval_inequality"
    validate(e.certificate)
