"""Atomic file writes: the one writer every file a later run reads goes through.

A file is written to a temporary sibling ``.<name>.<pid>.<random>.tmp``, flushed, fsynced and moved over the
target with :func:`os.replace`, so an interrupted write (``kill -9``, a full disk) leaves the old file or no
file, never a truncated one.  The file gets the permissions the user's umask gives a new file
(``mkstemp``'s ``0600`` is not kept).  Temporaries a killed process left beside the target (their pid no
longer running) are removed by the next write of the same target.

A write the system refuses raises an :class:`OSError` of the same errno that names the path the caller asked
for, never the temporary (a full disk's ``write`` names no path at all).  For the refusals the user can fix
(:data:`OUTPUT_ERRNOS`: a full disk or quota, no permission or a read-only file system, a file where a
directory belongs or the reverse) :func:`output_fault` says in one line what is wrong; the CLI prints it and
exits with status 2.  (These stay OSErrors: ``files`` sits beside ``errors`` at the bottom of the layer
table, and imports nothing of ours.)
"""

from __future__ import annotations

import errno
import os
import re
import tempfile
from pathlib import Path

__all__ = ["OUTPUT_ERRNOS", "output_fault", "write_atomic", "write_atomic_with", "remove_stale_temporaries"]

#: The errnos of an output the user can fix: the disk or the quota is full, the directory is not writable
#: (or the file system is read-only), or a file stands where a directory belongs (or a directory where a
#: file belongs).  Any other OSError is a fault of the program and keeps its traceback.
OUTPUT_ERRNOS = frozenset(getattr(errno, name) for name in
                          ("ENOSPC", "EDQUOT", "EFBIG", "EACCES", "EPERM", "EROFS", "EISDIR", "ENOTDIR", "EEXIST")
                          if hasattr(errno, name))


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


# Errnos that only a write raises; an EACCES or an ENOTDIR may also come from a read.
_WRITE_ONLY_ERRNOS = frozenset(getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EROFS")
                               if hasattr(errno, name))


def output_fault(exc: OSError) -> str | None:
    """One line saying why ``exc`` stopped a write, naming the path in the way; ``None`` when its errno is
    not in :data:`OUTPUT_ERRNOS` (a fault of the program, which keeps its traceback).

    Examples
    --------
    >>> import errno, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = write_atomic(d / "out", b"")
    >>> try:
    ...     write_atomic(d / "out" / "sub" / "c.json", b"{}")
    ... except OSError as exc:
    ...     output_fault(exc) == f"cannot access {d}/out/sub: {d}/out is a file, not a directory"
    True
    >>> output_fault(OSError(errno.ENOSPC, "No space left on device", "out/c.json"))
    'cannot write out/c.json: No space left on device'
    >>> output_fault(OSError(errno.EIO, "Input/output error", "out/c.json")) is None
    True
    """
    if exc.errno not in OUTPUT_ERRNOS:
        return None
    reason = exc.strerror or str(exc)
    name = exc.filename2 if exc.filename2 is not None else exc.filename  # os.replace(src, dst): dst
    if name is None:
        return reason
    path = Path(os.fsdecode(name))
    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        blocker = next((p for p in (path, *path.parents) if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            reason = "it is a file, not a directory" if blocker == path else f"{blocker} is a file, not a directory"
    elif exc.errno == errno.EISDIR and path.is_dir():
        reason = "it is a directory, not a file"
    verb = "write" if exc.errno in _WRITE_ONLY_ERRNOS else "access"
    return f"cannot {verb} {path}: {reason}"


def _naming(path: Path, exc: OSError) -> OSError:
    """``exc`` with ``path`` as its file name (``OSError(errno, ...)`` picks the subclass: PermissionError, ...)."""
    if exc.errno is None:
        return exc
    return OSError(exc.errno, exc.strerror or str(exc), str(path))


def write_atomic_with(path, write) -> Path:
    """Call ``write(fh)`` on a binary file handle of a temporary sibling, then move it over ``path``.

    On any failure the temporary is removed and ``path`` keeps its old content (or stays absent); an
    :class:`OSError` is raised again naming ``path`` (the directory, when creating it failed).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)  # its errors name the directory already
    remove_stale_temporaries(path)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:  # already gone; or not removable, and then a later write removes it
                pass
        if isinstance(exc, OSError):
            renamed = _naming(path, exc)
            if renamed is not exc:
                raise renamed from exc
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
