"""A small prime gives a proven lower bound, never a crash (issue 20, item 8).

Modulo 2 or 3 the sampled Jacobian of ``t^2 + t`` or a deep ``t^2`` chain vanishes at every point
(``x^p - x`` does), so the lower bound is rank 0 and its witness block is empty: the Cramer rung then
evaluated the model's Jacobian at zero sample inputs (``cannot reshape array of size 0``).
"""

import numpy as np
import pytest

from algebra.engine import dimension
from algebra.engine.dimension import _jacobian_routes
from algebra.engine.identities import ResidueField, cramer_fields_hold
from algebra.models import MLP

CASES = [((3, 4, 1, 1, 1), "t^2+t"), ((3, 2, 2, 2, 2, 1), "t^2")]


@pytest.mark.parametrize("widths,activation", CASES)
@pytest.mark.parametrize("prime", [2, 3, 5])
def test_small_prime_lower_bound_is_below_the_certified_dimension(widths, activation, prime):
    model = MLP(widths, activation)
    exact = dimension(model)
    assert exact.certified
    small = dimension(model, prime=prime)
    assert small.lower_bound <= exact.dimension <= small.upper_bound
    if small.lower_bound < small.upper_bound:
        assert any(f"the prime {prime} is not above" in n for n in small.notes)


def test_rank_zero_block_routes_and_cramer_test():
    model = MLP((3, 4, 1, 1, 1), "t^2+t")
    X = model.random_inputs(np.random.default_rng(0), 4)
    route = _jacobian_routes(model, False, X, ())

    G = ResidueField(2**127 - 1)
    th = G.array(model.random_point(np.random.default_rng(1)))
    JR, J = route(th, G.array(model.random_inputs(np.random.default_rng(2), 1)), G)
    assert JR.shape == (0, model.parameter_count) and J.shape[1] == model.parameter_count
    # the 0 x 0 block's Cramer identity is J == 0, false for this map over Q
    check = cramer_fields_hold(model, route, (), (), np.random.default_rng(3))
    assert not check.holds
