"""lambda = certified dimension / 2: quadratic networks, random features, NTK."""

from fractions import Fraction

import pytest

from algebra.errors import InputError
from algebra.slt.regular import (
    ntk_model,
    quadratic_network_coefficient,
    quadratic_network_paper_value,
    random_feature_model,
)


def test_quadratic_subabundant_agrees_with_corollary_4_2():
    lc = quadratic_network_coefficient(6, 3, 4)
    assert lc.lam == Fraction(16) and lc.extra["agrees_with_paper"] is True
    assert lc.extra["certified_dimension"] == 32 and lc.multiplicity == 1


def test_quadratic_single_output_is_defective_and_flagged():
    # One output: rank-K symmetric matrices have dimension K d - K(K-1)/2 < K d (Corollary 4.2's count).
    for d in range(2, 6):
        for K in range(2, d + 1):
            lc = quadratic_network_coefficient(d, 1, K)
            true_dim = K * d - K * (K - 1) // 2
            assert lc.extra["certified_dimension"] == true_dim
            assert lc.lam == Fraction(true_dim, 2)
            # K = d fills Sym(d): the paper's superabundant value is then right.
            assert lc.extra["agrees_with_paper"] is (K == d)
            assert ("defective" in lc.case) is (K < d)


@pytest.mark.parametrize("d,K", [(3, 3), (3, 4), (2, 5), (4, 2), (4, 3), (5, 1)])
def test_quadratic_with_bias_matches_theorems_g1_g2(d, K):
    lc = quadratic_network_coefficient(d, 1, K, bias=True)
    paper, which = quadratic_network_paper_value(d, 1, K, bias=True)
    assert which == ("Theorem G.1" if K >= d else "Theorem G.2")
    assert lc.extra["agrees_with_paper"] is True and lc.lam == paper


def test_lambda_never_exceeds_half_the_parameter_count():
    for d, p, K in [(3, 2, 5), (4, 2, 3), (2, 3, 2)]:
        lc = quadratic_network_coefficient(d, p, K)
        assert lc.lam <= Fraction(lc.extra["parameter_count"], 2)
        assert lc.lam <= Fraction(lc.extra["ambient_dimension"], 2)


def test_random_features_rank_and_paper():
    lc = random_feature_model(3, 2, 4, 10)
    assert lc.extra["rank_F"] == 4 and lc.extra["l"] == 6 and lc.lam == 4
    many = random_feature_model(3, 2, 9, 10)  # K > l: rank saturates at l = 6
    assert many.extra["rank_F"] == 6 and many.lam == 6 and many.extra["agrees_with_paper"] is True


def test_random_features_few_points():
    lc = random_feature_model(4, 1, 8, 3)  # n = 3 points: rank(F) <= 3
    assert lc.extra["rank_F"] == 3 and lc.lam == Fraction(3, 2)


def test_ntk_rank_is_capped_by_points():
    from algebra.models import QuadraticNetwork

    small = ntk_model(QuadraticNetwork(d=3, outputs=1, width=2), 4)
    assert small.lam == 2
    big = ntk_model(QuadraticNetwork(d=3, outputs=1, width=2), 12)
    assert big.lam == Fraction(5, 2)  # generic dimension 2*3 - 1 = 5


def test_bad_inputs():
    with pytest.raises(InputError) as info:
        quadratic_network_coefficient(0, 1, 1)
    assert info.value.argument == "d"
    with pytest.raises(InputError) as info:
        quadratic_network_coefficient(2, 1, 1, bias="yes")
    assert info.value.argument == "bias"
    with pytest.raises(InputError) as info:
        random_feature_model(2, 1, 2, 3, inputs=[[1, 2]])
    assert info.value.argument == "inputs"


def test_ntk_rejects_non_models():
    with pytest.raises(InputError) as info:
        ntk_model("mlp", 3)
    assert info.value.argument == "model"
