"""Schur-complement normal forms: exact round trips, the counts of Proposition 1, Lemma E.5."""

import json
from fractions import Fraction

import numpy as np
import pytest

from algebra.cli import main
from algebra.errors import DomainError, InputError
from algebra.exact.rational import fraction_matrix, rank_q
from algebra.geometry.normal_form import canonical_orbit_point
from algebra.geometry.normal_form import (
    gauge_section,
    haynsworth_check,
    inertia,
    linear_normal_form,
    pivot_block,
    qk_normal_form,
    schur_coordinates,
    schur_inverse,
    tangent_cone_check,
)


def _random_rational(rng, m, n, rank):
    A = fraction_matrix(rng.integers(-4, 5, size=(m, rank)))
    B = fraction_matrix(rng.integers(-4, 5, size=(rank, n)) + 0) * Fraction(1, 3)
    return A.dot(B)


@pytest.mark.parametrize("seed", range(6))
def test_schur_round_trip_and_rank_identity(seed):
    rng = np.random.default_rng(seed)
    m, n = rng.integers(2, 6, size=2)
    C = _random_rational(rng, m, n, int(rng.integers(1, min(m, n) + 1)))
    r = rank_q(C)
    sc = schur_coordinates(C)
    assert len(sc.rows) == r and not sc.R.any()  # at a pivot block of full size R = 0
    assert (schur_inverse(sc) == C).all()
    # any invertible smaller block: rank C = size + rank R
    if r >= 1:
        small = schur_coordinates(C, rows=sc.rows[:1], cols=sc.cols[:1])
        assert rank_q(C) == 1 + rank_q(small.R)
        assert (schur_inverse(small) == C).all()


def test_schur_singular_block_raises():
    with pytest.raises(DomainError):
        schur_coordinates([[0, 1], [1, 0]], rows=(0,), cols=(0,))
    with pytest.raises(InputError):
        schur_coordinates([[1, 2], [3, 4]], rows=(0, 1), cols=(0,))


@pytest.mark.parametrize("d,k,r", [(3, 2, 1), (4, 3, 2), (5, 4, 2), (4, 4, 1), (3, 3, 3), (5, 3, 3)])
def test_qk_counts_at_canonical_orbit_points(d, k, r):
    A, B = canonical_orbit_point(d, k, r, seed=d + k + r)
    nf = qk_normal_form(A, B)
    assert nf["rank"] == r and nf["canonical_counts_hold"]
    assert nf["regular"]["computed"] + nf["orbit"]["computed"] + nf["kernel_excess"]["computed"] == 2 * d * k  # eq. (41)
    assert nf["round_trip"] and nf["rank_identity"]
    if r < k:
        assert nf["projector"]["idempotent"] and nf["projector"]["rank"] == k - r and nf["projector"]["R_equals_A2_P_B2T"]


def test_qk_counts_fail_off_the_canonical_orbit():
    """Unused columns that cancel (the paper's Section 5): the stabilizer is smaller than s^2."""
    A = [[1, 0], [0, 1], [0, 0]]
    B = [[1, 0], [0, 0], [0, 0]]
    nf = qk_normal_form(A, B)
    assert nf["rank"] == 1 and nf["stabilizer"]["computed"] == 0 != nf["stabilizer"]["formula"] == 1
    assert not nf["canonical_counts_hold"]


def test_gauge_section():
    A, B = canonical_orbit_point(5, 4, 2, seed=0)
    g = gauge_section(A, B, 2)
    assert all(g["checks"].values())
    assert g["V"].shape == (3, 2) and g["S"].shape == (2, 3)


def test_linear_normal_form():
    W1 = np.zeros((3, 4), dtype=np.int64)
    W1[:2, :2] = [[1, 2], [0, 1]]
    W2 = np.zeros((5, 3), dtype=np.int64)
    W2[:2, :2] = [[3, 1], [1, 1]]
    nf = linear_normal_form([W1, W2])
    assert nf["rank"] == 2 and nf["regular"]["computed"] == nf["regular"]["formula"] == 14
    assert nf["round_trip"] and nf["rank_identity"] and nf["transverse"]["computed"] == [3, 2]


def test_inertia_matches_eigenvalues():
    rng = np.random.default_rng(5)
    for _ in range(5):
        M = rng.integers(-3, 4, size=(4, 4))
        S = M + M.T
        S[:, 3] = S[:, 0] + S[:, 1]
        S[3, :] = S[0, :] + S[1, :]
        S[3, 3] = S[0, 0] + 2 * S[0, 1] + S[1, 1]
        ev = np.linalg.eigvalsh(S.astype(float))
        tol = 1e-9
        assert inertia(S) == (int((ev > tol).sum()), int((ev < -tol).sum()), int((abs(ev) <= tol).sum()))
        if S[0, 0] != 0:
            assert haynsworth_check(S, 1)


@pytest.mark.parametrize("seed", range(6))
def test_pivot_block_is_a_nonsingular_block_of_the_rank(seed):
    rng = np.random.default_rng(seed)
    m, n = rng.integers(1, 6, size=2)
    r = int(rng.integers(0, min(m, n) + 1))
    C = _random_rational(rng, m, n, r) if r else fraction_matrix(np.zeros((m, n), dtype=np.int64))
    rows, cols = pivot_block(C)
    assert len(rows) == len(cols) == rank_q(C)
    assert rank_q(C[np.ix_(rows, cols)]) == len(rows)  # the block itself has full rank


@pytest.mark.parametrize("d,a", [(3, 1), (4, 1), (5, 2)])
def test_lemma_E5_tangent_cone(d, a):
    assert tangent_cone_check(d, a)["holds_at_checked_points"]


def test_cli_normal_form(capsys):
    assert main(["normal-form", "qk", "--d", "4", "--k", "3", "--rank", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["regular"]["computed"] == 12 and out["round_trip"]
    assert main(["normal-form", "linear", "--widths", "4,3,5", "--rank", "2"]) == 0
    assert main(["normal-form", "qk", "--d", "3", "--k", "2", "--rank", "3"]) == 2
