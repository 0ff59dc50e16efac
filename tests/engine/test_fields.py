"""The symmetry rung's rank: kernel fields never exceed the nullity of J."""

import numpy as np
import pytest

from algebra.engine.fields import symmetry_rank
from algebra.exact.field import PrimeField
from algebra.exact.rank import rank_mod_p
from algebra.models import MLP, DeepLinear, LightningAttention, QueryKey

F = PrimeField(1048573)


@pytest.mark.parametrize("model", [QueryKey(4, 2), DeepLinear((3, 4, 2)), MLP((3, 4, 1), "t^2", bias=True),
                                   LightningAttention(3, 2, 1), MLP((2, 3, 2), "t")], ids=repr)
def test_rank_of_fields_plus_rank_of_j_is_at_most_p(model):
    """Identity: s + rank J <= P (the fields lie in ker J)."""
    rng = np.random.default_rng(7)
    theta = model.random_point(rng)
    X = model.random_inputs(rng, 40)
    s, r = symmetry_rank(model, theta, F), rank_mod_p(model.jacobian(theta, X, F), F.p)
    assert 0 < s and s + r <= model.parameter_count


def test_the_gauge_fills_the_kernel_of_a_b_transpose():
    m = QueryKey(4, 2)  # k^2 = 4 independent gauge fields, rank 2dk - k^2 = 12: together all of P = 16
    theta = m.random_point(np.random.default_rng(1))
    J = m.jacobian(theta, np.zeros((1, 0), dtype=np.int64), F)
    assert (symmetry_rank(m, theta, F), rank_mod_p(J, F.p)) == (4, 12)


def test_no_fields_rank_zero():
    m = MLP((2, 2, 1), "t^2 + t")
    assert symmetry_rank(m, m.random_point(np.random.default_rng(0)), F) == 0
