"""``verify DIR`` reads a certificate directory as a whole and cannot be steered (issue 32, item 6).

Each case copies a slice of ``certificates/`` (with an index of exactly its rows) to a temporary directory,
changes one thing, and runs both entry points -- ``python -m algebra.checker DIR`` (:func:`algebra.checker.main`)
and ``neuroalgebra verify DIR`` (:func:`algebra.cli.main`) -- in this process, and for the cases the audit found
crashing also in a subprocess: each must exit 1 with a line naming the problem, never a traceback.  The real
``certificates/`` directory must still verify.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import algebra.checker as checker
from algebra.checker.index import row_mismatch
from algebra.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
CERTS = ROOT / "certificates"

#: A slice of the catalogue, one row of each shape the checker renders (a dimension, a defect, a refuted and a
#: confirmed formula, an attention-rank claim, a score representation, a fact): the whole directory takes
#: ~20 s to check, the slice well under a second per entry point.
SLICE = ("proximity-b10-F.json", "grokking-cor42-d3-p1-K2.json", "grokking-cor54-p2-K1.json",
         "grokking-cor53-p3-K6.json", "softmax-identity-n3.json", "graph-lemma1-cyclic8-d4-k2-r1.json",
         "attention/minilm-L0-H0.json")


def _subprocesses(path) -> list:
    """``(entry point, exit status, output)`` of both entry points run on ``path`` in a fresh interpreter."""
    out = []
    for name, argv in (("python -m algebra.checker", [sys.executable, "-m", "algebra.checker", str(path)]),
                       ("neuroalgebra verify", [sys.executable, "-m", "algebra.cli", "verify", "--quiet", str(path)])):
        done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=600,
                              env={**os.environ, "PYTHONIOENCODING": "utf-8"})
        out.append((name, done.returncode, done.stdout + done.stderr))
    return out


def _in_process(path, capsys) -> list:
    """The same, through the entry points' main functions (an exception escaping either fails the test)."""
    out = []
    for name, run in (("algebra.checker.main", lambda: checker.main([str(path)])),
                      ("algebra.cli.main verify", lambda: cli_main(["verify", "--quiet", str(path)]))):
        code = run()
        captured = capsys.readouterr()
        out.append((name, code, captured.out + captured.err))
    return out


def _check_refused(results, needles) -> None:
    for name, code, text in results:
        assert "Traceback" not in text, (name, text)
        assert code == 1, (name, code, text)
        for needle in needles:
            assert needle in text, (name, needle, text)


@pytest.fixture
def refused(capsys):
    """``refused(path, *needles)``: both entry points, in this process, exit 1 and print every needle."""
    return lambda path, *needles: _check_refused(_in_process(path, capsys), needles)


@pytest.fixture
def catalogue(tmp_path) -> Path:
    """A copy of a slice of ``certificates/`` with an index of exactly its rows (it verifies as it is)."""
    index = json.loads((CERTS / "index.json").read_text())
    index["claims"] = [r for r in index["claims"] if r.get("file") in SLICE or r.get("file") is None]
    index["facts"] = [r for r in index["facts"] if r["file"] in SLICE]
    out = tmp_path / "certs"
    for name in SLICE:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CERTS / name, out / name)
    (out / "index.json").write_text(json.dumps(index, sort_keys=True, indent=1))
    return out


def _edit_index(path: Path, change) -> None:
    index = json.loads((path / "index.json").read_text())
    change(index)
    (path / "index.json").write_text(json.dumps(index))


def _row(index, file):
    return next(r for section in ("claims", "facts") for r in index[section] if r.get("file") == file)


def test_the_slice_verifies(catalogue, capsys):
    for name, code, text in _in_process(catalogue, capsys):
        assert code == 0 and "NOT VERIFIED" not in text, (name, text)


@pytest.mark.slow  # ~20 s per entry point: every certificate of the catalogue is checked
def test_the_real_certificates_directory_verifies():
    for name, code, text in _subprocesses(CERTS):
        assert code == 0, (name, [line for line in text.splitlines() if "NOT VERIFIED" in line or "Traceback" in line])


@pytest.mark.parametrize("facts", [3, None])
def test_the_audits_crashing_index_fails_cleanly_in_a_subprocess(catalogue, facts):
    _edit_index(catalogue, lambda index: index.update(facts=facts))
    _check_refused(_subprocesses(catalogue), ["unreadable index", "field 'facts'"])


@pytest.mark.parametrize("facts", [3, None, "x", {"a": 1}, True])
def test_a_facts_member_of_the_wrong_type_is_refused(catalogue, facts, refused):
    _edit_index(catalogue, lambda index: index.update(facts=facts))
    refused(catalogue, "unreadable index", "field 'facts'")


@pytest.mark.parametrize("field, value, needle", [("claims", 0, "field 'claims' is 0, not a list"),
                                                  ("tool", "x", "field 'tool'"), ("subset", 1, "field 'subset'"),
                                                  ("extra", [], 'unknown field "extra"')])
def test_every_top_level_field_is_typed(catalogue, field, value, needle, refused):
    _edit_index(catalogue, lambda index: index.update({field: value}))
    refused(catalogue, "unreadable index", needle)


@pytest.mark.parametrize("field, value", [("verdict", 1), ("verdict", "maybe"), ("file", 5), ("sha256", None),
                                          ("proven", ["dim = 4"]), ("claimed", "4"), ("claimed", True),
                                          ("relation", "<"), ("proven_lower", 4.0), ("notes", "x"),
                                          ("hypotheses", [{"hypothesis": "h", "holds": "yes"}]), ("colour", "red")])
def test_every_row_field_is_typed(catalogue, field, value, refused):
    _edit_index(catalogue, lambda index: _row(index, "proximity-b10-F.json").update({field: value}))
    named = f"field {field!r} is" if field != "colour" else 'unknown field "colour"'
    refused(catalogue, "unreadable index", "proximity-b10-F", named)


def test_a_row_that_is_not_an_object_is_refused(catalogue, refused):
    _edit_index(catalogue, lambda index: index["facts"].append(7))
    refused(catalogue, "unreadable index", "facts[1] is not an object")


@pytest.mark.parametrize("name", ["forged.json\n", "forged.json\u200b", "forg\u00e9d.json", "with space.json"])
def test_a_file_name_outside_the_allowed_characters_fails(catalogue, name, refused):
    (catalogue / name).write_bytes((catalogue / SLICE[0]).read_bytes())
    refused(catalogue, "name outside [A-Za-z0-9._-]")


def test_a_directory_name_outside_the_allowed_characters_fails(catalogue, refused):
    (catalogue / "attention\u200b").mkdir()
    refused(catalogue, "attention\\u200b: NOT VERIFIED: a directory name outside [A-Za-z0-9._-]")


def test_an_odd_name_in_a_subdirectory_fails(catalogue, refused):
    (catalogue / "attention" / "x.json\n").write_text("{}")
    refused(catalogue, "x.json\\n: NOT VERIFIED: a file name outside")


def test_an_index_that_is_a_directory_fails(catalogue, refused):
    (catalogue / "index.json").unlink()
    (catalogue / "index.json").mkdir()
    refused(catalogue, "index.json is a directory, not a regular file")


def test_an_index_that_is_a_symlink_fails(catalogue, tmp_path, refused):
    (catalogue / "index.json").rename(tmp_path / "elsewhere.json")
    (catalogue / "index.json").symlink_to(tmp_path / "elsewhere.json")
    refused(catalogue, "index.json is not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_an_index_that_is_a_fifo_fails(catalogue, refused):
    (catalogue / "index.json").unlink()
    os.mkfifo(catalogue / "index.json")
    refused(catalogue, "index.json is not a regular file")


@pytest.mark.parametrize("file, change, needle", [
    ("proximity-b10-F.json", {"verdict": "refuted"}, "verdict is 'refuted'; the certificate gives 'confirmed'"),
    ("proximity-b10-F.json", {"proven": "dim = 5"}, 'proven is "dim = 5"'),
    ("proximity-b10-F.json", {"claimed": 5}, "verdict is 'confirmed'; the certificate gives 'refuted'"),
    ("proximity-b10-F.json", {"proven_upper": 5}, "proven_upper is 5"),
    ("proximity-b10-F.json", {"says": "dim == 5"}, 'says is "dim == 5"'),
    ("proximity-b10-F.json", {"kind": "defect"}, "kind is 'defect'"),
    ("grokking-cor42-d3-p1-K2.json", {"verdict": "confirmed"}, "the certificate gives 'hypothesis fails' or 'refuted'"),
    ("grokking-cor54-p2-K1.json", {"verdict": "confirmed"}, "the certificate gives 'refuted'"),
    ("grokking-cor54-p2-K1.json", {"verdict": "hypothesis fails",
                                   "hypotheses": [{"hypothesis": "h", "holds": False}]}, "gives 'refuted'"),
    ("grokking-cor53-p3-K6.json", {"proven": "lambda = 8 (certified rank 16 / 2)"}, "proven is"),
    ("softmax-identity-n3.json", {"verdict": "out of reach"}, "the certificate gives 'confirmed'"),
    ("graph-lemma1-cyclic8-d4-k2-r1.json", {"verdict": "hypothesis fails"}, "the certificate gives 'confirmed'"),
    ("attention/minilm-L0-H0.json", {"proven": "2 <= r_eps(A) <= 3"}, "proven is"),
    ("attention/minilm-L0-H0.json", {"verdict": "not verified"}, "the certificate gives 'certified'"),
])
def test_a_row_that_does_not_say_what_its_certificate_proves_fails(catalogue, file, change, needle, refused):
    _edit_index(catalogue, lambda index: _row(index, file).update(change))
    row_id = file.rsplit("/", 1)[-1][:-len(".json")]
    refused(catalogue, f"index.json: NOT VERIFIED: row '{row_id}'", needle)


def test_a_row_without_a_certificate_cannot_claim_a_verdict(catalogue, refused):
    _edit_index(catalogue, lambda index: next(r for r in index["claims"] if r["file"] is None).update(
        verdict="confirmed"))
    refused(catalogue, "unreadable index", "its verdict can only be 'out of reach'")


def test_a_listed_file_that_is_missing_fails_the_run(catalogue, refused):
    (catalogue / "softmax-identity-n3.json").unlink()
    refused(catalogue, "softmax-identity-n3.json: NOT VERIFIED: listed in")


#: The estimate-premise row (issue 35): a ``local_rank`` row with ``hypotheses`` whose file is the memorising
#: checkpoint's certificate; its verdict is derived from the file's own ``critical``.
PREMISE = "grokking-sgld-premise-p17-K32.json"


def _premise_row() -> dict:
    index = json.loads((CERTS / "index.json").read_text())
    return dict(_row(index, PREMISE), section="claims")


def _premise_facts(**claim) -> dict:
    """The summary the checker passes to row_mismatch, with the committed file's claim (``claim`` overrides)."""
    cert = json.loads((CERTS / PREMISE).read_text())
    return {"kind": "local_rank", "claim": dict(cert["claim"], **claim)}


def test_the_premise_row_says_what_its_file_proves():
    row = _premise_row()
    assert row["verdict"] == "hypothesis fails" and row["hypotheses"]
    assert row_mismatch(row, _premise_facts()) is None


@pytest.mark.parametrize("change, needle", [
    ({"verdict": "confirmed"}, "verdict is 'confirmed'; the certificate gives 'hypothesis fails'"),
    ({"verdict": "out of reach"}, "the certificate gives 'hypothesis fails'"),
    # the generalising checkpoint's derived claim in the memorising half
    ({"proven": "memorising epoch 200 (train 1.00, val 0.48): rank 1568, ||grad L_n|| <= 2.67e-2"},
     "does not begin with the memorising checkpoint's derived claim"),
    ({"proven": _premise_row()["proven"].replace(" (certificate sha256", " (sha256")},
     "does not begin with the memorising checkpoint's derived claim"),
])
def test_a_forged_premise_row_is_refused(change, needle):
    assert needle in row_mismatch(dict(_premise_row(), **change), _premise_facts())


def test_a_critical_file_gives_the_premise_row_no_failure():
    """Where the file's point is critical, the premise row is at most out of reach (its verdict comes from the
    file, never from the row's own hypotheses)."""
    facts = _premise_facts(critical=True)
    assert "the certificate gives 'out of reach'" in row_mismatch(_premise_row(), facts)
    assert row_mismatch(dict(_premise_row(), verdict="out of reach"), facts) is None


def test_without_hypotheses_the_file_is_read_as_a_basin_row():
    row = {k: v for k, v in _premise_row().items() if k != "hypotheses"}
    assert "the certificate gives 'out of reach'" in row_mismatch(row, _premise_facts())


@pytest.fixture
def premise_catalogue(tmp_path) -> Path:
    """The premise row and its certificate alone (it verifies as it is)."""
    index = json.loads((CERTS / "index.json").read_text())
    index["claims"] = [r for r in index["claims"] if r.get("file") == PREMISE]
    index["facts"] = []
    out = tmp_path / "certs"
    out.mkdir()
    shutil.copyfile(CERTS / PREMISE, out / PREMISE)
    (out / "index.json").write_text(json.dumps(index, sort_keys=True, indent=1))
    return out


@pytest.mark.slow  # ~3 s per entry point: the p = 17, K = 32 checkpoint's minors and exact gradient
@pytest.mark.parametrize("change, needle", [
    (None, None),
    ({"verdict": "confirmed"}, "the certificate gives 'hypothesis fails'"),
    ({"proven": "memorising epoch 200 (train 1.00, val 0.48): rank 1569"}, "does not begin with the memorising"),
])
def test_a_forged_premise_row_fails_the_directory(premise_catalogue, change, needle, capsys):
    if change is None:
        for name, code, text in _in_process(premise_catalogue, capsys):
            assert code == 0 and "NOT VERIFIED" not in text, (name, text)
        return
    _edit_index(premise_catalogue, lambda index: _row(index, PREMISE).update(change))
    _check_refused(_in_process(premise_catalogue, capsys),
                   ["index.json: NOT VERIFIED: row 'grokking-sgld-premise-p17-K32'", needle])
