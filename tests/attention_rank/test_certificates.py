"""Approximation-rank certificates: every route (float search, payloads, attention_rank
certificates checked by the independent checker) agrees on one table of cases, and the
regressions of issue 11 (truncated keys, zeroed Q, re-sealed claims) are refused."""

import copy
from fractions import Fraction

import numpy as np
import pytest

from algebra.attention_rank import certificates as C
from algebra.certify.attention import attention_rank_certificate
from algebra.certify.canonical import seal
from algebra.checker import Reject, check
from algebra.checker.attention import matrix_digest, render_attention_claim
from algebra.checker.core import exact_number
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


def _refused(cert, fragment=""):
    with pytest.raises(Reject, match=fragment):
        check(seal(cert))
    return True


@pytest.mark.parametrize("name", sorted(CASES))
def test_routes_agree(name):
    Q, K, beta, eps = CASES[name]
    out = C.approximation_rank_certificates(Q, K, beta, eps)
    cert = attention_rank_certificate(Q, K, beta, eps)
    lo, hi = C.certified_range(cert)
    m, n = Q.shape[0], K.shape[0]
    # the payload route and the certificate route prove the same bounds
    assert lo == out["lower_rank"] and hi == min(out["upper_rank"], m, n)
    for key in ("upper_svd", "upper_representative", "lower"):
        if out[key] is not None:
            assert C.check_interval_inequality(out[key])["verified"], key
    # identities: 1 <= lower <= upper <= min(m, n); the claim text is the rendering of the claim
    assert 1 <= lo <= hi <= min(m, n)
    assert cert["claim"]["text"] == render_attention_claim(cert["claim"])
    assert cert["claim"]["matrix"] == {"expression": "softmax_rows(beta * Q @ K^T)", "shape": [m, n],
                                       "sha256": matrix_digest(cert["matrix"])}
    # the approximant, rebuilt in float64 from the file alone, is within eps of A (an oracle apart from arb)
    A, up = C.attention_matrix(Q, K, beta), cert["approximant"]
    if up["method"] == "factors":
        L, R = (np.array([exact_number(x) for x in up[k]["data"]], dtype=float).reshape(up[k]["shape"]) for k in "LR")
        B = L @ R
        assert L.shape[1] == hi
    else:
        B = A if up["method"] == "full" else A[up["assign"]]
    assert C.row_l1_errors(A, B).max() <= eps * (1 - 1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_lower_bound_is_not_beaten_by_any_construction(name):
    """A proven r_eps >= lo means no rank < lo matrix is within eps: none of our upper
    constructions (truncated SVD at every k, representative rows) may get there."""
    Q, K, beta, eps = CASES[name]
    lo, _ = C.certified_range(attention_rank_certificate(Q, K, beta, eps))
    A = C.attention_matrix(Q, K, beta)
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    for k in range(lo):
        assert C.row_l1_errors(A, (U[:, :k] * s[:k]) @ Vt[:k]).max() > eps
    assert C.upper_rank_float(Q, K, beta, eps, method="representative") >= lo


def test_known_exact_values():
    # sharp identity: r_eps = n exactly; beta = 0: every row uniform, r_eps = 1
    assert C.certified_range(attention_rank_certificate(np.eye(6), np.eye(6), 8.0, 0.25)) == (6, 6)
    Q, K, beta, eps = CASES["uniform_beta0"]
    cert = attention_rank_certificate(Q, K, beta, eps)
    assert C.certified_range(cert) == (1, 1) and cert["approximant"]["method"] == "rows"
    assert cert["claim"]["eps"] == "3/20"  # the decimal the user typed, not binary64 0.15


def test_keys_beyond_128_are_not_truncated():
    """Issue 11: n = 130 keys, the last two dominate every row, so r_eps = 1.  The old code kept
    the first 128 keys, re-normalised, and 'certified' lower 5; the full matrix gives 1."""
    rng = np.random.default_rng(5)
    d, n = 6, 130
    K = rng.normal(size=(n, d))
    K[128:] = 0.0
    K[128:, 0] = 40.0
    Q = np.zeros((8, d))
    Q[:, 0] = 1.0
    Q[:, 1:] = 2.0 * np.eye(8)[:, :d - 1]  # peaked on different early keys if the last two are dropped
    cert = attention_rank_certificate(Q, K, 1.0, 0.25)
    assert C.certified_range(cert) == (1, 1)
    assert cert["claim"]["matrix"]["shape"] == [8, 130]
    A = C.attention_matrix(Q, K, 1.0)
    assert A[:, 128:].sum(axis=1).min() > 0.999  # the instance is what the docstring says


def test_zeroed_queries_cannot_keep_an_identity_lower_bound():
    """Issue 11: a lower certificate of softmax(6 I) with Q zeroed (true r_eps = 1) must fail,
    even with the claim's matrix digest updated and the file re-sealed."""
    cert = attention_rank_certificate(np.eye(5), np.eye(5), 6.0, 0.25)
    assert C.certified_range(cert) == (5, 5)
    bad = copy.deepcopy(cert)
    bad["matrix"]["Q"]["data"] = ["0"] * 25
    assert _refused(bad, "lower|claim")
    bad["claim"]["matrix"]["sha256"] = matrix_digest(bad["matrix"])  # now the claim names the new matrix
    assert _refused(bad, "lower")


@pytest.mark.parametrize("mutation, fragment", [
    (lambda c, lo, hi: c["claim"].update(value=[lo, 50]), "claim.value"),
    (lambda c, lo, hi: c["claim"].update(value=[lo + 1, hi]), "claim.value"),
    (lambda c, lo, hi: c["claim"].update(text=c["claim"]["text"].replace(f"<= {hi} ", f"<= {hi - 1} ")),
     "claim.text"),
    (lambda c, lo, hi: c["claim"].update(relation=">=", value=lo), "claim.relation"),
    (lambda c, lo, hi: c["claim"].update(norm="frobenius"), "claim.norm"),
    (lambda c, lo, hi: c["claim"].update(extra="x"), "claim.extra"),
    (lambda c, lo, hi: c["claim"]["matrix"].update(shape=[5, 5]), "claim.matrix"),
    (lambda c, lo, hi: c["claim"].update(eps="14/40"), "reduced"),
    (lambda c, lo, hi: c["claim"].update(eps="1/3"), "claim.text"),
    (lambda c, lo, hi: c["matrix"].update(beta="0x1.9p+1"), "claim.matrix"),
    (lambda c, lo, hi: c["selection"]["rows"].append(c["selection"]["rows"][0]), "distinct"),
    (lambda c, lo, hi: c["selection"].update(decoder=[0] * 16), "lower"),
    (lambda c, lo, hi: c["approximant"].update(method="magic"), "unknown upper method"),
    (lambda c, lo, hi: c.pop("approximant") and c.pop("selection"), "needs a lower or an upper"),
])
def test_resealed_forgeries_are_refused(mutation, fragment):
    """Each mutation changes what the file says; re-sealing the hash does not help."""
    Q, K, beta, eps = CASES["random_peaked"]
    cert = attention_rank_certificate(Q, K, beta, eps)
    lo, hi = C.certified_range(cert)
    assert cert["claim"]["relation"] == "in" and lo >= 2
    bad = copy.deepcopy(cert)
    mutation(bad, lo, hi)
    assert bad != cert
    assert _refused(bad, fragment)


def test_weaker_true_claim_is_still_refused():
    """The claim must be the derived one: a true but weaker value is a different claim."""
    cert = attention_rank_certificate(np.eye(6), np.eye(6), 8.0, 0.25)
    bad = copy.deepcopy(cert)
    bad["claim"]["value"] = 5
    bad["claim"]["relation"] = ">="
    bad["claim"]["text"] = render_attention_claim(bad["claim"])
    assert _refused(bad, "claim")


def test_upper_factor_tampering_is_refused():
    Q, K = _random_case(3, 16, 16, 3, 2.0)
    cert = attention_rank_certificate(Q, K, 3.0, 0.35)
    assert cert["approximant"]["method"] == "factors"
    bad = copy.deepcopy(cert)
    bad["approximant"]["L"]["data"][0] = "7"
    assert _refused(bad, "upper")


def test_explicit_lower_that_fails_raises():
    with pytest.raises(CertificateError):
        attention_rank_certificate(np.eye(4), np.eye(4), 0.0, 0.25, bounds="lower",
                                     lower=([0, 1], [0, 1, 0, 1]))


def test_number_round_trip():
    rng = np.random.default_rng(0)
    for x in rng.normal(size=50) * 10.0 ** rng.integers(-30, 30, size=50):
        assert exact_number(C.encode_number(float(x))) == float(x)
    assert exact_number(C.encode_number(Fraction(-22, 7))) == Fraction(-22, 7)


@pytest.mark.parametrize("bad", [
    dict(Q=np.ones((2, 2)), K=np.ones((2, 3)), beta=1.0, eps=0.2),
    dict(Q=np.ones((2, 2)), K=np.ones((2, 2)), beta=-1.0, eps=0.2),
    dict(Q=np.ones((2, 2)), K=np.ones((2, 2)), beta=1.0, eps=0.0),
    dict(Q=np.full((2, 2), np.nan), K=np.ones((2, 2)), beta=1.0, eps=0.2),
])
def test_bad_input(bad):
    with pytest.raises(InputError):
        C.approximation_rank_certificates(**bad)
    with pytest.raises(InputError):
        attention_rank_certificate(**bad)
    with pytest.raises(InputError):
        attention_rank_certificate(np.eye(2), np.eye(2), 1.0, 0.2, bounds="sideways")


def test_payloads_are_on_the_full_matrix():
    Q, K = _random_case(7, 40, 150, 3, 3.0)
    out = C.approximation_rank_certificates(Q, K, 2.0, 0.25)
    assert out["shape"] == [40, 150]
    assert out["upper_svd"]["arrays"]["K"]["shape"] == [150, 3]
    assert out["upper_svd"]["arrays"]["Q"]["shape"] == [40, 3]


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


def test_non_binary_eps_is_read_conservatively_in_payloads():
    Q, K = _random_case(11, 8, 8, 3, 3.0)
    out = C.approximation_rank_certificates(Q, K, 2.0, 0.15)
    assert Fraction(exact_number(out["upper_svd"]["bound"])) <= min(Fraction(3, 20), Fraction(0.15))
    if out["lower"] is not None:
        b = Fraction(exact_number(out["lower"]["bound"]))
        assert b <= Fraction(17, 20) and b <= 1 - Fraction(0.15)


def test_certificates_match_the_project_schema():
    pytest.importorskip("jsonschema")
    from algebra.certify.schema import validate

    for Q, K, beta, eps in CASES.values():
        cert = attention_rank_certificate(Q, K, beta, eps)
        assert validate(cert) is None  # raises CertificateError on a mismatch
        broken = {k: v for k, v in cert.items() if k != "matrix"}  # the kind requires the matrix it is about
        with pytest.raises(CertificateError, match="schema"):
            validate(broken)
