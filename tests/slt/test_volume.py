"""Numerical pole checks: the confidence intervals contain the exact values."""

import numpy as np
import pytest

from algebra.errors import InputError
from algebra.slt.formulas import reduced_rank_regression
from algebra.slt.newton import newton_rlct
from algebra.slt.volume import partition_scaling, volume_scaling

pytest.importorskip("scipy")

CASES = [
    ({(2, 2): 1}, "x^2 y^2 (= RRR M=N=H=1, r=0)"),
    ({(2, 0): 1, (0, 4): 1}, "x^2 + y^4"),
    ({(2, 0, 0): 1, (0, 2, 0): 1, (0, 0, 2): 1}, "regular, 3 parameters"),
]


@pytest.mark.parametrize("K,name", CASES, ids=[c[1] for c in CASES])
def test_volume_fit_contains_newton_value(K, name):
    exact = newton_rlct(K)
    fit = volume_scaling(K, multiplicity=exact.multiplicity, n_samples=2**14, replicates=6, seed=1)
    assert fit.contains(exact.lam), (fit.lam, fit.ci, exact.lam)
    assert fit.ci[1] - fit.ci[0] < 0.1
    assert fit.multiplicity_fit == exact.multiplicity


@pytest.mark.parametrize("K,name", CASES[:2], ids=[c[1] for c in CASES[:2]])
def test_partition_fit_contains_newton_value(K, name):
    exact = newton_rlct(K)
    fit = partition_scaling(K, multiplicity=exact.multiplicity, n_samples=2**14, replicates=6, seed=2)
    assert fit.contains(exact.lam), (fit.lam, fit.ci, exact.lam)


def test_rrr_smallest_case_against_formula():
    lc = reduced_rank_regression(1, 1, 1, 0)

    def K(W):  # ||b a - 0||^2 for scalars, as a plain callable
        return (W[:, 0] * W[:, 1]) ** 2

    fit = volume_scaling(K, dim=2, multiplicity=lc.multiplicity, n_samples=2**14, replicates=6, seed=3)
    assert fit.contains(lc.lam)


def test_wrong_value_is_excluded():
    fit = volume_scaling({(2, 0): 1, (0, 4): 1}, n_samples=2**14, replicates=6, seed=4)
    assert not fit.contains(0.5) and not fit.contains(1.0)


def test_seed_is_recorded_and_reproducible():
    a = volume_scaling({(2, 2): 1}, multiplicity=2, n_samples=2**10, replicates=3, seed=7)
    b = volume_scaling({(2, 2): 1}, multiplicity=2, n_samples=2**10, replicates=3, seed=7)
    assert a.seed == 7 and a.replicate_lams == b.replicate_lams
    assert a.to_json()["seed"] == 7


def test_plot_writes_a_file(tmp_path):
    pytest.importorskip("matplotlib")
    fit = volume_scaling({(2, 0): 1, (0, 4): 1}, n_samples=2**10, replicates=3)
    path = fit.plot(str(tmp_path / "v.png"), exact="3/4")
    assert (tmp_path / "v.png").stat().st_size > 0 and path.endswith("v.png")


def test_bad_inputs():
    with pytest.raises(InputError) as info:
        volume_scaling(lambda W: W[:, 0] ** 2)
    assert info.value.argument == "dim"
    with pytest.raises(InputError) as info:
        volume_scaling({(2,): 1}, replicates=1)
    assert info.value.argument == "replicates"
    with pytest.raises(InputError) as info:
        partition_scaling({(2,): 1}, ns=[0.5, 2, 3])
    assert info.value.argument == "ns"
    with pytest.raises(InputError):
        volume_scaling({(2,): 1}, eps=[np.inf, -1, 2])


def test_constant_term_is_rejected():
    with pytest.raises(InputError) as info:
        volume_scaling({(0, 0): 1, (2, 0): 1})
    assert info.value.argument == "K"
