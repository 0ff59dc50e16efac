"""The JSON Schema, and the committed catalogue: every file matches it and verifies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from algebra.certify.schema import load_schema, validate
from algebra.checker import check_file
from algebra.errors import CertificateError

CERTS = Path(__file__).resolve().parents[2] / "certificates"


def test_schema_is_a_valid_json_schema():
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(load_schema())


def test_schema_rejects_shapes():
    with pytest.raises(CertificateError):
        validate({"schema_version": 1, "kind": "dimension", "tool": {"name": "x", "version": "1"},
                  "claim": {"text": "t"}, "sha256": "0" * 64})  # a dimension without model/point/lower/upper


def _committed_files() -> list:
    """Every committed certificate file, subdirectories (the 72 ``attention/`` heads) included."""
    from algebra.cli.certify import certificate_paths

    return [Path(p) for p in certificate_paths([CERTS])]


#: The committed files are verified in this many parametrized pieces (a few seconds each, spread over
#: xdist workers).  This is the one default-run test that re-checks every committed file; the checker,
#: forgery and head-certificate tests re-check a sample of them.
VERIFY_SHARDS = 10
#: Committed certificates verified in the slow suite instead (``tests/checker/test_block_rank.py``: the paper-size
#: ``block_rank`` file takes ~42 s of CPU, eight times a whole shard); every other file is verified below.
SLOW_CERTIFICATES = {"grokking-cor54-data-p53-K1024.json"}


def test_committed_certificates_are_all_indexed():
    """index.json lists exactly the files on disk (no unlisted file escapes verification, no listed file is
    missing), the 72 heads among them, and every fact it indexes is certified."""
    files = _committed_files()
    if not files:
        pytest.skip("no committed certificates (run `neuroalgebra certify`)")
    index = json.loads((CERTS / "index.json").read_text())
    listed = {c["file"] for c in index["claims"] + index.get("facts", []) if c["file"]}
    assert listed == {p.relative_to(CERTS).as_posix() for p in files}
    assert sum(p.parent.name == "attention" for p in files) == 72
    assert all(f["verdict"] == "certified" for f in index["facts"])


def test_committed_certificates_of_every_kind_match_the_schema():
    """One committed file of each (kind, model family) matches the JSON Schema (the schema documents the
    shape; the checker, below, is what refuses a malformed file, so a sample suffices here)."""
    sample = {}
    for path in _committed_files():
        cert = json.loads(path.read_text())
        sample.setdefault((cert["kind"], (cert.get("model") or {}).get("family")), cert)
    if not sample:
        pytest.skip("no committed certificates (run `neuroalgebra certify`)")
    for cert in sample.values():
        validate(cert)


@pytest.mark.parametrize("shard", range(VERIFY_SHARDS))
def test_committed_certificates_verify(shard):
    """Every committed certificate verifies: the CI run of ``neuroalgebra verify certificates/``, in pieces."""
    files = _committed_files()
    if not files:
        pytest.skip("no committed certificates (run `neuroalgebra certify`)")
    for path in files[shard::VERIFY_SHARDS]:
        if path.name in SLOW_CERTIFICATES:
            continue
        ok, reason = check_file(str(path))
        assert ok, (path.name, reason)
