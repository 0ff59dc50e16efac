"""Exact simplex: agrees with scipy's HiGHS on random LPs; certificates are replayed."""

from fractions import Fraction

import numpy as np
import pytest

from algebra.errors import CertificateError
from algebra.slt.lp import LinearProgramResult, solve_standard_form, verify_optimal


def test_random_lps_agree_with_highs():
    linprog = pytest.importorskip("scipy.optimize").linprog
    rng = np.random.default_rng(0)
    for _ in range(150):
        m, n = int(rng.integers(1, 5)), int(rng.integers(1, 7))
        A = rng.integers(-3, 4, (m, n))
        b = A @ rng.integers(0, 3, n) if rng.random() < 0.8 else rng.integers(-3, 4, m)
        c = rng.integers(-2, 5, n)
        ours = solve_standard_form(c.tolist(), A.tolist(), b.tolist())
        ref = linprog(c, A_eq=A, b_eq=b, bounds=[(0, None)] * n, method="highs")
        assert ours.status == {0: "optimal", 2: "infeasible", 3: "unbounded"}[ref.status]
        if ours.status == "optimal":
            assert abs(float(ours.value) - ref.fun) < 1e-9
            verify_optimal(c.tolist(), A.tolist(), b.tolist(), ours)


def test_redundant_rows_and_negative_rhs():
    res = solve_standard_form([1, 2, 0], [[1, 1, 1], [2, 2, 2], [-1, 0, 0]], [3, 6, -1])
    assert res.status == "optimal" and res.value == 1
    assert res.x[0] == 1


def test_tampered_certificate_is_rejected():
    res = solve_standard_form([1, 1], [[1, 2]], [4])
    bad = LinearProgramResult("optimal", res.x, (Fraction(1),), res.value)
    with pytest.raises(CertificateError):
        verify_optimal([1, 1], [[1, 2]], [4], bad)
