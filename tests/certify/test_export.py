"""Export to Singular / Macaulay2; run the script when the system is installed and compare."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from algebra.certify.canonical import render, seal
from algebra.certify.formula import formula_certificate, rlct_certificate
from algebra.certify.rank import dimension_certificate
from algebra.certify.export import crosscheck, export_script
from algebra.errors import InputError
from algebra.models import CNN, MLP, DeepLinear, LightningAttention, PolynomialMap, QueryKey, quadratic_network

SAMPLE = [
    quadratic_network(4, 3, 5),  # defective: 29
    MLP((2, 3, 1, 1), "t^3"),  # Example B.10: 4
    MLP((2, 2, 1), "t^2/2 + t", bias=True),
    LightningAttention(2, 2, 2),
    LightningAttention(3, 1, 1, rank=1),
    QueryKey(4, 2),
    DeepLinear((2, 3, 2)),
    PolynomialMap(["a*x + b*y", "a*b*x^2 + c"], parameters="a b c".split(), inputs="x y".split()),
    CNN((5,), [(2,), (2,)], activations="t^2", bias=True),  # no matrix form: exported as its polynomial map
]
SINGULAR = shutil.which("Singular") is not None


@pytest.mark.parametrize("system", ["singular", "m2"])
def test_scripts_are_written_for_every_family(system):
    for model in SAMPLE:
        text = export_script(dimension_certificate(model).certificate, system)
        assert ("jacob(G)" if system == "singular" else "jacobian G") in text
        if model.n_inputs:  # the full Jacobian is that of the coefficient map, not of sampled outputs
            assert ("coef(F[i]" if system == "singular" else "last coefficients(f") in text
    with pytest.raises(InputError):
        export_script(formula_certificate("query_key", 3, 2, 1).certificate, system)
    assert "jacob" in export_script(rlct_certificate(QueryKey(2, 1)).certificate, system)


def test_rational_coefficients_are_residues():
    text = export_script(dimension_certificate(MLP((2, 2, 1), "t^2/2 + t", bias=True)).certificate, "m2")
    act = next(line for line in text.splitlines() if line.startswith("S1 = "))
    assert "/" not in act and f"{pow(2, -1, 1048573)}*z^2" in act  # 1/2 is written as its residue mod p


def test_crosscheck_without_the_peer_says_so(tmp_path, monkeypatch):
    path = tmp_path / "c.json"
    path.write_bytes(render(dimension_certificate(QueryKey(2, 1)).certificate))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert crosscheck(path, "singular")["status"] == "unavailable"
    from algebra.cli import main

    assert main(["crosscheck", "singular", str(path)]) == 2


@pytest.mark.slow  # a peer CAS: the default run's length must not depend on which programs a machine has
@pytest.mark.skipif(not SINGULAR, reason="Singular is not installed")
@pytest.mark.parametrize("model", SAMPLE, ids=repr)
def test_singular_agrees(model, tmp_path):
    e = dimension_certificate(model)
    path = tmp_path / "c.json"
    path.write_bytes(render(e.certificate))
    r = crosscheck(path, "singular")
    assert r["status"] == "agree", r["output"]
    assert f"claimed: rank == {e.lower}" in r["output"]


@pytest.mark.slow  # a peer CAS: the default run's length must not depend on which programs a machine has
@pytest.mark.skipif(not SINGULAR, reason="Singular is not installed")
def test_singular_sees_a_false_upper_bound(tmp_path):
    """A claim one below the true rank with a (forged) smaller witness: the peer's full rank disagrees."""
    e = dimension_certificate(quadratic_network(4, 3, 5))  # 29
    forged = json.loads(json.dumps(e.certificate))
    forged["claim"]["value"] = 28
    forged["lower"] = {"rows": forged["lower"]["rows"][:28], "cols": forged["lower"]["cols"][:28]}
    path = tmp_path / "f.json"
    path.write_bytes(render(seal(forged)))
    r = crosscheck(path, "singular")
    assert r["status"] == "disagree" and "rank at a random point over GF(1048573): 29" in r["output"]


@pytest.mark.slow  # a peer CAS: the default run's length must not depend on which programs a machine has
@pytest.mark.skipif(shutil.which("M2") is None, reason="Macaulay2 is not installed")
@pytest.mark.parametrize("model", SAMPLE[:3], ids=repr)
def test_macaulay2_agrees(model, tmp_path):
    path = tmp_path / "c.json"
    path.write_bytes(render(dimension_certificate(model).certificate))
    r = crosscheck(path, "m2")
    assert r["status"] == "agree", r["output"]


@pytest.mark.slow  # a peer CAS: the default run's length must not depend on which programs a machine has
@pytest.mark.skipif(not SINGULAR, reason="Singular is not installed")
def test_singular_agrees_on_a_sample_of_the_catalogue():
    certs = Path(__file__).resolve().parents[2] / "certificates"
    picked = {}
    for path in sorted(certs.glob("*.json")):
        if path.name == "index.json":
            continue
        cert = json.loads(path.read_text())
        fam = cert.get("model", {}).get("family")
        key = (fam, cert["kind"])
        if fam in ("mlp", "attention", "qk", "linear", "polynomial") and key not in picked:
            picked[key] = path
    if not picked:
        pytest.skip("no committed certificates")
    for path in picked.values():
        r = crosscheck(path, "singular")
        assert r["status"] == "agree", (path.name, r["output"][-300:])


@pytest.mark.skipif(not SINGULAR, reason="Singular is not installed")
def test_a_family_without_a_matrix_form_is_exported_as_its_polynomial_map(tmp_path):
    """A CNN (no entry in ``MATRIX_FORMS``) goes through its ``from_spec`` and the one symbolic evaluator; the
    certificate's own point and witness rows must line up with that map, or Singular disagrees."""
    for model in (CNN((4,), [(2,)], activations="t^2"), CNN((5,), [(2,), (2,)], activations="t^2", bias=True)):
        path = tmp_path / "cnn.json"
        path.write_bytes(render(dimension_certificate(model).certificate))
        out = crosscheck(str(path), "singular", timeout=300)
        assert out["status"] == "agree", out["output"]
