"""Proximity-bias counts: Example B.10, the propositions' hypotheses, the bottleneck bound."""

import json
from math import comb

import pytest

from algebra.cli import main
from algebra.errors import InputError
from algebra.engine import dimension
from algebra.engine.bottleneck import bottleneck_bounds
from algebra.exact.field import PrimeField
from algebra.geometry.proximity import certified_dimension, conjecture_sweep, proximity, reinsertion_rank
import numpy as np
from algebra.models import MLP


def test_example_b10():
    """dim F = dim F' = 4 certified (the symmetry bound for F is only 6), proximity bias by Prop. 2.4."""
    full = MLP((2, 3, 1, 1), "t^3")
    res = dimension(full)
    assert res.parameter_count - res.symmetry_rank == 6  # what the symmetries alone give
    assert res.upper_bound == 4 and res.rung == "bottleneck" and res.certified
    r = proximity(full, {1: [0]})
    assert (r.dim_full["lower_bound"], r.dim_full["upper_bound"]) == (4, 4)
    assert (r.dim_sub["lower_bound"], r.dim_sub["upper_bound"]) == (4, 4)
    assert r.verdict == "proximity bias"
    b9 = next(p for p in r.propositions if p["id"] == "Proposition B.9")
    assert not b9["applies"] and "= 4" in b9["detail"]  # the bound of B.9 is sharp here


ARCHS = [((2, 3, 1, 1), "t^3", False), ((2, 2, 2, 1), "t^2", True), ((3, 2, 2, 1), "t^2", False), ((2, 3, 2, 2), "t^3", False),
         ((2, 2, 1, 2, 1), "t^2", False), ((3, 2, 3, 1), "t^2 + t", False), ((2, 2, 2, 1), "t", False)]


@pytest.mark.parametrize("widths,act,bias", ARCHS)
def test_bottleneck_bound_is_sound(widths, act, bias):
    """Identity: lower bound <= bottleneck bound <= engine bound."""
    m = MLP(widths, act, bias=bias)
    res = dimension(m)
    rng = np.random.default_rng(5)
    prefixes = bottleneck_bounds(m, m.random_point(rng), PrimeField(1048573), rng)
    assert res.lower_bound <= prefixes[-1].value
    assert [u.layer for u in prefixes] == list(range(1, len(widths)))
    # every prefix bound is a bound on that prefix's neuromanifold: at least its lower bound
    for u in prefixes:
        assert dimension(u.model, seed=3).lower_bound <= u.value


def test_bottleneck_bound_beats_symmetries():
    m = MLP((2, 3, 1, 2), "t^3")   # f = (a p^3, b p^3): dim 5, symmetries give only 7
    res = certified_dimension(m)
    eng = dimension(m)  # the engine folds the bottleneck bound in; symmetries alone give P - s
    assert res["certified"] and res["upper_bound"] == eng.upper_bound < eng.parameter_count - eng.symmetry_rank


def test_shallow_theorem_3_4():
    r = proximity(MLP((3, 3, 1), "t^2"), {1: [2]})
    assert r.verdict == "no proximity bias"
    assert any(p["id"] == "Theorem 3.4" and p["applies"] for p in r.propositions)
    # Theorem 3.4 only rules out bias when F' has empty interior: binary quadrics have real rank <= 2,
    # so F' = F = H and Proposition 2.4 gives bias -- consistent with Vor_F(F') = F' = H.
    r = proximity(MLP((2, 3, 1), "t^2"), {1: [2]})
    assert r.verdict == "proximity bias"
    assert not any(p["id"] == "Theorem 3.4" and p["applies"] for p in r.propositions)


def test_reinsertion_rank_meets_the_papers_counts():
    """The proofs of Props 3.13, B.9, 3.14 give m >= binom(d0+r1, d0), binom(d0+r1-1, r1), R + 1."""
    for r in conjecture_sweep(d0_values=(2, 3), hidden=((2, 2), (3, 2)), activations=("t^2", "t^3"), biases=(False, True)):
        layer = int(next(iter(r.inactive)))
        d0 = r.spec["widths"][0]
        R = int(r.spec["activations"][layer - 1][-1])
        m = r.m["m"]
        assert m >= R + 1
        if layer == 1:
            need = comb(d0 + R, d0) if r.spec["bias"] else comb(d0 + R - 1, R)
            assert m >= need, (r.spec, m, need)
        assert m <= r.m["directions"]


def test_verdicts_are_consistent():
    for r in conjecture_sweep(d0_values=(2,), hidden=((2, 2), (2, 3), (3, 2)), activations=("t^2",), biases=(False,)):
        lo_F, up_F = r.dim_full["lower_bound"], r.dim_full["upper_bound"]
        lo_S, up_S = r.dim_sub["lower_bound"], r.dim_sub["upper_bound"]
        assert lo_S <= up_S <= up_F and lo_S <= lo_F
        assert not r.verdict.startswith("contradiction")
        if r.verdict == "proximity bias":
            assert lo_S == up_S == lo_F == up_F
            assert r.conjecture_3_16.startswith("not applicable")
        if r.conjecture_3_16.startswith("open"):
            assert up_S < lo_F and r.m["m"] <= up_S


def test_sweep_finds_equal_dimensional_submodels():
    """(2, 3, 2, 1) with t^2: two neurons already give every binary quadric, so dim F' = dim F."""
    r = proximity(MLP((2, 3, 2, 1), "t^2"), {1: [0]})
    assert r.verdict == "proximity bias"


def test_bad_input():
    with pytest.raises(InputError):
        proximity(MLP((2, 3, 1), "t^2"), {})
    with pytest.raises(InputError):
        reinsertion_rank(MLP((2, 3, 2, 1), "t^2", inactive={1: [0], 2: [1]}))
    with pytest.raises(InputError):
        dimension("mlp")


def test_cli_proximity(capsys):
    assert main(["proximity", "mlp", "--widths", "2,3,1,1", "--activation", "t^3", "--inactive", "1:0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dim_F"]["upper_bound"] == out["dim_F_sub"]["upper_bound"] == 4
    assert out["verdict"] == "proximity bias" and out["m"]["m"] == 4
    assert main(["proximity", "mlp", "--widths", "3,3,1", "--inactive", "1:0"]) == 0
    assert "no proximity bias" in capsys.readouterr().out
    assert main(["proximity", "mlp", "--widths", "2,3,1", "--inactive", "3:0"]) == 2
    assert main(["proximity", "mlp", "--widths", "2,3,1", "--inactive", ""]) == 2
    assert main(["proximity"]) == 2


@pytest.mark.slow  # 1.3-2.6 s end to end (the default run stays at half its earlier worker-seconds)
def test_cli_proximity_sweep(tmp_path, capsys):
    assert main(["proximity", "sweep", "--out", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cases"] == 96 and sum(out["conjecture_3_16"].values()) == 96
    md = (tmp_path / "conjecture_3_16.md").read_text()
    assert "| 2,3,1,1 |" not in md  # the sweep is (d0, h1, h2, 1) with h >= 2
    assert md.count("\n| ") == 97
