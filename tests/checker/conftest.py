"""Small valid certificates shared by the checker tests (built once per session).

The true generic rank of every base model is stated here from theory, not
computed by the producer: the forgery tests use it as their oracle.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from algebra.certify.formula import formula_certificate, rlct_certificate
from algebra.certify.interval import interval_certificate
from algebra.certify.rank import dimension_certificate
from algebra.models import MLP, DeepLinear, LightningAttention, PolynomialMap, QueryKey, quadratic_network, shallow_network

#: name -> (model factory, witnesses, claimed, true generic rank and why)
BASES = {
    "qk-fields": (lambda: QueryKey(2, 1), "fields", None, 3),  # 2dk - k^2
    "qk-equations": (lambda: QueryKey(3, 1), "equations", None, 5),  # rank-1 3x3 matrices
    "linear-cramer": (lambda: DeepLinear((2, 1, 2)), "cramer", None, 3),  # rank-1 2x2 matrices
    "quadratic-orthogonal": (lambda: quadratic_network(3, 1, 2), "fields", 6, 5),  # 2 * 3 - 1 (O(2) rotation)
    "shallow-ah-defect": (lambda: shallow_network(3, 4, 5), "cramer", 15, 14),  # Alexander-Hirschowitz
    "attention-fields": (lambda: LightningAttention(2, 1, 2), "fields", None, 5),  # d^2 + d d' - 1
    "attention-rank": (lambda: LightningAttention(3, 1, 1, rank=1), "auto", None, 7),  # Prop. E.3: 3 + (6 - 1) - 1
    "mlp-bias-rational": (lambda: MLP((2, 2, 1), "t^2/2 + t", bias=True), "cramer", None, 6),  # fills the 6 conics
    # outputs a x + b y and a b x^2 + c: coefficients (a, b, ab, c) of 3 parameters
    "polynomial-inputs": (lambda: PolynomialMap(["a*x + b*y", "a*b*x^2 + c"], parameters="a b c".split(),
                                                inputs="x y".split()), "cramer", None, 3),
}


@pytest.fixture(scope="session")
def base_certificates() -> dict:
    """``{name: (certificate, true rank)}`` for every entry of :data:`BASES` plus formula certificates."""
    out = {}
    for name, (factory, witnesses, claimed, rank) in BASES.items():
        e = dimension_certificate(factory(), witnesses=witnesses, claimed=claimed)
        out[name] = (e.certificate, rank)
    out["formula-rrr"] = (formula_certificate("reduced_rank_regression", 5, 4, 3, 1).certificate, None)
    out["formula-linear"] = (formula_certificate("deep_linear_network", [4, 3, 3, 5], 1).certificate, None)
    out["formula-qk"] = (formula_certificate("query_key", 6, 4, 3).certificate, None)
    stated = {"lambda": 3, "where": "Corollary 4.2 (read as lambda equal to dim over 2)"}
    out["formula-regular"] = (rlct_certificate(quadratic_network(3, 1, 2), stated=stated).certificate, 5)
    return out


@pytest.fixture(scope="session")
def interval_certificates() -> dict:
    """Interval and attention-rank certificates, with their true values from theory.

    * ``interval-lower``: the selection/decoder payload of ``softmax(6 I_3)`` at eps = 1/4,
      whose target ``||S A D - I||`` is ``2 * 2 / (e^6 + 2) ~ 0.0099`` (true value: the
      inequality ``< 1 - eps`` holds; the claim's bound is the payload's);
    * ``interval-exp``: ``exp(1/3) < 1.4`` (exp(1/3) = 1.3956...);
    * ``attention-eye``: ``r_eps(softmax(6 I_3)) = 3`` at eps = 1/4 (the rows are within
      2 * 2 / (e^6 + 2) of the identity's, far inside 1 - eps: full rank is needed and enough).
    """
    from algebra.attention_rank.certificates import approximation_rank_certificates
    from algebra.certify.attention import attention_rank_certificate

    eye = np.eye(3)
    res = approximation_rank_certificates(eye, eye, 6.0, 0.25)
    exp_payload = {"arrays": {}, "scalars": {"x": "1/3"}, "program": [{"out": "y", "op": "exp", "args": ["x"]}],
                   "target": "y", "relation": "<", "bound": "1.4"}
    return {"interval-lower": (interval_certificate(res["lower"], statement="lower").certificate, None),
            "interval-exp": (interval_certificate(exp_payload).certificate, "1.4"),
            "attention-eye": (attention_rank_certificate(eye, eye, 6.0, 0.25), 3)}


@pytest.fixture
def certs(base_certificates) -> dict:
    return copy.deepcopy(base_certificates)
