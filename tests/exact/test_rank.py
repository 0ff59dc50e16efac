"""One table of named matrices through every rank route (GF(p), Q, float, witness)."""

from fractions import Fraction

import numpy as np
import pytest

from algebra.errors import InputError, ResourceError
from algebra.exact.field import PrimeField, RationalField, is_prime
from algebra.exact.rank import (
    METHODS,
    det_mod_p,
    rank_float,
    rank_mod_p,
    rank_over_q,
    rank_with_witness,
    sketched_rank_mod_p,
)

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
    assert rank_over_q(A.astype(object)) == rank
    assert rank_float(A) == rank
    for method in METHODS:
        assert rank_mod_p(A, P, method=method) == rank
        assert rank_mod_p(A.astype(object), P, method=method) == rank
        assert rank_mod_p(A.astype(np.float64), P, method=method) == rank
        w = rank_with_witness(A, P, method=method)
        assert w.rank == rank and len(w.rows) == len(w.cols) == rank
        if rank:
            assert det_mod_p(A[np.ix_(w.rows, w.cols)], P, method=method) != 0
        if A.shape[0] == A.shape[1]:
            expect = round(np.linalg.det(A)) % P if A.size else 1
            assert det_mod_p(A, P, method=method) == expect


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
    # PrimeField.array used to truncate floats (0.5 -> 0): now integral floats only, reduced exactly
    assert F.array(np.array([[-1.0, 2.0**70]])).tolist() == [[6, 2**70 % 7]]
    for bad in (np.array([0.5]), np.array([np.nan]), np.array([1j])):
        with pytest.raises(InputError, match="array"):
            F.array(bad)


@pytest.mark.parametrize("method", METHODS)
def test_non_integer_entries_are_reduced_exactly_or_refused(method):
    """Issue 10: rank_mod_p([[1/2, 1], [1, 2]]) used to truncate 1/2 to 0 and answer 2."""
    for f in (rank_mod_p, rank_with_witness):
        with pytest.raises(InputError, match="matrix='entry 0.5 at \\(0, 0\\)'"):
            f([[1 / 2, 1], [1, 2]], P, method=method)
        with pytest.raises(InputError, match="entry 0.5"):
            f(np.array([[1, 2], [3, 0.5]], dtype=object), P, method=method)
        with pytest.raises(InputError, match="denominator is invertible mod 7"):
            f([[Fraction(1, 7), 1], [1, 2]], 7, method=method)
    with pytest.raises(InputError, match="entry 0.5"):
        det_mod_p([[1 / 2, 1], [1, 2]], P, method=method)
    half = [[Fraction(1, 2), 1], [1, 2]]  # singular over Q, so singular mod every p not dividing 2
    assert rank_mod_p(half, P, method=method) == 1
    assert det_mod_p(half, P, method=method) == 0
    assert det_mod_p([[Fraction(1, 3), 0], [0, 3]], P, method=method) == 1
    assert rank_mod_p([[2.0, 4.0], [1.0, 2.0]], P, method=method) == 1  # integral floats are fine


def test_flint_route_handles_primes_beyond_float64():
    q = 2**61 - 1
    A = np.array([[2**40, 1], [2**21, 2**-19 * 2**19]], dtype=object)
    assert rank_mod_p(A, q) == 2 == rank_mod_p(A, q, method="flint")
    with pytest.raises(InputError, match="method='blas'"):
        rank_mod_p(A, q, method="blas")
    with pytest.raises(InputError, match="invalid method"):
        rank_mod_p(A, P, method="lapack")


def test_blas_and_flint_agree_on_random_planted_ranks():
    rng = np.random.default_rng(2)
    for m, n, k in [(260, 300, 250), (300, 260, 120), (400, 150, 150)]:
        A = rng.integers(-(10**6), 10**6, size=(m, k)) @ rng.integers(-50, 50, size=(k, n))
        rb, rf = rank_mod_p(A, P, method="blas"), rank_mod_p(A, P, method="flint")
        assert rb == rf == k
        w = rank_with_witness(A, P, method="blas")
        assert det_mod_p(A[np.ix_(w.rows, w.cols)], P, method="flint") != 0


def test_max_memory_is_checked_before_allocating():
    J = np.broadcast_to(np.int64(1), (100_000, 100_000))  # 80 GB if it were materialised
    for f in (rank_mod_p, rank_with_witness):
        with pytest.raises(ResourceError, match="max_memory"):
            f(J, P, max_memory=2**30)
    with pytest.raises(ResourceError, match="max_memory"):
        sketched_rank_mod_p(J, P, max_memory=2**30)
    assert rank_mod_p(np.eye(3, dtype=np.int64), P, max_memory=2**30) == 3


def test_overwrite_gives_the_same_rank():
    rng = np.random.default_rng(4)
    A = rng.integers(-9, 9, size=(300, 40)) @ rng.integers(-9, 9, size=(40, 320))
    expect = rank_mod_p(A, P, method="flint")
    assert rank_mod_p(A.copy(), P, method="blas", overwrite=True) == expect == 40
    frozen = A.copy()
    frozen.flags.writeable = False  # overwrite is a permission, not a demand: a read-only input is copied
    assert rank_mod_p(frozen, P, method="blas", overwrite=True) == 40 and np.array_equal(frozen, A)


def test_row_sketch_is_a_lower_bound_and_exact_with_oversampling():
    rng = np.random.default_rng(6)
    J = rng.integers(-99, 99, size=(3000, 12)) @ rng.integers(-99, 99, size=(12, 40))  # tall, rank 12
    s = sketched_rank_mod_p(J, P, seed=3, witness=True)
    assert (s.rank, s.sketched, s.rows, s.seed) == (12, True, 48, 3)
    # witness columns index independent columns of J itself; its rows are rows of the sketch
    assert rank_mod_p(J[:, list(s.witness.cols)], P) == 12 and max(s.witness.rows) < s.rows
    s2 = sketched_rank_mod_p(J, P, expected_rank=12, seed=3)
    assert (s2.rank, s2.rows) == (12, 20)
    # too few sketch rows: still a lower bound, never more than rank(J)
    s3 = sketched_rank_mod_p(J, P, expected_rank=5, oversample=0, seed=3)
    assert (s3.rank, s3.rows) == (5, 5)
    # wide matrices need no sketch
    s4 = sketched_rank_mod_p(J[:30], P, seed=3)
    assert not s4.sketched and s4.rank == rank_mod_p(J[:30], P)
    with pytest.raises(InputError, match="seed"):
        sketched_rank_mod_p(J, P, seed=-1)
    with pytest.raises(InputError, match="entry 0.5"):
        sketched_rank_mod_p(np.full((100, 2), 0.5), P)


@pytest.mark.parametrize("method", ["blas", "flint"])
def test_rank_of_chosen_columns_with_a_witness_of_j(method):
    """``columns=``: the rank of ``J[:, cols]``; the witness is a nonsingular minor of ``J`` inside those columns."""
    rng = np.random.default_rng(8)
    J = rng.integers(-9, 9, size=(150, 30)) @ rng.integers(-9, 9, size=(30, 200))  # rank 30
    cols = np.sort(rng.choice(200, size=120, replace=False))
    expect = rank_mod_p(J[:, cols], P, method="flint")
    assert rank_mod_p(J, P, method=method, columns=cols) == expect == 30
    w = rank_with_witness(J.copy(), P, method=method, overwrite=True, columns=cols)
    assert w.rank == 30 and set(w.cols) <= set(cols.tolist())
    assert det_mod_p(J[np.ix_(w.rows, w.cols)], P, method="flint") != 0
    with pytest.raises(InputError, match="invalid columns"):
        rank_mod_p(J, P, method=method, columns=cols[::-1])
