"""Identities of the parametrization maps: derivatives, symmetries, rank + nullity."""

from fractions import Fraction

import flint
import numpy as np
import pytest

from algebra.exact.field import DEFAULT_PRIME, PrimeField, RationalField
from algebra.exact.rank import rank_mod_p, rank_with_witness, det_mod_p, to_nmod_mat
from algebra.models import MLP, DeepLinear, LightningAttention, PolynomialMap, QueryKey, quadratic_network, shallow_network
from algebra.models.mlp import monomials

FAMILIES = [
    ("mlp t^2", lambda: MLP((3, 4, 2), "t^2")),
    ("mlp bias t^3+t/2", lambda: MLP((2, 3, 2, 1), "t^3 + t/2", bias=True)),
    ("mlp linear", lambda: MLP((3, 2, 3, 2), "2*t", bias=True)),
    ("mlp inactive", lambda: MLP((2, 3, 3, 1), ["t^2", "t^3"], inactive={1: [1], 2: [0, 2]})),
    ("shallow quadric", lambda: shallow_network(4, 2, 3)),
    ("quadratic bias", lambda: quadratic_network(3, 1, 3, bias=True)),
    ("attention", lambda: LightningAttention(3, 2, 2)),
    ("attention single", lambda: LightningAttention(3, 2, 1)),
    ("attention rank", lambda: LightningAttention(4, 2, 2, rank=2)),
    ("qk", lambda: QueryKey(4, 2)),
    ("linear", lambda: DeepLinear((3, 2, 4, 2))),
    ("polynomial", lambda: PolynomialMap(["a*x^2 + b*x*y", "a*b*y"], parameters=["a", "b"], inputs=["x", "y"])),
]
IDS = [f[0] for f in FAMILIES]


def _point(model, seed, M=6):
    rng = np.random.default_rng(seed)
    theta = model.random_point(rng, bound=50)
    X = model.random_inputs(rng, M, bound=50)
    return theta, X


@pytest.mark.parametrize("name, make", FAMILIES, ids=IDS)
def test_jacobian_matches_finite_differences_over_q(name, make):
    """J e_j equals the exact difference quotient of the polynomial map (degree-aware)."""
    model = make()
    Q = RationalField()
    theta, X = _point(model, 0, M=3)
    J = model.jacobian(theta, X, Q)
    # t -> f(theta + t e_j) is a polynomial of degree <= 12 here; its derivative at
    # 0 is an exact combination of its values at t = -6..6 (Lagrange weights).
    nodes = list(range(-6, 7))
    weights = []
    for i, ti in enumerate(nodes):
        others = [t for t in nodes if t != ti]
        denom = Fraction(1)
        for t in others:
            denom *= ti - t
        # L_i'(0) = sum_k prod_{m != k} (0 - t_m) / denom over the other nodes
        total = Fraction(0)
        for k in range(len(others)):
            prod = Fraction(1)
            for m, t in enumerate(others):
                if m != k:
                    prod *= -t
            total += prod
        weights.append(total / denom)
    for j in range(model.parameter_count):
        deriv = 0
        for t, wgt in zip(nodes, weights):
            th = theta.astype(object)
            th[j] += t
            deriv = deriv + model.forward(th, X, Q).ravel() * wgt
        assert (deriv == J[:, j]).all(), (name, j)


@pytest.mark.parametrize("name, make", FAMILIES, ids=IDS)
def test_symmetry_fields_are_kernel_witnesses(name, make):
    """J(theta) X_j(theta) = 0 exactly over Q and mod p, at random points and inputs."""
    model = make()
    for seed in range(3):
        theta, X = _point(model, seed)
        for F in (RationalField(), PrimeField()):
            S = model.symmetry_fields(theta, F)
            assert S.shape == (model.symmetry_count(), model.parameter_count)
            J = model.jacobian(theta, X, F)
            prod = J.dot(S.T) if F.p is None else F.matmul(J, S.T)
            assert not np.any(prod != 0), name


@pytest.mark.parametrize("name, make", FAMILIES, ids=IDS)
def test_mod_p_jacobian_is_reduction_of_exact_jacobian(name, make):
    model = make()
    theta, X = _point(model, 5)
    F = PrimeField()
    JQ = model.jacobian(theta, X, RationalField())
    Jp = model.jacobian(theta, X, F)
    assert (F.array(JQ) == Jp).all()


@pytest.mark.parametrize("name, make", FAMILIES, ids=IDS)
def test_rank_plus_nullity(name, make):
    model = make()
    theta, X = _point(model, 9, M=8)
    F = PrimeField()
    J = model.jacobian(theta, X, F)
    A = to_nmod_mat(J, F.p)
    N, nullity = A.nullspace()
    assert rank_mod_p(J, F.p) + int(nullity) == model.parameter_count
    Nn = np.array([[int(N[i, j]) for j in range(int(nullity))] for i in range(model.parameter_count)], dtype=np.int64).reshape(model.parameter_count, int(nullity))
    assert not F.matmul(J, Nn).any()


@pytest.mark.parametrize("name, make", FAMILIES, ids=IDS)
def test_witness_minor_is_nonzero(name, make):
    model = make()
    theta, X = _point(model, 11, M=8)
    F = PrimeField()
    J = model.jacobian(theta, X, F)
    w = rank_with_witness(J, F.p)
    assert w.rank == rank_mod_p(J, F.p) == len(w.rows) == len(w.cols)
    assert det_mod_p(J[np.ix_(w.rows, w.cols)], F.p) != 0


def test_shallow_coefficient_jacobian_times_vandermonde_is_sample_jacobian():
    model = shallow_network(3, 3, 4)
    F = PrimeField()
    theta, X = _point(model, 2, M=12)
    C = model.coefficient_jacobian(theta, F)
    exps = monomials(3, 3)
    V = np.ones((X.shape[0], len(exps)), dtype=np.int64)
    for c, e in enumerate(exps):
        for j, k in enumerate(e):
            V[:, c] = F.mul(V[:, c], F.array(X[:, j]) ** k % F.p)
    assert (F.matmul(V, C) == model.jacobian(theta, X, F)).all()


def test_matmul_mod_p_is_exact_for_large_entries():
    F = PrimeField(DEFAULT_PRIME)
    rng = np.random.default_rng(0)
    A = rng.integers(0, F.p, size=(3, 9000))
    B = rng.integers(0, F.p, size=(9000, 2))
    expected = [[sum(int(a) * int(b) for a, b in zip(A[i], B[:, j])) % F.p for j in range(2)] for i in range(3)]
    assert F.matmul(A, B).tolist() == expected


@pytest.mark.parametrize("shape,r", [((3, 3), 1), ((4, 5), 2), ((5, 4), 3), ((6, 6), 5)])
def test_numeric_minor_gradients_are_the_symbolic_derivatives(shape, r):
    """The cofactors computed at the point equal the derivatives of the written-out bordered minors."""
    from algebra.models.factorization import bordered_minor_gradients, bordered_minor_values, bordered_minors

    F = PrimeField(1048573)
    rows, cols = shape
    names = tuple(f"c{i}" for i in range(rows * cols))
    C = np.random.default_rng(rows * cols + r).integers(-9, 10, size=shape)
    y = [int(v) for v in F.array(C).ravel()]
    polys = bordered_minors(rows, cols, r, names)
    G = bordered_minor_gradients(F.array(C), r, F)
    assert G.shape == (len(polys), rows * cols) == ((rows - r) * (cols - r), rows * cols)
    for g, row in zip(polys, G):
        assert [g.derivative(v).evaluate_mod(y, F.p) for v in names] == row.tolist()
    assert bordered_minor_values(F.array(C), r, F).tolist() == [g.evaluate_mod(y, F.p) for g in polys]
