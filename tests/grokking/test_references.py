"""Tests of algebra.grokking.references: every route agrees on one table of known cases."""

import numpy as np
import pytest

from algebra.exact.field import DEFAULT_PRIME, FloatField, PrimeField
from algebra.exact.rank import rank_mod_p
from algebra.grokking.network import CentredLoss
from algebra.grokking.references import (DataRestrictedQuadratic, data_dimension, effective_atoms,
                                         lazy_reference)
from algebra.grokking.task import modular_addition

# (p, K, f, seed) -> certified data dimension.  Full data: K(3p-2) below the cap, the cap above it.
# Partial data: ranks below both bounds (residues met once or twice); the engine certifies
# them through the Cramer rung.
CASES = [
    (5, 2, 1.0, 0, 26),      # K(3p-2)
    (7, 8, 1.0, 0, 152),     # K(3p-2)
    (7, 8, 0.4, 0, 126),     # cap p (N-1) = 7 * 18
    (5, 20, 1.0, 0, 120),    # cap p (p^2-1)
    (5, 3, 0.4, 0, 33),      # below both (cap 45, K(3p-2) = 39)
    pytest.param(11, 16, 0.4, 0, 486, marks=pytest.mark.slow),   # below both (517, 496)
]


@pytest.mark.parametrize("p,K,f,seed,expected", CASES)
def test_routes_agree(p, K, f, seed, expected):
    t = modular_addition(p, f, seed)
    a, b = t.a[t.train], t.b[t.train]
    d = data_dimension(p, K, f, seed, coefficient_space=False)
    assert d["certified"] and d["dimension"] == expected
    # identity: dimension <= min(cap, K(3p-2))
    assert d["dimension"] <= min(d["cap"], d["symmetry_bound"])
    # float route: rank of the Jacobian of the float network at a random real point (the
    # numpy model's gradients span the same rows: J^T r = grad for the centred loss)
    m = DataRestrictedQuadratic(p, K, a, b)
    theta = np.random.default_rng(1).standard_normal(m.parameter_count)
    s = np.linalg.svd(m.jacobian(theta, None, FloatField()), compute_uv=False)
    assert int(np.sum(s > s[0] * 1e-9)) == expected
    # the float Jacobian is the derivative of the numpy network's centred predictions
    L = CentredLoss(p, K, a, b, (a + b) % p)
    v = np.random.default_rng(2).standard_normal(m.parameter_count)
    J = m.jacobian(theta, None, FloatField()) / L.n
    h = 1e-6
    from algebra.grokking.network import predict

    def cp(th):
        Y = predict(th, a, b, p, K)[0]
        return (Y - Y.mean(axis=0)).ravel()

    assert np.allclose((cp(theta + h * v) - cp(theta - h * v)) / (2 * h), J @ v, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("p,K,f", [(5, 3, 1.0), (7, 4, 0.5)])
def test_symmetry_fields_are_kernel_witnesses(p, K, f):
    t = modular_addition(p, f)
    m = DataRestrictedQuadratic(p, K, t.a[t.train], t.b[t.train])
    F = PrimeField(DEFAULT_PRIME)
    theta = m.random_point(np.random.default_rng(3))
    J, S = m.jacobian(theta, None, F), m.symmetry_fields(theta, F)
    assert not np.any(F.matmul(J, S.T))
    assert rank_mod_p(S, F.p) == 2 * K


def test_coefficient_space_is_corollary_5_4_when_subabundant():
    d = data_dimension(7, 4, 1.0)
    assert d["coefficient_space"] == d["paper_value"] == 4 * 20
    assert d["verdict_coefficient_space"] == "confirmed"
    assert d["dimension"] == 4 * 19 and d["data_vs_paper"] == -4   # one shift per neuron
    sup = data_dimension(5, 20, 1.0)
    assert sup["verdict_coefficient_space"].startswith("hypothesis fails")
    assert sup["coefficient_space"] < sup["paper_value"]


def test_lazy_reference_theorem_e1():
    for p, K, f in [(5, 12, 1.0), (7, 16, 0.5), (7, 40, 0.5)]:
        r = lazy_reference(p, K, f)
        n = modular_addition(p, f).n_train
        assert r["l"] == n and r["l_centred"] == n - 1   # distinct pairs: unique cross monomials
        assert r["rank_features"] == min(r["l"], K)


def test_effective_atoms_counts_only_live_atoms():
    rng = np.random.default_rng(0)
    p, K = 5, 6
    W, V = rng.standard_normal((2 * p, K)), rng.standard_normal((p, K))
    W[:, 4:] *= 1e-3
    theta = np.concatenate([W.ravel(), V.ravel()])
    assert effective_atoms(theta, p, K) == 4
    assert effective_atoms(theta, p, K, rtol=1e-12) == 6
