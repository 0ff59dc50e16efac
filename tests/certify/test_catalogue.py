"""The catalogue: claims as data, the fast subset end to end, the index."""

from __future__ import annotations

import json

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
    again = run_catalogue(tmp_path, fast=True, progress=False)  # byte-identical re-run
    assert [e.get("sha256") for e in again] == [e.get("sha256") for e in entries]
