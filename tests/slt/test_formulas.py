"""Closed-form learning coefficients: known values, cross-checks between theorems, input errors."""

from fractions import Fraction
from itertools import product

import pytest

from algebra.errors import InputError
from algebra.slt.formulas import (
    LearningCoefficient,
    deep_linear_network,
    query_key,
    query_key_closed_forms,
    reduced_rank_regression,
    regular_model_coefficient,
)

# (M, N, H, r) -> (lambda, m, case number), computed by hand from Aoyagi & Watanabe (2005).
RRR_KNOWN = [
    ((1, 1, 1, 0), Fraction(1, 2), 2, 1),   # K = a^2 b^2
    ((5, 4, 3, 1), Fraction(7), 2, 1),      # (2*4*9 - 1 - 16 + 1)/8
    ((2, 2, 2, 0), Fraction(3, 2), 1, 1),   # (2*2*4 - 0 - 4)/8
    ((1, 8, 1, 0), Fraction(1, 2), 1, 2),   # M+H < N+r: (HM - Hr + Nr)/2
    ((8, 3, 2, 1), Fraction(2 * 3 - 2 + 8, 2), 1, 3),  # N+H < M+r
    ((2, 2, 5, 0), Fraction(2), 1, 4),      # M+N < H+r: MN/2
    ((3, 3, 3, 3), Fraction(9, 2), 1, 1),   # full rank: regular, MN/2... (2*6*6 - 0 - 36)/8
]


@pytest.mark.parametrize("args,lam,m,case", RRR_KNOWN, ids=[str(a[0]) for a in RRR_KNOWN])
def test_rrr_known_values(args, lam, m, case):
    lc = reduced_rank_regression(*args)
    assert (lc.lam, lc.multiplicity) == (lam, m)
    assert lc.case.startswith(f"case {case}")
    assert isinstance(lc.lam, Fraction)


def test_rrr_full_rank_is_regular():
    # r = min(M, N) = H: the model is regular of dimension H(M + N) - H^2.
    for M, N in product(range(1, 7), repeat=2):
        H = min(M, N)
        lc = reduced_rank_regression(M, N, H, H)
        assert lc.lam == regular_model_coefficient(H * (M + N) - H * H).lam
        assert lc.multiplicity == 1


def test_rrr_symmetric_in_input_output():
    for M, N, H in product(range(1, 7), repeat=3):
        for r in range(min(M, N, H) + 1):
            a, b = reduced_rank_regression(M, N, H, r), reduced_rank_regression(N, M, H, r)
            assert (a.lam, a.multiplicity) == (b.lam, b.multiplicity)


def test_rrr_bounded_by_half_parameter_count_and_monotone_in_r():
    for M, N, H in product(range(1, 7), repeat=3):
        lams = [reduced_rank_regression(M, N, H, r).lam for r in range(min(M, N, H) + 1)]
        assert all(0 < lam <= Fraction(H * (M + N), 2) for lam in lams)
        assert lams == sorted(lams)


def test_rrr_multiplicity_two_only_in_case_one_odd():
    for M, N, H in product(range(1, 7), repeat=3):
        for r in range(min(M, N, H) + 1):
            lc = reduced_rank_regression(M, N, H, r)
            central = N + r <= M + H and M + r <= N + H and H + r <= M + N
            assert lc.multiplicity == (2 if central and (M + N + H + r) % 2 else 1)


def test_dln_two_layers_equals_aoyagi_watanabe_for_all_widths_up_to_8():
    count = 0
    for M, H, N in product(range(1, 9), repeat=3):
        for r in range(min(M, N, H) + 1):
            dln = deep_linear_network([M, H, N], r)
            aw = reduced_rank_regression(M, N, H, r)
            assert (dln.lam, dln.multiplicity) == (aw.lam, aw.multiplicity), (M, H, N, r)
            count += 1
    assert count == 1808


def test_dln_one_layer_is_regular():
    for a, b in product(range(1, 6), repeat=2):
        for r in range(min(a, b) + 1):
            lc = deep_linear_network([a, b], r)
            assert (lc.lam, lc.multiplicity) == (Fraction(a * b, 2), 1)


def test_dln_reversal_symmetry_and_bounds():
    for ws in product(range(1, 5), repeat=4):
        for r in range(min(ws) + 1):
            a, b = deep_linear_network(list(ws), r), deep_linear_network(list(ws[::-1]), r)
            assert (a.lam, a.multiplicity) == (b.lam, b.multiplicity)
            params = sum(x * y for x, y in zip(ws, ws[1:]))
            assert 0 < a.lam <= Fraction(params, 2)


def test_dln_known_value():
    # Hand computation: D = (3,2,2,4), Sigma = first three, l = 2, S = 7, a = 1:
    # (-1 + 9)/2 + 1/8 - (1/2)(7/2)^2 + (4 + 6 + 6)/2 = 6, m = 2.
    lc = deep_linear_network((4, 3, 3, 5), 1)
    assert (lc.lam, lc.multiplicity) == (Fraction(6), 2)
    assert "l = 2" in lc.case and "a = 1" in lc.case


def test_dln_bottleneck_of_true_rank_is_regular():
    # A hidden width equal to the true rank r >= 1: the product is a smooth point of the
    # rank-r matrices, of dimension r(M + N) - r^2, so lambda is half of that with m = 1.
    for M, N in product(range(1, 6), repeat=2):
        for r in range(1, min(M, N) + 1):
            lc = deep_linear_network([M, r, N], r)
            assert (lc.lam, lc.multiplicity) == (Fraction(r * (M + N) - r * r, 2), 1)


@pytest.mark.parametrize("d", range(1, 9))
def test_query_key_44_equals_46_equals_aoyagi_watanabe(d):
    for k in range(1, d + 1):
        for r in range(k + 1):
            forms = query_key_closed_forms(d, k, r)
            aw = reduced_rank_regression(d, d, k, r)
            qk = query_key(d, k, r)
            assert forms["44"] == forms["46"] == aw.lam == qk.lam, (d, k, r)
            assert qk.multiplicity == aw.multiplicity == (1 if (k - r) % 2 == 0 else 2)


def test_query_key_full_rank_is_theorem_1():
    for d in range(1, 7):
        for k in range(1, d + 1):
            lc = query_key(d, k, k)
            assert lc.lam == Fraction(2 * d * k - k * k, 2) and lc.multiplicity == 1
            assert "Theorem 1" in lc.theorem


def test_to_json_is_exact_string():
    out = reduced_rank_regression(3, 3, 1, 0).to_json()
    assert out == {
        "lambda": "3/2",
        "multiplicity": 2,
        "theorem": "Aoyagi & Watanabe (2005), Main Theorem",
        "case": "case 1 (N+r <= M+H, M+r <= N+H, H+r <= M+N), M+N+H+r odd",
        "inputs": {"M": 3, "N": 3, "H": 1, "r": 0},
    }
    assert isinstance(reduced_rank_regression(3, 3, 1, 0), LearningCoefficient)


BAD = [
    (reduced_rank_regression, (0, 1, 1, 0), "M"),
    (reduced_rank_regression, (1, 1, 1, 2), "r"),
    (reduced_rank_regression, (1, 1, 1, -1), "r"),
    (reduced_rank_regression, (1.5, 1, 1, 0), "M"),
    (reduced_rank_regression, (True, 1, 1, 0), "M"),
    (deep_linear_network, ([3], 0), "widths"),
    (deep_linear_network, ("3,4", 0), "widths"),
    (deep_linear_network, ([3, 0, 2], 0), "widths"),
    (deep_linear_network, ([3, 2], 3), "r"),
    (query_key, (3, 4, 0), "k"),
    (query_key, (3, 2, 3), "r"),
    (query_key, (0, 1, 0), "d"),
    (regular_model_coefficient, (-1,), "rank"),
    (regular_model_coefficient, ("3",), "rank"),
]


@pytest.mark.parametrize("fn,args,argument", BAD, ids=[f"{f.__name__}{a}" for f, a, _ in BAD])
def test_bad_input_names_the_argument(fn, args, argument):
    with pytest.raises(InputError) as info:
        fn(*args)
    assert info.value.argument == argument


def test_widths_accept_any_integer_sequence():
    np = pytest.importorskip("numpy")
    assert deep_linear_network(np.array([4, 3, 5]), 1).lam == deep_linear_network((4, 3, 5), 1).lam
