"""The catalogue: claims as data, the fast subset end to end, the index."""

from __future__ import annotations

import json
import shutil

from algebra.certify import catalogue
from algebra.certify.catalogue import MAX_WORK, claims, run_catalogue
from algebra.checker import check_file


def test_claims_cover_the_three_papers_and_are_unique():
    full = catalogue._proximity(False) + catalogue._grokking(False) + catalogue._graph(False) + catalogue._softmax(False)
    ids = [c.id for c in full]
    assert len(ids) == len(set(ids))
    papers = {c.paper for c in full}
    assert {"proximity-bias-submodels", "grokking-basin-selection-llc",
            "symmetries-singularities-graph-attention-llc"} <= papers
    fast = [c.id for c in claims(fast=True)]  # includes the geometry issue's claims when present
    assert len(fast) == len(set(fast)) and {c.id for c in catalogue._grokking(True)} < set(fast)


def test_fast_catalogue_end_to_end(tmp_path):
    entries = run_catalogue(tmp_path, fast=True, progress=False)
    by_id = {e["id"]: e for e in entries}
    defective = by_id["grokking-cor42-d4-p3-K5"]  # Corollary 4.2 assumes a non-defective architecture
    assert defective["verdict"] == "hypothesis fails" and defective["proven_lower"] == 29
    assert "dimension 29 < expected count 30" in defective["note"]
    stage2 = by_id["grokking-cor54-p2-K2"]  # stated outright for modular addition: K(3p-1)/2 = 5
    assert stage2["verdict"] == "refuted" and stage2["proven"].startswith("lambda = 3 ")
    assert all(h["holds"] for h in stage2["hypotheses"])
    assert by_id["grokking-cor53-p3-K6"]["verdict"] == "confirmed"
    assert {e["verdict"] for e in entries} <= {"confirmed", "refuted", "hypothesis fails", "out of reach"}
    assert by_id["proximity-b10-F"]["verdict"] == "confirmed"
    assert by_id["proximity-b10-Fprime"]["proven_lower"] == 4
    far = by_id["grokking-cor42-d194-p97-K512"]
    assert far["verdict"] == "out of reach" and far["file"] is None and f"{MAX_WORK:,}" in far["reason"]
    for e in entries:
        if e["file"]:
            ok, reason = check_file(str(tmp_path / e["file"]))
            assert ok, (e["id"], reason)
    index = json.loads((tmp_path / "index.json").read_text())
    assert [c["id"] for c in index["claims"]] == [e["id"] for e in entries]
    md = (tmp_path / "INDEX.md").read_text()
    assert "## grokking-basin-selection-llc" in md and "**hypothesis fails** (hypothesis 'non-defective architecture' is false" in md
    for n in (5,):  # softmax(6 I_n) at eps = 1/4 has r_eps = n (rows within 2(n-1)/(e^6+n-1) of I's)
        e = by_id[f"softmax-identity-n{n}"]
        assert (e["kind"], e["verdict"], e["proven_lower"], e["proven_upper"]) == ("attention_rank", "confirmed", n, n)
    zero = by_id["softmax-zero-query-radius"]  # identical rows: r_eps = 1
    assert (zero["kind"], zero["verdict"], zero["proven_lower"], zero["proven_upper"]) == ("attention_rank", "confirmed", 1, 1)
    assert not any(e.get("kind") == "interval_inequality" for e in entries)
    # the same catalogue on a 2-worker LocalCluster: byte-identical files (index included)
    other = tmp_path / "cluster"
    again = run_catalogue(other, fast=True, progress=False, scheduler=None, workers=2)
    assert [e.get("sha256") for e in again] == [e.get("sha256") for e in entries]
    names = sorted(p.name for p in tmp_path.iterdir() if p.is_file())
    assert names == sorted(p.name for p in other.iterdir()) and len(names) == len(entries) + 1  # + INDEX.md
    for name in names:
        assert (tmp_path / name).read_bytes() == (other / name).read_bytes(), name


def test_verdicts_of_attention_rank_claims_are_computed(monkeypatch):
    """A stated r_eps that the certified bounds exclude is refuted; the true one is confirmed."""
    eye = tuple(tuple(float(i == j) for j in range(3)) for i in range(3))
    for claimed, verdict in ((3, "confirmed"), (2, "refuted"), (4, "refuted")):
        claim = catalogue.AttentionRankClaim("t", "p", "loc", "s", eye, eye, 6.0, 0.25, claimed)
        emitted, why, fields = catalogue._certify_one(claim, 0)
        assert why is None and emitted.verdict == verdict and emitted.kind == "attention_rank"
        assert (fields["proven_lower"], fields["proven_upper"], fields["proven"]) == (3, 3, "r_eps = 3")
        assert emitted.certificate["source"]["id"] == "t"


def test_head_certificates_are_kept_and_indexed_as_facts(tmp_path):
    """``certify`` never deletes ``attention/``; the index lists its certificates as certified facts."""
    from algebra.attention_rank.head_certificates import committed_directory

    heads = tmp_path / "attention"
    heads.mkdir()
    for name in ("minilm-L0-H0.json", "minilm-L5-H11.json"):
        shutil.copy(committed_directory() / name, heads / name)
    bad = json.loads((heads / "minilm-L5-H11.json").read_text())
    bad["claim"]["value"] = 64  # not what the file proves: listed, but not as certified
    (heads / "minilm-L5-H11.json").write_text(json.dumps(bad))
    stale = json.loads((heads / "minilm-L0-H0.json").read_text())  # a neuroalgebra file no claim emits
    (tmp_path / "old-claim.json").write_text(json.dumps(stale))
    catalogue._remove_stale(tmp_path, keep=set())
    assert not (tmp_path / "old-claim.json").exists() and sorted(p.name for p in heads.iterdir()) == [
        "minilm-L0-H0.json", "minilm-L5-H11.json"]
    facts = catalogue._fact_entries(tmp_path)
    assert [(f["file"], f["verdict"]) for f in facts] == [("attention/minilm-L0-H0.json", "certified"),
                                                         ("attention/minilm-L5-H11.json", "not verified")]
    assert "sha256" in facts[1]["reason"]
    catalogue.write_index(tmp_path, [], facts=facts)
    md = (tmp_path / "INDEX.md").read_text()
    assert "2 certificates with no paper claim at stake: 1 certified." in md
    assert "| 0 | 0 | " + facts[0]["proven"] + " | 1/4 | **certified** | [attention/minilm-L0-H0.json]" in md
    index = json.loads((tmp_path / "index.json").read_text())
    assert [f["id"] for f in index["facts"]] == ["minilm-L0-H0", "minilm-L5-H11"] and index["claims"] == []
