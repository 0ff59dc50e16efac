"""The one atomic writer (algebra/files.py): no truncated file, the user's umask, stale temporaries removed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from algebra.files import remove_stale_temporaries, write_atomic


def test_the_file_gets_the_umask_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        path = write_atomic(tmp_path / "c.json", b"{}")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644  # mkstemp alone gives 0600 (the bug)


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = write_atomic(tmp_path / "c.json", b"old")

    class Boom(Exception):
        pass

    from algebra.files import write_atomic_with

    def half(fh):
        fh.write(b"new, half")
        raise Boom

    with pytest.raises(Boom):
        write_atomic_with(path, half)
    assert path.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["c.json"]


def test_a_killed_writers_temporary_is_removed_by_the_next_write(tmp_path):
    """A temporary named with a pid that no longer runs is removed; one of a live process is kept."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".c.json.{int(dead.stdout)}.abc123.tmp"
    live = tmp_path / f".c.json.{os.getppid()}.def456.tmp"
    stale.write_bytes(b"partial")
    live.write_bytes(b"in progress")
    write_atomic(tmp_path / "c.json", b"{}")
    assert not stale.exists() and live.exists()
    assert remove_stale_temporaries(tmp_path / "c.json") == []


def test_grokking_status_is_written_atomically_and_a_cut_one_does_not_stop_a_resume(tmp_path):
    """status.json was written in place: a kill left it empty and resume died with a JSONDecodeError."""
    from algebra.grokking.runs import _read_status, _write_status

    _write_status(tmp_path, {"status": "running", "epoch": 3})
    assert _read_status(tmp_path) == {"status": "running", "epoch": 3}
    (tmp_path / "status.json").write_text("")  # what an in-place write cut by kill -9 left
    assert _read_status(tmp_path) == {}
