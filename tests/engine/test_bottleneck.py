"""The bottleneck cut: sound prefix bounds, linear in depth."""

import numpy as np
import pytest

from algebra.engine import dimension
from algebra.engine.bottleneck import bottleneck_bounds
from algebra.exact.field import PrimeField
from algebra.models import MLP

F = PrimeField(1048573)


@pytest.mark.parametrize("widths,act,bias", [((2, 3, 1, 1), "t^3", False), ((2, 2, 2, 1), "t^2", True),
                                             ((2, 3, 1, 2), "t^3", False), ((2, 2, 2, 1), "t", False)])
def test_prefix_bounds_are_sound(widths, act, bias):
    """Identity: every prefix bound is at least that prefix's proven lower bound."""
    m = MLP(widths, act, bias=bias)
    rng = np.random.default_rng(2)
    for u in bottleneck_bounds(m, m.random_point(rng), F, rng):
        assert dimension(u.model, seed=4).lower_bound <= u.value <= u.model.ambient_dimension()


def test_cost_is_linear_in_depth(monkeypatch):
    """Each prefix is bounded once: the symmetry fields are built L times for depth L (4,096 calls before)."""
    calls = []
    original = MLP.symmetry_fields

    def counting(self, theta, field):
        calls.append(len(self.widths))
        return original(self, theta, field)

    monkeypatch.setattr(MLP, "symmetry_fields", counting)
    for depth in (6, 12):
        calls.clear()
        m = MLP((2, 3) + (1,) * (depth - 1), "t^3")
        rng = np.random.default_rng(0)
        bounds = bottleneck_bounds(m, m.random_point(rng), F, rng)
        assert len(calls) == depth == len(bounds)
        assert bounds[-1].value == 4


def test_the_depth_16_chain_is_certified_by_the_cut():
    res = dimension(MLP((2, 3) + (1,) * 14, "t^3"))
    assert (res.dimension, res.certified, res.rung) == (4, True, "bottleneck")
