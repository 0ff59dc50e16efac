"""Atomic file writes: the one writer every file a later run reads goes through.

A file is written to a temporary sibling ``.<name>.<pid>.<random>.tmp``, flushed, fsynced and moved over the
target with :func:`os.replace`, so an interrupted write (``kill -9``, a full disk) leaves the old file or no
file, never a truncated one.  The file gets the permissions the user's umask gives a new file
(``mkstemp``'s ``0600`` is not kept).  Temporaries a killed process left beside the target (their pid no
longer running) are removed by the next write of the same target.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

__all__ = ["write_atomic", "write_atomic_with", "remove_stale_temporaries"]


def _umask() -> int:
    try:  # Linux: read it without changing it (os.umask would, briefly, for every thread)
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temporaries(path) -> list:
    """Delete ``.<name>.<pid>.*.tmp`` siblings of ``path`` whose writing process is gone; return them."""
    path = Path(path)
    pattern = re.compile(re.escape(f".{path.name}.") + r"(\d+)\.[^/]*\.tmp")
    removed = []
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return removed
    for entry in entries:
        m = pattern.fullmatch(entry.name)
        if m and int(m.group(1)) != os.getpid() and not _alive(int(m.group(1))):
            try:
                entry.unlink()
                removed.append(entry)
            except OSError:
                pass
    return removed


def write_atomic_with(path, write) -> Path:
    """Call ``write(fh)`` on a binary file handle of a temporary sibling, then move it over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def write_atomic(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see the module docstring).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> write_atomic(d / "x.json", b"{}").read_bytes()
    b'{}'
    """
    return write_atomic_with(path, lambda fh: fh.write(data))
