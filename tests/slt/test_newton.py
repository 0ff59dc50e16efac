"""Newton-polyhedron RLCT: monomials, known polynomials, agreement with Aoyagi-Watanabe."""

from fractions import Fraction

import numpy as np
import pytest

from algebra.errors import DomainError, InputError
from algebra.models.polynomial import parse_polynomial
from algebra.slt.formulas import query_key, reduced_rank_regression
from algebra.slt.newton import compact_faces, newton_rlct, sum_of_squares


def test_monomials_with_monomial_prior_random():
    # K = w^a with prior w^h: lambda = min_i (h_i + 1)/a_i, m = #argmin (issue 5).
    rng = np.random.default_rng(5)
    for _ in range(40):
        n = int(rng.integers(1, 4))
        a = tuple(int(2 * k) for k in rng.integers(0, 4, n))
        if sum(a) == 0:
            continue
        h = [int(k) for k in rng.integers(0, 3, n)]
        ratios = [Fraction(hi + 1, ai) for hi, ai in zip(h, a) if ai]
        res = newton_rlct({a: 1}, prior_exponents=h)
        assert res.lam == min(ratios)
        assert res.multiplicity == ratios.count(min(ratios))
        assert res.nondegenerate == "yes"


KNOWN = [
    ("x^2*y^2", Fraction(1, 2), 2),
    ("x^2*y^4 + z^6", Fraction(5, 12), 1),
    ("x^2 + y^2 + z^2", Fraction(3, 2), 1),
    ("x^2 + y^4", Fraction(3, 4), 1),
    ("x^4 + x^2*y^2 + y^4", Fraction(1, 2), 1),
    ("x^2*y^2 + x^2*z^2", Fraction(1, 2), 1),
]


@pytest.mark.parametrize("text,lam,m", KNOWN, ids=[k[0] for k in KNOWN])
def test_known_polynomials(text, lam, m):
    res = newton_rlct(parse_polynomial(text))
    assert (res.lam, res.multiplicity, res.nondegenerate) == (lam, m, "yes")
    # Certificate identities: the normal supports Gamma at level t and <a, v> = 1.
    t, a = res.distance, res.normal
    assert all(x >= 0 for x in a) and sum(a) == 1
    for e in parse_polynomial(text).terms:
        assert sum(ai * ei for ai, ei in zip(a, e)) >= t
    assert sum(res.weights) == 1


def test_degenerate_polynomial_gives_only_a_bound():
    res = newton_rlct(parse_polynomial("(x - y)^2"))
    assert res.nondegenerate == "no" and not res.exact
    assert res.lam == 1  # true lambda is 1/2 <= 1
    with pytest.raises(DomainError):
        res.to_learning_coefficient()
    assert res.to_json()["lambda_is"] == "upper bound"


def test_sum_of_squares_of_an_ideal():
    # Ideal (x*y, z^2): K = x^2 y^2 + z^4.  Independent blocks add: lambda = 1/2 + 1/4 and
    # m = 2 + 1 - 1 (x^2 y^2 has m = 2).
    K = sum_of_squares([{(1, 1, 0): 1}, {(0, 0, 2): 1}])
    assert K == {(2, 2, 0): 1, (0, 0, 4): 1}
    res = newton_rlct(K)
    # t (1,1,1) = (2/3)(2,2,0) + (1/3)(0,0,4) at t = 4/3: the point is on a compact edge (codim 2).
    assert res.lam == Fraction(3, 4) and res.multiplicity == 2
    assert res.face == ((0, 0, 4), (2, 2, 0)) and res.face_directions == ()


def _rrr_rank_zero(M, N, H):
    sympy = pytest.importorskip("sympy")
    A = sympy.Matrix(H, M, lambda i, j: sympy.Symbol(f"a{i}{j}"))
    B = sympy.Matrix(N, H, lambda i, j: sympy.Symbol(f"b{i}{j}"))
    K = sum(e**2 for e in B * A)
    return sympy.Poly(sympy.expand(K), *(list(A) + list(B)))


@pytest.mark.parametrize("M,N", [(1, 1), (1, 2), (2, 2), (1, 3)])
def test_newton_equals_aoyagi_watanabe_for_width_one(M, N):
    # H = 1, r = 0: K = (sum a^2)(sum b^2) is non-degenerate, so the Newton value is exact.
    res = newton_rlct(_rrr_rank_zero(M, N, 1))
    aw = reduced_rank_regression(M, N, 1, 0)
    assert res.nondegenerate == "yes"
    assert (res.lam, res.multiplicity) == (aw.lam, aw.multiplicity)
    lc = res.to_learning_coefficient()
    assert lc.lam == aw.lam


def test_newton_equals_query_key_rank_zero_width_one():
    res = newton_rlct(_rrr_rank_zero(2, 2, 1))
    qk = query_key(2, 1, 0)
    assert (res.lam, res.multiplicity) == (qk.lam, qk.multiplicity)


def test_newton_is_an_upper_bound_when_degenerate():
    # H = 2, M = N = 1: K = (a1 b1 + a2 b2)^2 is degenerate; 1/t bounds lambda from above.
    res = newton_rlct(_rrr_rank_zero(1, 1, 2))
    assert res.nondegenerate == "no"
    assert res.lam >= reduced_rank_regression(1, 1, 2, 0).lam


def test_compact_faces_of_a_triangle():
    faces = compact_faces([(2, 0), (1, 1), (0, 2), (2, 2)])
    assert faces == [(0,), (0, 1, 2), (2,)]  # (2,2) is interior; (1,1) is not a vertex


@pytest.mark.parametrize(
    "K,argument",
    [({(0, 0): 1, (2, 0): 1}, "K"), ({(1, 0): 1}, "K"), ({(2, 0): -1}, "K"), ({}, "K"), ({(2, 0): 1, (0, 2): 1}, "prior_exponents")],
)
def test_bad_inputs(K, argument):
    with pytest.raises(InputError) as info:
        if argument == "prior_exponents":
            newton_rlct(K, prior_exponents=[1])
        else:
            newton_rlct(K)
    assert info.value.argument == argument


def _dln_rank_zero(widths):
    sympy = pytest.importorskip("sympy")
    mats, gens = [], []
    for layer, (a, b) in enumerate(zip(widths, widths[1:])):
        W = sympy.Matrix(b, a, lambda i, j, layer=layer: sympy.Symbol(f"w{layer}_{i}{j}"))
        mats.append(W)
        gens += list(W)
    P = mats[0]
    for W in mats[1:]:
        P = W * P
    return sympy.Poly(sympy.expand(sum(e**2 for e in P)), *gens)


@pytest.mark.parametrize("widths", [(1, 1, 1, 1), (1, 1, 1, 1, 1), (1, 1, 1, 2), (2, 1, 1, 2), (3, 1, 1, 1), (2, 1, 1, 1, 2)])
def test_newton_equals_aoyagi_2024_for_deep_bottlenecks(widths):
    # Width-one bottlenecks, r = 0: K = prod a_i^2 * (sum b^2)(sum c^2) is non-degenerate,
    # so the Newton value checks Aoyagi's lambda *and* his order a(l - a) + 1 beyond two layers.
    from algebra.slt.formulas import deep_linear_network

    res = newton_rlct(_dln_rank_zero(widths))
    lc = deep_linear_network(list(widths), 0)
    assert res.nondegenerate == "yes"
    assert (res.lam, res.multiplicity) == (lc.lam, lc.multiplicity)


@pytest.mark.parametrize(
    "text,lam,m",
    [
        ("x^2 - x*y + y^2", Fraction(1), 1),  # edge polynomial with no real root: exact root isolation
        ("x^2 + y^2 + z^2 - x*y", Fraction(3, 2), 1),  # 2-dimensional face: Groebner basis is [1]
        ("x^2 - x*y^2 + y^4 + z^2", Fraction(1, 2) + Fraction(1, 4) + Fraction(1, 2), 1),
    ],
)
def test_nondegenerate_with_negative_coefficients(text, lam, m):
    res = newton_rlct(parse_polynomial(text))
    assert res.nondegenerate == "yes", res.reason
    assert (res.lam, res.multiplicity) == (lam, m)


def test_degenerate_two_dimensional_face():
    # (x - y)^2 + (y - z)^2 vanishes on x = y = z, inside the torus.
    res = newton_rlct(parse_polynomial("(x - y)^2 + (y - z)^2"))
    assert res.nondegenerate == "no" and "vanishes" in res.reason
