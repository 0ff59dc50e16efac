"""Round-to-nearest binary64 arithmetic (algebra.attention_rank.binary64)."""

import math
from fractions import Fraction

import numpy as np
import pytest

from algebra.attention_rank.binary64 import _row_slices, correctly_rounded, fsum, matmul, slice_bits
from algebra.errors import InputError

#: (name, A, B): every route (exact Fractions, matmul) must agree; entries near 2^+-60, exact cancellation,
#: a zero row, a 1 x 1 and an inner dimension of 1536 (MiniLM's intermediate width).
_RNG = np.random.default_rng(11)
CASES = [
    ("1x1", np.array([[3.0]]), np.array([[1 / 3]])),
    ("cancellation", np.array([[1.0, 2.0 ** -60, -1.0]]), np.array([[1.0], [1.0], [1.0]])),
    ("zero row", np.array([[0.0, 0.0], [1.5, -2.0]]), np.array([[2.0 ** 60, 1.0], [2.0 ** -60, 3.0]])),
    ("wide range", _RNG.standard_normal((6, 40)) * 2.0 ** _RNG.integers(-60, 60, (6, 40)),
     _RNG.standard_normal((40, 5)) * 2.0 ** _RNG.integers(-60, 60, (40, 5))),
    ("float32 weights, n = 1536", _RNG.standard_normal((3, 1536)),
     _RNG.standard_normal((1536, 4)).astype(np.float32).astype(np.float64)),
]


def _exact(A, B, bias=None):
    out = [[sum((Fraction(a) * Fraction(b) for a, b in zip(row, col)), Fraction(0)) for col in B.T] for row in A]
    if bias is not None:
        out = [[v + Fraction(c) for v, c in zip(row, bias)] for row in out]
    return [[float(v) for v in row] for row in out]


@pytest.mark.parametrize("name, A, B", CASES, ids=[c[0] for c in CASES])
def test_matmul_is_the_rounding_of_the_exact_product(name, A, B):
    bias = np.linspace(-1, 1, B.shape[1])
    assert matmul(A, B).tolist() == _exact(A, B)
    assert matmul(A, B, bias=bias).tolist() == _exact(A, B, bias)


@pytest.mark.parametrize("name, A, B", CASES, ids=[c[0] for c in CASES])
def test_slices_are_an_exact_split_of_bounded_integers(name, A, B):
    """Identity: sum_k S_k 2^g_k = A exactly, |S_k| < 2^b, integers: the premise of exact BLAS products."""
    bits = slice_bits(A.shape[1])
    S, g = _row_slices(A, bits)
    back = [[sum((Fraction(float(s[i, j])) * Fraction(2) ** int(gk[i]) for s, gk in zip(S, g)), Fraction(0))
             for j in range(A.shape[1])] for i in range(A.shape[0])]
    assert back == [[Fraction(float(v)) for v in row] for row in A]
    assert all(np.all(np.abs(s) < 2 ** bits) and np.array_equal(s, np.trunc(s)) for s in S)


def test_matmul_refuses_bad_input():
    with pytest.raises(InputError, match="A, B shapes"):
        matmul(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(InputError, match="non-finite"):
        matmul(np.array([[np.inf]]), np.ones((1, 1)))
    with pytest.raises(InputError, match="invalid n"):
        slice_bits(0)
    assert matmul(np.ones((2, 0)), np.ones((0, 3))).tolist() == [[0.0] * 3] * 2


def test_fsum_rounds_the_exact_sum_once():
    X = _RNG.standard_normal((7, 50)) * 2.0 ** _RNG.integers(-40, 40, (7, 50))
    assert fsum(X).tolist() == [float(sum(map(Fraction, row.tolist()))) for row in X]
    assert fsum(X.T, axis=0).tolist() == fsum(X).tolist()


@pytest.mark.parametrize("fn", ["exp", "erf"])
def test_correctly_rounded_against_mpmath(fn):
    """The nearest double by an independent route (mpmath at 200 bits), where the platform's libm may be off."""
    mpmath = pytest.importorskip("mpmath")
    x = np.concatenate([_RNG.standard_normal(300) * 4, [0.0, -745.0, 5e-324]])
    got = correctly_rounded(x, lambda t: getattr(t, fn)())
    with mpmath.workprec(200):
        for v, y in zip(x.tolist(), got.tolist()):
            sign, man, exp, _ = getattr(mpmath, fn)(mpmath.mpf(v))._mpf_
            assert y == float((-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(exp)), v
    assert math.isclose(got[0], getattr(math, fn)(x[0]), rel_tol=1e-15)
