"""Exact linear algebra over Q (fmpq_mat): defining identities on random matrices, and the old routes' answers."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from algebra.errors import DomainError, InputError
from algebra.exact.rank import rank_mod_p
from algebra.exact.rational import fraction_matrix, inverse_q, nullspace_q, rank_q, rref_q, solve_q

#: name -> (matrix, rank); every route must agree (a 0x0 matrix, entries near 10**100, a rank drop, a Fraction)
CASES = {
    "empty": (np.zeros((0, 0), dtype=object), 0),
    "no rows": (np.zeros((0, 3), dtype=object), 0),
    "rank drop": ([[1, 2, 3], [2, 4, 6], [1, 0, 1]], 2),
    "huge": ([[10**100, 1], [10**100 + 1, 1]], 2),
    "fraction": ([[Fraction(1, 2), 1], [1, 2]], 1),
}


def _random(rng, m, n, r):
    return fraction_matrix(rng.integers(-5, 6, size=(m, r)) @ rng.integers(-5, 6, size=(r, n)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_known_ranks_agree_with_gf_p(name):
    M, r = CASES[name]
    assert rank_q(M) == r == len(rref_q(M)[1])
    if np.asarray(M, dtype=object).size and name != "fraction":  # a Fraction 1/2 is fine mod p, but rank mod p <= rank
        assert rank_mod_p(np.asarray(M, dtype=object), 1048573) == r


@pytest.mark.parametrize("seed", range(5))
def test_rank_nullity_and_kernel_witnesses(seed):
    rng = np.random.default_rng(seed)
    m, n = rng.integers(1, 7, size=2)
    M = _random(rng, int(m), int(n), int(rng.integers(0, min(m, n) + 1)))
    basis = nullspace_q(M)
    assert rank_q(M) + len(basis) == n  # rank + nullity = number of columns
    for x in basis:
        assert not any(M.dot(np.array(x, dtype=object)))  # M x == 0
    if basis:
        assert rank_q(basis) == len(basis)  # a basis, not a spanning list


@pytest.mark.parametrize("seed", range(5))
def test_solve_and_inverse(seed):
    rng = np.random.default_rng(100 + seed)
    A = _random(rng, 3, 5, 3)
    x0 = fraction_matrix(rng.integers(-3, 4, size=(5, 1)))
    b = A.dot(x0).ravel()
    x = np.array(solve_q(A, b), dtype=object)
    assert (A.dot(x) == b).all()
    S = fraction_matrix(rng.integers(-4, 5, size=(4, 4)) + 9 * np.eye(4, dtype=np.int64))
    assert (S.dot(inverse_q(S)) == fraction_matrix(np.eye(4, dtype=np.int64))).all()


def test_the_bases_are_the_hand_written_eliminations():
    """The RREF is unique, so the nullspace basis and the solution are those of the eliminations replaced."""
    assert nullspace_q([[1, 2, 0, 3], [0, 0, 1, 4]]) == [
        [Fraction(-2), Fraction(1), Fraction(0), Fraction(0)], [Fraction(-3), Fraction(0), Fraction(-4), Fraction(1)]]
    assert solve_q([[2, 4], [0, 3]], [2, 3]) == [Fraction(-1), Fraction(1)]


def test_bad_input_is_named():
    with pytest.raises(DomainError):
        solve_q([[0, 0]], [1])
    with pytest.raises(DomainError):
        inverse_q([[1, 1], [1, 1]])
    with pytest.raises(InputError, match="square"):
        inverse_q([[1, 2]])
    with pytest.raises(InputError, match="b="):
        solve_q([[1, 2]], [1, 2])
    with pytest.raises(InputError, match="2-d"):
        rank_q([1, 2])
