"""Files and directories for the checker: what ``verify PATH...`` opens, skips and reports (part of the checker).

Imports nothing from :mod:`algebra` outside :mod:`algebra.checker`.  Only regular files are opened (a FIFO or
device is refused by its ``fstat`` after a non-blocking open, so it cannot hang the run); a directory is walked
without following symbolic links; every file met is reported; a directory holding ``index.json`` is checked as a
whole against it; one file's failure never stops the others' verdicts.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys

from algebra.checker.kernel import MAX_FILE_BYTES, Reject, _bad_constant, _no_duplicates, _shown, check_verdict, need

__all__ = ["check_file", "check_file_verdict", "certificate_files", "scan", "verify_paths", "render_row",
           "exit_status", "main"]


def check_file(path: str) -> tuple:
    """``(True, reason)`` when the file verifies, ``(False, reason)`` otherwise; never raises."""
    ok, reason, _, _ = _check_path(path)
    return ok, reason


def check_file_verdict(path: str) -> tuple:
    """``(ok, reason, judgement)``: :func:`check_file`, and the checker's judgement of the claim the file records
    (:func:`algebra.checker.kernel.check_verdict`; ``None`` when it records none or does not verify)."""
    ok, reason, _, judgement = _check_path(path)
    return ok, reason, judgement


def _read_regular(path: str) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``MAX_FILE_BYTES`` (a FIFO or device is never
    read: it is opened non-blocking and refused by its ``fstat``)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        need(stat.S_ISREG(os.fstat(fd).st_mode), "not a regular file (a FIFO, device or socket is not read)")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)
    need(len(data) <= MAX_FILE_BYTES, f"file larger than {MAX_FILE_BYTES} bytes")
    return data


def _parse_json(data: bytes):
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicates, parse_constant=_bad_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise Reject(f"not valid JSON ({type(exc).__name__})") from None


def _check_path(path: str) -> tuple:
    """``(ok, reason, sha256 or None, judgement or None)``; never raises (an unexpected error is a refusal that
    says so)."""
    try:
        cert = _parse_json(_read_regular(path))
        reason, judgement = check_verdict(cert)
        return True, reason, cert["sha256"], judgement
    except Reject as exc:
        return False, str(exc), None, None
    except OSError as exc:
        return False, f"cannot read the file ({exc.strerror})", None, None
    except (RecursionError, MemoryError, OverflowError, ValueError, TypeError, ArithmeticError) as exc:
        return False, f"malformed certificate ({type(exc).__name__})", None, None
    except Exception as exc:  # noqa: BLE001 - one file's failure never stops the others' verdicts
        return False, f"internal checker error ({type(exc).__name__}): not verified", None, None


def certificate_files(paths) -> list:
    """The certificate files :func:`verify_paths` checks: explicit paths as given, directories expanded into their
    ``*.json`` files (sorted, subdirectories included, symbolic links not followed, ``index.json`` excluded)."""
    return [r["file"] for r in scan(paths) if r["verified"] is not None or r.get("certificate")]


def scan(paths) -> list:
    """Expand ``paths`` into rows ``{"file", "verified", "reason"}`` without checking anything yet.

    A certificate to check has ``verified`` ``None`` and ``certificate`` ``True``; every other entry met in a
    directory is reported: ``verified`` ``None`` for a file that is not a certificate (not ``*.json``), ``False``
    (a failure) for what could hide one: a name ending in ``.json`` in another case, a symbolic link, a FIFO,
    device or socket.  ``index.json`` files are returned as ``{"index": True}`` rows."""
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
        for root, dirs, files in os.walk(p, followlinks=False):
            dirs.sort()
            for name in sorted(dirs):
                full = os.path.join(root, name)
                if os.path.islink(full):
                    rows.append({"file": full, "verified": False, "reason": "a symbolic link to a directory: not "
                                 "followed, so its certificates are not checked"})
            for name in sorted(files):
                rows.append(_classify(os.path.join(root, name), name))
    return rows


def _classify(full: str, name: str) -> dict:
    try:
        mode = os.lstat(full).st_mode
    except OSError as exc:
        return {"file": full, "verified": False, "reason": f"cannot read the file ({exc.strerror})"}
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
    """``{relative path: sha256}`` of the certificates an ``index.json`` lists (``claims`` and ``facts``)."""
    index = _parse_json(_read_regular(path))
    need(isinstance(index, dict) and isinstance(index.get("claims"), list), "not a certificate index (no 'claims')")
    listed = {}
    for row in index["claims"] + list(index.get("facts", [])):
        need(isinstance(row, dict), "an index row is not an object")
        name = row.get("file")
        if not name:  # a claim with no certificate (out of reach)
            need("sha256" not in row, "an index row has a sha256 but no file")
            continue
        need(isinstance(name, str) and re.fullmatch(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*", name) is not None
             and ".." not in name.split("/") and name.endswith(".json"), f"index row file {_shown(name)} is not a "
             "relative path to a *.json file inside the directory")
        need(name not in listed, f"index lists {name} twice")
        sha = row.get("sha256")
        need(isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha) is not None, f"index row {name}: no sha256")
        listed[name] = sha
    return listed


def verify_paths(paths, report=None) -> list:
    """Check every certificate under ``paths``; return one row per file met (see :func:`scan`), each certificate's
    ``verified`` now ``True`` or ``False``.

    A directory holding ``index.json`` is checked as a whole: every file the index lists must be present and
    carry the listed sha256, and every certificate below it must be listed (a stale or partial catalogue fails).
    ``report(row)`` is called as each row is decided."""
    rows = scan(paths)
    indexes = {}
    for row in rows:
        if row.get("index"):
            base = os.path.dirname(row["file"])
            try:
                indexes[base] = _read_index(row["file"])
                row.update(verified=None, reason="the index of this directory (checked against its files)")
            except (Reject, OSError, ValueError) as exc:
                row.update(verified=False, reason=f"unreadable index: {exc}")
    seen = {}
    for row in rows:
        if row.get("certificate"):
            ok, reason, sha, judgement = _check_path(row["file"])
            row.update(verified=ok, reason=reason)
            if judgement is not None:  # the user's claim the file records, judged by the checker
                row["claimed"] = judgement
            seen[os.path.normpath(row["file"])] = (row, sha)
        if report is not None and (not row.get("index") or row["verified"] is False):
            report(row)
    for base, listed in sorted(indexes.items()):
        covered = {os.path.normpath(os.path.join(base, name)): sha for name, sha in listed.items()}
        problems = []
        for full, sha in sorted(covered.items()):
            if full not in seen:
                problems.append({"file": full, "verified": False, "reason": f"listed in {base}/index.json but missing"})
            elif seen[full][1] is not None and seen[full][1] != sha:
                row = seen[full][0]
                row.update(verified=False, reason=f"its sha256 differs from the one {base}/index.json lists (a stale "
                           f"catalogue): {row['reason']}")
                problems.append(row)
        for full, (row, _) in sorted(seen.items()):
            inside = os.path.commonpath([os.path.abspath(full), os.path.abspath(base)]) == os.path.abspath(base)
            if inside and full not in covered:
                row.update(verified=False, reason=f"not listed in {base}/index.json: {row['reason']}")
                problems.append(row)
        if report is not None:
            for row in problems:
                report(row)
    return rows


def render_row(row) -> str:
    """One line per row: ``VERIFIED (reason)``, with ``; claim VERDICT: rank == 20`` when the file records a claim."""
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
    rows = verify_paths(args, report=lambda row: print(render_row(row)))
    return exit_status(rows)


def exit_status(rows) -> int:
    """0 when at least one certificate verified, no row failed and every recorded claim is confirmed, else 1 (a
    refuted or undecided claim is a decided negative answer, like a certificate that does not verify)."""
    ok = any(r["verified"] is True for r in rows) and not any(r["verified"] is False for r in rows)
    confirmed = all(r["claimed"]["verdict"] == "confirmed" for r in rows if "claimed" in r)
    return 0 if ok and confirmed else 1
