"""The ``local_rank`` kind: derived ranks, exact gradient, lambda branches, and tampered files refused."""

import json
from fractions import Fraction

import numpy as np
import pytest

from algebra.certify.canonical import render, seal
from algebra.certify.local_rank import local_rank_certificate
from algebra.checker import Reject, check
from algebra.cli import main
from algebra.exact.field import RationalField
from algebra.exact.rank import rank_over_q
from algebra.grokking.local_rank import dyadic_point
from algebra.grokking.network import CentredLoss
from algebra.grokking.references import DataRestrictedQuadratic
from algebra.grokking.task import modular_addition

P_, K_ = 5, 2


@pytest.fixture(scope="module")
def point():
    t = modular_addition(P_, 0.6, seed=3)
    theta = np.random.default_rng(5).standard_normal(3 * P_ * K_) / 3
    return t, theta


@pytest.fixture(scope="module")
def emitted(point):
    t, theta = point
    return local_rank_certificate(P_, K_, t.a[t.train], t.b[t.train], theta)


def _resealed(cert, edit):
    c = json.loads(json.dumps(cert))
    edit(c)
    return seal(c)


def test_ranks_agree_with_the_rational_route(point, emitted):
    """The checker's ranks at the exact point equal the rank over Q of the engine's Jacobian at that point."""
    t, theta = point
    F = RationalField()
    th = np.array([Fraction(float(v)) for v in theta], dtype=object)
    maps = emitted.certificate["claim"]["maps"]
    for name, (a, b) in (("train", (t.a[t.train], t.b[t.train])), ("all", (t.a, t.b))):
        J = DataRestrictedQuadratic(P_, K_, a, b).jacobian(th, None, F)
        assert maps[name]["lower"] == maps[name]["upper"] == rank_over_q(J)
        assert maps[name]["locally_constant"] is True


def test_gradient_and_loss_bounds_match_the_float_loss(point, emitted):
    t, theta = point
    L = CentredLoss(P_, K_, t.a[t.train], t.b[t.train], t.c[t.train])
    loss, g = L.loss_and_grad(theta[None])
    claim = emitted.certificate["claim"]
    gb, lb = float(claim["gradient_norm_at_most"]), float(claim["train_loss_at_most"])
    assert np.linalg.norm(g[0]) <= gb <= np.linalg.norm(g[0]) * 1.01  # 3-digit upper bounds
    assert loss[0] <= lb <= loss[0] * 1.01
    assert claim["critical"] is False and claim["minimiser"] is False and claim["lambda"] is None
    assert claim["hypothesis_fails"][0].startswith("not a proven minimiser of L_n")
    assert claim["hypothesis_fails"][0].endswith(f"0 < L_n <= {claim['train_loss_at_most']}")


def test_the_origin_is_critical_but_no_minimiser_and_its_rank_is_not_locally_constant(point):
    """theta = 0 is an exact critical point of L_n with rank 0 (the shift fields give P - K), but L_n > 0 there:
    no lambda and no bounds, and both failing hypotheses are named."""
    t, _ = point
    e = local_rank_certificate(P_, K_, t.a[t.train], t.b[t.train], np.zeros(3 * P_ * K_))
    c = e.certificate["claim"]
    P = 3 * P_ * K_
    assert c["gradient_norm_at_most"] == "0" and c["critical"] is True and c["minimiser"] is False
    assert c["lambda"] is None and c["lambda_bounds"] is None
    assert (c["maps"]["train"]["lower"], c["maps"]["train"]["upper"]) == (0, P - K_)
    assert len(c["hypothesis_fails"]) == 2 and "not certified locally constant" in c["hypothesis_fails"][1]
    assert e.verdict == "out of reach" and "bounds differ" in c["text"]


def test_resealed_edit_of_one_parameter_digit_is_refused_by_verify(emitted, tmp_path, capsys):
    cert = emitted.certificate
    path = tmp_path / "ok.json"
    path.write_bytes(render(cert))
    assert main(["verify", str(path)]) == 0

    def edit(c):
        h = c["network"]["theta"][0]
        i = next(k for k in range(len(h) - 1, 0, -1) if h[k] in "0123456789abcdef" and h[k - 1] != "x" and "p" not in h[:k + 1])
        c["network"]["theta"][0] = h[:i] + ("1" if h[i] != "1" else "2") + h[i + 1:]

    bad = _resealed(cert, edit)
    assert bad["network"]["theta"][0] != cert["network"]["theta"][0]
    path = tmp_path / "edited.json"
    path.write_bytes(render(bad))
    capsys.readouterr()
    assert main(["verify", str(path)]) != 0
    assert "NOT VERIFIED" in capsys.readouterr().out


@pytest.mark.parametrize("edit,why", [
    (lambda c: c["network"]["theta"].__setitem__(0, c["network"]["theta"][0].replace("p", "0p", 1)
                                                 if "." in c["network"]["theta"][0] else "0x1.0p+0"), "canonical"),
    (lambda c: c["network"]["train"].reverse(), "strictly increasing"),
    (lambda c: c.__setitem__("tolerance", "1e3"), r'unknown field\(s\) \["tolerance"\]'),
    (lambda c: c["witnesses"]["train"]["rows"].pop(), "length"),
    (lambda c: (c["witnesses"]["train"]["rows"].pop(), c["witnesses"]["train"]["cols"].pop()),
     "vanishes modulo|claim.maps differs"),
    (lambda c: c["witnesses"].__setitem__("prime", "1048575"), "prime"),
    (lambda c: c["claim"]["maps"]["all"].__setitem__("lower", c["claim"]["maps"]["all"]["lower"] + 1), "claim.maps"),
    (lambda c: c["claim"].__setitem__("lambda", "7"), "claim.lambda"),
])
def test_forged_or_misspelt_certificates_are_refused(emitted, edit, why):
    bad = _resealed(emitted.certificate, edit)
    with pytest.raises(Reject, match=why):
        check(bad)


def test_a_vanishing_minor_is_refused(point):
    """At theta = 0 the Jacobian vanishes: a 1 x 1 witness claimed there must be refused."""
    t, _ = point
    cert = local_rank_certificate(P_, K_, t.a[t.train], t.b[t.train], np.zeros(3 * P_ * K_)).certificate

    def edit(c):
        c["witnesses"]["train"] = {"rows": [0], "cols": [0]}
    with pytest.raises(Reject, match="minor of the train map vanishes"):
        check(_resealed(cert, edit))


def test_dyadic_point_round_trips(point):
    _, theta = point
    M, s = dyadic_point(theta)
    assert all(Fraction(m, 2**s) == Fraction(float(v)) for m, v in zip(M, theta))
    assert s == 0 or any(m % 2 for m in M)  # the least scale


def test_relation_and_value_state_the_training_rank(emitted, point):
    c = emitted.certificate["claim"]
    assert (c["relation"], c["value"]) == ("==", c["maps"]["train"]["lower"])
    t, _ = point
    z = local_rank_certificate(P_, K_, t.a[t.train], t.b[t.train], np.zeros(3 * P_ * K_)).certificate["claim"]
    assert (z["relation"], z["value"]) == (">=", 0)
    bad = _resealed(emitted.certificate, lambda x: x["claim"].__setitem__("value", c["value"] + 1))
    with pytest.raises(Reject, match="claim.value"):
        check(bad)
