"""Witnesses of the local rank (algebra.grokking.local_rank): identities against the engine's Jacobian."""

import numpy as np
import pytest

from algebra.exact.field import PrimeField
from algebra.exact.rank import rank_mod_p
from algebra.grokking.local_rank import (
    all_pairs,
    centred_rows,
    dyadic_point,
    field_witness,
    kernel_fields,
    map_witness,
    short_hex,
)
from algebra.grokking.references import DataRestrictedQuadratic
from algebra.grokking.task import modular_addition

Q = 1048573


@pytest.mark.parametrize("p,K,f", [(3, 2, 1.0), (5, 3, 0.6), (7, 4, 0.4)])
def test_rows_are_the_engine_jacobian_and_the_fields_its_kernel(p, K, f):
    t = modular_addition(p, f, seed=1)
    a, b = t.a[t.train], t.b[t.train]
    th = np.random.default_rng(p).integers(0, Q, 3 * p * K)
    F = PrimeField(Q)
    J = DataRestrictedQuadratic(p, K, a, b).jacobian(F.array(th), None, F)
    rows = centred_rows(p, K, a, b, th, range(a.size * p), Q)
    assert (rows == J).all()
    S = kernel_fields(p, K, th, Q)
    assert not F.matmul(J, S.T).any()  # J X = 0 for every field
    w = map_witness(p, K, a, b, list(th), prime=Q)
    assert w.rank == rank_mod_p(J, Q) and len(w.rows) == len(w.cols) == w.rank
    sub = J[np.ix_(w.rows, w.cols)]
    assert rank_mod_p(sub, Q) == w.rank  # the witness minor is nonsingular
    fw = field_witness(p, K, list(th), prime=Q)
    assert w.rank + fw.rank <= 3 * p * K  # rank + nullity bound: the fields lie in the kernel


def test_the_dyadic_scale_keeps_the_rank():
    """J(theta) = J(M) / 2^(2s): the rank of the integer matrix is the rank at theta (and at any rescaling)."""
    a, b = all_pairs(3)
    th = np.random.default_rng(2).standard_normal(18)
    M, s = dyadic_point(th)
    M2, s2 = dyadic_point(th * 8.0)
    assert s2 == max(s - 3, 0) and M2 == [m * 2 ** (3 - (s - s2)) for m in M]
    assert map_witness(3, 2, a, b, M).rank == map_witness(3, 2, a, b, M2).rank


def test_short_hex_round_trips():
    for v in np.random.default_rng(0).standard_normal(50):
        assert float.fromhex(short_hex(v)) == v


@pytest.mark.parametrize("p,K,f", [(5, 8, 0.6), (7, 16, 0.4), (7, 4, 1.0)])
def test_block_bound_is_a_lower_bound_of_the_certified_dimension(p, K, f):
    """The sparse block point's rank never exceeds the engine's certified generic rank, and equals it when it
    reaches the cap p (N - 1)."""
    from algebra.engine import dimension
    from algebra.grokking.local_rank import block_lower_bound

    t = modular_addition(p, f, seed=2)
    a, b = t.a[t.train], t.b[t.train]
    r = block_lower_bound(p, K, a, b)
    d = dimension(DataRestrictedQuadratic(p, K, a, b))
    assert d.certified and r["lower"] <= d.dimension <= r["cap"]
    assert r["lower"] == sum(r["blocks"]) and (r["lower"] < r["cap"] or r["lower"] == d.dimension)
