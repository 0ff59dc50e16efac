"""Small valid certificates shared by the checker tests (built once per session)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from algebra.certify.emit import dimension_certificate, formula_certificate, interval_certificate
from algebra.models import MLP, DeepLinear, LightningAttention, PolynomialMap, QueryKey, quadratic_network, shallow_network

#: name -> (model factory, witnesses, claimed, true generic rank)
BASES = {
    "qk-fields": (lambda: QueryKey(2, 1), "fields", None, 3),
    "qk-equations": (lambda: QueryKey(3, 1), "equations", None, 5),
    "linear-cramer": (lambda: DeepLinear((2, 1, 2)), "cramer", None, 3),
    "quadratic-orthogonal": (lambda: quadratic_network(3, 1, 2), "fields", 6, 5),
    "shallow-ah-defect": (lambda: shallow_network(3, 4, 5), "cramer", 15, 14),
    "attention-fields": (lambda: LightningAttention(2, 1, 2), "fields", None, 5),
    "attention-rank": (lambda: LightningAttention(3, 1, 1, rank=1), "auto", None, None),
    "mlp-bias-rational": (lambda: MLP((2, 2, 1), "t^2/2 + t", bias=True), "cramer", None, None),
    "polynomial-inputs": (lambda: PolynomialMap(["a*x + b*y", "a*b*x^2 + c"], parameters="a b c".split(), inputs="x y".split()),
                          "cramer", None, None),
}


@pytest.fixture(scope="session")
def base_certificates() -> dict:
    """``{name: (certificate, true rank)}`` for every entry of :data:`BASES` plus formula/interval."""
    out = {}
    for name, (factory, witnesses, claimed, rank) in BASES.items():
        e = dimension_certificate(factory(), witnesses=witnesses, claimed=claimed)
        out[name] = (e.certificate, rank if rank is not None else e.lower)
    out["formula-rrr"] = (formula_certificate("reduced_rank_regression", 5, 4, 3, 1).certificate, None)
    out["formula-linear"] = (formula_certificate("deep_linear_network", [4, 3, 3, 5], 1).certificate, None)
    eye = np.eye(3)
    from algebra.attention_rank.certificates import approximation_rank_certificates

    res = approximation_rank_certificates(eye, eye, 6.0, 0.25)
    out["interval-lower"] = (interval_certificate(res["lower"], text="lower").certificate, None)
    return out


@pytest.fixture
def certs(base_certificates) -> dict:
    return copy.deepcopy(base_certificates)
