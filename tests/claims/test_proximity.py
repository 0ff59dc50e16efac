"""The proximity-bias paper's claims: the CNN claims are catalogue objects on the subnetworks they name."""

from __future__ import annotations

import numpy as np

from algebra.claims import PROXIMITY
from algebra.claims.proximity import cnn_claims, stratum_claims, submodel_claims
from algebra.claims.records import DimensionClaim, SubnetworkClaim
from algebra.geometry.cnn_proximity import SWEEP_CASES, _reader
from algebra.models import PolynomialMap


def test_claims_are_catalogue_objects():
    claims = cnn_claims(fast=True)
    assert len({c.id for c in claims}) == len(claims) == 9  # Figure 6 (5), one fixed subnetwork, 3 sweep cases
    fig6 = [c for c in claims if isinstance(c, DimensionClaim)]
    assert len(fig6) == 5 and all(isinstance(c.model, PolynomialMap) for c in fig6)
    subs = [c for c in claims if isinstance(c, SubnetworkClaim)]
    assert [c.id for c in subs][0] == "proximity-cnn-inactive-4-2-1-2-t2-1"  # the id of the earlier polynomial-map claim
    assert all(c.paper == "proximity-bias-submodels" and c.group == "cnn" for c in claims)
    full = cnn_claims(fast=False)
    assert sum(c.id.startswith("proximity-cnn-sweep-") for c in full) == len(SWEEP_CASES) == 84
    assert len({c.id for c in full}) == len(full)
    for c in subs:  # the point lies on the subnetwork (outgoing weights zero), the rest is nonzero somewhere
        blocks = c.model.unpack(np.array(c.theta))
        for layer, chans in c.inactive.items():
            for ch in chans:
                name, index = _reader(c.model, layer, ch)
                assert not np.any(blocks[name][index]) and np.any(blocks[f"W{layer}"][ch])


def test_stated_counts_follow_the_papers_formulas():
    """Each lightning-attention claim states the paper's closed form at its own (d, d', t): not one number for all."""
    claims = {c.id: c for c in submodel_claims(fast=False)}
    assert claims["proximity-attention-multi-d4-dp3-t2"].claimed == 4 * 4 + 4 * 3 - 1  # d^2 + d d' - 1
    assert claims["proximity-attention-single-d5-dp2"].claimed == 5 * 2 + 15 - 1  # d d' + binom(d+1, 2) - 1
    strata = stratum_claims(fast=False)
    assert len(strata) == 8 and all(c.paper == PROXIMITY and c.group == "singular" for c in strata)
    assert all(c.model.parameter_count == int(c.id.split("-d")[1][0]) ** 2 + int(c.id.split("-d")[1][0])
               * int(c.id.split("-dp")[1]) for c in strata)  # (B, Vdot): d^2 + d' d parameters
