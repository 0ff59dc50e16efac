"""Visible interaction geometry, Chebyshev radii and the SVD chain."""

import numpy as np
import pytest

from algebra.attention_rank import geometry as G
from algebra.attention_rank.certificates import attention_matrix
from algebra.errors import InputError


@pytest.mark.parametrize("seed", range(12))
def test_meb_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 4))
    N = int(rng.integers(2, 8))
    P = rng.normal(size=(N, k)) * rng.uniform(0.1, 10)
    out = G.minimum_enclosing_ball(P, tol=1e-12)
    brute = G.brute_force_enclosing_ball(P)
    assert out["converged"]
    assert out["radius_lower"] <= brute * (1 + 1e-9)
    assert abs(out["radius_upper"] - brute) <= 1e-8 * max(1.0, brute)
    # the centre encloses every point
    assert np.all(np.linalg.norm(P - out["center"], axis=1) <= out["radius_upper"] * (1 + 1e-12))


def test_meb_points_in_subspace_keep_centre_in_subspace():
    rng = np.random.default_rng(5)
    B = np.linalg.qr(rng.normal(size=(6, 2)))[0]
    P = rng.normal(size=(30, 2)) @ B.T
    c = G.minimum_enclosing_ball(P)["center"]
    assert np.linalg.norm(c - B @ (B.T @ c)) < 1e-10


def test_meb_degenerate_and_bad():
    assert G.minimum_enclosing_ball([[1.0, 2.0]])["radius"] == 0.0
    assert G.minimum_enclosing_ball([[1.0, 2.0]] * 4)["radius"] == 0.0
    with pytest.raises(InputError):
        G.minimum_enclosing_ball([[np.inf, 0.0]])


def test_exact_visible_dimension_known_cases():
    rng = np.random.default_rng(0)
    # generic: min(m-1, n-1, d)
    assert G.exact_visible_dimension(rng.normal(size=(10, 4)), rng.normal(size=(12, 4))) == 4
    assert G.exact_visible_dimension(rng.normal(size=(3, 4)), rng.normal(size=(12, 4))) == 2
    # key variation orthogonal to every query difference is invisible
    Q = np.zeros((5, 3)); Q[:, 0] = rng.normal(size=5)
    K = rng.normal(size=(7, 3))
    assert G.exact_visible_dimension(Q, K) == 1
    # all queries equal: r = 0 (rank one exactly)
    assert G.exact_visible_dimension(np.ones((4, 3)), K) == 0


def test_exact_rank_sees_tiny_directions():
    # a float rank with tolerance would call this rank 1; the exact rank is 2
    Q = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1e-200]])
    K = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    assert G.exact_visible_dimension(Q, K) == 2


def test_quotient_invariance():
    # adding to every key a direction orthogonal to U leaves A unchanged
    rng = np.random.default_rng(1)
    Q = np.zeros((6, 3)); Q[:, :2] = rng.normal(size=(6, 2))
    K = rng.normal(size=(8, 3))
    K2 = K.copy(); K2[:, 2] += rng.normal(size=8) * 5
    np.testing.assert_allclose(attention_matrix(Q, K, 1.5), attention_matrix(Q, K2, 1.5), atol=1e-14)
    assert G.visible_geometry(Q, K)["r_exact"] == G.visible_geometry(Q, K2)["r_exact"] == 2


def test_chain_identities():
    rng = np.random.default_rng(2)
    Q = rng.normal(size=(25, 5)) * 0.5
    K = rng.normal(size=(25, 5)) @ np.diag([3, 1, 0.3, 0.1, 0.01])
    ch = G.InteractionChain(Q, K)
    assert ch.r_visible == 5
    beta = 1.3
    taus = [ch.tau_width(r, beta) for r in range(ch.r_visible + 1)]
    assert all(a >= b - 1e-12 for a, b in zip(taus, taus[1:])), "tau_width not monotone"
    assert taus[-1] == 0.0
    for r in range(ch.r_visible + 1):  # (C.6): width bound below spectral bound
        assert ch.tau_width(r, beta) <= ch.tau_spec(r, beta) + 1e-12
        delta, omega = ch.residual(r)
        if r < ch.r_visible:  # (C.2): omega <= sigma_{r+1} / sqrt 2
            assert omega <= ch.sigma[r] / np.sqrt(2) + 1e-12
    for tau in (0.01, 0.1, 0.5):
        r = ch.r_int(beta, tau)
        assert ch.tau_width(r, beta) <= tau and (r == 0 or ch.tau_width(r - 1, beta) > tau)
    out = ch.chain(beta, 0.25)
    assert out["r_int"] == ch.r_int(beta, 0.25 / 3)
    assert out["Gamma_r"] == pytest.approx(beta * out["rho_Q_r"] * out["rho_K_r"])


def test_projective_residual_bound_holds():
    # Lemma B.1 + (B.7): the attention of the projected head is within tau_width of A
    rng = np.random.default_rng(3)
    Q = rng.normal(size=(15, 4)); K = rng.normal(size=(18, 4)) @ np.diag([2, 1, 0.2, 0.05])
    beta = 0.8
    ch = G.InteractionChain(Q, K)
    A = attention_matrix(Q, K, beta)
    uc, sc = ch.uc, ch.s  # coordinates in U of u_i = q_i - q_1 and s_j
    for r in range(ch.r_visible + 1):
        W = ch.Vt[:r]
        P = W.T @ W
        xi, zeta = uc - uc @ P, sc - sc @ P
        a_perp = G.minimum_enclosing_ball(xi)["center"]
        # exact row minus residual logits h_ij = beta <xi_i - a_perp, zeta_j>
        # (B.2): base weights pi_j = exp(beta <q_1, k_j>) are key-only terms
        logits = beta * ((uc @ P) @ (sc @ P).T + (zeta @ a_perp + K @ Q[0])[None, :])
        logits -= logits.max(axis=1, keepdims=True)
        Ap = np.exp(logits)
        Ap /= Ap.sum(axis=1, keepdims=True)
        err = np.abs(A - Ap).sum(axis=1).max()
        assert err <= ch.tau_width(r, beta) + 1e-10


def test_visible_geometry_radii():
    g = G.visible_geometry([[0, 0], [1, 0], [3, 0]], [[0, 0], [0, 3], [2, 1], [4, 0]], beta=2.0)
    assert g["r_exact"] == 1 and g["rho_Q"] == pytest.approx(1.5) and g["rho_K"] == pytest.approx(2.0)
    assert g["Gamma"] == pytest.approx(6.0)
