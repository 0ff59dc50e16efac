"""The ``block_rank`` kind (issue 35 item 5): block minors at a sparse point and the cap ``p (N - 1)``, derived.

A small instance (p = 5) against the engine's certified dimension of the same data map; re-sealed forgeries
(a witness index, the point, p / K, the claimed value) refused; the budget projected before the point is read;
the pure-Python fallback; the index row rule; the paper's file (p = 53, K = 1024) in the slow suite.
"""

import json
from pathlib import Path

import pytest

from algebra.certify.block_rank import block_rank_certificate
from algebra.certify.canonical import seal
from algebra.checker import Reject, check, check_verdict
from algebra.checker import block_rank as br
from algebra.checker import core
from algebra.checker.index import row_mismatch
from algebra.grokking.task import modular_addition

CERTIFICATES = Path(__file__).parents[2] / "certificates"


def _resealed(cert, edit):
    c = json.loads(json.dumps(cert))
    edit(c)
    return seal(c)


@pytest.fixture(scope="module")
def small():
    """p = 5, K = 10, f = 0.4 (N = 10): every block reaches N - 1 = 9, so the cap 45 is met."""
    t = modular_addition(5, 0.4, 3)
    a, b = t.a[t.train], t.b[t.train]
    return a, b, block_rank_certificate(5, 10, a, b).certificate


def test_small_instance_is_the_engines_certified_dimension(small):
    """Identity across routes: the block certificate's exact rank is the engine's certified generic rank."""
    from algebra.engine import dimension
    from algebra.grokking.references import DataRestrictedQuadratic

    a, b, cert = small
    assert "block_rank" in check(cert)
    c = cert["claim"]
    d = dimension(DataRestrictedQuadratic(5, 10, a, b))
    assert d.certified and c["relation"] == "==" and c["value"] == c["lower"] == c["upper"] == d.dimension == 45
    assert c["blocks"] == [9] * 5 and sum(c["blocks"]) == 5 * (len(a) - 1)


def test_bounds_that_do_not_meet_give_a_lower_bound_only():
    """K = 2: the blocks' columns cannot reach the cap; the claim is ``>=`` and a recorded == cap is out of reach."""
    t = modular_addition(5, 0.4, 3)
    e = block_rank_certificate(5, 2, t.a[t.train], t.b[t.train], claimed=30, relation="==")
    c = e.certificate["claim"]
    assert c["relation"] == ">=" and c["lower"] < c["upper"] == 30 and e.verdict == "out of reach"
    assert check_verdict(e.certificate)[1]["verdict"] == "out of reach"


def _drop_last(c):
    m = c["blocks"]["minors"][0]
    m["rows"], m["cols"] = m["rows"][:-1], m["cols"][:-1]


def _foreign_column(c):  # a column of output 1 (W[0, 1]) put in output 0's minor
    m = c["blocks"]["minors"][0]
    m["cols"] = sorted(set(m["cols"][1:]) | {1})


FORGERIES = {
    "a witness index dropped (the claim kept)": (_drop_last, "claim.blocks differs"),
    "a column of another output": (_foreign_column, "does not touch output 0 alone"),
    "a repeated row": (lambda c: c["blocks"]["minors"][2]["rows"].__setitem__(1, c["blocks"]["minors"][2]["rows"][0]),
                       "strictly increasing"),
    "the point's second layer zeroed": (lambda c: c["block_point"].__setitem__("v", [0] * 10), "vanishes modulo"),
    "the point's first layer zeroed": (lambda c: c["block_point"].__setitem__("W", [[0] * 10] * 10),
                                       "vanishes modulo"),
    "a point entry out of range": (lambda c: c["block_point"]["W"][0].__setitem__(0, 2**31 + 1), "must be an integer"),
    "p changed": (lambda c: c["data"].__setitem__("p", 7), "one entry per output"),
    "K changed": (lambda c: c["data"].__setitem__("width", 11), "does not touch output"),
    "the claimed value": (lambda c: c["claim"].__setitem__("value", 46), "claim.value differs"),
    "the upper bound": (lambda c: c["claim"].__setitem__("upper", 46), "claim.upper differs"),
    "a training pair removed": (lambda c: c["data"]["train"].pop(), "vanishes modulo"),  # N - 1 = 8 < 9
    "a composite prime": (lambda c: c["blocks"].__setitem__("prime", "1048575"), "odd prime"),
    "a tolerance field": (lambda c: c.__setitem__("tolerance", "0"), "unknown"),
    "one minor missing": (lambda c: c["blocks"]["minors"].pop(), "one entry per output"),
}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_resealed_forgeries_are_refused(small, name):
    edit, reason = FORGERIES[name]
    forged = _resealed(small[2], edit)
    with pytest.raises(Reject, match=reason):
        check(forged)


def test_a_recorded_claim_is_judged_not_read(small):
    """The user's ``claimed`` is data: a wrong value re-sealed verifies and is judged refuted."""
    forged = _resealed(small[2], lambda c: c.__setitem__("claimed", {"relation": "==", "value": 46}))
    reason, judgement = check_verdict(forged)
    assert judgement["verdict"] == "refuted" and judgement["lower"] == judgement["upper"] == 45
    with pytest.raises(Reject, match="unknown"):
        check(_resealed(small[2], lambda c: c.__setitem__("claimed", {"relation": "==", "value": 45,
                                                                      "verdict": "confirmed"})))


def test_the_budget_is_projected_before_the_point_is_read(small, monkeypatch):
    plan = br.work_plan(5, 10, 10, [(9, 2)] * 5)
    monkeypatch.setattr(br, "MAX_WORK", sum(plan.values()) - 1)
    junk = _resealed(small[2], lambda c: c.__setitem__("block_point", {"W": "junk", "v": []}))
    with pytest.raises(Reject, match="checking this file would take"):
        check(junk)
    monkeypatch.setattr(br, "MAX_WORK", sum(plan.values()))
    assert "block_rank" in check(small[2])


def test_work_plan_counts_the_paper_size_within_budget():
    """53 minors of side 1,122 over ~20 neurons: about 7.2e8 units, under the 10^9 budget (flint present)."""
    plan = br.work_plan(53, 1024, 1123, [(1122, 20)] * 53)
    total = sum(plan.values())
    assert 6 * 10**8 < total < br.MAX_WORK
    assert plan["minor 0"] == 4 * 1123 * 20 + 1122**2 + 3 * 1122 * 20 + 1122**2 + 1122**3 // 128


def test_pure_python_fallback_agrees(small, monkeypatch):
    monkeypatch.setattr(core, "flint", None)
    monkeypatch.setattr(br, "flint", None)
    assert "block_rank" in check(small[2])
    with pytest.raises(Reject, match="vanishes modulo"):
        check(_resealed(small[2], lambda c: c["block_point"].__setitem__("v", [0] * 10)))


def test_index_row_is_re_derived(small):
    cert = small[2]
    facts = {"kind": "block_rank", "claim": cert["claim"]}
    row = {"id": "x", "kind": "block_rank", "verdict": "refuted", "section": "claims", "claimed": 150, "relation": "==",
           "proven": "dim = 45 (data map, 10 training pairs)", "says": "dim == 150", "proven_lower": 45,
           "proven_upper": 45}
    assert row_mismatch(row, facts) is None
    assert "verdict is 'confirmed'" in row_mismatch(dict(row, verdict="confirmed"), facts)
    assert "hypothesis fails" in row_mismatch(dict(row, verdict="hypothesis fails"), facts)  # never hides a refutation
    assert "proven is" in row_mismatch(dict(row, proven="dim = 46 (data map, 10 training pairs)"), facts)
    assert "proven_upper is 46" in row_mismatch(dict(row, proven_upper=46), facts)
    confirmed = dict(row, claimed=45, says="dim == 45", verdict="confirmed")
    assert row_mismatch(confirmed, facts) is None
    failing = [{"hypothesis": "h", "holds": False}]
    assert row_mismatch(dict(confirmed, verdict="hypothesis fails", hypotheses=failing), facts) is None


@pytest.mark.slow
def test_the_paper_size_certificate_verifies():
    """The committed certificate of the paper's experiment: dim = 59,466 = p (N - 1) at p = 53, K = 1024."""
    path = CERTIFICATES / "grokking-cor54-data-p53-K1024.json"
    ok, reason = core.check_file(str(path))
    assert ok, reason
    c = json.loads(path.read_text())["claim"]
    p, n = c["about"]["p"], c["about"]["train_pairs"]
    assert (p, c["about"]["width"], n) == (53, 1024, 1123)
    assert c["lower"] == c["upper"] == c["value"] == p * (n - 1) == 59466 and c["relation"] == "=="
