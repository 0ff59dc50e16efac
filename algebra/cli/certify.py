"""CLI: ``neuroalgebra certify``, ``verify``, ``export`` and ``crosscheck``."""

from __future__ import annotations

import json
import time
from pathlib import Path

from algebra.checker import MAX_FILE_BYTES
from algebra.cli.args import add_progress_options, output_directory_arg, output_file_arg, add_sweep_options, seed_arg, progress_bar, sweep_options
from algebra import inputs
from algebra.errors import InputError

__all__ = ["register", "certificate_paths"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "certify",
        help="compute and write the catalogue of paper-claim certificates",
        description="Certify every checkable claim of the papers (dimension counts, learning coefficients, "
        "approximation ranks of attention matrices) and write one certificate per claim plus INDEX.md and index.json "
        "(which also lists the certificates of the attention/ subdirectory, never rewritten or deleted here).",
    )
    p.add_argument("--out", default="certificates", type=output_directory_arg("--out"), help="output directory (default: certificates)")
    p.add_argument("--fast", action="store_true", help="only the small CI subset")
    p.add_argument("--seed", type=seed_arg(), default=0, help="seed of the integer points and inputs")
    add_progress_options(p)
    p.add_argument("--json", action="store_true", help="print the index as JSON")
    add_sweep_options(p, serial_by_default=True)
    # certify's default differs from the shared runner's: with neither option the claims run in this process
    # (a cluster's start-up costs more than the fast subset takes); the options' help states the runner's default
    p.epilog = ("Unlike other sweeps, certify runs the claims in this process when neither --scheduler nor --workers "
                "is given; --workers N runs them on a LocalCluster of N processes, --scheduler ADDRESS on a running "
                "Dask scheduler. Every route writes byte-identical certificates.")
    p.set_defaults(handler=_certify)

    v = subparsers.add_parser(
        "verify",
        help="re-check certificate files with the independent checker",
        description="Print VERIFIED or NOT VERIFIED: reason for each file (directories: every *.json except "
        "index.json, subdirectories included; a name outside [A-Za-z0-9._-] is a failure; a directory with an "
        "index.json is checked as a whole: every field typed, every row's verdict and proven value re-derived "
        "from its certificate). A file that records the user's claim (its 'claimed' member, written "
        "by certify_model(..., claimed=N)) also gets the checker's verdict on it, re-derived from the proven bounds: "
        "confirmed, refuted or out of reach. Exit status 0 only when every file verifies and every recorded claim "
        "is confirmed.",
    )
    v.add_argument("paths", nargs="+", metavar="PATH", help="certificate files or directories")
    v.add_argument("--json", action="store_true", help="print one JSON object")
    add_progress_options(v)
    v.set_defaults(handler=_verify)

    e = subparsers.add_parser(
        "export",
        help="write a Singular or Macaulay2 script recomputing a certificate's claim",
    )
    e.add_argument("system", choices=["singular", "m2"])
    e.add_argument("certificate", metavar="CERT")
    e.add_argument("-o", "--output", default=None, type=output_file_arg("--output"), help="script path (default: next to CERT)")
    e.set_defaults(handler=_export)

    x = subparsers.add_parser(
        "crosscheck",
        help="recompute certificates' ranks in Singular or Macaulay2 and report agreement",
        description="For each rank, dimension or defect certificate (and regular_model formula), run the exported "
        "script in the peer: the rank of the FULL Jacobian of the coefficient map at a random point the peer draws "
        "(the upper-bound side) and the witness minor (the lower-bound side). Exit 0 only when every checked file "
        "agrees; 2 when the peer is not installed.",
    )
    x.add_argument("system", choices=["singular", "m2"])
    x.add_argument("paths", nargs="+", metavar="PATH", help="certificate files or directories")
    x.add_argument("--json", action="store_true", help="print one JSON object")
    add_progress_options(x)
    x.set_defaults(handler=_crosscheck)


def certificate_paths(paths) -> list:
    """Expand directories, subdirectories included, into their ``*.json`` certificates (sorted, every
    ``index.json`` skipped): the checker's own expansion, so ``verify`` and ``python -m algebra.checker``
    check the same files.

    Examples
    --------
    >>> certificate_paths(["no/such/file.json"])
    ['no/such/file.json']
    """
    from algebra.checker import certificate_files

    return certificate_files([str(p) for p in paths])


def _certify(args) -> int:
    from algebra.certify.catalogue import run_catalogue

    if args.seed < 0:
        raise InputError("--seed", args.seed, "a non-negative integer")
    t0 = time.perf_counter()
    sweep = sweep_options(args, serial=True)  # the default: no cluster unless asked for
    entries = run_catalogue(args.out, fast=args.fast, seed=args.seed, progress=not args.quiet, **sweep)
    seconds = time.perf_counter() - t0
    if args.json:
        print(json.dumps({"seconds": round(seconds, 2), "claims": entries}, indent=1, sort_keys=True))
        return 0
    counts = {}
    for e in entries:
        counts[e["verdict"]] = counts.get(e["verdict"], 0) + 1
    for e in entries:
        if e["verdict"] != "confirmed":
            extra = e.get("note") or e.get("reason") or f"paper says {e.get('says')}; proven {e.get('proven')}"
            print(f"{e['verdict']:>16}  {e['id']}  ({extra})")
    print(f"{len(entries)} claims in {seconds:.1f} s: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
          + f"; index in {Path(args.out) / 'INDEX.md'}")
    return 0


def _verify(args) -> int:
    from algebra.checker import exit_status, render_row, scan, verify_paths

    t0 = time.perf_counter()
    paths = [str(p) for p in args.paths]
    bar = progress_bar(total=sum(1 for r in scan(paths) if r.get("certificate")), quiet=args.quiet, desc="verify",
                       unit="file")
    counted = set()

    def report(row):
        if row.get("certificate") and id(row) not in counted:  # index problems re-report checked rows
            counted.add(id(row))
            bar.update(1)
        if not args.json:
            bar.write(render_row(row))  # above the bar, on stdout

    try:
        with bar:
            rows = verify_paths(paths, report=report)
    except Exception as exc:  # noqa: BLE001 - never a traceback, never a pass: the run fails and says why
        print(f"NOT VERIFIED: internal checker error ({type(exc).__name__}): nothing is verified")
        return 1
    certs = [r for r in rows if r.get("certificate")]
    if not certs:
        print("NOT VERIFIED: no certificate files found")
        return 1
    failed = [r for r in rows if r["verified"] is False]
    judged = [r["claimed"] for r in rows if "claimed" in r]
    if args.json:
        files = [{"file": r["file"], "verified": r["verified"], "reason": r["reason"],
                  **({"claimed": r["claimed"]} if "claimed" in r else {})} for r in rows if not r.get("index")]
        print(json.dumps({"files": files, "all_verified": not failed,
                          "all_claims_confirmed": all(j["verdict"] == "confirmed" for j in judged)},
                         indent=1, sort_keys=True))
    else:
        good = sum(r["verified"] is True for r in certs)
        other = len(failed) - sum(r["verified"] is False for r in certs)
        verdicts = {}
        for j in judged:
            verdicts[j["verdict"]] = verdicts.get(j["verdict"], 0) + 1
        print(f"{good} of {len(certs)} verified in {time.perf_counter() - t0:.1f} s"
              + (f"; {other} other problem(s) (skipped files, index mismatches) listed above" if other else "")
              + (f"; recorded claims: " + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())) if judged else ""))
    return exit_status(rows)


#: What reading a malformed certificate raises (JSON nested past the recursion limit: RecursionError).
_MALFORMED = (ValueError, KeyError, TypeError, AttributeError, RecursionError)


def _export(args) -> int:
    from algebra.certify.export import export_file

    path = Path(args.certificate)
    # a JSON object of at most the checker's size (checked before reading); the file is read again below
    inputs.json_object(args.certificate, "CERT", max_bytes=MAX_FILE_BYTES)
    try:
        target = export_file(path, args.system, args.output)
    except _MALFORMED as exc:
        raise InputError("CERT", args.certificate, f"a well-formed rank certificate ({type(exc).__name__})") from None
    print(target)
    return 0


def _crosscheck(args) -> int:
    from algebra.certify.export import PEERS, crosscheck

    for a in args.paths:  # '' would expand to the working directory
        if not (a.strip() and Path(a).is_dir()):
            inputs.input_file(a, "PATH")
    paths = certificate_paths(args.paths)
    if not paths:
        raise InputError("PATH", " ".join(args.paths), "at least one certificate file (*.json)")
    for p in paths:  # every file a JSON object of at most the checker's size, before any peer runs
        inputs.json_object(p, "PATH", max_bytes=MAX_FILE_BYTES)
    results = []
    for p in progress_bar(paths, quiet=args.quiet, desc=f"crosscheck {args.system}", unit="file"):
        try:
            results.append(crosscheck(p, args.system))
        except _MALFORMED as exc:
            raise InputError("FILE", str(p), f"a well-formed certificate ({type(exc).__name__})") from None
    if args.json:
        print(json.dumps({"system": args.system, "files": results}, indent=1, sort_keys=True))
    else:
        for r in results:
            last = r["output"].splitlines()[-2:] if r["status"] in ("agree", "disagree") else [r["output"]]
            print(f"{r['file']}: {r['status'].upper()} ({' / '.join(last)})")
    if any(r["status"] == "unavailable" for r in results) or not results:
        if not args.json:
            print(f"{PEERS[args.system][0]} is not installed: nothing was cross-checked")
        return 2
    bad = sum(r["status"] == "disagree" for r in results)
    if not args.json:
        done = sum(r["status"] != "skipped" for r in results)
        print(f"{done - bad} of {done} cross-checked files agree ({len(results) - done} skipped: no rank to recompute)")
    return 0 if bad == 0 else 1
