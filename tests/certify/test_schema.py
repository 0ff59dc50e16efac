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


def test_committed_certificates_match_the_schema_and_verify():
    """Every committed certificate, subdirectories (the 72 ``attention/`` heads) included, is listed in
    index.json, matches the schema and verifies: the CI run of ``neuroalgebra verify certificates/``."""
    from algebra.certify.commands import certificate_paths

    files = [Path(p) for p in certificate_paths([CERTS])]
    if not files:
        pytest.skip("no committed certificates (run `neuroalgebra certify`)")
    index = json.loads((CERTS / "index.json").read_text())
    listed = {c["file"] for c in index["claims"] + index.get("facts", []) if c["file"]}
    assert listed == {p.relative_to(CERTS).as_posix() for p in files}
    assert sum(p.parent.name == "attention" for p in files) == 72
    assert all(f["verdict"] == "certified" for f in index["facts"])
    for path in files:  # the full verify of the committed catalogue and heads (a few seconds)
        validate(json.loads(path.read_text()))
        ok, reason = check_file(str(path))
        assert ok, (path.name, reason)
