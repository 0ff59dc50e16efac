"""Subnetwork certificates (Appendix C of the proximity-bias paper): made on the certify side from the analysis' data."""

from __future__ import annotations

import dataclasses

from algebra.certify.subnetwork import judge_subnetwork
from algebra.claims.proximity import cnn_claims
from algebra.claims.records import SubnetworkClaim
from algebra.geometry.cnn_proximity import NO_BIAS, cnn_proximity


def test_claims_certify_through_the_checker():
    """The catalogue's route: certificates the independent checker verifies, and the verdict they give."""
    from algebra.certify.rank import dimension_certificate
    from algebra.checker import check

    claims = cnn_claims(fast=True)
    e = dimension_certificate(claims[0].model, claimed=claims[0].claimed, relation=claims[0].relation)
    assert e.verdict == "confirmed" and (e.lower, e.upper) == (3, 3)  # Figure 6: dim F = 3
    for claim in [c for c in claims if isinstance(c, SubnetworkClaim)]:
        e, fields = judge_subnetwork(claim)
        sub = e.certificate["claim"]["subnetwork"]
        r = cnn_proximity(claim.model, claim.inactive)
        assert e.verdict == "confirmed" and sub["rank_exceeds"] and check(e.certificate), claim.id
        # the certificate's numbers are the sweep's: the rank at theta' reaches the one at the sweep's point, and
        # the proven bound of dim F' is the engine's certified upper bound
        assert e.lower >= r.rank and sub["dimension_at_most"] == r.dim_sub["upper_bound"] < e.lower
        assert fields["proven_lower"] == e.lower and fields["engine_verdict"] == r.verdict == NO_BIAS


def test_a_count_that_does_not_decide_reports_the_engines_verdict():
    """At theta' = 0 d phi has small rank: the certificate is still valid, its verdict out of reach, and the note
    gives the engine's verdict at a random point of F' (uncertified)."""
    c = cnn_claims(fast=True)[5]
    zero = dataclasses.replace(c, theta=(0,) * len(c.theta))
    e, fields = judge_subnetwork(zero)
    assert e.verdict == "out of reach" and not e.certificate["claim"]["subnetwork"]["rank_exceeds"]
    assert "this count does not decide" in e.certificate["claim"]["text"] and f"sweep's verdict (not certified here): {NO_BIAS}" in e.note
    assert fields["proven"].startswith(f"rank d phi >= {e.lower} at theta' <= 4")
