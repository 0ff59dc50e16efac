"""Files and directories for the checker: what ``verify PATH...`` opens, skips and reports (part of the checker).

Imports :mod:`algebra.checker.core` (one file's verdict: :func:`~algebra.checker.core.check_path`) and
:mod:`algebra.checker.index`; it decides which files a directory holds and whether its ``index.json`` says what
they prove, never a single file's claim.  Only regular files are opened (a FIFO or
device is refused by its ``fstat`` after a non-blocking open, so it cannot hang the run); a directory is walked
without following symbolic links; every file met is reported, and a name outside ``[A-Za-z0-9._-]`` is a failure
(it could hide a certificate from a reader or a terminal); a directory holding ``index.json`` is checked as a
whole against it (:mod:`algebra.checker.index`: every field typed, every row's verdict and proven value
re-derived), and an ``index.json`` that is not a regular file fails it; one file's failure never stops the
others' verdicts, and nothing a directory holds makes either entry point raise.
"""

from __future__ import annotations

import os
import re
import stat
import sys

from algebra.checker.core import Reject, check_path, parse_json, read_regular
from algebra.checker.index import read_index, row_mismatch, summary

__all__ = ["certificate_files", "scan", "verify_paths", "render_row", "exit_status", "main"]


def _check_path(path: str) -> tuple:
    """``(ok, reason, sha256 or None, judgement or None, index summary or None)`` of one file
    (:func:`algebra.checker.core.check_path`, :func:`algebra.checker.index.summary`); never raises."""
    ok, reason, cert, judgement = check_path(path)
    if not ok:
        return False, reason, None, None, None
    return True, reason, cert["sha256"], judgement, summary(cert)


def certificate_files(paths) -> list:
    """The certificate files :func:`verify_paths` checks: explicit paths as given, directories expanded into their
    ``*.json`` files (sorted, subdirectories included, symbolic links not followed, ``index.json`` excluded)."""
    return [r["file"] for r in scan(paths) if r["verified"] is not None or r.get("certificate")]


#: The characters a name met in a directory may use; any other (a newline, a zero-width space, a non-ASCII
#: letter) is a failure: such a name can pass for another in a listing or split a verdict line.
NAME = re.compile(r"[A-Za-z0-9._-]+")


def _printable(text: str) -> str:
    """``text`` unchanged when it is printable ASCII, else as one line of ASCII (``ascii`` escapes, without the
    quotes): a verdict line cannot be split or disguised by the names it reports.

    >>> _printable("a.json"), _printable("forged.json\\n"), _printable("forged.json\\u200b")
    ('a.json', 'forged.json\\\\n', 'forged.json\\\\u200b')
    """
    return text if text.isascii() and text.isprintable() else ascii(text)[1:-1]


def _bad_name(full: str, what: str) -> dict:
    return {"file": full, "verified": False,
            "reason": f"{what} name outside [A-Za-z0-9._-]: a failure, not a skip (rename it to check it)"}


def scan(paths) -> list:
    """Expand ``paths`` into rows ``{"file", "verified", "reason"}`` without checking anything yet.

    A certificate to check has ``verified`` ``None`` and ``certificate`` ``True``; every other entry met in a
    directory is reported: ``verified`` ``None`` for a file that is not a certificate (not ``*.json``), ``False``
    (a failure) for what could hide one: a name outside ``[A-Za-z0-9._-]``, a name ending in ``.json`` in
    another case, a symbolic link, a FIFO, device or socket, a subdirectory that cannot be listed, an
    ``index.json`` that is not a regular file.  ``index.json`` files are returned as ``{"index": True}`` rows.

    Examples
    --------
    >>> scan(["no/such/file.json"])
    [{'file': 'no/such/file.json', 'verified': False, 'reason': 'cannot read the file (No such file or directory)'}]
    """
    rows = []
    for p in paths:
        try:
            mode = os.lstat(p).st_mode
        except OSError as exc:
            rows.append({"file": p, "verified": False, "reason": f"cannot read the file ({exc.strerror})"})
            continue
        if not stat.S_ISDIR(mode):
            rows.append({"file": p, "verified": None, "certificate": True})
            continue
        unlisted = []
        for root, dirs, files in os.walk(p, followlinks=False, onerror=unlisted.append):
            keep = []
            for name in sorted(dirs):
                full = os.path.join(root, name)
                if NAME.fullmatch(name) is None:
                    rows.append(_bad_name(full, "a directory"))
                elif os.path.islink(full):
                    rows.append({"file": full, "verified": False, "reason": "a symbolic link to a directory: not "
                                 "followed, so its certificates are not checked"})
                elif name == "index.json":
                    rows.append({"file": full, "verified": False, "reason": "index.json is a directory, not a "
                                 "regular file: this directory cannot be checked as a whole"})
                else:
                    keep.append(name)
            dirs[:] = keep  # os.walk descends only into these
            for name in sorted(files):
                full = os.path.join(root, name)
                rows.append(_classify(full, name) if NAME.fullmatch(name) else _bad_name(full, "a file"))
        for exc in unlisted:
            rows.append({"file": exc.filename or p, "verified": False,
                         "reason": f"cannot list the directory ({exc.strerror}): its certificates are not checked"})
    return rows


def _classify(full: str, name: str) -> dict:
    try:
        mode = os.lstat(full).st_mode
    except OSError as exc:
        return {"file": full, "verified": False, "reason": f"cannot read the file ({exc.strerror})"}
    if name == "index.json" and not stat.S_ISREG(mode):
        return {"file": full, "verified": False, "reason": "index.json is not a regular file (a symbolic link, FIFO, "
                "device or socket): this directory cannot be checked as a whole"}
    if stat.S_ISLNK(mode):
        return {"file": full, "verified": False, "reason": "a symbolic link: not followed, not checked"}
    if not stat.S_ISREG(mode):
        return {"file": full, "verified": False, "reason": "not a regular file (a FIFO, device or socket): not opened"}
    if name == "index.json":
        return {"file": full, "verified": None, "index": True}
    if name.endswith(".json"):
        return {"file": full, "verified": None, "certificate": True}
    if name.lower().endswith(".json"):
        return {"file": full, "verified": False, "reason": "named like a certificate but not '*.json' in lower case: "
                "not checked (rename it to check it)"}
    return {"file": full, "verified": None, "reason": "skipped: not a certificate (not *.json)"}


def _read_index(path: str) -> dict:
    """``{relative path: row}`` of the certificates an ``index.json`` lists (``claims`` and ``facts``, typed by
    :func:`algebra.checker.index.read_index`); :class:`Reject` with a one-line reason for anything else."""
    try:
        return read_index(parse_json(read_regular(path)))
    except Reject:
        raise
    except OSError as exc:
        raise Reject(f"cannot read the file ({exc.strerror})") from None
    except (RecursionError, MemoryError) as exc:
        raise Reject(f"malformed index ({type(exc).__name__})") from None


def verify_paths(paths, report=None) -> list:
    """Check every certificate under ``paths``; return one row per file met (see :func:`scan`), each certificate's
    ``verified`` now ``True`` or ``False``.

    A directory holding ``index.json`` is checked as a whole: every file the index lists must be present, carry
    the listed sha256 and have the row's verdict and proven value re-derived from it
    (:func:`algebra.checker.index.row_mismatch`; a mismatch is a failure naming the row), and every certificate
    below it must be listed (a stale or partial catalogue fails).  ``report(row)`` is called as each row is
    decided."""
    rows = scan(paths)
    indexes = {}
    for row in rows:
        if row.get("index"):
            base = os.path.dirname(row["file"])
            try:
                indexes[base] = _read_index(row["file"])
                row.update(verified=None, reason="the index of this directory (checked against its files)")
            except Reject as exc:
                row.update(verified=False, reason=f"unreadable index: {exc}")
    seen = {}
    for row in rows:
        if row.get("certificate"):
            ok, reason, sha, judgement, facts = _check_path(row["file"])
            row.update(verified=ok, reason=reason)
            if judgement is not None:  # the user's claim the file records, judged by the checker
                row["claimed"] = judgement
            seen[os.path.normpath(row["file"])] = (row, sha, facts)
        if report is not None and (not row.get("index") or row["verified"] is False):
            report(row)
    for base, listed in sorted(indexes.items()):
        where = os.path.join(base, "index.json")
        covered = {os.path.normpath(os.path.join(base, name)): entry for name, entry in listed.items()}
        problems = []
        for full, entry in sorted(covered.items()):
            if full not in seen:
                problems.append({"file": full, "verified": False, "reason": f"listed in {where} but missing"})
                continue
            row, sha, facts = seen[full]
            if sha is not None and sha != entry["sha256"]:
                row.update(verified=False, reason=f"its sha256 differs from the one {where} lists (a stale "
                           f"catalogue): {row['reason']}")
                problems.append(row)
            elif facts is not None:
                why = row_mismatch(entry, facts)
                if why is not None:
                    problems.append({"file": where, "verified": False,
                                     "reason": f"row {ascii(entry['id'])} ({entry['file']}) does not say what its "
                                     f"certificate proves: {why}"})
        for full, (row, _, _) in sorted(seen.items()):
            inside = os.path.commonpath([os.path.abspath(full), os.path.abspath(base)]) == os.path.abspath(base)
            if inside and full not in covered:
                row.update(verified=False, reason=f"not listed in {where}: {row['reason']}")
                problems.append(row)
        rows.extend(p for p in problems if not any(p is r for r in rows))
        if report is not None:
            for row in problems:
                report(row)
    return rows


def render_row(row) -> str:
    """One line per row: ``VERIFIED (reason)``, with ``; claim VERDICT: rank == 20`` when the file records a claim."""
    row = dict(row, file=_printable(row["file"]), reason=_printable(row.get("reason", "")))
    if row["verified"] is True and "claimed" in row:
        j = row["claimed"]
        return (f"{row['file']}: VERIFIED; claim {j['verdict'].upper()}: {j['quantity']} {j['relation']} {j['value']} "
                f"({row['reason']})")
    if row["verified"] is True:
        return f"{row['file']}: VERIFIED ({row['reason']})"
    if row["verified"] is False:
        return f"{row['file']}: NOT VERIFIED: {row['reason']}"
    return f"{row['file']}: {row['reason']}"


def main(argv=None) -> int:
    """``python -m algebra.checker PATH...``: one verdict line per file (a directory: its ``*.json``, subdirectories
    included, checked against its ``index.json`` when it has one; every file skipped is reported and why); exit 0
    only if every certificate verifies, every claim a file records is confirmed, and nothing that could hide a
    certificate was skipped."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m algebra.checker CERTIFICATE.json|DIR ...", file=sys.stderr)
        return 2
    try:
        rows = verify_paths(args, report=lambda row: print(render_row(row)))
    except Exception as exc:  # noqa: BLE001 - never a traceback, never a pass: the run fails and says why
        print(f"NOT VERIFIED: internal checker error ({type(exc).__name__}): nothing is verified")
        return 1
    return exit_status(rows)


def exit_status(rows) -> int:
    """0 when at least one certificate verified, no row failed and every recorded claim is confirmed, else 1 (a
    refuted or undecided claim is a decided negative answer, like a certificate that does not verify)."""
    ok = any(r["verified"] is True for r in rows) and not any(r["verified"] is False for r in rows)
    confirmed = all(r["claimed"]["verdict"] == "confirmed" for r in rows if "claimed" in r)
    return 0 if ok and confirmed else 1
