"""``neuroalgebra llc ...``: sampled local learning coefficients beside exact values.

Subcommands ``rrr``, ``dln``, ``qk``, ``quadratic``, ``regular``, ``poly`` estimate one
model with the automatic calibration of :mod:`algebra.numeric.calibration`
and print the estimate, its standard error and 95% interval, the exact
lambda and multiplicity, the relative error and the verdict (``--json`` for
the keys ``estimate, stderr, ci95, exact_lambda, multiplicity,
relative_error, verdict, seed, settings``).  ``suite`` runs every model of
:data:`algebra.numeric.suite.SUITE` and writes a table, a JSON file and two
figures.  Exit status: 0 when the verdict is ``ok``, 1 when ``suspect``.
"""

from __future__ import annotations

import json
import os
from fractions import Fraction

from algebra.errors import InputError

__all__ = ["register"]


def _int(name: str, minimum: int = 0):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise InputError(name, text, f"an integer >= {minimum}") from None
        if v < minimum:
            raise InputError(name, text, f"an integer >= {minimum}")
        return v
    return parse


def _widths(text: str) -> tuple:
    try:
        out = tuple(int(p) for p in text.split(","))
    except ValueError:
        raise InputError("--widths", text, "positive integers separated by commas") from None
    if len(out) < 2 or any(v <= 0 for v in out):
        raise InputError("--widths", text, "at least two positive integers separated by commas")
    return out


def _settings(args):
    from algebra.numeric.calibration import FAST, CalibrationSettings

    s = FAST if args.fast else CalibrationSettings()
    if args.chains is not None:
        s = CalibrationSettings(**{**s.__dict__, "num_chains": args.chains})
    return s


def _print_row(row: dict, as_json: bool) -> int:
    keys = ("estimate", "stderr", "ci95", "exact_lambda", "multiplicity", "relative_error",
            "verdict", "seed", "settings")
    if as_json:
        out = {k: row.get(k) for k in keys}
        out.update({k: row[k] for k in ("model", "chosen", "reasons", "theorem", "num_params", "n")
                    if k in row})
        out["multi_temperature"] = row["details"]["multi_temperature"]
        out["per_temperature"] = [
            {k: e[k] for k in ("nbeta", "estimate", "stderr", "ess", "rhat", "burnin", "accept_rate",
                               "divergent")}
            for e in row["details"]["per_temperature"]]
        print(json.dumps(out, indent=2, default=float))
    else:
        rel = row["relative_error"]
        lines = [
            ("model", row["model"]),
            ("estimate", f"{row['estimate']:.4f} +- {row['stderr']:.4f}  ({row['chosen']})"),
            ("95% interval", f"[{row['ci95'][0]:.4f}, {row['ci95'][1]:.4f}]"),
            ("exact lambda", f"{row['exact_lambda']} (m = {row['multiplicity']})"
             if row["exact_lambda"] is not None else "unknown"),
            ("relative error", "-" if rel is None else f"{100 * rel:+.2f}%"),
            ("verdict", row["verdict"] + ("" if not row["reasons"] else ": " + "; ".join(row["reasons"]))),
            ("seed", str(row["seed"])),
        ]
        width = max(len(k) for k, _ in lines)
        for k, v in lines:
            print(f"{k.ljust(width)}  {v}")
    return 0 if row["verdict"] == "ok" else 1


def _run_family(family: str, fargs: tuple, args) -> int:
    from algebra.numeric.suite import run_entry

    row = run_entry(family, fargs, settings=_settings(args), seed=args.seed, n=args.n)
    row["settings"] = row["details"]["settings"]
    return _print_row(row, args.json)


def _run_poly(args) -> int:
    from algebra.models.polynomial import parse_polynomial
    from algebra.numeric.calibration import calibrated_llc
    from algebra.numeric.models import polynomial_model

    variables = [v.strip() for v in args.variables.split(",")] if args.variables else None
    if variables is None:
        names = set()
        for i, text in enumerate(args.generators):
            names |= set(parse_polynomial(text, argument=f"generator {i + 1}").variables)
        variables = sorted(names)
    gens = [parse_polynomial(t, variables, argument=f"generator {i + 1}")
            for i, t in enumerate(args.generators)]
    if any(g.terms.get((0,) * len(variables)) for g in gens):
        raise InputError("generator", args.generators, "polynomials vanishing at the origin (w* = 0)")
    model = polynomial_model(gens, n=args.n or 10**12, seed=args.seed)
    res = calibrated_llc(model, settings=_settings(args), seed=args.seed)
    lam, mult, theorem = _newton_reference(gens, variables)
    row = {"model": model.name, "estimate": res.estimate, "stderr": res.stderr,
           "ci95": list(res.ci95), "chosen": res.chosen,
           "exact_lambda": None if lam is None else str(lam), "multiplicity": mult,
           "relative_error": None if lam is None else (res.estimate - float(lam)) / float(lam),
           "verdict": res.verdict, "reasons": list(res.reasons), "seed": args.seed,
           "settings": res.settings, "theorem": theorem, "num_params": model.dim, "n": model.n,
           "details": res.to_json()}
    return _print_row(row, args.json)


def _newton_reference(gens, variables):
    """Exact lambda of ``sum g_i^2`` from the Newton polyhedron when it is proved exact."""
    from algebra.models.polynomial import Polynomial
    from algebra.slt.newton import newton_rlct, sum_of_squares

    K = Polynomial(tuple(variables), sum_of_squares([g.terms for g in gens]))
    res = newton_rlct(K)
    if not res.exact:
        return None, None, f"Newton polyhedron: upper bound {res.lam} only ({res.nondegenerate})"
    return Fraction(res.lam), int(res.multiplicity), "Newton polyhedron (Watanabe 2009, Sec. 7.2)"


def _run_suite(args) -> int:
    from algebra.numeric.suite import (dump_rows, plot_suite, plot_traces, run_suite, summarize,
                                       write_table)

    os.makedirs(args.out, exist_ok=True)
    rows = run_suite(settings=_settings(args), seed=args.seed, progress=not args.json)
    table = write_table(rows, os.path.join(args.out, "llc_suite.md"))
    dump_rows(rows, os.path.join(args.out, "llc_suite.json"))
    figs = []
    try:
        figs.append(plot_suite(rows, os.path.join(args.out, "llc_suite.png")))
        figs.append(plot_traces(rows, os.path.join(args.out, "llc_traces.png")))
    except ImportError:  # matplotlib is an optional extra
        pass
    summary = summarize(rows)
    if args.json:
        print(json.dumps({"summary": summary, "files": figs}, indent=2))
    else:
        print(table)
        for k, v in summary.items():
            print(f"{k}: {v}")
        print("wrote", os.path.join(args.out, "llc_suite.md"), *figs)
    return 0 if summary["targets_met"] else 1


def register(subparsers) -> None:
    llc = subparsers.add_parser(
        "llc", help="sampled local learning coefficient vs exact value",
        description="Estimate the local learning coefficient by sampling (automatic calibration) "
                    "and compare it with the exact value from algebra.slt.")
    sub = llc.add_subparsers(dest="llc_command", metavar="MODEL")

    def common(p):
        p.add_argument("--seed", type=_int("--seed"), default=0)
        p.add_argument("--json", action="store_true", help="print JSON")
        p.add_argument("--fast", action="store_true", help="short chains (for tests and demos)")
        p.add_argument("--chains", type=_int("--chains", 2), default=None)
        p.add_argument("--n", type=_int("--n", 2), default=None, help="sample size")

    p = sub.add_parser("rrr", help="reduced rank regression (Aoyagi & Watanabe 2005)")
    for name in ("M", "N", "H"):
        p.add_argument(f"--{name}", type=_int(f"--{name}", 1), required=True)
    p.add_argument("--r", type=_int("--r", 0), required=True)
    common(p)
    p.set_defaults(handler=lambda a: _run_family("rrr", (a.M, a.N, a.H, a.r), a))

    p = sub.add_parser("dln", help="deep linear network (Aoyagi 2024)")
    p.add_argument("--widths", type=_widths, required=True, help="d0,d1,...,dL")
    p.add_argument("--r", type=_int("--r", 0), required=True)
    common(p)
    p.set_defaults(handler=lambda a: _run_family("dln", (a.widths, a.r), a))

    p = sub.add_parser("qk", help="query-key composite A B^T (graph-attention paper, Thm 2)")
    p.add_argument("--d", type=_int("--d", 1), required=True)
    p.add_argument("--k", type=_int("--k", 1), required=True)
    p.add_argument("--r", type=_int("--r", 0), required=True)
    common(p)
    p.set_defaults(handler=lambda a: _run_family("qk", (a.d, a.k, a.r), a))

    p = sub.add_parser("quadratic", help="quadratic network V (W x)^2, lambda = certified dimension / 2 "
                                         "(grokking paper, Thm 4.1)")
    p.add_argument("--d", type=_int("--d", 1), required=True)
    p.add_argument("--outputs", type=_int("--outputs", 1), required=True)
    p.add_argument("--width", type=_int("--width", 1), required=True)
    common(p)
    p.set_defaults(handler=lambda a: _run_family("quadratic", (a.d, a.outputs, a.width), a))

    p = sub.add_parser("regular", help="linear regression, lambda = d/2")
    p.add_argument("--in-dim", dest="in_dim", type=_int("--in-dim", 1), required=True)
    p.add_argument("--out-dim", dest="out_dim", type=_int("--out-dim", 1), default=1)
    common(p)
    p.set_defaults(handler=lambda a: _run_family("regular", (a.in_dim, a.out_dim), a))

    p = sub.add_parser("poly", help="regression on polynomial features; K = sum of squares of the generators")
    p.add_argument("generators", nargs="+", help='polynomials vanishing at 0, e.g. "x^2*y"')
    p.add_argument("--vars", dest="variables", default=None, help="variable order, e.g. x,y")
    common(p)
    p.set_defaults(handler=_run_poly)

    p = sub.add_parser("suite", help="run the exact-reference suite; writes table and figures")
    p.add_argument("--out", default="llc_suite_out", help="output directory")
    common(p)
    p.set_defaults(handler=_run_suite)
    llc.set_defaults(handler=lambda a: (llc.print_help(), 2)[1])
