"""The ``block_rank`` producer and the catalogue's data-dimension judge (algebra.certify.block_rank)."""

import pytest

from algebra.certify.block_rank import block_rank_certificate, judge_data_dimension
from algebra.checker import check_verdict
from algebra.checker.index import row_mismatch
from algebra.claims.grokking import PAPER_EXPERIMENT, paper_size_claims
from algebra.claims.records import DataDimensionClaim, Hypothesis
from algebra.errors import InputError
from algebra.grokking.local_rank import block_lower_bound
from algebra.grokking.task import modular_addition


def test_witnesses_reach_the_block_ranks():
    """The minors' sides are the block ranks of block_lower_bound at the same point (one elimination route each)."""
    t = modular_addition(7, 0.4, 1)
    a, b = t.a[t.train], t.b[t.train]
    e = block_rank_certificate(7, 16, a, b)
    assert e.certificate["claim"]["blocks"] == block_lower_bound(7, 16, a, b)["blocks"]
    assert e.lower == e.upper == 7 * (len(a) - 1) and e.verdict == "confirmed"


def test_bad_input_is_refused_before_any_work():
    with pytest.raises(InputError, match="distinct training pairs"):
        block_rank_certificate(5, 4, [0, 0, 1], [1, 1, 2])
    with pytest.raises(InputError, match=r"entries in \[0, 5\)"):
        block_rank_certificate(5, 4, [0, 5], [1, 2])
    with pytest.raises(InputError, match="claimed"):
        block_rank_certificate(5, 4, [0, 1], [1, 2], claimed=-1)


def _claim(claimed, holds=True):
    return DataDimensionClaim("t", "grokking-basin-selection-llc", "Corollary 5.4", "s", 5, 10, 0.4, 0, claimed,
                              hypotheses=(Hypothesis("h", holds=holds),))


@pytest.mark.parametrize("claimed,holds,verdict", [(45, True, "confirmed"), (5 * 10 * 14, True, "refuted"),
                                                   (45, False, "hypothesis fails"),
                                                   (5 * 10 * 14, False, "refuted")])
def test_judge_derives_the_verdict_the_index_rule_accepts(claimed, holds, verdict):
    claim = _claim(claimed, holds)
    e, why, fields = judge_data_dimension(claim, 0, claim.source)
    assert why is None and e.verdict == verdict and "claimed" not in e.certificate  # the index row holds the claim
    check_verdict(e.certificate)
    row = dict(fields, id="t", kind="block_rank", verdict=e.verdict, section="claims")
    assert row_mismatch(row, {"kind": "block_rank", "claim": e.certificate["claim"]}) is None
    assert fields["proven"] == "dim = 45 (data map, 10 training pairs)" and fields["says"] == f"dim == {claimed}"


def test_paper_size_claim_states_the_papers_value_at_its_experiment():
    (c,) = paper_size_claims(fast=False)
    p, K = PAPER_EXPERIMENT["p"], PAPER_EXPERIMENT["width"]
    assert (c.p, c.width, c.train_fraction, c.split_seed) == (53, 1024, 0.4, 0)
    assert c.claimed == K * (3 * p - 1) and c.relation == "==" and all(h.holds for h in c.hypotheses)
    assert paper_size_claims(fast=True) == []
