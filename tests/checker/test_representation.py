"""The ``score_representation`` kind (algebra.checker.representation): accepted on the catalogue's
designs, refused for forgeries.  Every mutation is re-sealed; the oracle is what the mutation means.

Theory used as the oracle: the group acts freely on the inputs ``[m, h] -> [m, g h]``, so every
orbit of score coordinates is regular and ``rho_score`` is ``n / |G|`` copies of the regular
representation: ``rank Pi_rho = d_rho^2 n / |G|`` (Serre 1977, Section 2.4).
"""

from __future__ import annotations

import copy

import pytest

from algebra.certify.canonical import seal
from algebra.certify.representation import representation_certificate
from algebra.checker import Reject, check
from algebra.checker.core import digest
from algebra.checker.representation import cyclotomic, derive_representation_claim, render_representation_claim
from algebra.claims.graph_attention import GRAPH_DESIGNS, graph_design

DESIGNS = {row[0]: row for row in GRAPH_DESIGNS}
# every family; symmetric4 takes the Burnside-Dixon route, radius 0 and constant features the failing designs
ACCEPTED = ["cyclic8-d4-k2-r1", "dihedral5-d4-k3-r1", "torus3x3-d3-k2-r1", "hypercube3-d4-k3-r3",
            "symmetric4-d3-k2-r1", "cyclic8-d4-k2-r1-radius0", "cyclic8-d4-k2-r1-constant"]


def _design(tag):
    _, graph, d, k, r, options, _ = DESIGNS[tag]
    return graph_design(graph, d, k, r, options)


@pytest.fixture(scope="module")
def certificates() -> dict:
    return {tag: representation_certificate(_design(tag)).certificate for tag in ACCEPTED}


@pytest.fixture
def cyclic(certificates) -> dict:
    return copy.deepcopy(certificates["cyclic8-d4-k2-r1"])


def refused(cert) -> str:
    """The checker's reason for refusing ``cert`` (re-sealed); fails the test when it is accepted."""
    with pytest.raises(Reject) as info:
        check(seal(cert))
    return str(info.value)


def same_claim_new_data(cert) -> dict:
    """A forger who keeps the claim but points it at the edited data (sha256 and text updated)."""
    claim = cert["claim"]
    claim["about"]["representation_sha256"] = digest(cert["representation"])
    claim["text"] = render_representation_claim(claim)
    return cert


def rederived(cert) -> dict:
    """A forger who re-derives the claim with the checker's own code after editing the data."""
    cert["claim"] = derive_representation_claim(cert, [])
    return seal(cert)


@pytest.mark.parametrize("tag", ACCEPTED)
def test_accepted_on_the_designs_with_the_regular_representation_ranks(certificates, tag):
    cert = certificates[tag]
    assert "score_representation" in check(cert)
    claim = cert["claim"]
    about, n = claim["about"], claim["about"]["score_dimension"]
    assert claim["invariant"] and claim["difference"] is None
    assert [c["rank"] for c in claim["components"]] == [c["dimension"] ** 2 * n // about["group_order"]
                                                        for c in claim["components"]]
    assert sum(c["dimension"] ** 2 for c in claim["components"]) == about["group_order"]


def test_ranks_agree_with_the_library_score_space():
    """The library's route (float characters on ScoreSpace.perms) gives the same isotypic dimensions."""
    from algebra.graph.fisher import score_space

    design = _design("dihedral5-d4-k3-r1")
    S = score_space(design)
    e = representation_certificate(design)
    assert [c["rank"] for c in e.certificate["claim"]["components"]] == \
        [m * d for m, d in zip(S.multiplicities(), S.table.degrees)]
    assert e.lower == S.dim


@pytest.mark.parametrize("n", [1, 2, 3, 4, 6, 8, 9, 10, 12, 15, 30, 60])
def test_cyclotomic_polynomials_match_flint(n):
    flint = pytest.importorskip("flint")
    assert cyclotomic(n) == [int(c) for c in flint.fmpz_poly.cyclotomic(n).coeffs()]


# -- forgeries -----------------------------------------------------------------------------
def test_a_permutation_that_is_not_an_automorphism_is_refused(cyclic):
    elements = cyclic["representation"]["group"]["elements"]
    elements[3] = [1, 0] + list(range(2, 8))  # the transposition (0 1) maps the edge {1, 2} to {0, 2}
    elements.sort()  # the elements are a set: listed in increasing order
    assert "is not an automorphism" in refused(cyclic)


def test_an_edge_list_the_group_does_not_preserve_is_refused(cyclic):
    cyclic["representation"]["graph"]["edges"].append([0, 4])  # a chord: the rotations move it
    cyclic["representation"]["graph"]["edges"].sort()
    assert "is not an automorphism" in refused(cyclic)


def test_a_table_that_is_not_closed_is_refused(cyclic):
    del cyclic["representation"]["group"]["elements"][5]  # rotations of C_8 without one: not a group
    assert "not closed under composition" in refused(cyclic)


@pytest.mark.parametrize("change", ["coefficient", "duplicate", "degree", "conjugate"])
def test_a_changed_character_is_refused(cyclic, change):
    irreps = cyclic["representation"]["characters"]["irreps"]
    if change == "coefficient":  # chi_1(g) = E(8) -> E(8)^2 and chi_1(g^-1) -> E(8)^-2: still a conj-symmetric
        for g, step in ((1, 1), (7, -1)):  # class function of degree 1; orthogonality must catch it
            v = irreps[1]["values"][g]
            k = v.index(1)
            v[k], v[(k + step) % 8] = 0, 1
    elif change == "duplicate":  # two equal characters: E_a E_b != 0
        irreps[2]["values"] = copy.deepcopy(irreps[1]["values"])
    elif change == "degree":  # the trivial character doubled: 2 at e, a class function, but not irreducible
        irreps[0]["values"] = [[2 * x for x in v] for v in irreps[0]["values"]]
    else:  # chi_1 replaced by chi_1 at g^-1 only on one element: no longer conj-symmetric
        irreps[1]["values"][1] = copy.deepcopy(irreps[1]["values"][7])
    assert {"coefficient": "orthogonality", "duplicate": "orthogonality", "degree": "squared degrees",
            "conjugate": "conj"}[change] in refused(cyclic)


def test_a_character_table_of_the_wrong_size_is_refused(cyclic):
    del cyclic["representation"]["characters"]["irreps"][-1]
    assert "7 characters for 8 conjugacy classes" in refused(cyclic)


@pytest.mark.parametrize("what", ["feature", "bias"])
def test_an_altered_input_breaks_invariance_and_the_claim_is_refused(cyclic, what):
    design = cyclic["representation"]["design"]
    if what == "feature":
        row = design["inputs"][9]["features"][2]
        row[0] = float.hex(float.fromhex(row[0]) * (1 + 2**-40))
    else:
        design["bias"][3][1] = "1/3"
    assert "claim.about differs" in refused(copy.deepcopy(cyclic))  # the data's sha256 is part of the claim
    assert "claim.difference differs" in refused(same_claim_new_data(copy.deepcopy(cyclic)))
    forged = rederived(cyclic)  # re-deriving gives a true claim: (14) is NOT derived, and the text says why
    assert not forged["claim"]["invariant"] and "not invariant" in forged["claim"]["text"]
    assert ("node" in forged["claim"]["difference"]) == (what == "feature")
    check(forged)


def test_an_input_that_is_missing_or_relabelled_is_refused(cyclic):
    design = cyclic["representation"]["design"]
    c2 = copy.deepcopy(cyclic)
    del c2["representation"]["design"]["inputs"][10]
    assert "not closed under the group" in refused(c2)
    a, b = design["inputs"][8]["features"], design["inputs"][9]["features"]
    design["inputs"][8]["features"], design["inputs"][9]["features"] = b, a  # relabelled: no longer P_h F_m
    assert "claim.difference differs" in refused(same_claim_new_data(cyclic))


def test_a_radius_that_does_not_match_the_biases_is_refused(cyclic):
    cyclic["representation"]["design"]["radius"] = 2
    assert "one exact number per visible node" in refused(cyclic)


@pytest.mark.parametrize("edit", ["text", "rank", "multiplicity", "invariant", "score_dimension"])
def test_an_edited_claim_is_refused(cyclic, edit):
    claim = cyclic["claim"]
    if edit == "text":
        claim["text"] = claim["text"].replace("Pi_1: 1 x 192 = 192", "Pi_1: 1 x 193 = 193")
        assert "193" in claim["text"]
    elif edit == "rank":
        claim["components"][1]["rank"] += 1
    elif edit == "multiplicity":
        claim["components"][0]["multiplicity"] -= 1
    elif edit == "invariant":
        claim["invariant"] = False
    else:
        claim["about"]["score_dimension"] += 1
    assert "differs from what the data prove" in refused(cyclic)


def test_a_design_with_biases_not_constant_on_orbits_gives_hypothesis_fails():
    """The library's verdict on a broken design comes from the derived claim, not a constant."""
    import dataclasses

    import numpy as np

    design = graph_design("cyclic:4", 2, 1, 1, {"num_draws": 1})
    noisy = np.where(np.isnan(design.bias), np.nan, np.arange(design.bias.size).reshape(design.bias.shape) / 7)
    e = representation_certificate(dataclasses.replace(design, bias=noisy))
    assert e.verdict == "hypothesis fails" and "pair" in e.certificate["claim"]["difference"]
    check(e.certificate)
    assert representation_certificate(design).verdict == "confirmed"
