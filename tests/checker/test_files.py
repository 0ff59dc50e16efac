"""``verify DIR`` cannot be steered (issue 20, item 7): regular files only, every skip reported, the index checked."""

from __future__ import annotations

import json
import os
import threading

import pytest

import algebra.checker.files as files
from algebra.checker import core as checker_core
from algebra.certify.canonical import render


@pytest.fixture
def tree(tmp_path, base_certificates):
    """A directory of two valid certificates and the index that lists them."""
    rows = []
    for name in ("qk-fields", "linear-cramer"):
        cert = base_certificates[name][0]
        (tmp_path / f"{name}.json").write_bytes(render(cert))
        claim = cert["claim"]  # the row says what the certificate proves (the checker re-derives it)
        exact = claim["relation"] == "=="
        rows.append({"file": f"{name}.json", "sha256": cert["sha256"], "id": name, "kind": cert["kind"],
                     "proven": f"dim {'=' if exact else '>='} {claim['value']}",
                     "verdict": "confirmed" if exact else "out of reach"})
    (tmp_path / "index.json").write_text(json.dumps({"claims": rows, "facts": []}))
    return tmp_path


def run(path, capsys) -> tuple:
    code = files.main([str(path)])
    return code, capsys.readouterr().out


def test_a_consistent_indexed_directory_verifies(tree, capsys):
    code, out = run(tree, capsys)
    assert code == 0 and out.count(": VERIFIED (") == 2 and "NOT VERIFIED" not in out


def test_an_unindexed_certificate_in_a_subdirectory_fails(tree, base_certificates, capsys):
    (tree / "sub").mkdir()
    (tree / "sub" / "index.json").write_bytes(render(base_certificates["qk-equations"][0]))  # a forgery named index
    (tree / "sub" / "extra.json").write_bytes(render(base_certificates["qk-equations"][0]))
    code, out = run(tree, capsys)
    assert code == 1 and "sub/index.json: NOT VERIFIED: unreadable index" in out
    assert "extra.json: NOT VERIFIED: not listed in" in out


def test_a_stale_index_fails(tree, capsys):
    index = json.loads((tree / "index.json").read_text())
    index["claims"][0]["sha256"] = "0" * 64  # the catalogue moved on, the file did not (a killed certify)
    index["claims"].append({"file": "gone.json", "sha256": "1" * 64, "id": "gone", "kind": "dimension",
                            "proven": "dim = 1", "verdict": "confirmed"})
    (tree / "index.json").write_text(json.dumps(index))
    code, out = run(tree, capsys)
    assert code == 1 and "sha256 differs from the one" in out and "gone.json: NOT VERIFIED: listed in" in out


def test_an_upper_case_extension_is_reported_not_skipped(tree, capsys):
    (tree / "forged.JSON").write_text("{}")
    (tree / "notes.md").write_text("hello")
    code, out = run(tree, capsys)
    assert code == 1 and "forged.JSON: NOT VERIFIED: named like a certificate" in out
    assert "notes.md: skipped: not a certificate" in out


def test_a_symlinked_directory_and_file_are_reported(tree, tmp_path_factory, base_certificates, capsys):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "x.json").write_bytes(render(base_certificates["qk-equations"][0]))
    os.symlink(elsewhere, tree / "linked")
    os.symlink(elsewhere / "x.json", tree / "link.json")
    code, out = run(tree, capsys)
    assert code == 1 and "linked: NOT VERIFIED: a symbolic link to a directory" in out
    assert "link.json: NOT VERIFIED: a symbolic link" in out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_does_not_hang_the_run(tree, capsys):
    os.mkfifo(tree / "pipe.json")
    done = []
    worker = threading.Thread(target=lambda: done.append(files.verify_paths([str(tree)])), daemon=True)
    worker.start()
    worker.join(30)  # a hang, not a timing: the walk never opens the FIFO
    assert done, "verify DIR hung on a FIFO"
    row = next(r for r in done[0] if r["file"].endswith("pipe.json"))
    assert row["verified"] is False and "FIFO" in row["reason"]
    fifo_alone = checker_core.check_file(str(tree / "pipe.json"))  # given explicitly: opened non-blocking, then refused
    assert fifo_alone[0] is False and "not a regular file" in fifo_alone[1]


def test_one_files_internal_error_does_not_stop_the_others(tree, monkeypatch, capsys):
    real = checker_core.check_verdict

    def flaky(cert):
        if cert["model"]["family"] == "qk":
            raise IndexError("planted")
        return real(cert)

    monkeypatch.setattr(checker_core, "check_verdict", flaky)
    code, out = run(tree, capsys)
    assert code == 1 and "internal checker error (IndexError)" in out and out.count(": VERIFIED (") == 1
