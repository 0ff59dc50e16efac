"""The modular-addition teacher-student model and its exact coefficient (algebra.grokking.teacher)."""

from fractions import Fraction

import numpy as np
import pytest

from algebra.errors import DomainError
from algebra.grokking import teacher as T
from algebra.grokking.references import data_dimension


@pytest.mark.parametrize("p, K, f", [(5, 2, 1.0), (7, 2, 0.6), (3, 3, 1.0)])
def test_gradient_matches_finite_differences(p, K, f):
    m = T.ModularAdditionTeacher(p, K, f, seed=1)
    rng = np.random.default_rng(0)
    W = m.w_star[None] + 0.1 * rng.standard_normal((3, m.dim))
    loss, grad = m.loss_and_grad(W)
    v = rng.standard_normal(m.dim)
    eps = 1e-6
    numeric = (m.loss(W + eps * v) - m.loss(W - eps * v)) / (2 * eps)
    assert np.allclose(grad @ v, numeric, rtol=1e-6, atol=1e-8)
    assert np.allclose(loss, m.loss(W)) and m.loss(m.w_star[None])[0] == 0


def test_lambda_is_half_the_certified_data_dimension_and_the_hessian_rank():
    c = T.teacher_coefficient(7, 2, 0.6)
    d = data_dimension(7, 2, 0.6)
    assert c["lam"] == Fraction(d["dimension"], 2) and c["multiplicity"] == 1
    m = T.ModularAdditionTeacher(7, 2, 0.6)
    H = m.hessian_vector(m.w_star, np.eye(m.dim))
    eig = np.linalg.eigvalsh((H + H.T) / 2)
    assert int(np.sum(eig > 1e-6 * eig[-1])) == c["teacher_rank"]  # float check beside the exact rank


def test_a_singular_teacher_gets_no_exact_value(monkeypatch):
    """A teacher with a switched-off neuron has rank below the generic rank: no value is claimed."""
    real = T.teacher_point

    def dead_neuron(p, width, seed=0):
        w = real(p, width, seed)
        w[0:2 * p * width:width] = 0  # W[:, 0] = 0
        return w

    monkeypatch.setattr(T, "teacher_point", dead_neuron)
    with pytest.raises(DomainError, match="singular"):
        T.teacher_coefficient(5, 2)
