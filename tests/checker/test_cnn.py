"""The checker's own CNN and differential (algebra/checker/cnn.py): agreement with the models, forgeries refused.

The oracle of the forgery tests is theory, not the producer: on the base case (input 4, one
filter of size 2, channels (1, 2), t^2, one dense output, channel 0 of layer 1 inactive) the
subnetwork is Figure 6's CNN on 4 inputs, ``dim F' = 5 - 1 = 4`` (five weights, one rescaling),
and at a generic point of it ``rank d phi = dim F = 7`` (``cnn_proximity``'s docstring).
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from algebra.checker import core as chk
from algebra.checker import model as mdl
from algebra.checker import rank as rnk
from algebra.checker.cnn import subnetwork_bound
from algebra.certify.canonical import seal
from algebra.certify.subnetwork import subnetwork_certificate
from algebra.models.registry import from_spec, to_spec
from algebra.errors import InputError
from algebra.exact.field import PrimeField
from algebra.models.cnn import CNN

PRIME = 1048573  # a prime below the exact layer's 2^21
CASES = [  # one table: 1-D and 2-D, strides, biases, dense layers, inactive channels, several activations
    CNN(5, [2, 2], channels=(1, 2, 1), activations="t^2"),
    CNN(7, [3, 2], channels=(2, 3, 2), strides=[2, 1], activations="t^3 - t/2", bias=True, dense=2),
    CNN((4, 7), [(2, 2), (2, 3)], channels=(1, 2, 2), strides=[(1, 2), 1], activations=["t^2", "t^2 + t"], dense=1),
    CNN((4, 4), [(2, 2)], channels=(2, 3), activations="t^2", bias=True),
    CNN(6, [2, 2], channels=(1, 3, 2), activations="t^3", dense=2, bias=True, inactive={1: [1], 2: [0]}),
    CNN(8, [3, 2], activations="t"),
    CNN(8, [3]),
]


def _random_cnn(rng) -> CNN:
    """A random small CNN (1-D or 2-D, 1-3 layers, strides 1-2, optional bias and dense layer)."""
    nd, L = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    dense = int(rng.integers(1, 3)) if rng.random() < 0.5 else None
    ks = [tuple(int(k) for k in rng.integers(1, 4, nd)) for _ in range(L)]
    ss = [tuple(int(s) for s in rng.integers(1, 3, nd)) for _ in range(L)]
    size = [sum((k[d] - 1) * int(np.prod([s[d] for s in ss[:i]])) for i, k in enumerate(ks)) + 1 + int(rng.integers(0, 3))
            for d in range(nd)]
    acts = [("t^2", "t^3", "t^2 + t", "t", "t^2/3 - 1")[int(rng.integers(0, 5))] for _ in range(L - (not dense))]
    return CNN(tuple(size), ks, channels=tuple(int(c) for c in rng.integers(1, 3, L + 1)), strides=ss,
               activations=acts or "t", bias=bool(rng.random() < 0.5), dense=dense)


def _rows(model, theta, X, p):
    mine = mdl.Model(to_spec(model))
    rows = mine.rows([int(v) for v in theta], X.tolist(), set(range(len(X) * model.n_outputs)), p)
    return mine, [rows[r] for r in range(len(rows))]


@pytest.mark.parametrize("model", CASES + [_random_cnn(np.random.default_rng(s)) for s in range(8)], ids=repr)
def test_checker_cnn_agrees_with_the_model(model):
    """Values and Jacobian rows of the checker's forward pass equal algebra.models.cnn's, modulo a prime."""
    rng = np.random.default_rng(3)
    theta, X = model.random_point(rng, bound=50), model.random_inputs(rng, 2, bound=50)
    F = PrimeField(PRIME)
    mine, rows = _rows(model, theta, X, PRIME)
    assert rows == model.jacobian(theta, X, F).tolist()
    values = [v for x in X.tolist() for v, _ in mine.forward([int(t) for t in theta], x, PRIME)]
    assert values == model.forward(theta, X, F).ravel().tolist()
    # the checker also counts the affine gauge of a linear activation with biases, which the model's fields omit
    assert mine.P == model.parameter_count and mdl.symmetry_count(mine) >= model.symmetry_count()
    count, status = mine.ambient_count()  # exact (never above the engine's upper bound) or known to exceed P
    assert count <= model.ambient_dimension() if status == "exact" else model.ambient_dimension() > mine.P
    assert from_spec(to_spec(model)).spec() == model.spec()


def test_differential_rows_are_the_jacobian_at_the_point():
    full = CNN(6, [2, 2], channels=(1, 2, 2), activations="t^2", dense=1, bias=True)
    theta = full.random_point(np.random.default_rng(0), bound=50)
    theta[full.offsets()["D"][0] + np.arange(5)] = 0  # channel 0 of layer 2 reads nothing: the dense columns 0..4
    X = full.random_inputs(np.random.default_rng(1), 3, bound=50)
    spec = {"family": "differential", "of": to_spec(full), "at": [str(int(v)) for v in theta], "inactive": {"2": [0]}}
    d = mdl.Model(spec)
    anywhere = list(range(full.parameter_count))  # the Jacobian in theta_dot does not depend on theta_dot
    rows = d.rows(anywhere, X.tolist(), set(range(3)), PRIME)
    assert [rows[r] for r in range(3)] == full.jacobian(theta, X, PrimeField(PRIME)).tolist()
    theta[full.offsets()["D"][0]] = 1
    with pytest.raises(chk.Reject, match="not on the subnetwork"):
        mdl.Model(dict(spec, at=[str(int(v)) for v in theta]))


@pytest.mark.parametrize("spec, reason", [
    ({"input": [3], "filters": [[4]]}, "larger than its input"),
    ({"input": [3, 3, 3], "filters": [[2, 2, 2]], "strides": [[1, 1, 1]]}, "1 or 2 sizes"),
    ({"channels": [1, 5000]}, "channels must be an integer"),
    ({"activations": [["0", "0", "1"]]}, "one coefficient list per activated layer"),
    ({"dense": 0}, "dense must be an integer"),
    ({"input": [4096], "channels": [1, 250], "filters": [[1]]}, "dual products"),
    ({"input": [64, 65], "filters": [[1, 1]], "strides": [[1, 1]]}, "more than 4096 inputs"),
    ({"inactive": {"1": [0]}}, "inactive layer key must be a canonical ASCII decimal in"),
])
def test_hostile_cnn_specs_are_refused(spec, reason):
    base = to_spec(CNN(4, [2]))
    with pytest.raises(chk.Reject, match=reason):
        mdl.Model(dict(base, **spec))


# -- the subnetwork certificate (proximity-bias paper, Appendix C) --------------------------------
@pytest.fixture(scope="module")
def base():
    m = CNN(4, [2], channels=(1, 2), activations="t^2", dense=1)
    e = subnetwork_certificate(m, [1, 2, 3, 4, 0, 0, 0, 5, 6, 7], {1: [0]})
    return e.certificate


def _reseal(cert, edit):
    c = copy.deepcopy(cert)
    edit(c)
    c.pop("sha256")
    return seal(c)


def _rederive(c):
    """Give the edited file the claim the checker derives for it (a forger's best effort)."""
    notes = []
    model = mdl.Model(c["model"])
    lo = rnk.lower_bound(c, model, notes)
    sub = subnetwork_bound(c, model, notes) if "subnetwork" in c else None
    c["claim"] = rnk.rank_claim(c["kind"], model, c["model"], lo, sub=sub)


def test_base_certificate_states_the_true_claim(base):
    assert chk.check(base)
    sub = base["claim"]["subnetwork"]
    assert base["claim"]["value"] == 7 and sub["dimension_at_most"] == 4 and sub["rank_exceeds"] is True
    assert "no proximity bias toward F'" in base["claim"]["text"]


def test_point_moved_off_the_subnetwork_is_refused(base):
    def edit(c):
        c["model"]["at"][4] = "9"  # the dense weight reading channel 0 at position 0

    with pytest.raises(chk.Reject, match="not on the subnetwork"):
        chk.check(_reseal(base, edit))


@pytest.mark.parametrize("edit, reason", [
    (lambda c: c["model"]["of"].update(activations=[["0", "0", "0", "1"]]), "subnetwork.model must be"),
    (lambda c: [b.update(activations=[["0", "0", "0", "1"]]) for b in (c["model"]["of"], c["subnetwork"]["model"])],
     "kernel field is not in the kernel"),  # t^3 in both: the t^2 rescaling field no longer annihilates J
    (lambda c: c["subnetwork"]["model"].update(activations=[["0", "1", "1"]]), "subnetwork.model must be"),
    (lambda c: c["subnetwork"]["model"].update(inactive={}), "subnetwork.model must be"),
    (lambda c: c["model"].update(inactive={"1": [1]}), "not on the subnetwork"),
    (lambda c: c["model"].update(inactive={}), "names the subnetwork"),
])
def test_edited_specs_are_refused(base, edit, reason):
    with pytest.raises(chk.Reject, match=reason):
        chk.check(_reseal(base, edit))


@pytest.mark.parametrize("edit, reason", [
    (lambda c: c["claim"]["subnetwork"].update(dimension_at_most=6), "claim.subnetwork differs"),
    (lambda c: c["claim"].update(value=8), "claim.value differs"),
    (lambda c: c["claim"].update(text=c["claim"]["text"].replace("dim F' <= 4", "dim F' <= 6")), "claim.text differs"),
    (lambda c: c["subnetwork"]["upper"].update(fields=[]), "claim.subnetwork differs"),  # the bound: the ambient count
    (lambda c: c["subnetwork"]["upper"]["fields"][0][0][1][0].__setitem__(1, "2"), "kernel field"),
    (lambda c: c["lower"].update(rows=c["lower"]["rows"] + [7], cols=c["lower"]["cols"] + [c["lower"]["cols"][0]]),
     "strictly increasing"),
])
def test_claimed_bound_or_rank_raised_is_refused(base, edit, reason):
    with pytest.raises(chk.Reject, match=reason):
        chk.check(_reseal(base, edit))


def test_a_forger_who_rederives_the_claim_gets_only_a_true_one(base):
    """Dropping the symmetry field and re-deriving: accepted, but the claim is now the weaker, still true one."""
    def edit(c):
        c["subnetwork"]["upper"]["fields"] = []
        _rederive(c)

    c = _reseal(base, edit)
    assert chk.check(c)
    b = c["claim"]["subnetwork"]["dimension_at_most"]
    assert b >= 4 and c["claim"]["subnetwork"]["rank_exceeds"] == (7 > b)


def test_the_certificate_is_small_and_matches_the_schema(base):
    assert len(json.dumps(base)) < 8000 and base["model"]["family"] == "differential"
    pytest.importorskip("jsonschema")
    from algebra.certify.schema import validate

    validate(base)
    bad = copy.deepcopy(base)
    bad["subnetwork"]["model"]["channels"] = [1, 0]
    with pytest.raises(Exception, match="does not match the schema"):
        validate(bad)


def test_emitter_refuses_a_model_with_inactive_channels():
    sub = CNN(4, [2], channels=(1, 2), activations="t^2", dense=1, inactive={1: [0]})
    with pytest.raises(InputError, match="without inactive channels"):
        subnetwork_certificate(sub, [0] * sub.parameter_count, {1: [0]})


def test_the_comparison_needs_the_lower_bound(base):
    """As a rank_upper_bound the value is an upper bound: comparing it with dim F' would prove nothing."""
    def edit(c):
        c["kind"] = "rank_upper_bound"
        c["upper"] = {"fields": [], "equations": []}
        del c["lower"]

    with pytest.raises(chk.Reject, match=r"rank_upper_bound certificate has unknown field\(s\) \[\"subnetwork\"\]"):
        chk.check(_reseal(base, edit))


def test_nested_differentials_are_refused(base):
    with pytest.raises(chk.Reject, match="a differential is of a cnn spec"):
        mdl.Model(dict(base["model"], of=base["model"]))


def test_native_cnn_dimension_and_defect_certificates():
    """Figure 6's CNN has dim F = 3 (4 weights, one rescaling); CNN(12, [3, 3], channels (1, 4, 1), t^2, dense 1)
    has dim 19 below the count 27 = 32 weights - 5 rescalings (BENCHMARKS.md): a defect the checker derives itself."""
    from algebra.certify.rank import dimension_certificate

    e = dimension_certificate(CNN(3, [2], activations="t^2", dense=1), claimed=3)
    assert (e.kind, e.lower, e.upper, e.verdict) == ("dimension", 3, 3, "confirmed")
    assert e.certificate["model"]["family"] == "cnn" and "the 1-D CNN with input [3]" in e.certificate["claim"]["text"]
    d = dimension_certificate(CNN(12, [3, 3], channels=(1, 4, 1), activations="t^2", dense=1), claimed=27)
    assert (d.kind, d.lower, d.certificate["claim"]["expected"]) == ("defect", 19, 27)
    forged = _reseal(d.certificate, lambda c: c["model"].update(activations=[["0", "1", "1"], ["0", "0", "1"]]))
    with pytest.raises(chk.Reject):  # t^2 + t in layer 1: no rescaling there, so the claimed expected count 27 is not derived
        chk.check(forged)
