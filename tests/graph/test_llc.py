"""Teacher-student learning coefficients (algebra.graph.llc)."""

import numpy as np
import pytest

from algebra.errors import InputError
from algebra.graph.attention import make_design
from algebra.graph.groups import parse_graph
from algebra.graph.fisher import quadratic_form
from algebra.graph.llc import GraphAttentionModel, frozen_chains, graph_llc, reference_pair
from algebra.numeric.calibration import CalibrationSettings
from algebra.numeric.models import linear_regression_model
from algebra.numeric.samplers import sample

# shorter than FAST: these tests check the plumbing, the benchmark checks accuracy
TINY = CalibrationSettings(num_chains=8, num_draws=200, max_draws=200, num_warmup=200, draws_growth=1.0)


@pytest.fixture(scope="module")
def design():
    return make_design(parse_graph("cyclic:6"), 3, 2, 1, seed=0)


def test_model_interface_for_the_samplers(design):
    m = GraphAttentionModel(design, design.A_star, design.B_star)
    assert m.dim == 12 and m.n is None
    rng = np.random.default_rng(0)
    W = m.w_star[None] + 0.1 * rng.standard_normal((3, 12))
    loss, grad = m.loss_and_grad(W)
    assert np.allclose(loss, m.loss(W))
    v = rng.standard_normal(12)
    h = 1e-6
    fd = (m.loss(W[:1] + h * v) - m.loss(W[:1] - h * v)) / (2 * h)
    assert np.isclose(fd[0], grad[0] @ v, rtol=1e-6)
    # the Hessian at the teacher: PSD with the gauge directions (23) in its kernel
    H = m.hessian_vector(m.w_star, np.eye(12))
    H = 0.5 * (H + H.T)
    assert np.linalg.eigvalsh(H).min() > -1e-8
    A, B = design.A_star, design.B_star
    X = rng.standard_normal((2, 2))
    gauge = m.composite.pack([(-B @ X.T).T, A @ X])  # (dB^T, dA) = ((-B X^T)^T, A X)
    assert np.linalg.norm(H @ gauge) < 1e-6 * np.linalg.norm(H) * np.linalg.norm(gauge)
    with pytest.raises(InputError):
        m.loss_and_grad(W, batch=np.zeros((3, 2), dtype=int))


@pytest.mark.parametrize("point", ["canonical", "gauge"])
def test_reference_points_have_zero_loss(design, point):
    A, B = reference_pair(design, point, np.random.default_rng(1))
    m = GraphAttentionModel(design, A, B)
    assert abs(m.loss(m.w_star[None])[0]) < 1e-14


def test_gauge_invariance_of_the_loss(design):
    """K(A xi, B xi^-T) = K(A, B) at every point, not only at the teacher (22)."""
    rng = np.random.default_rng(2)
    A = design.A_star + 0.2 * rng.standard_normal((3, 2))
    B = design.B_star + 0.2 * rng.standard_normal((3, 2))
    xi = rng.standard_normal((2, 2)) + 2 * np.eye(2)
    m1 = GraphAttentionModel(design, A, B)
    m2 = GraphAttentionModel(design, A @ xi, B @ np.linalg.inv(xi).T)
    assert np.isclose(m1.loss(m1.w_star[None])[0], m2.loss(m2.w_star[None])[0], rtol=1e-12)


def test_bad_point():
    with pytest.raises(InputError):
        graph_llc("cyclic:4", 2, 1, 1, point="random")


@pytest.mark.slow  # over 5 s of a two-worker default run (issue 21, item 5)
def test_fast_estimate_has_the_llc_keys():
    row = graph_llc("cyclic:5", 2, 1, 1, settings=TINY, seed=0)
    for key in ("estimate", "stderr", "ci95", "exact_lambda", "multiplicity", "relative_error", "verdict",
                "assumption1_holds", "seed", "settings"):
        assert key in row
    assert isinstance(row["frozen_chains"], int) and 0 <= row["frozen_chains"] <= TINY.num_chains
    assert row["exact_lambda"] == "3/2" and row["multiplicity"] == 1 and row["assumption1_holds"]
    assert abs(row["estimate"] - 1.5) < 5 * row["stderr"] + 0.3


def test_zero_teacher_takes_units_from_the_composite_fisher():
    """r = 0: A* = B* = 0 has zero Hessian; without the Sxx fallback the ladder was garbage (-11 +- 88)."""
    row = graph_llc("cyclic:5", 2, 1, 0, settings=TINY, seed=0)
    assert row["exact_lambda"] == "1" and row["multiplicity"] == 2
    assert 0.6 < row["estimate"] < 1.3 and row["details"]["curvature"] > 1e-3


def test_zero_teacher_units_are_the_kl_hessian_in_the_composite():
    """r = 0 set-up: the Hessian in (A, B) vanishes and ``Sxx`` is the Hessian of the KL in C at C* = 0.

    The calibration takes its units (h, gamma = h) from ``Sxx`` here, as it does
    from the input covariance of a regression (``K = 1/2 vec(dC)^T Sxx vec(dC)``);
    a factor 2 or a transposed ``vec`` in (17) would fail this comparison.
    """
    D = make_design(parse_graph("cyclic:5"), 3, 2, 0, seed=0)
    m = GraphAttentionModel(D, D.A_star, D.B_star)
    assert np.abs(m.hessian_vector(m.w_star, np.eye(m.dim))).max() < 1e-9
    d, eps = D.d, 1e-4
    H = np.empty((d * d, d * d))
    for i in range(d * d):
        e = np.zeros(d * d)
        e[i] = eps
        grads = [D.kl_and_grad((D.C_star.ravel() + s * e).reshape(1, d, d))[1][0].ravel() for s in (1, -1)]
        H[:, i] = (grads[0] - grads[1]) / (2 * eps)
    assert np.allclose(0.5 * (H + H.T), m.Sxx, rtol=0, atol=1e-7 * np.abs(m.Sxx).max())
    assert np.array_equal(m.Sxx, quadratic_form(D))


def test_frozen_chains_counts_chains_that_never_move():
    """A step far beyond the stability limit rejects every proposal: every chain is frozen; a tuned one moves."""
    model = linear_regression_model(2, n=10**9)
    stuck = sample(model, method="hmc", nbeta=1e4, step_size=10.0, adapt=False, num_chains=4, num_draws=50,
                   num_warmup=0, init_scale=1.0, seed=0)
    assert frozen_chains(stuck.losses) == 4
    moving = sample(model, method="hmc", nbeta=1e4, num_chains=4, num_draws=50, num_warmup=50, seed=0)
    assert frozen_chains(moving.losses) == 0


def test_failing_design_has_no_exact_value():
    plumbing = CalibrationSettings(num_chains=4, num_draws=100, max_draws=100, num_warmup=100, draws_growth=1.0)
    row = graph_llc("cyclic:5", 2, 2, 1, features="constant", settings=plumbing, seed=0)
    assert row["assumption1_holds"] is False and row["exact_lambda"] is None
    assert row["relative_error"] is None and row["theorem"].startswith("none")


@pytest.mark.slow
def test_calibrated_estimate_within_ten_percent():
    """Version 4 reads 4.868 +- 0.020 (-2.6%) and calls it suspect: its ladder still rises by 0.11 from
    nbeta h = 10^4 (version 3 called it ok).  What must hold: within 10%, and within 5% if ok."""
    row = graph_llc("cyclic:8", 4, 2, 1, seed=0)
    assert abs(row["relative_error"]) < 0.10
    assert row["verdict"] == "suspect" or abs(row["relative_error"]) < 0.05


@pytest.mark.slow
def test_gauge_orbit_estimates_agree():
    """Corollary 1: canonical and gauge-transformed teachers give the same coefficient."""
    a = graph_llc("cyclic:8", 4, 2, 1, seed=0)
    b = graph_llc("cyclic:8", 4, 2, 1, seed=0, point="gauge", point_seed=1)
    assert abs(a["estimate"] - b["estimate"]) < 2 * np.hypot(a["stderr"], b["stderr"])
