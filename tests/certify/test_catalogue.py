"""The catalogue: claims as data, the fast subset end to end, the index."""

from __future__ import annotations

import json
import shutil

import pytest

from algebra.certify import catalogue
from algebra.certify.catalogue import MAX_WORK, claims, run_catalogue
from algebra.claims import graph_attention, grokking, proximity, softmax_attention
from algebra.claims.records import AttentionRankClaim, FormulaClaim, Hypothesis, RepresentationClaim
from algebra.checker import check_file


def test_claims_cover_the_three_papers_and_are_unique():
    full = (proximity.submodel_claims(False) + grokking.quadratic_claims(False) + graph_attention.query_key_claims(False)
            + softmax_attention.approximation_rank_claims(False))
    ids = [c.id for c in full]
    assert len(ids) == len(set(ids))
    papers = {c.paper for c in full}
    assert {"proximity-bias-submodels", "grokking-basin-selection-llc",
            "symmetries-singularities-graph-attention-llc"} <= papers
    fast = [c.id for c in claims(fast=True)]  # includes the claims the geometry sweeps find
    assert len(fast) == len(set(fast)) and {c.id for c in grokking.quadratic_claims(True)} < set(fast)


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


@pytest.mark.slow  # a Dask LocalCluster
def test_fast_catalogue_on_a_local_cluster_is_byte_identical(tmp_path):
    """The same catalogue on a 2-worker LocalCluster: byte-identical files (index included)."""
    entries = run_catalogue(tmp_path, fast=True, progress=False)
    other = tmp_path / "cluster"
    again = run_catalogue(other, fast=True, progress=False, scheduler=None, workers=2)
    assert [e.get("sha256") for e in again] == [e.get("sha256") for e in entries]
    names = sorted(p.name for p in tmp_path.iterdir() if p.is_file())
    certified = sum(bool(e["file"]) for e in entries)
    assert names == sorted(p.name for p in other.iterdir()) and len(names) == certified + 2  # + index.json, INDEX.md
    for name in names:
        assert (tmp_path / name).read_bytes() == (other / name).read_bytes(), name


def test_verdicts_of_attention_rank_claims_are_computed(monkeypatch):
    """A stated r_eps that the certified bounds exclude is refuted; the true one is confirmed."""
    eye = tuple(tuple(float(i == j) for j in range(3)) for i in range(3))
    for claimed, verdict in ((3, "confirmed"), (2, "refuted"), (4, "refuted")):
        claim = AttentionRankClaim("t", "p", "loc", "s", eye, eye, 6.0, 0.25, claimed)
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


def _run_items(ids):
    """Index entries and certificates of fast-catalogue claims (the sweep task, without writing files)."""
    return {i: catalogue._certify_item({"id": i, "fast": True, "seed": 0}) for i in ids}


def test_graph_assumption1_and_theorem2_entries(tmp_path):
    """Assumption 1 is a rank the checker replays; Theorem 2's verdict follows it (issue 13)."""
    from algebra.certify.canonical import render
    from algebra.claims.graph_attention import graph_design
    from algebra.graph.fisher import decide_assumption1

    good, bad = "cyclic8-d4-k2-r1", "cyclic8-d4-k2-r1-radius0"
    rows = _run_items([f"graph-a1-{good}", f"graph-a1-{bad}", f"graph-thm2-{good}", f"graph-thm2-{bad}"])
    for tag, options in ((good, {}), (bad, {"radius": 0})):
        row = rows[f"graph-a1-{tag}"]
        path = tmp_path / f"{tag}.json"
        path.write_bytes(render(row["certificate"]))
        assert check_file(str(path))[0]
        # two routes: the checker's minor mod p and the library's exact rank over Q (fisher.decide_assumption1)
        assert row["certificate"]["claim"]["value"] == decide_assumption1(graph_design("cyclic:8", 4, 2, 1, options)).rank
        assert row["certificate"]["model"]["family"] == "polynomial" and row["entry"]["verdict"] == "confirmed"
    assert rows[f"graph-a1-{good}"]["entry"]["proven"] == "dim = 16" and "alpha_lower" in rows[f"graph-a1-{good}"]["entry"]["notes"]
    assert rows[f"graph-a1-{bad}"]["entry"]["proven"] == "dim = 0"
    thm_good, thm_bad = rows[f"graph-thm2-{good}"]["entry"], rows[f"graph-thm2-{bad}"]["entry"]
    assert thm_good["verdict"] == "confirmed" and thm_good["hypotheses"][0]["holds"] is True
    assert thm_good["proven"].startswith("lambda = 5, m = 2")  # (44)-(45) at d=4, k=2, r=1
    assert thm_bad["verdict"] == "hypothesis fails" and thm_bad["hypotheses"][0]["holds"] is False
    assert "certified rank 0 of 16 columns" in thm_bad["note"]


def test_formula_claim_hypotheses_are_decided_not_assumed():
    """An injective-map hypothesis that fails turns a confirmed value into 'hypothesis fails'."""
    from algebra.models import PolynomialMap

    injective = PolynomialMap(["a + b", "a - b"], parameters=["a", "b"])
    singular = PolynomialMap(["a + b", "2*a + 2*b"], parameters=["a", "b"])
    for model, verdict in ((injective, "confirmed"), (singular, "hypothesis fails")):
        claim = FormulaClaim("t", "p", "loc", "s", "query_key", (4, 2, 1),
                                       hypotheses=(Hypothesis("L injective", injective=model),))
        emitted, why, fields = catalogue._certify_one(claim, 0)
        assert why is None and emitted.verdict == verdict
        assert fields["hypotheses"][0]["detail"].startswith(f"certified rank {1 if model is singular else 2} of 2")


def test_lemma1_is_certified_and_cnn_claims_are_certified():
    rows = _run_items(["graph-lemma1-cyclic8-d4-k2-r1", "proximity-cnn-fig6-F", "proximity-cnn-fig6-e0"])
    lemma = rows["graph-lemma1-cyclic8-d4-k2-r1"]
    cert, entry = lemma["certificate"], lemma["entry"]
    assert entry["verdict"] == "confirmed" and entry["kind"] == "score_representation" and "(14)" in entry["proven"]
    from algebra.checker import check

    assert cert["claim"]["invariant"] and "score_representation" in check(cert)  # the checker derives (13)-(15)
    # C_8 acts freely on the 64 inputs: 1536 coordinates = 192 copies of the regular representation
    assert [c["rank"] for c in cert["claim"]["components"]] == [192] * 8
    for cid in ("proximity-cnn-fig6-F", "proximity-cnn-fig6-e0"):  # Figure 6: dim F = 3, rank d phi = 3 at e = 0
        e = rows[cid]["entry"]
        assert e["verdict"] == "confirmed" and e["proven"] == "dim = 3" and rows[cid]["certificate"]["model"]["family"] == "polynomial"


def test_lemma1_verdict_on_a_design_that_is_not_orbit_closed(monkeypatch):
    """Biases that are not constant on pair orbits break (14): the derived claim says so, the verdict follows."""
    import dataclasses

    import numpy as np

    from algebra.claims.graph_attention import graph_design

    design = graph_design("cyclic:4", 2, 1, 1, {"num_draws": 1})
    noisy = np.where(np.isnan(design.bias), np.nan, np.arange(design.bias.size).reshape(design.bias.shape) / 7)
    claim = RepresentationClaim("t", "p", "loc", "s", "cyclic:4", 2, 1, 1)
    monkeypatch.setattr(catalogue, "graph_design", lambda *args: dataclasses.replace(design, bias=noisy))
    emitted, why, fields = catalogue._certify_one(claim, 0)
    assert why is None and emitted.verdict == "hypothesis fails" and "(14)" not in fields["proven"]
    assert not emitted.certificate["claim"]["invariant"]
    monkeypatch.setattr(catalogue, "graph_design", lambda *args: design)
    emitted, _, fields = catalogue._certify_one(claim, 0)
    assert emitted.verdict == "confirmed" and "(14)" in fields["proven"]
