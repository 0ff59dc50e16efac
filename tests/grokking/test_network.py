"""Tests of algebra.grokking.network: exact derivatives against finite differences, centring."""

import numpy as np
import pytest

from algebra.grokking.network import CentredLoss, init_params, predict


def _loss(p=5, K=3, n=14, seed=0):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, p, n), rng.integers(0, p, n)
    return CentredLoss(p, K, a, b, (a + b) % p, w_star=init_params(p, K, rng)), rng


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_and_hessian_match_finite_differences(seed):
    L, rng = _loss(seed=seed)
    w = L.w_star + 0.3 * rng.standard_normal(L.dim)
    d = rng.standard_normal(L.dim)
    h = 1e-6
    g = L.loss_and_grad(w[None])[1][0]
    fd = (L.loss(w + h * d)[0] - L.loss(w - h * d)[0]) / (2 * h)
    assert fd == pytest.approx(g @ d, rel=1e-6, abs=1e-10)
    hv = L.hessian_vector(w, d[None])[0]
    fd2 = (L.loss_and_grad((w + h * d)[None])[1][0] - L.loss_and_grad((w - h * d)[None])[1][0]) / (2 * h)
    assert np.allclose(hv, fd2, rtol=1e-5, atol=1e-8)


def test_minibatch_of_everything_is_the_full_batch():
    L, rng = _loss()
    W = L.w_star[None] + 0.1 * rng.standard_normal((2, L.dim))
    full = L.loss_and_grad(W)
    perm = np.stack([rng.permutation(L.n), rng.permutation(L.n)])
    batch = L.loss_and_grad(W, perm)
    assert np.allclose(full[0], batch[0]) and np.allclose(full[1], batch[1])


def test_loss_ignores_a_constant_per_output():
    # the centred loss equals the squared error of the prediction plus its best intercept
    L, rng = _loss()
    th = L.w_star
    Yhat = predict(th, L.a, L.b, L.p, L.K)[0]
    off = L.offset(th)
    direct = 0.5 * np.sum((L.Y - Yhat - off) ** 2) / L.n
    assert L.loss(th)[0] == pytest.approx(direct)
    assert L.evaluate(th)[0] == pytest.approx(direct)
    worse = 0.5 * np.sum((L.Y - Yhat - off - 0.1) ** 2) / L.n
    assert worse > direct


def test_hessian_is_symmetric():
    L, rng = _loss(p=3, K=2, n=8)
    H = L.hessian_vector(L.w_star, np.eye(L.dim))
    assert np.allclose(H, H.T, atol=1e-10)


def test_chunked_hessian_vector_products_agree(monkeypatch):
    from algebra.grokking import network

    L, rng = _loss(p=7, K=5, n=30)
    D = rng.standard_normal((40, L.dim))
    whole = L.hessian_vector(L.w_star, D)
    monkeypatch.setattr(network, "HVP_FLOATS", 3 * L.n * L.K)   # chunks of 3 directions
    assert np.array_equal(L.hessian_vector(L.w_star, D), whole)
