"""Approximation-rank certificates: every route (float, our interval check,
the independent checker) agrees on one table of cases."""

import copy
from fractions import Fraction

import numpy as np
import pytest

from algebra.attention_rank import certificates as C
from algebra.errors import CertificateError, InputError


def _random_case(seed, m, n, d, scale):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(m, d)) * scale, rng.normal(size=(n, d))


# name -> (Q, K, beta, eps)
CASES = {
    "identity_sharp": (np.eye(6), np.eye(6), 8.0, 0.25),
    "uniform_beta0": (*_random_case(1, 8, 9, 3, 1.0), 0.0, 0.15),
    "random_mild": (*_random_case(2, 12, 10, 4, 1.0), 1.0, 0.25),
    "random_peaked": (*_random_case(3, 16, 16, 3, 2.0), 3.0, 0.35),
    "rectangular_1x5": (*_random_case(4, 1, 5, 2, 1.0), 2.0, 0.25),
    "tiny_1x1": (np.ones((1, 1)), np.ones((1, 1)), 1.0, 0.5),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_routes_agree(name, independent_check):
    Q, K, beta, eps = CASES[name]
    out = C.approximation_rank_certificates(Q, K, beta, eps)
    A = C.attention_matrix(Q, K, beta)
    # float route: the claimed errors are those of the constructions
    assert out["errors"]["upper_svd"] <= eps and out["errors"]["upper_representative"] <= eps
    for key in ("upper_svd", "upper_representative", "lower"):
        p = out[key]
        if p is None:
            continue
        assert C.check_interval_inequality(p)["verified"], key
        assert independent_check(p), key
    # identities: certified lower <= certified upper <= min(m, n)
    assert 1 <= out["lower_rank"] <= out["upper_rank"] <= min(A.shape)
    # the SVD payload's inner dimension is the certified rank
    assert out["upper_svd"]["arrays"]["L"]["shape"][1] == out["upper_svd_rank"]
    assert len(set(out["upper_representative"]["indices"]["assign"])) == out["upper_representative_rank"]


def test_beta_zero_is_rank_one():
    Q, K, beta, eps = CASES["uniform_beta0"]
    out = C.approximation_rank_certificates(Q, K, beta, eps)
    assert out["upper_rank"] == 1 and out["lower"] is None


def test_identity_lower_equals_upper():
    out = C.approximation_rank_certificates(np.eye(6), np.eye(6), 8.0, 0.25)
    assert out["lower_rank"] == out["upper_rank"] == 6


@pytest.mark.parametrize("key", ["upper_svd", "upper_representative", "lower"])
def test_tampered_payloads_fail(key, independent_check):
    Q, K, beta, eps = CASES["random_peaked"]
    p = C.approximation_rank_certificates(Q, K, beta, eps)[key]
    assert p is not None
    err = C.check_interval_inequality(p)
    # a bound just below the enclosure must be rejected by both checkers
    hi = float(err["target"].strip("[]").split(",")[0])
    bad = copy.deepcopy(p)
    bad["bound"] = C.encode_number(hi * (1 - 1e-6))
    assert not C.check_interval_inequality(bad)["verified"]
    assert not independent_check(bad)
    # a perturbed query entry changes the matrix; the check still runs
    bad2 = copy.deepcopy(p)
    bad2["program"][2]["args"] = ["S", "nonexistent"]
    with pytest.raises(CertificateError):
        C.check_interval_inequality(bad2)
    assert not independent_check(bad2)


def test_lower_certificate_bound_is_one_minus_eps():
    _, p, _ = C.lower_certificate(np.eye(4), np.eye(4), 6.0, 0.25)
    assert C.decode_number(p["bound"]) == Fraction(3, 4)
    assert p["relation"] == "<"


def test_lower_on_row_subset_is_lower_for_whole():
    # rows of the subsample are exact rows of the full matrix: re-indexing the
    # selection into the full Q gives a certificate for the full matrix
    Q, K = _random_case(7, 20, 20, 3, 3.0)
    out = C.approximation_rank_certificates(Q, K, 2.0, 0.25, max_rows=8, seed=3)
    assert out["subsampled"] and len(out["rows"]) == 8 and out["seed"] == 3
    p = out["lower"]
    assert p is not None
    full = copy.deepcopy(p)
    full["arrays"]["Q"] = C._array(Q)
    full["indices"]["sel"] = [out["lower_rows"][i] for i in p["indices"]["sel"]]
    assert C.check_interval_inequality(full)["verified"]
    assert out["lower_rank"] <= out["upper_svd_rank_full"]


def test_number_round_trip():
    rng = np.random.default_rng(0)
    for x in rng.normal(size=50) * 10.0 ** rng.integers(-30, 30, size=50):
        assert C.decode_number(C.encode_number(float(x))) == Fraction(float(x))
    assert C.decode_number(C.encode_number(Fraction(-22, 7))) == Fraction(-22, 7)


@pytest.mark.parametrize("bad", [
    dict(Q=np.ones((2, 2)), K=np.ones((2, 3)), beta=1.0, eps=0.2),
    dict(Q=np.ones((2, 2)), K=np.ones((2, 2)), beta=-1.0, eps=0.2),
    dict(Q=np.ones((2, 2)), K=np.ones((2, 2)), beta=1.0, eps=0.0),
    dict(Q=np.full((2, 2), np.nan), K=np.ones((2, 2)), beta=1.0, eps=0.2),
])
def test_bad_input(bad):
    with pytest.raises(InputError):
        C.approximation_rank_certificates(**bad)


def test_malformed_payload():
    p = C.upper_svd_certificate(np.eye(2), np.eye(2), 1.0, 0.5)[1]
    bad = copy.deepcopy(p)
    bad["arrays"]["Q"]["data"] = bad["arrays"]["Q"]["data"][:-1]
    with pytest.raises(CertificateError):
        C.check_interval_inequality(bad)
    bad = copy.deepcopy(p)
    bad["relation"] = "=="
    with pytest.raises(CertificateError):
        C.check_interval_inequality(bad)


def test_non_binary_eps_is_read_conservatively():
    Q, K = _random_case(11, 8, 8, 3, 3.0)
    out = C.approximation_rank_certificates(Q, K, 2.0, 0.15)
    assert C.decode_number(out["upper_svd"]["bound"]) <= Fraction(3, 20)
    assert C.decode_number(out["upper_svd"]["bound"]) <= Fraction(0.15)
    if out["lower"] is not None:
        assert C.decode_number(out["lower"]["bound"]) <= Fraction(17, 20)
        assert C.decode_number(out["lower"]["bound"]) <= 1 - Fraction(0.15)
