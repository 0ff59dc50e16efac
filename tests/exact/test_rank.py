"""One table of named matrices through every rank route (GF(p), Q, float, witness)."""

from fractions import Fraction

import numpy as np
import pytest

from algebra.errors import InputError
from algebra.exact.field import PrimeField, RationalField, is_prime
from algebra.exact.rank import det_mod_p, rank_float, rank_mod_p, rank_over_q, rank_with_witness

P = 1048573

RANK_EXAMPLES = [
    ("empty 0x0", np.zeros((0, 0), dtype=np.int64), 0),
    ("empty 0x3", np.zeros((0, 3), dtype=np.int64), 0),
    ("zero 3x4", np.zeros((3, 4), dtype=np.int64), 0),
    ("identity 5", np.eye(5, dtype=np.int64), 5),
    ("rank one", np.outer([1, 2, 3], [4, 5, 6, 7]), 1),
    ("dependent rows", np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), 2),
    ("first column zero", np.array([[0, 1, 2], [0, 3, 4], [0, 5, 6]]), 2),
    ("tall", np.array([[1, 0], [0, 1], [1, 1], [2, 3]]), 2),
    ("wide", np.array([[1, 2, 3, 4], [2, 4, 6, 8]]), 1),
]


@pytest.mark.parametrize("name, A, rank", RANK_EXAMPLES, ids=[r[0] for r in RANK_EXAMPLES])
def test_every_route_agrees(name, A, rank):
    assert rank_mod_p(A, P) == rank
    assert rank_over_q(A.astype(object)) == rank
    assert rank_float(A) == rank
    w = rank_with_witness(A, P)
    assert w.rank == rank and len(w.rows) == len(w.cols) == rank
    if rank:
        assert det_mod_p(A[np.ix_(w.rows, w.cols)], P) != 0


def test_huge_entries_over_q():
    big = 10**100
    A = np.array([[big, big + 1], [big - 1, big]], dtype=object)  # det = 1
    assert rank_over_q(A) == 2
    B = np.array([[big, 2 * big], [Fraction(1, 3), Fraction(2, 3)]], dtype=object)
    assert rank_over_q(B) == 1
    assert rank_mod_p(A, P) == 2  # entries reduced mod p first


def test_mod_p_rank_is_a_lower_bound_of_rank_over_q():
    rng = np.random.default_rng(0)
    for _ in range(20):
        A = rng.integers(-3, 4, size=(5, 6)) @ rng.integers(-3, 4, size=(6, 6))
        for p in (2, 3, 5, 7, P):
            assert rank_mod_p(A, p) <= rank_over_q(A.astype(object))


def test_random_low_rank_products():
    """rank(U V) = k for generic U (m x k), V (k x n): identity-style check on random input."""
    rng = np.random.default_rng(1)
    for k in range(1, 6):
        U = rng.integers(-1000, 1000, size=(8, k))
        V = rng.integers(-1000, 1000, size=(k, 9))
        A = U @ V
        assert rank_mod_p(A, P) == rank_over_q(A.astype(object)) == k


def test_fields():
    assert is_prime(P) and not is_prime(P + 2) and not is_prime(1) and is_prime(2)
    with pytest.raises(InputError):
        PrimeField(2**31 - 1)  # prime, but above the exact-BLAS limit
    F = PrimeField(7)
    assert F.scalar(Fraction(1, 3)) * 3 % 7 == 1
    with pytest.raises(InputError):
        F.scalar(Fraction(1, 7))
    Q = RationalField()
    assert Q.polyval([1, 0, Fraction(1, 2)], Q.array([2]))[0] == 3
