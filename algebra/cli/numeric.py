"""``neuroalgebra llc ...``: sampled local learning coefficients beside exact values.

Subcommands ``rrr``, ``dln``, ``qk``, ``quadratic``, ``regular``, ``poly`` estimate one
model with the automatic calibration of :mod:`algebra.numeric.calibration`
and print the estimate, its standard error and 95% interval, the exact
lambda and multiplicity, the relative error and the verdict (``--json`` for
the keys ``estimate, stderr, ci95, exact_lambda, multiplicity,
relative_error, verdict, seed, settings``).  Every model subcommand goes
through :func:`algebra.claims.llc_suites.run_entry`, the same entry the suites
use.  ``suite`` runs the calibration suite (:data:`~algebra.claims.llc_suites.SUITE`,
the models the procedure was designed on) or, with ``--which validation``,
the validation suite (:data:`~algebra.claims.llc_suites.VALIDATION`, never used
for design) and writes a table, a JSON file and two figures.  Exit status:
0 when the verdict is ``ok``, 1 when ``suspect``, 2 on bad input (sizes
too large for memory are refused before allocating, naming the argument).
"""

from __future__ import annotations

import json
import os

from algebra.cli._llc import EXIT_STATUS, LLC_FLAGS, add_llc_options, flag_names, llc_settings, print_llc
from algebra.cli.args import (add_sweep_options, generators_named, nonnegative_arg, output_directory_arg, parse_widths,
                              positive_arg, real_arg, sweep_options)
from algebra.cli.graph import register_llc_graph
from algebra.errors import InputError

__all__ = ["register", "MAX_LLC_LAYERS"]

#: Most layers of ``llc dln``: every sampler step costs a pass through every layer (--fast: about 0.3 s per layer
#: over all chains), so 32 layers answer in about ten seconds and 1000 would take many minutes.
MAX_LLC_LAYERS = 32

# the library's parameter names -> this command's options ("K" is the sum of squares of the generators)
_FLAGS = {**LLC_FLAGS, "K": "generators"}


def _run_family(family: str, fargs: tuple, args) -> int:
    from algebra.claims.llc_suites import run_entry

    with flag_names(_FLAGS), generators_named("generators"):  # llc poly: 'generator 2' is the positional's 2nd
        row = run_entry(family, fargs, settings=llc_settings(args), seed=args.seed, n=args.n, bar=not args.quiet)
    row["settings"] = row["details"]["settings"]
    return print_llc(row, args.json)


def _run_dln(args) -> int:
    widths = parse_widths(args.widths)
    if len(widths) - 1 > MAX_LLC_LAYERS:
        raise InputError("--widths", f"{len(widths)} widths", f"at most {MAX_LLC_LAYERS + 1} widths "
                         f"({MAX_LLC_LAYERS} layers, MAX_LLC_LAYERS: the sampler's cost is linear in depth)")
    return _run_family("dln", (widths, args.r), args)


def _run_suite(args) -> int:
    from algebra.claims.llc_suites import SUITE, VALIDATION, run_suite
    from algebra.numeric.suite import dump_rows, entry_key, plot_suite, plot_traces, summarize, write_table

    entries, stem = (SUITE, "llc_suite") if args.which == "calibration" else (VALIDATION, "llc_validation")
    os.makedirs(args.out, exist_ok=True)
    runner = sweep_options(args, serial=True)  # a cluster only when asked for: --workers N or --scheduler ADDRESS
    previous = None
    if args.resume and os.path.exists(os.path.join(args.out, f"{stem}.json")):
        from algebra.numeric.suite import load_rows

        previous = load_rows(os.path.join(args.out, f"{stem}.json"))
    json_path = os.path.join(args.out, f"{stem}.json")
    keep = {entry_key(r["family"], r["args"]): r for r in previous or ()}
    order = [entry_key(e.family, e.args) for e in entries]

    def on_row(row):
        # every finished row goes to disk at once (atomically), beside the earlier run's rows,
        # so a killed suite resumes with --resume and redoes only the missing entries
        keep[entry_key(row["family"], row["args"])] = row
        dump_rows([keep[k] for k in order if k in keep], json_path)

    with flag_names(_FLAGS):
        rows = run_suite(settings=llc_settings(args), seed=args.seed, progress=not args.quiet, entries=entries,
                         previous=previous, on_row=on_row, **runner)
    table = write_table(rows, os.path.join(args.out, f"{stem}.md"))
    dump_rows(rows, os.path.join(args.out, f"{stem}.json"))
    figs = []
    try:
        figs.append(plot_suite(rows, os.path.join(args.out, f"{stem}.png")))
        figs.append(plot_traces(rows, os.path.join(args.out, f"{stem}_traces.png")))
    except ImportError:  # matplotlib is an optional extra
        pass
    summary = summarize(rows)
    if args.json:
        print(json.dumps({"summary": summary, "files": figs}, indent=2))
    else:
        print(table)
        for k, v in summary.items():
            print(f"{k}: {v}")
        print("wrote", os.path.join(args.out, f"{stem}.md"), *figs)
    return 0 if summary["targets_met"] else 1


def _run_check_settings(args) -> int:
    """``llc check-settings``: :func:`algebra.check_settings` on exact twins; one line per twin."""
    from algebra.numeric.own_network import check_settings

    widths = parse_widths(args.widths)
    flags = {"nbeta": "--nbeta", "gamma": "--gamma", "step_size": "--step-size", "batch_size": "--batch-size",
             "draws": "--draws", "chains": "--chains", "n": "--n", "twins": "--twins", "seed": "--seed",
             "module_or_widths": "--widths"}
    with flag_names(flags):
        out = check_settings(widths, nbeta=args.nbeta, gamma=args.gamma, step_size=args.step_size,
                             batch_size=args.batch_size, draws=args.draws, chains=args.chains, n=args.n,
                             seed=args.seed, twins=args.twins)
    if args.json:
        print(json.dumps(out, indent=2, default=float))
        return 0
    s = out["settings"]
    print(f"settings: nbeta={s['nbeta']:g} gamma={s['gamma']:g} step_size={s['step_size']:g} "
          f"batch_size={s['batch_size']} draws={s['draws']} chains={s['chains']} (plain SGLD, no warm-up), "
          f"on deep linear twins of widths {','.join(map(str, widths))} with n={s['n']}")
    print(f"{'twin':>4}  {'rank':>4}  {'exact':>8}  {'estimate +- se':>20}  {'rel. error':>10}  {'Laplace':>9}  "
          f"{'R-hat':>6}  divergent")
    for r in out["rows"]:
        print(f"{r['twin']:>4}  {r['rank']:>4}  {r['exact']:>8}  {r['estimate']:>11.4g} +- {r['stderr']:<7.3g}  "
              f"{100 * r['relative_error']:>+9.1f}%  {r['laplace']:>9.4g}  {r['rhat']:>6.3f}  {r['divergent']}")
    print(f"bias of these settings: {100 * out['bias']:+.1f}% +- {100 * out['bias_stderr']:.1f}% (mean relative "
          "error over the twins); Laplace: the Gaussian prediction at these settings")
    return 0


def register(subparsers) -> None:
    llc = subparsers.add_parser(
        "llc", help="sampled local learning coefficient vs exact value", epilog=EXIT_STATUS,
        description="Estimate the local learning coefficient by sampling (automatic calibration) "
                    "and compare it with the exact value from algebra.slt.")
    sub = llc.add_subparsers(dest="llc_command", metavar="MODEL")

    p = sub.add_parser("rrr", help="reduced rank regression (Aoyagi & Watanabe 2005)", epilog=EXIT_STATUS,
                       description="Reduced rank regression y = B A x + noise, A of shape H x M, B of shape N x H, "
                                   "at a true product of rank r; exact lambda by Aoyagi & Watanabe (2005), Thm 1.")
    p.add_argument("--M", type=positive_arg("--M"), required=True, help="input dimension M (x in R^M)")
    p.add_argument("--N", type=positive_arg("--N"), required=True,
                   help="output dimension N (y in R^N; not the sample size, which is --n)")
    p.add_argument("--H", type=positive_arg("--H"), required=True, help="hidden width H (the product has rank <= H)")
    p.add_argument("--r", type=nonnegative_arg("--r"), required=True,
                   help="rank of the true product B0 A0, 0 <= r <= min(M, N, H)")
    add_llc_options(p)
    p.set_defaults(handler=lambda a: _run_family("rrr", (a.M, a.N, a.H, a.r), a))

    p = sub.add_parser("dln", help="deep linear network (Aoyagi 2024)", epilog=EXIT_STATUS,
                       description="Deep linear network y = W_L ... W_1 x + noise at a true product of rank r; "
                                   "exact lambda and multiplicity by Aoyagi (2024), Thm 1.")
    p.add_argument("--widths", required=True, help="layer widths d0,d1,...,dL (input first, output last)")
    p.add_argument("--r", type=nonnegative_arg("--r"), required=True,
                   help="rank of the true product, 0 <= r <= min(widths)")
    add_llc_options(p)
    p.set_defaults(handler=_run_dln)

    p = sub.add_parser("qk", help="query-key composite A B^T (graph-attention paper, Thm 2)", epilog=EXIT_STATUS,
                       description="Query-key composite M = A B^T, A and B of shape d x k, at a true M of rank r.")
    p.add_argument("--d", type=positive_arg("--d"), required=True, help="embedding dimension d")
    p.add_argument("--k", type=positive_arg("--k"), required=True, help="key/query dimension k (the factors' width)")
    p.add_argument("--r", type=nonnegative_arg("--r"), required=True, help="rank of the true M, 0 <= r <= min(d, k)")
    add_llc_options(p)
    p.set_defaults(handler=lambda a: _run_family("qk", (a.d, a.k, a.r), a))

    p = sub.add_parser("quadratic", help="quadratic network V (W x)^2, lambda = certified dimension / 2 "
                                         "(grokking paper, Thm 4.1)", epilog=EXIT_STATUS)
    p.add_argument("--d", type=positive_arg("--d"), required=True, help="input dimension d")
    p.add_argument("--outputs", type=positive_arg("--outputs"), required=True, help="number of outputs p")
    p.add_argument("--width", type=positive_arg("--width"), required=True, help="hidden width K")
    add_llc_options(p)
    p.set_defaults(handler=lambda a: _run_family("quadratic", (a.d, a.outputs, a.width), a))

    p = sub.add_parser("regular", help="linear regression, lambda = d/2", epilog=EXIT_STATUS)
    p.add_argument("--in-dim", dest="in_dim", type=positive_arg("--in-dim"), required=True, help="input dimension")
    p.add_argument("--out-dim", dest="out_dim", type=positive_arg("--out-dim"), default=1,
                   help="output dimension (default 1); d = in-dim x out-dim parameters")
    add_llc_options(p)
    p.set_defaults(handler=lambda a: _run_family("regular", (a.in_dim, a.out_dim), a))

    p = sub.add_parser("poly", help="regression on polynomial features; K = sum of squares of the generators",
                       epilog=EXIT_STATUS)
    p.add_argument("generators", nargs="+", help='polynomials vanishing at 0, e.g. "x^2*y"')
    add_llc_options(p)
    p.set_defaults(handler=lambda a: _run_family("poly", tuple(a.generators), a))

    register_llc_graph(sub)  # `llc graph` (issue 13, graph attention)

    p = sub.add_parser("check-settings", help="run given SGLD settings on exact deep linear twins: their bias",
                       description="Run devinterp-style SGLD settings (plain SGLD, w <- w - eps/2 (nbeta grad L_b + "
                                   "gamma (w - w*)) + sqrt(eps) xi) on deep linear networks of the given widths at "
                                   "rank-deficient teachers with noiseless data, where Aoyagi's formula gives the "
                                   "exact learning coefficient; print each twin's relative error and the Laplace "
                                   "prediction at the settings (algebra.check_settings).",
                       epilog="exit status: 0 when it ran, 2 on bad input")
    p.add_argument("--widths", required=True, help="layer widths d0,d1,...,dL of the twins")
    p.add_argument("--nbeta", type=real_arg("--nbeta", low=0, low_open=True), required=True,
                   help="inverse temperature times n (devinterp's nbeta)")
    p.add_argument("--gamma", type=real_arg("--gamma", low=0), required=True, help="localization strength")
    p.add_argument("--step-size", dest="step_size", type=real_arg("--step-size", low=0, low_open=True),
                   required=True, help="SGLD step size epsilon")
    p.add_argument("--batch-size", dest="batch_size", type=positive_arg("--batch-size"), required=True)
    p.add_argument("--draws", type=positive_arg("--draws"), required=True, help="draws per chain")
    p.add_argument("--chains", type=positive_arg("--chains"), default=4, help="chains (default 4, at least 2)")
    p.add_argument("--n", type=positive_arg("--n"), required=True, help="samples per twin")
    p.add_argument("--twins", type=positive_arg("--twins"), default=2, help="independent twins (default 2)")
    p.add_argument("--seed", type=nonnegative_arg("--seed"), default=0)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_run_check_settings)

    p = sub.add_parser("suite", help="run the calibration or the validation suite; writes table and figures",
                       epilog="exit status: 0 when the suite meets its accuracy targets, 1 when it does not, "
                              "2 on bad input")
    p.add_argument("--which", choices=("calibration", "validation"), default="calibration",
                   help="calibration: the models the procedure was designed on; validation: "
                        "models it never saw (run with the calibration frozen)")
    p.add_argument("--out", default="llc_suite_out", type=output_directory_arg("--out"), help="output directory")
    p.add_argument("--resume", action="store_true",
                   help="keep the rows of OUT's previous run made with the same seed and settings; run only "
                        "the entries it lacks (entries added to a suite later)")
    add_llc_options(p, sample_size=False)
    add_sweep_options(p, serial_by_default=True)
    p.set_defaults(handler=_run_suite)
    llc.set_defaults(handler=lambda a: (llc.print_help(), 2)[1])
