"""One canonical spelling of every model, counts derived from the model, no free text in a claim (issue 20).

The oracle of the count table is a brute-force symbolic expansion (sympy, random integer parameters), not the
producer; the forgeries are generated (hypothesis) from small valid certificates and must all be refused.
"""

from __future__ import annotations

import copy
import json
import math
import random

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from algebra.checker import core as chk
from algebra.checker import model as mdl
from algebra.checker import rank as rnk
from algebra.certify.canonical import seal
from algebra.certify.formula import rlct_certificate
from algebra.certify.rank import dimension_certificate
from algebra.models.registry import to_spec
from algebra.models import MLP, LightningAttention, quadratic_network
from algebra.models.cnn import CNN


def refused(cert) -> str:
    with pytest.raises(chk.Reject) as err:
        chk.check(seal(cert))
    return str(err.value)


@pytest.fixture(scope="module")
def bases():
    """Small valid certificates of the families whose specs carry keys and sets."""
    return {
        "mlp-inactive": dimension_certificate(MLP((2, 3, 1), "t^2", inactive={1: [0]})).certificate,
        "mlp-deep-inactive": dimension_certificate(MLP((2, 3, 3, 1), "t^2", inactive={1: [2], 2: [0, 1]})).certificate,
        "cnn": dimension_certificate(CNN(6, [2, 2], channels=(1, 3, 2), activations="t^3", dense=2, bias=True,
                                         inactive={1: [1]})).certificate,
        "attention": dimension_certificate(LightningAttention(2, 1, 2)).certificate,
        "regular": rlct_certificate(quadratic_network(3, 1, 2),
                                    stated={"lambda": 3, "where": "grokking paper, Corollary 5.4"}).certificate,
    }


def test_the_bases_verify(bases):
    for name, cert in bases.items():
        assert chk.check(copy.deepcopy(cert)), name


# -- the review's forgeries, by name ------------------------------------------------------------------
@pytest.mark.parametrize("key", ["01", "١", "+1", " 1", "1 ", "1.0", "٠1", "¹"])
def test_an_aliased_inactive_layer_key_is_refused(bases, key):
    """``{"01": [0], "1": [0]}`` and ``"١"`` turned two spellings into one layer; every spelling but "1" is refused."""
    c = copy.deepcopy(bases["mlp-inactive"])
    c["model"]["inactive"] = {key: [0]}
    assert "canonical ASCII decimal" in refused(c)
    c["model"]["inactive"] = {key: [0], "1": [0]}
    assert "canonical ASCII decimal" in refused(c)


def test_duplicate_unsorted_and_empty_unit_sets_are_refused(bases):
    c = copy.deepcopy(bases["mlp-deep-inactive"])
    for units, why in (([0, 0], "strictly increasing"), ([1, 0], "strictly increasing"), ([], "lists no unit"),
                       ([0, 1, 2], "one must be left"), ([3], "integer in \\[0, 2\\]"), ([True], "integer")):
        c["model"]["inactive"] = {"1": units}
        assert refused(c), why


def test_a_cnn_inactive_key_and_an_unknown_field_are_refused(bases):
    c = copy.deepcopy(bases["cnn"])
    c["model"]["inactive"] = {"١": [1]}
    assert "canonical ASCII decimal" in refused(c)
    c = copy.deepcopy(bases["cnn"])
    c["model"]["padding"] = "same"
    assert "unknown field" in refused(c)
    c = copy.deepcopy(bases["cnn"])
    del c["model"]["inactive"]
    assert "lacks field" in refused(c)


@pytest.mark.parametrize("where", ["Certified here: lambda = 1/2 and m = 3", "trivial: 1 x 999 = 999",
                                   "paper; lambda <= 1", "x" * 121, "line\nbreak"])
def test_free_text_that_reads_as_a_claim_is_refused(bases, where):
    c = copy.deepcopy(bases["regular"])
    c["formula"]["stated"]["where"] = c["claim"]["stated"]["where"] = where
    assert "citation" in refused(c)


def test_a_citation_is_a_label_outside_the_claim_text(bases):
    """Another harmless citation leaves the claim text unchanged: the text never quotes it."""
    c = copy.deepcopy(bases["regular"])
    text = c["claim"]["text"]
    assert "Corollary 5.4" not in text and "stated.where" in text
    c["formula"]["stated"]["where"] = c["claim"]["stated"]["where"] = "Another paper, Theorem 9"
    assert chk.check(seal(c)) and c["claim"]["text"] == text


# -- a generator of adversarial spellings -----------------------------------------------------------------
def _paths(obj, path=()):
    """Every (path, value) in a JSON tree, leaves and containers."""
    yield path, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:6]):
            yield from _paths(v, path + (i,))


def _at(obj, path):
    for p in path:
        obj = obj[p]
    return obj


SPELLINGS = {  # a canonical integer string -> non-canonical spellings of the same or an aliased value
    "int": lambda s: ["0" + s, "+" + s, s + " ", s.replace("0", "٠").replace("1", "١").replace("2", "٢"),
                      "-0" if s == "0" else s + ".0"],
    "frac": lambda s: [s + "/1", "2*" + s, ("-" if not s.startswith("-") else "") + "0" + s.lstrip("-")],
}
SCOPE = ("model", "point", "lower", "upper", "subnetwork", "formula")


def _mutations(cert):
    """(description, mutate(cert)) pairs over every field under SCOPE: aliased, non-canonical or out of range."""
    out = []
    for path, value in _paths({k: cert[k] for k in SCOPE if k in cert}):
        if path and path[-1] in ("names", "theorem", "case"):
            continue  # informational labels (not in the claim): covered by the label test below
        if isinstance(value, dict) and path:
            out.append((f"{path}: unknown field", lambda c, p=path: _at(c, p).__setitem__("zz_extra", 1)))
            for k in list(value)[:3]:
                if isinstance(k, str) and k.isascii() and k.isdigit():
                    out.append((f"{path}: key {k} aliased", lambda c, p=path, k=k: _at(c, p).__setitem__(
                        "0" + k, _at(c, p).pop(k))))
        elif isinstance(value, list) and path and value and all(type(v) is int for v in value):
            if len(value) >= 2:
                out.append((f"{path}: reversed", lambda c, p=path: _at(c, p[:-1]).__setitem__(p[-1], _at(c, p)[::-1])))
            out.append((f"{path}: repeated", lambda c, p=path: _at(c, p).append(_at(c, p)[-1])))
        elif type(value) is int and path:
            out.append((f"{path}: bool", lambda c, p=path: _at(c, p[:-1]).__setitem__(p[-1], bool(_at(c, p)))))
            out.append((f"{path}: out of range", lambda c, p=path: _at(c, p[:-1]).__setitem__(p[-1], -1 - _at(c, p))))
            out.append((f"{path}: float", lambda c, p=path: _at(c, p[:-1]).__setitem__(p[-1], _at(c, p) + 0.5)))
        elif isinstance(value, str) and path and chk._INT.fullmatch(value):
            for i, alias in enumerate(SPELLINGS["int"](value)):
                out.append((f"{path}: spelled {alias!r}", lambda c, p=path, a=alias: _at(c, p[:-1]).__setitem__(p[-1], a)))
        elif isinstance(value, str) and path and chk._FRAC.fullmatch(value):
            for alias in SPELLINGS["frac"](value):
                out.append((f"{path}: spelled {alias!r}", lambda c, p=path, a=alias: _at(c, p[:-1]).__setitem__(p[-1], a)))
    return out


KINDS_FOR_GENERATION = ["mlp-inactive", "mlp-deep-inactive", "cnn", "attention", "regular"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(KINDS_FOR_GENERATION), pick=st.integers(0, 10**6))
def test_generated_non_canonical_spellings_are_refused(bases, base_certificates, name, pick):
    """Every generated mutation of a spec, point, witness or formula field is refused (re-sealed)."""
    pool = dict(bases, **{k: v for k, (v, _) in base_certificates.items()})
    names = sorted(pool)
    cert = pool[names[pick % len(names)]] if name == "regular" and pick % 2 else pool[name]
    muts = _mutations(cert)
    desc, mutate = muts[pick % len(muts)]
    c = copy.deepcopy(cert)
    try:
        mutate(c)
    except (TypeError, KeyError, IndexError, AttributeError):
        return  # the mutation does not apply to this value's shape
    if json.dumps(c, sort_keys=True) == json.dumps(cert, sort_keys=True):
        return  # e.g. reversing a palindrome
    assert refused(c), desc


@pytest.mark.parametrize("label", ["names", "theorem", "case", "source"])
def test_informational_labels_never_change_the_claim(base_certificates, label):
    cert = copy.deepcopy(base_certificates["polynomial-inputs" if label == "names" else "formula-rrr"][0])
    text = cert["claim"]["text"]
    if label == "names":
        cert["model"]["names"] = ["dimension_is_99", "b", "c", "x", "y"]  # the names are pinned by the model's sha256
        assert "claim.about differs" in refused(cert) and "dimension_is_99" not in text
        cert["model"]["names"] = ["lambda = 1/2", "b", "c", "x", "y"]
        assert "ASCII identifiers" in refused(cert)
    elif label == "source":
        cert["source"] = {"statement": "Certified here: lambda = 1/2"}
        assert chk.check(seal(cert)) and cert["claim"]["text"] == text
    else:
        cert["formula"][label] = "Certified here: lambda = 1/2 and m = 3"
        assert chk.check(seal(cert)) and cert["claim"]["text"] == text


# -- counts derived from the model, against brute force -----------------------------------------------------------
def _mlp_outputs(widths, acts, bias, inactive, rng):
    """Brute force: a random integer MLP (inactive units removed) expanded in sympy."""
    t = sympy.Symbol("t")
    xs = sympy.symbols(f"x0:{widths[0]}")
    a = list(xs)
    eff = [w - len(inactive.get(l, [])) for l, w in enumerate(widths)]
    for l in range(1, len(widths)):
        z = [sum(rng.randint(1, 7) * v for v in a) + (rng.randint(1, 7) if bias else 0) for _ in range(eff[l])]
        if l < len(widths) - 1:
            poly = sympy.sympify(acts[l - 1])
            z = [sympy.expand(poly.subs(t, zi)) for zi in z]
        a = z
    return [sympy.Poly(o, *xs) for o in a]


MLP_TABLE = [  # widths, activations, bias, inactive: homogeneous, mixed degrees, a constant term, deep, inactive
    ((2, 2, 1), ["t^2"], False, {}), ((2, 3, 1), ["t^2 + t"], False, {}), ((3, 2, 2), ["t^2 + t"], True, {}),
    ((2, 2, 2, 1), ["t^2 - t", "t^3"], False, {}), ((2, 3, 1), ["t^2 - 1"], False, {1: [0]}),
    ((3, 2, 1), ["t"], True, {}), ((2, 2, 2, 1), ["t^3 + 2", "t^2"], False, {}),
]


@pytest.mark.parametrize("widths, acts, bias, inactive", MLP_TABLE, ids=repr)
def test_mlp_ambient_is_the_brute_force_monomial_count(widths, acts, bias, inactive):
    model = MLP(widths, acts if len(acts) > 1 else acts[0], bias=bias, inactive=inactive or None)
    count, status = mdl.Model(to_spec(model)).ambient_count()
    outs = _mlp_outputs(widths, acts, bias, inactive, random.Random(5))
    assert status == "exact" and count == sum(len(p.monoms()) for p in outs)


def _cnn_brute(model, rng):
    """Monomial count of a random integer CNN: without a dense layer the outputs at position 0 of every channel
    (the other positions are translates), with one every dense output."""
    theta = [rng.randint(1, 7) for _ in range(model.parameter_count)]
    xs = sympy.symbols(f"x0:{model.n_inputs}")
    outs = _cnn_symbolic(model, theta, xs)
    return sum(len(sympy.Poly(o, *xs).monoms()) for o in outs)


def _cnn_symbolic(model, theta, xs):
    spec = mdl.Model(to_spec(model))  # its layout (taps, blocks) only; the arithmetic is sympy's
    n0 = math.prod(spec.shapes[0])
    a = [[xs[c * n0 + q] for q in range(n0)] for c in range(spec.channels[0])]
    k, step = 0, 1 + spec.bias
    mats = []
    for r, c in spec.blocks:
        mats.append([[int(theta[k + i * c + j]) for j in range(c)] for i in range(r)])
        k += r * c
    t = sympy.Symbol("t")
    for l, taps in enumerate(spec.taps):
        W, K = mats[step * l], len(taps[0])
        z = [[sum(W[o][i * K + u] * a[i][q] for i in range(len(a)) for u, q in enumerate(tp)) for tp in taps]
             for o in range(len(W))]
        if spec.bias:
            z = [[v + b[0] for v in row] for row, b in zip(z, mats[step * l + 1])]
        if l < len(spec.acts):
            poly = sum(sympy.Rational(c.numerator, c.denominator) * t**j for j, c in enumerate(spec.acts[l]))
            z = [[sympy.expand(poly.subs(t, v)) for v in row] for row in z]
        a = z
    if not spec.dense:
        return [row[0] for row in a]
    flat = [v for row in a for v in row]
    D = mats[step * len(spec.taps)]
    out = [sum(d * v for d, v in zip(row, flat)) for row in D]
    return [sympy.expand(o + b[0]) for o, b in zip(out, mats[-1])] if spec.bias else [sympy.expand(o) for o in out]


CNN_TABLE = [  # strides that skip inputs, dense layers that multiply positions, biases, 2-D
    CNN(3, [1], channels=(1, 1), strides=[2], activations="t^2", dense=1),  # the review's case: reads x0, x2 only
    CNN(5, [2, 2], channels=(1, 2, 1), activations="t^2"),
    CNN(6, [2], channels=(1, 2), strides=[2], activations="t^2", dense=1),  # no products across positions
    CNN(5, [2, 2], channels=(2, 1, 1), strides=[2, 1], activations=["t^2 + t", "t^2"], bias=True, dense=1),
    CNN((3, 3), [(2, 2)], channels=(1, 1), activations="t^2", dense=1),
    CNN(8, [3, 2], activations="t"),
]


@pytest.mark.parametrize("model", CNN_TABLE, ids=repr)
def test_cnn_ambient_is_the_brute_force_monomial_count(model):
    mine = mdl.Model(to_spec(model))
    count, status = mine.ambient_count()
    brute = _cnn_brute(model, random.Random(3))
    assert (status == "exact" and count == brute) or (status == "above P" and brute > mine.P), (count, status, brute)


def test_the_stride_case_is_not_defective_against_the_read_inputs():
    """Stride 2 on 3 inputs reads x0 and x2, each squared on its own: the dense output is a x0^2 + b x2^2 (2
    monomials), not a quadric in the receptive field's 3 inputs (6)."""
    count, status = mdl.Model(to_spec(CNN_TABLE[0])).ambient_count()
    assert (count, status) == (2, "exact")


@pytest.mark.parametrize("d, dout, tokens", [(2, 1, 1), (2, 1, 2), (2, 2, 3), (3, 1, 2)])
def test_attention_ambient_is_the_brute_force_monomial_count(d, dout, tokens):
    """Output (a, c) of V X X^T A X: the monomials of one token's outputs, times dout (tokens are symmetric)."""
    rng = random.Random(1)
    X = sympy.Matrix(d, tokens, sympy.symbols(f"x0:{d * tokens}"))
    A = sympy.Matrix(d, d, lambda i, j: rng.randint(1, 9))
    V = sympy.Matrix(dout, d, lambda i, j: rng.randint(1, 9))
    out = (V * X * X.T * A * X).applyfunc(sympy.expand)
    brute = sum(len(sympy.Poly(out[a, 0], *X).monoms()) for a in range(dout))
    count, status = mdl.Model(to_spec(LightningAttention(d, dout, tokens))).ambient_count()
    assert status == "exact" and count == brute


@pytest.mark.parametrize("widths, act, bias", [((2, 2, 1), "t", True), ((3, 2, 2), "t", False),
                                               ((2, 3, 1), "t^2", True), ((2, 2, 2, 1), "t^3", False)])
def test_symmetry_count_never_exceeds_the_fibre_dimension(widths, act, bias):
    """Every counted symmetry is a direction of the generic fibre: P - count >= the certified dimension."""
    from algebra.engine import dimension

    model = MLP(widths, act, bias=bias)
    mine = mdl.Model(to_spec(model))
    res = dimension(model)
    assert res.certified and mdl.symmetry_count(mine) <= mine.P - res.lower_bound


def test_an_affine_activation_without_biases_has_no_defect_count(bases):
    model = mdl.Model({"family": "mlp", "widths": [2, 2, 1], "activations": [["1", "1"]], "bias": False, "inactive": {}})
    with pytest.raises(chk.Reject, match="affine activation"):
        mdl.expected_count(model)


# -- the committed files are canonical; the worst rank file is decided within the budget ------------------------
def test_every_committed_spec_is_its_own_canonical_form():
    """The producer writes only canonical specs: each committed model spec is rebuilt identically, and every
    file's bytes are its own canonical rendering."""
    from pathlib import Path

    from algebra.certify.canonical import render

    root = Path(__file__).resolve().parents[2] / "certificates"
    seen = 0
    for path in sorted(root.glob("*.json")):  # the catalogue (the head certificates have no model spec)
        if path.name == "index.json":
            continue
        data = path.read_bytes()
        cert = json.loads(data)
        compact = json.dumps(cert, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode() + b"\n"
        assert data in (render(cert), compact), path.name
        specs = [cert.get("model"), (cert.get("subnetwork") or {}).get("model"),
                 ((cert.get("formula") or {}).get("rank") or {}).get("model")]
        for spec in filter(None, specs):
            assert mdl.Model(spec).spec == spec, path.name
            seen += 1
    assert seen > 400


def _mlp_lower_certificate(samples: int) -> dict:
    """A rank_lower_bound file for the largest MLP the limits allow (P = 3,968), its witness over ``samples``."""
    rng = random.Random(0)
    spec = {"family": "mlp", "widths": [32, 60, 32, 4], "activations": [["0", "0", "1"], ["0", "0", "1"]],
            "bias": False, "inactive": {}}
    P = mdl.Model(spec).P
    n = 4 * samples
    cert = {"schema_version": 1, "kind": "rank_lower_bound", "model": spec,
            "point": {"prime": "1048573", "theta": [str(rng.randrange(-99, 99)) for _ in range(P)],
                      "inputs": [[str(rng.randrange(-99, 99)) for _ in range(32)] for _ in range(samples)]},
            "lower": {"rows": list(range(n)), "cols": list(range(n))}}
    cert["claim"] = rnk.rank_claim("rank_lower_bound", mdl.Model(spec), spec, n)
    return cert


def test_the_costliest_rank_file_is_refused_before_its_work():
    """35 samples of a P = 3,968 MLP are 35 forward passes of 1.6 10^7 charged steps: above MAX_EVAL, refused
    by the charge itself (no pass is run)."""
    cert = _mlp_lower_certificate(35)
    calls = []
    real = mdl.Model.forward
    try:
        mdl.Model.forward = lambda self, *a: calls.append(1) or real(self, *a)
        assert "would take more than" in refused(cert)
    finally:
        mdl.Model.forward = real
    assert not calls


@pytest.mark.slow
def test_the_worst_rank_file_at_the_limit_is_decided():
    """Just under MAX_EVAL (30 passes of the largest MLP): decided, with a verdict either way."""
    cert = _mlp_lower_certificate(30)
    model = mdl.Model(cert["model"])
    assert 30 * model.cost <= mdl.MAX_EVAL < 35 * model.cost
    try:
        chk.check(seal(cert))
    except chk.Reject as exc:
        assert "vanishes" in str(exc)
