"""Plücker coordinates (galgebra's exterior product) against determinants computed by sympy."""

from itertools import combinations

import numpy as np
import pytest
import sympy

from algebra.errors import InputError
from algebra.geometry.exterior import minors, plucker_coordinates


@pytest.mark.parametrize("r,n,seed", [(1, 3, 0), (2, 4, 1), (3, 4, 2), (3, 5, 3), (4, 4, 4)])
def test_wedge_coordinates_are_the_maximal_minors(r, n, seed):
    A = np.random.default_rng(seed).integers(-5, 6, size=(r, n))
    M = sympy.Matrix(A.tolist())
    expected = [M.extract(list(range(r)), list(cols)).det() for cols in combinations(range(n), r)]
    assert plucker_coordinates(A.tolist()) == expected


def test_dependent_rows_have_zero_wedge_and_rank_is_the_largest_nonzero_wedge():
    rng = np.random.default_rng(7)
    B = rng.integers(-4, 5, size=(2, 5))
    A = rng.integers(-3, 4, size=(4, 2)) @ B  # rank 2
    M = sympy.Matrix(A.tolist())
    assert minors(M, 3) == []
    assert minors(M, 2) != []


def test_symbolic_plucker_relation():
    # the Grassmannian G(2, 4): p12 p34 - p13 p24 + p14 p23 = 0 for any two vectors
    a = sympy.symbols("a0:4")
    b = sympy.symbols("b0:4")
    p12, p13, p14, p23, p24, p34 = plucker_coordinates([list(a), list(b)])
    assert sympy.expand(p12 * p34 - p13 * p24 + p14 * p23) == 0


def test_bad_input_is_refused():
    with pytest.raises(InputError, match="rows"):
        plucker_coordinates([["x", "y"]])
    with pytest.raises(InputError, match="rows"):
        plucker_coordinates([[1, 2], [1]])
