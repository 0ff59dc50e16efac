"""Resource faults (issue 24, items 1 and 3): a full disk, an unwritable --out, a file where a directory
belongs.  Each is exit 2 with the path and the cause on one line, no traceback, and nothing half-written;
every file a resume reads (the LLC suite's rows, grok train's checkpoints) is written atomically, so the
next run resumes from what was finished.

A full disk is simulated inside :mod:`algebra.files` only (its ``os`` and ``tempfile`` are replaced by
proxies), so nothing else in the process sees the fault.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile

import numpy as np
import pytest

import algebra.files as files
from algebra.cli import main
from algebra.files import output_fault, write_atomic

NO_SPACE = os.strerror(errno.ENOSPC)  # "No space left on device"
GROK = ["grok", "train", "--p", "5", "--width", "4", "--epochs", "4", "--checkpoint-every", "1"]


class _Proxy:
    """A module whose attributes are the real module's, except those given."""

    def __init__(self, module, **override):
        self._module = module
        self.__dict__.update(override)

    def __getattr__(self, name):
        return getattr(self._module, name)


def _full_disk(monkeypatch, *, after_writes: int = 0) -> list:
    """Let ``after_writes`` files through algebra.files, then fail every later one with ENOSPC half-way
    through its data (a temporary with some bytes in it exists when the error comes).  Returns the list of
    paths written so far (the temporaries)."""
    written = []

    def fdopen(fd, *args, **kwargs):
        fh = os.fdopen(fd, *args, **kwargs)
        written.append(fd)
        if len(written) <= after_writes:
            return fh

        class Full:
            def write(self, data):
                fh.write(bytes(data)[: max(1, len(data) // 2)])
                fh.flush()
                raise OSError(errno.ENOSPC, NO_SPACE)

            def __getattr__(self, name):
                return getattr(fh, name)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                fh.close()

        return Full()

    monkeypatch.setattr(files, "os", _Proxy(os, fdopen=fdopen))
    return written


def _refusing_temporaries(monkeypatch, code: int):
    """Every temporary algebra.files asks for is refused with ``code`` (EACCES, EROFS) by the system."""

    def mkstemp(*args, dir=None, **kwargs):
        raise OSError(code, os.strerror(code), dir)

    monkeypatch.setattr(files, "tempfile", _Proxy(tempfile, mkstemp=mkstemp))


def _leftovers(root) -> list:
    return sorted(p.name for p in root.rglob("*.tmp"))


def _files(root) -> list:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


def test_certify_on_a_full_disk_is_exit_2_naming_the_file_and_leaves_nothing(tmp_path, monkeypatch, capsys):
    """certify exited 1 with an ``OSError: [Errno 28]`` traceback."""
    out = tmp_path / "certs"
    _full_disk(monkeypatch)
    assert main(["certify", "--fast", "--quiet", "--out", str(out)]) == 2
    err = _one_line_error(capsys)
    assert err.startswith(f"neuroalgebra certify: error: cannot write {out}/") and err.rstrip().endswith(NO_SPACE)
    assert ".tmp" not in err  # the file asked for, not the temporary
    assert _leftovers(tmp_path) == [] and [f for f in _files(out) if f.endswith(".json")] == []


def test_grok_train_on_a_full_disk_is_exit_2_and_the_next_run_resumes_to_the_same_result(
        tmp_path, monkeypatch, capsys):
    """A disk that fills mid-checkpoint (after six files) leaves only whole files, and the rerun resumes
    from them: its final parameters are those of an uninterrupted run, bit for bit."""
    out = tmp_path / "run"
    _full_disk(monkeypatch, after_writes=6)
    assert main(GROK + ["--out", str(out)]) == 2
    err = _one_line_error(capsys)
    assert f"cannot write {out}/" in err and err.rstrip().endswith(NO_SPACE)
    assert _leftovers(tmp_path) == [] and "params.csv" in _files(out)
    monkeypatch.setattr(files, "os", os)
    assert main(GROK + ["--out", str(out)]) == 0
    assert main(GROK + ["--out", str(tmp_path / "clean")]) == 0
    capsys.readouterr()
    last = "checkpoints/epoch_0000004.npz"
    with np.load(out / last) as a, np.load(tmp_path / "clean" / last) as b:
        assert np.array_equal(a["theta"], b["theta"])
    assert (out / "loss_data.csv").read_bytes() == (tmp_path / "clean" / "loss_data.csv").read_bytes()


@pytest.mark.parametrize("command", [["certify", "--fast", "--quiet"], GROK])
def test_an_out_that_is_a_regular_file_is_exit_2_naming_it(tmp_path, capsys, command):
    out = tmp_path / "out"
    out.write_bytes(b"mine")
    with pytest.raises(SystemExit) as exc:  # both refuse --out while parsing (algebra.inputs), before any work
        main(command + ["--out", str(out)])
    assert exc.value.code == 2
    err = _one_line_error(capsys)
    assert str(out) in err and "is a file" in err, err
    assert out.read_bytes() == b"mine" and _files(tmp_path) == ["out"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores permissions")
def test_a_read_only_out_is_exit_2(tmp_path, capsys):
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(0o500)
    try:
        assert main(GROK + ["--out", str(out)]) == 2
    finally:
        out.chmod(0o700)
    err = _one_line_error(capsys)
    assert str(out) in err and os.strerror(errno.EACCES) in err and _files(tmp_path) == []


@pytest.mark.parametrize("code", [errno.EACCES, errno.EROFS])
def test_a_refused_temporary_is_exit_2_naming_the_target(tmp_path, monkeypatch, capsys, code):
    """What a read-only directory or file system does, simulated (the test above skips under root)."""
    out = tmp_path / "run"
    _refusing_temporaries(monkeypatch, code)
    assert main(GROK + ["--out", str(out)]) == 2
    err = _one_line_error(capsys)
    assert err.rstrip().endswith(f" {out / 'params.csv'}: {os.strerror(code)}"), err
    assert _files(tmp_path) == []


def test_a_directory_where_the_file_belongs(tmp_path):
    """os.replace over a directory: the error names the target (not the temporary), which is left alone."""
    target = tmp_path / "c.json"
    target.mkdir()
    with pytest.raises(IsADirectoryError) as info:
        write_atomic(target, b"{}")
    assert info.value.filename == str(target) and target.is_dir() and _leftovers(tmp_path) == []
    assert output_fault(info.value) == f"cannot access {target}: it is a directory, not a file"


def test_an_os_error_the_user_cannot_fix_keeps_its_traceback():
    assert output_fault(OSError(errno.EIO, os.strerror(errno.EIO), "x")) is None
    assert output_fault(OSError(errno.ENOSPC, NO_SPACE)) == NO_SPACE  # a write() names no path


def _row(family, args, estimate, trace):
    return {"model": f"{family} {args}", "family": family, "args": list(args), "num_params": 4,
            "exact_lambda": "1/2", "multiplicity": 1, "estimate": estimate, "stderr": 0.01,
            "relative_error": estimate / 0.5 - 1, "covered": True, "verdict": "ok", "reasons": [],
            "details": {}, "trace": trace}


def test_llc_suite_rows_on_a_full_disk_keep_the_finished_ones_for_resume(tmp_path, monkeypatch):
    """The rows, table and traces were written with open(path, "w"): a kill or a full disk left a truncated
    rows file, and --resume died on its JSON.  Now the old files stay whole, and load_rows reads them."""
    from algebra.numeric.suite import dump_rows, load_rows, write_table

    rows = [_row("regular", (2, 1), 0.5, np.arange(6.0).reshape(2, 3))]
    path = tmp_path / "llc_suite.json"
    dump_rows(rows, path)
    table = write_table(rows, tmp_path / "llc_suite.md")
    before = _files(tmp_path)
    more = rows + [_row("regular", (3, 1), 0.75, np.ones((2, 3)))]
    _full_disk(monkeypatch, after_writes=1)  # the traces are written, the rows are not
    with pytest.raises(OSError) as info:
        dump_rows(more, path)
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(path)
    with pytest.raises(OSError):
        write_table(more, tmp_path / "llc_suite.md")
    assert _files(tmp_path) == before and _leftovers(tmp_path) == []
    assert (tmp_path / "llc_suite.md").read_text() == table
    again = load_rows(path)
    assert [r["model"] for r in again] == ["regular (2, 1)"]
    assert np.array_equal(again[0]["trace"], rows[0]["trace"])
    assert json.loads(path.read_text())["summary"]["models"] == 1
