"""The symmetry rung's rank: kernel fields never exceed the nullity of J."""

import numpy as np
import pytest

from algebra.engine.fields import peel_singletons, symmetry_pivots, symmetry_rank
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


def _flint_rank(A, p):
    import flint

    A = np.asarray(A)
    if min(A.shape) == 0:
        return 0
    return int(flint.nmod_mat(A.shape[0], A.shape[1], [int(v) % p for v in A.ravel().tolist()], p).rank())


@pytest.mark.parametrize("density", [0.02, 0.05, 0.2, 0.6])
def test_peeling_singletons_keeps_the_exact_rank(density):
    """Identity: rank S = (singleton pivots) + rank of what is left, and the chosen minor is nonsingular."""
    rng = np.random.default_rng(int(density * 100))
    for _ in range(5):
        S = np.where(rng.random((40, 70)) < density, rng.integers(1, 7, size=(40, 70)), 0)
        S[5] = 2 * S[3] - S[7]  # a dependent row
        pr, pc, rr, rc = peel_singletons(S)
        assert len(pr) == len(pc) == len(set(pr.tolist())) == len(set(pc.tolist()))
        assert len(pc) + _flint_rank(S[np.ix_(rr, rc)], 7) == _flint_rank(S, 7)


@pytest.mark.parametrize("model", [QueryKey(4, 2), DeepLinear((3, 4, 2)), MLP((3, 4, 1), "t^2", bias=True),
                                   MLP((3, 6, 6, 1), "t^2", bias=True), MLP((2, 3, 3, 2), "t"), LightningAttention(3, 2, 1)],
                         ids=repr)
def test_symmetry_pivots_index_a_nonsingular_minor_of_full_rank(model):
    theta = model.random_point(np.random.default_rng(11))
    S = model.symmetry_fields(theta, F)
    r, cols = symmetry_pivots(model, theta, F)
    assert r == rank_mod_p(S, F.p, method="flint") == len(cols) == rank_mod_p(S[:, list(cols)], F.p, method="flint")


def _cascade(rng, p, groups=6, width=5, extra_rows=3):
    """Random matrix whose columns come in groups with nested supports (like the O(diag v) rotations),
    plus rows spread over everything; some groups made rank deficient on purpose."""
    blocks = []
    n_rows = groups * (groups - 1) // 2 + extra_rows
    S = np.zeros((n_rows, groups * width), dtype=np.int64)
    pairs = [(i, j) for i in range(groups) for j in range(i + 1, groups)]
    for r, (i, j) in enumerate(pairs):  # row of the pair (i, j) touches the column groups i and j
        S[r, i * width:(i + 1) * width] = rng.integers(0, p, width)
        S[r, j * width:(j + 1) * width] = rng.integers(0, p, width)
    S[len(pairs):] = rng.integers(0, p, (extra_rows, groups * width)) * (rng.random((extra_rows, groups * width)) < 0.3)
    return S


@pytest.mark.parametrize("seed", range(6))
def test_peeling_groups_keeps_the_exact_rank(seed):
    """Identity: rank S = (group pivots) + rank of what is left, the pivots index a nonsingular minor,
    also when groups are rank deficient (planted dependent rows) and over a tiny prime (accidental zeros)."""
    rng = np.random.default_rng(seed)
    from algebra.engine.fields import peel_groups

    for p in (3, 7, 1048573):
        S = _cascade(rng, p)
        if seed % 2:
            S[1] = (2 * S[0]) % p  # a dependent row inside group 0's support
        pr, pc, rr, rc = peel_groups(S, p)
        assert len(pr) == len(pc) == len(set(pr.tolist())) == len(set(pc.tolist()))
        assert not set(pr.tolist()) & set(rr.tolist()) and not set(pc.tolist()) & set(rc.tolist())
        rest = _flint_rank(S[np.ix_(rr, rc)], p) if rr.size and rc.size else 0
        assert len(pc) + rest == _flint_rank(S, p)
        assert _flint_rank(S[np.ix_(pr, pc)], p) == len(pc)


@pytest.mark.parametrize("widths", [(4, 8, 8, 1), (5, 9, 7, 1), (3, 6, 1)])
def test_symmetry_rank_by_groups_equals_the_full_rank_on_random_and_degenerate_points(widths):
    """The rank and minor from singletons + groups equal flint's rank of all fields, at random points and at
    points where a layer's weights are rank deficient (the groups then fail and the final elimination decides)."""
    m = MLP(widths, "t^2", bias=True)
    rng = np.random.default_rng(sum(widths))
    for degenerate in (False, True):
        theta = m.random_point(rng)
        blocks = m.offsets()
        start, shape = blocks[f"W{len(widths) - 2}"]
        bstart, _ = blocks[f"b{len(widths) - 2}"]
        W = theta[start:start + shape[0] * shape[1]].reshape(shape)
        b = theta[bstart:bstart + shape[0]]
        if degenerate:  # two pairs of equal neurons in the last hidden layer: [W b] loses rank 2
            W[1], W[3], b[1], b[3] = W[0], W[2], b[0], b[2]
            theta[start:start + W.size], theta[bstart:bstart + shape[0]] = W.ravel(), b
        S = m.symmetry_fields(theta, F)
        r, cols = symmetry_pivots(m, theta, F)
        assert r == rank_mod_p(S, F.p, method="flint") == rank_mod_p(S[:, list(cols)], F.p, method="flint")
        # the rotations K diag(v) [W b] (K skew) lose exactly C(n, 2), n = h - rank [W b]
        n = shape[0] - rank_mod_p(np.column_stack([W, b]), F.p, method="flint")
        assert S.shape[0] - r == n * (n - 1) // 2
        assert (n >= 2) == (degenerate or shape[0] > shape[1] + 2)
