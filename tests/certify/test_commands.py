"""``neuroalgebra certify`` / ``verify`` / ``export`` through ``algebra.cli.main``."""

from __future__ import annotations

import json


from algebra.cli import main


def test_certify_verify_export(tmp_path, capsys):
    out = tmp_path / "certs"
    assert main(["certify", "--fast", "--quiet", "--out", str(out)]) == 0
    out_text = capsys.readouterr().out
    assert "hypothesis fails  grokking-cor42-d4-p3-K5" in out_text and "refuted  grokking-cor54-p2-K2" in out_text
    assert main(["verify", str(out)]) == 0
    text = capsys.readouterr().out
    assert "NOT VERIFIED" not in text and "VERIFIED (" in text
    cert = out / "grokking-cor42-d4-p3-K5.json"
    assert main(["export", "singular", str(cert), "-o", str(tmp_path / "x.sing")]) == 0
    assert "jacob" in (tmp_path / "x.sing").read_text()
    assert main(["export", "m2", str(cert)]) == 0
    assert (out / "grokking-cor42-d4-p3-K5.m2").exists()


def test_verify_fails_on_any_bad_file(tmp_path, capsys):
    assert main(["certify", "--fast", "--quiet", "--out", str(tmp_path)]) == 0
    victim = tmp_path / "proximity-b10-F.json"
    data = json.loads(victim.read_text())
    data["claim"]["value"] = 5
    victim.write_text(json.dumps(data))
    (tmp_path / "garbage.json").write_text("not json")
    capsys.readouterr()
    assert main(["verify", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert any("proximity-b10-F.json: NOT VERIFIED: sha256" in l for l in lines)
    assert any("garbage.json: NOT VERIFIED: not valid JSON" in l for l in lines)
    assert main(["verify", "--json", str(tmp_path / "garbage.json")]) == 1
    assert json.loads(capsys.readouterr().out)["all_verified"] is False


def test_verify_empty_and_export_errors(tmp_path, capsys):
    assert main(["verify", str(tmp_path)]) == 1
    assert main(["export", "singular", str(tmp_path / "missing.json")]) == 2
    (tmp_path / "f.json").write_text("{}")
    assert main(["export", "singular", str(tmp_path / "f.json")]) == 2


def test_verify_recurses_into_subdirectories(tmp_path, capsys):
    """``verify certificates/`` must reach ``certificates/attention/`` (the README's main job)."""
    import shutil

    from algebra.attention_rank.head_certificates import committed_directory
    from algebra.checker import main as checker_main

    sub = tmp_path / "attention"
    sub.mkdir()
    shutil.copy(committed_directory() / "minilm-L2-H3.json", sub / "minilm-L2-H3.json")
    capsys.readouterr()
    assert main(["verify", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"{sub / 'minilm-L2-H3.json'}: VERIFIED (" in out and "1 of 1 verified" in out
    (sub / "deep").mkdir()
    (sub / "deep" / "x.json").write_text("not json")
    assert main(["verify", str(tmp_path)]) == 1
    assert f"{sub / 'deep' / 'x.json'}: NOT VERIFIED: not valid JSON" in capsys.readouterr().out
    assert checker_main([str(tmp_path)]) == 1  # python -m algebra.checker expands directories the same way
    out = capsys.readouterr().out
    assert "minilm-L2-H3.json: VERIFIED (" in out and "x.json: NOT VERIFIED: not valid JSON" in out
    (tmp_path / "index.json").write_text("{}")  # an index.json that is not an index: a failure, said so
    assert main(["verify", str(tmp_path)]) == 1
    assert f"{tmp_path / 'index.json'}: NOT VERIFIED: unreadable index" in capsys.readouterr().out


def test_certify_accepts_the_sweep_options(tmp_path, capsys):
    assert main(["certify", "--fast", "--quiet", "--out", str(tmp_path), "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err
