"""benchmarks/llc_gauge_moves.py (an experiment, not the procedure): its gauge moves keep the target."""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

from algebra.numeric.models import dln_model

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "llc_gauge_moves.py"


@pytest.fixture(scope="module")
def gm():
    sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("llc_gauge_moves", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cayley_is_inverted_by_the_opposite_direction(gm):
    Z = np.random.default_rng(0).standard_normal((3, 4, 4))
    eps = np.array([0.1, 0.5, 1.0])
    A, A_inv, logdet = gm._cayley(eps, Z)
    B, _, logdet_b = gm._cayley(eps, -Z)
    assert np.allclose(np.matmul(A, B), np.eye(4)) and np.allclose(np.matmul(A, A_inv), np.eye(4))
    assert np.allclose(logdet, np.log(np.abs(np.linalg.det(A)))) and np.allclose(logdet_b, -logdet)


def test_a_move_keeps_the_loss_and_its_jacobian_is_the_maps_determinant(gm):
    """The move is linear in w for a fixed g: its determinant, from the map applied to the unit vectors,
    is the Jacobian the acceptance uses; the loss is unchanged (a symmetry of the product)."""
    model = dln_model((3, 2, 4), 1, n=10**6, seed=0)
    P = model.dim
    W = model.w_star[None] + 0.3 * np.random.default_rng(1).standard_normal((1, P))
    moves = gm.GaugeMoves(None, model.composite, moves=1, chains=1, num_warmup=0, seed=5, eps0=0.4)
    state = moves.rng.bit_generator.state
    W2, log_j = moves.propose(W)
    assert np.allclose(model.loss(W2), model.loss(W), rtol=1e-12)
    columns = []
    for j in range(P):  # the same g (same draws) applied to each unit vector
        moves.rng.bit_generator.state = state
        columns.append(moves.propose(np.eye(P)[j][None])[0][0])
    assert np.isclose(np.linalg.slogdet(np.array(columns).T)[1], log_j[0])
    assert abs(log_j[0]) > 0.01  # widths (3, 2, 4): the Jacobian is not 1, so the check has something to see


@pytest.mark.slow  # about 25 s
def test_with_gauge_moves_the_posterior_is_the_same(gm):
    """Pure HMC and HMC with gauge moves agree on E[nbeta (L - L*)] and E|w - w*|^2; leaving the
    Jacobian out shifts E|w - w*|^2 by many standard errors (the comparison has power)."""
    from algebra.numeric.estimators import estimate_llc
    from algebra.numeric.samplers import sample

    model = dln_model((3, 2, 4), 1, n=10**9, seed=0)
    kw = dict(gamma=1.0, num_chains=32, leapfrog_steps=8, accept_target=0.65, jitter=(0.25, 1.5),
              step_pool="chain", nbeta=100.0, num_draws=3000)

    def summary(run):
        rad = np.nanmean(run.radii, axis=1)
        e = estimate_llc(run)
        return e.estimate, e.stderr, rad.mean(), rad.std(ddof=1) / np.sqrt(rad.size)

    plain = summary(sample(model, method="hmc", seed=3, num_warmup=1000, **kw))
    moved = summary(gm.sample_with_gauge_moves(model, moves=4, seed=3, num_warmup=1000, **kw)[0])
    assert abs(plain[0] - moved[0]) < 4 * np.hypot(plain[1], moved[1])
    assert abs(plain[2] - moved[2]) < 4 * np.hypot(plain[3], moved[3])
    propose = gm.GaugeMoves.propose
    try:
        gm.GaugeMoves.propose = lambda self, W: (propose(self, W)[0], np.zeros(W.shape[0]))
        wrong = summary(gm.sample_with_gauge_moves(model, moves=4, seed=3, num_warmup=1000, **kw)[0])
    finally:
        gm.GaugeMoves.propose = propose
    assert abs(wrong[2] - plain[2]) > 4 * np.hypot(plain[3], wrong[3])
