"""The blocked LU modulo p (algebra.exact.elimination) against flint, the reference.

Every check compares the kernel with python-flint's ``nmod_mat`` (rank,
nullity, determinant) on the same residues, or tests an identity: the
witness minor is nonsingular, rank + nullity = columns, det of a permutation
matrix is its sign, the predicted memory bounds the measured one.
"""

import tracemalloc
import zlib

import flint
import numpy as np
import pytest

from algebra.errors import InputError, ResourceError
from algebra.exact.elimination import (
    BLOCK,
    LEAF,
    blas_supports,
    check_memory,
    eliminate_mod_p,
    exact_terms,
    predicted_peak_bytes,
    residues_mod_p,
)
from algebra.exact.field import PrimeField
from algebra.exact.rank import rank_with_witness
from tests.known_dimensions import KNOWN

P = 1048573
#: exact_terms(BIG) = 360: every second panel forces a reduction of the trailing matrix
BIG = 9999991
PRIMES = (2, 3, 5, 101, P, 2097143, BIG)


def flint_mat(A, p):
    A = np.asarray(A)
    m, n = A.shape
    return flint.nmod_mat(flint.fmpz_mat(m, n, [int(v) % p for v in A.ravel().tolist()]), p)


def flint_rank(A, p) -> int:
    return 0 if min(A.shape) == 0 else int(flint_mat(A, p).rank())


def planted(rng, m, n, r, p, *, near_p=False):
    """A random ``m x n`` integer matrix of rank exactly ``r`` modulo ``p`` (checked with flint).

    ``near_p`` shifts each residue by ``-p``, ``0`` or ``p``: entries in ``(-p, 2p)``, same matrix mod p.
    """
    if r == 0 or m == 0 or n == 0:
        return np.zeros((m, n), dtype=np.int64)
    for _ in range(20):
        M = flint_mat(rng.integers(0, p, size=(m, r)), p) * flint_mat(rng.integers(0, p, size=(r, n)), p)
        A = np.array([int(v) for v in M.entries()], dtype=np.int64).reshape(m, n)
        if near_p:
            A = A + p * rng.integers(-1, 2, size=A.shape)
        if flint_rank(A, p) == r:
            return A
    raise AssertionError("could not plant the rank")


def check_against_flint(A, p, **kw):
    """The kernel's rank equals flint's; the witness minor is nonsingular; det agrees on squares."""
    A = np.asarray(A)
    e = eliminate_mod_p(residues_mod_p(A, p), p, **kw)
    assert e.rank == flint_rank(A, p)
    assert len(e.rows) == len(e.cols) == e.rank
    assert list(e.rows) == sorted(set(e.rows)) and list(e.cols) == sorted(set(e.cols))
    if e.rank:
        assert int(flint_mat(A[np.ix_(e.rows, e.cols)], p).det()) != 0
    if A.shape[0] == A.shape[1] and A.size:
        assert e.det == int(flint_mat(A, p).det())
    return e


SHAPES = [  # (m, n, rank)
    (0, 7, 0), (7, 0, 0), (1, 1, 0), (1, 1, 1), (5, 5, 0), (6, 6, 6), (6, 6, 3),
    (40, 40, 40), (40, 40, 39), (17, 90, 17), (90, 17, 17), (90, 17, 9), (300, 40, 33),
    (40, 300, 38), (150, 150, 150), (150, 150, 101), (70, 600, 70), (600, 70, 70),
]


@pytest.mark.parametrize("m, n, r", SHAPES, ids=[f"{m}x{n}_rank{r}" for m, n, r in SHAPES])
def test_planted_rank(m, n, r):
    rng = np.random.default_rng(m * 1000 + n * 10 + r)
    for p in (P, BIG, 3):
        A = planted(rng, m, n, min(r, m, n), p)
        for block in (LEAF, 64, BLOCK):
            e = check_against_flint(A, p, block=block)
            assert e.rank == r


def test_entries_near_p_and_huge():
    rng = np.random.default_rng(7)
    A = planted(rng, 120, 130, 110, P, near_p=True)
    check_against_flint(A, P, block=32)
    check_against_flint(-A, P, block=32)
    huge = rng.integers(2**62 - 1000, 2**62, size=(60, 60))
    check_against_flint(huge, P)
    check_against_flint(np.asarray(huge, dtype=object) * 10**30 + 1, P)


def test_structured_pivots():
    """Zero leading columns, pivots that need row exchanges, duplicated rows and columns."""
    rng = np.random.default_rng(3)
    for p in PRIMES:
        A = rng.integers(0, 5, size=(80, 90))
        A[:, :20] = 0
        A[::2] = A[1::2]
        A[:, 50:60] = A[:, 30:40]
        if blas_supports(p):
            check_against_flint(A, p, block=32)
        perm = rng.permutation(33)
        Q = np.eye(33, dtype=np.int64)[perm]
        if blas_supports(p):
            e = check_against_flint(Q, p)
            sign = round(np.linalg.det(Q))
            assert e.det == sign % p


def test_singular_top_blocks_exchange_rows():
    """A leaf whose top block is singular takes independent rows from below (row exchanges: the det's sign)."""
    rng = np.random.default_rng(12)
    for n in (64, 100):
        A = rng.integers(0, P, size=(n, n))
        A[1:LEAF, :LEAF] = 0  # first leaf: top block of rank 1, LEAF - 1 row exchanges (odd)
        A[LEAF : 2 * LEAF, LEAF : 2 * LEAF] = 0
        e = check_against_flint(A, P)
        assert e.rank == n and e.det != 0
        B = A.copy()
        B[: 3 * LEAF, :LEAF] = 0  # the first 4 LEAF rows have rank < LEAF there: rank-one updates
        check_against_flint(B, P)


@pytest.mark.slow  # 1.3-2.6 s end to end (the default run stays at half its earlier worker-seconds)
def test_reduction_of_the_trailing_matrix_is_exercised():
    """With p = 9999991 only 360 products sum exactly: the lazy reduction must run, and keep the LU exact.

    ``A = L U`` with ``L``, ``U`` block unit triangular (blocks of ``BLOCK``
    rows, identity on the diagonal), every off-diagonal block of ``L`` filled
    with ``h = (p-1)/2`` and of ``U`` with ``-h``: the elimination finds these
    factors (every pivot block is the identity, no row exchange), so each
    panel adds ``BLOCK * h^2`` with one sign to the trailing matrix, and two
    panels pass ``2**53`` unless it is reduced between them.
    """
    assert exact_terms(BIG) == 360
    n, h = 3 * BLOCK, (BIG - 1) // 2
    blocks = np.arange(n) // BLOCK
    L = np.where(blocks[:, None] > blocks[None, :], h, 0) + np.eye(n, dtype=np.int64)
    U = np.where(blocks[:, None] < blocks[None, :], BIG - h, 0) + np.eye(n, dtype=np.int64)
    A = np.array([int(v) for v in (flint_mat(L, BIG) * flint_mat(U, BIG)).entries()], dtype=np.int64).reshape(n, n)
    e = check_against_flint(A, BIG)
    assert (e.rank, e.det) == (n, 1)


@pytest.mark.parametrize("name, make, value, certified", KNOWN, ids=[k[0] for k in KNOWN])
def test_known_values_table(name, make, value, certified):
    """Jacobians of every known-values model: kernel and flint agree, and the rank is the known dimension."""
    model = make()
    F = PrimeField(P)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    theta = model.random_point(rng)
    if model.n_inputs == 0:
        J = model.jacobian(theta, np.zeros((1, 0), dtype=np.int64), F)
    elif model.has_coefficient_jacobian:
        J = model.coefficient_jacobian(theta, F)
    else:
        X = model.random_inputs(rng, model.parameter_count + 4)  # one new row per sample at least
        J = model.jacobian(theta, X, F)
    for block in (LEAF, BLOCK):
        e = check_against_flint(J, P, block=block)
        assert e.rank == value, name
    w = rank_with_witness(J, P, method="blas")
    assert (w.rank, w.rows, w.cols) == (e.rank, e.rows, e.cols)


def test_large_prime_is_refused_not_inexact():
    assert not blas_supports(2**31 - 1)
    with pytest.raises(InputError, match="invalid p="):
        eliminate_mod_p(np.eye(3), 2**31 - 1)
    with pytest.raises(InputError, match="invalid A="):
        eliminate_mod_p(np.eye(3, dtype=np.int64), P)


def test_residues_refuse_non_integers():
    with pytest.raises(InputError, match="entry 0.5 at"):
        residues_mod_p(np.array([[1.0, 0.5]]), P)
    for bad in (np.nan, np.inf):
        with pytest.raises(InputError, match="matrix"):
            residues_mod_p(np.array([[1.0, bad]]), P)
    with pytest.raises(InputError, match="dtype complex"):
        residues_mod_p(np.eye(2, dtype=complex), P)
    with pytest.raises(InputError, match="type str"):
        residues_mod_p(np.array([[1, "x"]], dtype=object), P)
    # integral floats, ints, huge floats and bools are reduced exactly
    assert residues_mod_p(np.array([[-1.0, 2.0**60]]), P).tolist() == [[P - 1, 2**60 % P]]
    assert residues_mod_p(np.array([[True, False]]), P).tolist() == [[1.0, 0.0]]
    import sympy

    exotic = np.array([[flint.fmpz(-1), sympy.Rational(1, 2), flint.fmpq(1, 3), sympy.Integer(5)]], dtype=object)
    assert residues_mod_p(exotic, 7).tolist() == [[6.0, 4.0, 5.0, 5.0]]


def test_overwrite_reuses_the_input_buffer():
    rng = np.random.default_rng(5)
    J = rng.integers(-(10**9), 10**9, size=(50, 40))
    expect = np.mod(J, P).astype(np.float64)
    R = residues_mod_p(J, P, overwrite=True)
    assert np.shares_memory(R, J) and np.array_equal(R, expect)
    J2 = rng.integers(-5, 5, size=(50, 40))
    R2 = residues_mod_p(J2, P)
    assert not np.shares_memory(R2, J2)


def test_memory_prediction_bounds_the_measured_peak():
    rng = np.random.default_rng(9)
    J = rng.integers(0, P, size=(600, 900))
    tracemalloc.start()
    eliminate_mod_p(residues_mod_p(J, P), P)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    predicted = predicted_peak_bytes(600, 900)
    assert 8 * 600 * 900 <= peak <= predicted


def test_memory_limit_refuses_before_allocating():
    with pytest.raises(ResourceError, match="max_memory"):
        check_memory(10**5, 10**5, 10**9)
    with pytest.raises(InputError, match="max_memory"):
        check_memory(10, 10, -1)
    assert check_memory(10, 10, None) == predicted_peak_bytes(10, 10)


def test_columns_are_gathered_while_reducing():
    """``columns=``: the residues of ``J[:, cols]``, in ``J``'s own memory on the in-place int64 route, any dtype."""
    rng = np.random.default_rng(21)
    J = rng.integers(-(10**12), 10**12, size=(70, 90))
    cols = np.sort(rng.choice(90, size=55, replace=False))
    expect = np.mod(J[:, cols], P).astype(np.float64)
    work = J.copy()
    R = residues_mod_p(work, P, overwrite=True, columns=cols)
    assert R.shape == (70, 55) and np.shares_memory(R, work) and np.array_equal(R, expect)
    for other in (J, J.astype(object), J.astype(np.float64)):  # copies: the input is left alone
        assert np.array_equal(residues_mod_p(other, P, columns=cols), expect)


def test_wide_matrices_are_eliminated_transposed_within_the_predicted_memory():
    """A wide matrix with a large kernel (every other column dependent): flint agrees; the copy is predicted."""
    rng = np.random.default_rng(23)
    A = planted(rng, 120, 400, 110, P)
    e = check_against_flint(A, P)
    assert e.rank == 110
    tracemalloc.start()
    eliminate_mod_p(residues_mod_p(A, P), P)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert 2 * 8 * 120 * 400 <= peak <= predicted_peak_bytes(120, 400)


def test_float_columns_are_gathered_in_place():
    """A float64 matrix with ``columns`` and ``overwrite`` is compacted into its own memory (no second
    matrix: the data-restricted grokking sketch is 0.8 GB), with the same residues as a gathered copy."""
    rng = np.random.default_rng(3)
    p = 1048573
    A = rng.integers(-10**12, 10**12, size=(3000, 700)).astype(np.float64)  # several row chunks
    cols = np.sort(rng.choice(700, size=401, replace=False))
    expect = np.remainder(A[:, cols], p)
    out = residues_mod_p(A, p, overwrite=True, columns=cols)
    assert np.shares_memory(out, A) and out.shape == (3000, 401) and np.array_equal(out, expect)
    B = np.zeros((3000, 700))
    B[2500, 7] = 0.5  # past the first row chunk: its position is still reported exactly
    with pytest.raises(InputError, match=r"at \(2500, 7\)"):
        residues_mod_p(B, p, overwrite=True)
