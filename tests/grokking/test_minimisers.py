"""Zero-loss points of the grokking network: Levenberg-Marquardt keeps the phase, and the last-layer system
decides exactly whether a rational ``V`` gives ``L_n = 0`` at a fixed ``W`` (issue 35, item 1)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from algebra.errors import InputError
from algebra.grokking.checkpoints import exact_accuracies
from algebra.grokking.minimisers import exact_training_loss, last_layer_system, levenberg_marquardt
from algebra.grokking.network import CentredLoss, init_params
from algebra.grokking.task import modular_addition


@pytest.fixture(scope="module")
def task():
    return modular_addition(5, 0.8, 0)  # 20 training pairs, 5 held out


def test_descent_reaches_a_tiny_loss_and_records_exact_accuracies(task):
    theta = init_params(5, 8, np.random.default_rng(1))
    d = levenberg_marquardt(task, 8, theta, steps=80)
    fit = CentredLoss(5, 8, task.a[task.train], task.b[task.train], task.c[task.train])
    assert d.loss_before == pytest.approx(fit.loss(theta)[0], rel=1e-12)
    assert d.loss_after == pytest.approx(fit.loss(d.theta)[0], rel=1e-9, abs=1e-30)
    assert d.loss_after < 1e-12 * d.loss_before and 1 <= d.accepted <= d.steps <= 80
    assert d.accuracy_before == exact_accuracies(task, 8, theta)
    assert d.accuracy_after == exact_accuracies(task, 8, d.theta) and d.accuracy_after[0] == 1
    assert d.phase_kept == (d.phase_before == d.phase_after)


def test_descent_never_raises_the_loss_and_stops_at_the_floor(task):
    theta = init_params(5, 8, np.random.default_rng(2))
    short = levenberg_marquardt(task, 8, theta, steps=3)
    assert short.loss_after <= short.loss_before and short.steps == 3
    floor = levenberg_marquardt(task, 8, theta, steps=80, loss_floor=short.loss_before)
    assert floor.steps == 0 and np.array_equal(floor.theta, theta)


def test_an_underdetermined_last_layer_is_solved_exactly():
    """n - 1 <= K: the exact V makes L_n exactly 0 (a Fraction), at W's binary64 values."""
    t = modular_addition(5, 0.3, 0)  # 7 training pairs: 6 centred equations per output, 8 unknowns
    theta = init_params(5, 8, np.random.default_rng(3))
    s = last_layer_system(t, 8, theta)
    assert (s.n, s.equations, s.unknowns) == (7, 5 * 6, 5 * 8)
    assert s.rank == s.augmented == 6 and s.exact
    assert all(isinstance(v, Fraction) for row in s.V for v in row)
    assert exact_training_loss(t, 8, theta, s.V) == 0
    assert exact_training_loss(t, 8, theta) > 0  # the random V was not a zero


def test_a_float_zero_is_not_an_exact_zero(task):
    """After the descent L_n is tiny in floats, but with 19 centred equations per output and 8 unknowns the
    system at the rounded W has no exact solution: the augmented rank exceeds the rank."""
    d = levenberg_marquardt(task, 8, init_params(5, 8, np.random.default_rng(1)), steps=80)
    s = last_layer_system(task, 8, d.theta)
    assert (s.equations, s.unknowns) == (5 * 19, 5 * 8)
    assert s.rank <= 8 and s.augmented > s.rank and not s.exact and s.V is None
    assert exact_training_loss(task, 8, d.theta) > 0


@pytest.mark.parametrize("call", [lambda t: levenberg_marquardt(t, 8, np.zeros(7)),
                                  lambda t: levenberg_marquardt(t, 8, np.full(120, np.nan)),
                                  lambda t: levenberg_marquardt(t, 8, np.zeros(120), steps=0),
                                  lambda t: last_layer_system(t, 8, np.zeros(7)),
                                  lambda t: exact_training_loss(t, 0, np.zeros(7))])
def test_bad_input_is_refused(task, call):
    with pytest.raises(InputError):
        call(task)
