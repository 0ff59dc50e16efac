"""Segre–Veronese cones and secant (join) models: Jacobians, kernel fields, degrees."""

import numpy as np
import pytest

from algebra.errors import InputError, ResourceError
from algebra.exact.field import PrimeField
from algebra.models import MLP, PolynomialMap, shallow_network
from algebra.models.segre_veronese import SecantMap, SegreVeroneseCone, segre, segre_veronese, veronese

P = 1048573
X0 = np.zeros((1, 0), dtype=np.int64)


def test_cone_jacobian_matches_polynomial_map():
    """The cone's hand-written Jacobian equals the one derived from its polynomials."""
    X = SegreVeroneseCone((2, 3), (1, 2))
    names = ["a0", "a1", "b0", "b1", "b2"]
    polys = ["*".join(f"{v}^{int(e)}" for v, e in zip(names, row) if e) or "1" for row in X.exponents]
    Y = PolynomialMap(polys, parameters=names)
    F = PrimeField(P)
    theta = np.random.default_rng(3).integers(-50, 50, size=5)
    assert (X.jacobian(theta, X0, F) == Y.jacobian(theta, X0, F)).all()
    assert (X.forward(theta, X0, F) == Y.forward(theta, X0, F)).all()
    assert X.joint_degree() == Y.joint_degree() == 3


@pytest.mark.parametrize("X", [segre_veronese((3, 4), (1, 2)), segre((2, 3, 2)), segre_veronese((2, 2), (1, 3))], ids=repr)
def test_symmetry_fields_are_kernel_witnesses(X):
    F = PrimeField(P)
    theta = np.random.default_rng(0).integers(-99, 99, size=X.parameter_count)
    J = X.jacobian(theta, X0, F)
    S = X.symmetry_fields(theta, F)
    assert S.shape[0] == X.symmetry_count() and (F.matmul(J, S.T) == 0).all()


def test_secant_map_is_the_sum_of_its_atoms():
    """Identity: the k-fold sum of the one-neuron cone is the width-k shallow network (same outputs)."""
    atom, k = MLP((3, 1, 1), "t^4"), 5
    S, net = SecantMap(atom, k), shallow_network(3, 4, k)
    F = PrimeField(P)
    rng = np.random.default_rng(2)
    theta, X = S.random_point(rng), S.random_inputs(rng, 6)
    W = theta.reshape(k, 4)[:, :3]  # each atom: W (1 x 3), then v (1 x 1)
    v = theta.reshape(k, 4)[:, 3]
    assert (S.forward(theta, X, F) == net.forward(np.concatenate([W.ravel(), v]), X, F)).all()
    assert S.joint_degree() == atom.joint_degree() and S.symmetry_count() == k * atom.symmetry_count()
    J = S.jacobian(theta, X, F)
    assert J.shape == (6, S.parameter_count) and (F.matmul(J, S.symmetry_fields(theta, F).T) == 0).all()


def test_bad_input():
    with pytest.raises(InputError):
        SegreVeroneseCone((3, 0), (1, 2))
    with pytest.raises(InputError):
        SegreVeroneseCone((3, 4), (1,))
    with pytest.raises(InputError):
        SecantMap("not a model", 2)
    with pytest.raises(ResourceError, match="coordinates"):
        veronese(40, 12)
