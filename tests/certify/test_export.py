"""Export to Singular / Macaulay2; run the script when the system is installed and compare."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from algebra.certify.emit import dimension_certificate, formula_certificate
from algebra.certify.export import export_script
from algebra.errors import InputError
from algebra.models import MLP, DeepLinear, LightningAttention, QueryKey, quadratic_network

SAMPLE = [
    quadratic_network(4, 3, 5),  # defective: 29
    MLP((2, 3, 1, 1), "t^3"),  # Example B.10: 4
    MLP((2, 2, 1), "t^2/2 + t", bias=True),
    LightningAttention(2, 2, 2),
    LightningAttention(3, 1, 1, rank=1),
    QueryKey(4, 2),
    DeepLinear((2, 3, 2)),
]


@pytest.mark.parametrize("system", ["singular", "m2"])
def test_scripts_are_written_for_every_family(system):
    for model in SAMPLE:
        text = export_script(dimension_certificate(model).certificate, system)
        assert ("jacob(F)" if system == "singular" else "jacobian F") in text
    with pytest.raises(InputError):
        export_script(formula_certificate("query_key", 3, 2, 1).certificate, system)


def _run(cmd, script, tmp_path, suffix):
    path = tmp_path / f"s.{suffix}"
    path.write_text(script)
    return subprocess.run(cmd + [str(path)], capture_output=True, text=True, timeout=120).stdout


@pytest.mark.skipif(shutil.which("Singular") is None, reason="Singular is not installed")
@pytest.mark.parametrize("model", SAMPLE, ids=repr)
def test_singular_agrees(model, tmp_path):
    e = dimension_certificate(model)
    out = _run(["Singular", "-q"], export_script(e.certificate, "singular"), tmp_path, "sing")
    assert f"claimed: {e.lower}" in out and "AGREE" in out and "DISAGREE" not in out


@pytest.mark.skipif(shutil.which("M2") is None, reason="Macaulay2 is not installed")
@pytest.mark.parametrize("model", SAMPLE[:3], ids=repr)
def test_macaulay2_agrees(model, tmp_path):
    e = dimension_certificate(model)
    out = _run(["M2", "--script"], export_script(e.certificate, "m2"), tmp_path, "m2")
    assert "AGREE" in out and "DISAGREE" not in out


@pytest.mark.skipif(shutil.which("Singular") is None, reason="Singular is not installed")
def test_singular_agrees_on_a_sample_of_the_catalogue(tmp_path):
    import json
    from pathlib import Path

    certs = Path(__file__).resolve().parents[2] / "certificates"
    picked = {}
    for path in sorted(certs.glob("*.json")):
        if path.name == "index.json":
            continue
        cert = json.loads(path.read_text())
        fam = cert.get("model", {}).get("family")
        key = (fam, cert["kind"])
        if fam in ("mlp", "attention", "qk", "linear") and key not in picked:
            picked[key] = cert
    if not picked:
        pytest.skip("no committed certificates")
    for cert in picked.values():
        out = _run(["Singular", "-q"], export_script(cert, "singular"), tmp_path, "sing")
        assert "AGREE" in out and "DISAGREE" not in out, (cert["source"]["id"], out[-300:])
