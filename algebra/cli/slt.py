"""``neuroalgebra rlct ...``: exact learning coefficients from the command line.

Argument parsing only; every subcommand calls a library function in
:mod:`algebra.slt`.
"""

from __future__ import annotations

import json

from algebra.cli._llc import flag_names
from algebra.cli.args import (generators_named, integer_arg, seed_arg, output_file_arg, parse_integers, plot_file_arg, parse_widths, print_certificate,
                              write_certificate)
from algebra.errors import InputError, ResourceError
from algebra.models.polynomial import parse_generators

__all__ = ["register"]


def _int(name: str, minimum: int = 0):
    """argparse type: an integer >= minimum in ASCII digits, with a message naming the argument."""
    return integer_arg(name, minimum=minimum, allowed="a positive integer" if minimum == 1 else f"an integer >= {minimum}")


def _print_lc(lc, as_json: bool, cert: dict | None = None) -> int:
    if as_json:
        print(json.dumps(dict(lc.to_json(), **({"certificate": cert} if cert else {})), indent=2))
        return 0
    rows = [("lambda", str(lc.lam)), ("multiplicity", str(lc.multiplicity)), ("theorem", lc.theorem), ("case", lc.case)]
    for key, value in lc.extra.items():
        rows.append((key, str(value)))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k.ljust(width)}  {v}")
    if cert:
        print_certificate(cert)
    return 0


def _certificate(args, emit) -> dict | None:
    """Write the certificate asked for with ``--certificate FILE`` (``emit(path)`` is an algebra.certify entry point)."""
    if not getattr(args, "certificate", None):
        return None
    return write_certificate(args.certificate, emit)


def _formula(args, name: str, *values) -> dict | None:
    from algebra.certify import certify_formula

    return _certificate(args, lambda path: certify_formula(name, values, path))


#: the formulas' parameter names -> the options of ``rlct rrr``, ``dln``, ``qk``, ``regular``, ``quadratic``
_FLAGS = {"M": "--M", "N": "--N", "H": "--H", "r": "--r", "d": "--d", "k": "--k", "widths": "--widths",
          "rank": "--rank", "outputs": "--outputs", "width": "--width"}


def _run_rrr(args) -> int:
    from algebra.slt.formulas import reduced_rank_regression

    with flag_names(_FLAGS):
        lc = reduced_rank_regression(args.M, args.N, args.H, args.r)
    return _print_lc(lc, args.json, _formula(args, "reduced_rank_regression", args.M, args.N, args.H, args.r))


def _run_dln(args) -> int:
    from algebra.slt.formulas import deep_linear_network

    widths = parse_widths(args.widths)
    with flag_names(_FLAGS):
        lc = deep_linear_network(widths, args.r)
    return _print_lc(lc, args.json, _formula(args, "deep_linear_network", widths, args.r))


def _run_qk(args) -> int:
    from algebra.slt.formulas import query_key

    with flag_names(_FLAGS):
        lc = query_key(args.d, args.k, args.r)
    return _print_lc(lc, args.json, _formula(args, "query_key", args.d, args.k, args.r))


def _run_regular(args) -> int:
    from algebra.slt.formulas import regular_model_coefficient

    with flag_names(_FLAGS):
        lc = regular_model_coefficient(args.rank)
    return _print_lc(lc, args.json)


def _run_quadratic(args) -> int:
    from algebra.certify import certify_model
    from algebra.slt.regular import quadratic_network_coefficient

    from algebra.models import quadratic_network as network

    try:
        with flag_names(_FLAGS):
            lc = quadratic_network_coefficient(args.d, args.outputs, args.width, bias=args.bias, seed=args.seed)
    except ResourceError as exc:  # rlct quadratic has no --max-memory: the size is the network's
        reason = str(exc).replace("raise --max-memory or use a smaller model", "use a smaller network")
        raise InputError("--d/--outputs/--width", f"{args.d}/{args.outputs}/{args.width}", reason) from None
    model = network(args.d, args.outputs, args.width, bias=args.bias)
    cert = _certificate(args, lambda path: certify_model(model, path, seed=args.seed, quantity="lambda"))
    return _print_lc(lc, args.json, cert)


#: Most term products ``sum_i |f_i|^2`` that ``rlct ideal`` spends forming ``K = sum f_i^2`` (each is a Fraction
#: product; 250,000 take about a second, and the Newton polyhedron of the result is the larger cost after it).
MAX_SQUARE_PRODUCTS = 250_000


def _run_poly(args) -> int:
    from algebra.models.polynomial import Polynomial, parse_names, parse_polynomial
    from algebra.slt.newton import newton_rlct, sum_of_squares

    if getattr(args, "generators", None):
        with generators_named("generators"):
            gens, variables = parse_generators(args.generators, args.variables)
        products = sum(len(g.terms) ** 2 for g in gens)
        if products > MAX_SQUARE_PRODUCTS:  # sum f_i^2 multiplies every pair of terms: refused before it starts
            raise InputError("generators", f"{len(gens)} generators with {sum(len(g.terms) for g in gens)} terms",
                             f"generators whose squares take at most {MAX_SQUARE_PRODUCTS:,} term products "
                             f"(MAX_SQUARE_PRODUCTS; these take {products:,})")
        K = Polynomial(variables, sum_of_squares([g.terms for g in gens]))
    else:
        variables = list(parse_names(args.variables, argument="--variables")) if args.variables else None
        K = parse_polynomial(args.K, variables, argument="K")
    prior = None
    if args.prior:
        allowed = (f"{len(K.variables)} non-negative integers separated by commas "
                   f"(one per variable {', '.join(K.variables)})")
        prior = list(parse_integers(args.prior, "--prior", minimum=0, allowed=allowed))
        if len(prior) != len(K.variables):
            raise InputError("--prior", args.prior, allowed)
    try:
        res = newton_rlct(K, prior_exponents=prior)
    except InputError as exc:  # rlct ideal's K is the sum of the generators' squares: name what the user typed
        if exc.argument != "K" or not getattr(args, "generators", None):
            raise
        raise InputError("generators", exc.value, f"{exc.allowed} (K = the sum of the generators' squares)") from None
    if args.json:
        print(json.dumps(res.to_json(), indent=2))
        return 0
    rows = [
        ("lambda", f"{res.lam} ({'exact' if res.exact else 'upper bound'})"),
        ("multiplicity", str(res.multiplicity) if res.exact else f"(face codimension {res.multiplicity})"),
        ("newton distance", str(res.distance)),
        ("non-degenerate", f"{res.nondegenerate}: {res.reason}"),
        ("variables", ", ".join(res.variables)),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k.ljust(width)}  {v}")
    return 0


def _run_fit(args) -> int:
    from algebra.models.polynomial import parse_polynomial
    from algebra.slt.volume import partition_scaling, volume_scaling

    K = parse_polynomial(args.K, argument="K")
    if not K.terms or len(K.variables) > 6:
        raise InputError("K", args.K, "a nonzero polynomial in 1 to 6 variables")
    fn = volume_scaling if args.method == "volume" else partition_scaling
    # the library counts points, the option their log2 (capped: 2^64 is refused like 2^(10^12), which is never built)
    try:
        fit = fn(K, multiplicity=args.multiplicity, n_samples=2 ** min(args.log2_samples, 64),
                 replicates=args.replicates, seed=args.seed)
    except InputError as exc:
        flags = {"n_samples": ("--log2-samples", args.log2_samples), "replicates": ("--replicates", args.replicates),
                 "multiplicity": ("--multiplicity", args.multiplicity)}
        if exc.argument not in flags:
            raise
        raise InputError(*flags[exc.argument], exc.allowed) from None
    out = fit.to_json()
    out["variables"] = list(K.variables)
    if args.plot:
        out["plot"] = fit.plot(args.plot)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"lambda ~ {fit.lam:.4f}  ({int(fit.confidence * 100)}% CI {fit.ci[0]:.4f} .. {fit.ci[1]:.4f}); "
              f"m assumed {fit.multiplicity}, preferred by the data {fit.multiplicity_fit}; seed {fit.seed}")
    return 0


def register(subparsers) -> None:
    """Add the ``rlct`` command and its subcommands."""
    rlct = subparsers.add_parser(
        "rlct",
        help="exact learning coefficients (RLCT lambda and multiplicity)",
        description="Exact learning coefficients: closed-form theorems, certified dimensions, Newton polyhedra.",
    )
    sub = rlct.add_subparsers(dest="rlct_command", metavar="MODEL", parser_class=type(rlct))
    rlct.set_defaults(handler=lambda args: (rlct.print_help(), 2)[1])

    def add(name: str, help_text: str, handler):
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--json", action="store_true", help="print JSON (lambda as an exact string)")
        p.set_defaults(handler=handler)
        return p

    def certifiable(p):
        p.add_argument("--certificate", metavar="FILE", default=None, type=output_file_arg("--certificate"),
                       help="also write a certificate of lambda to FILE (re-check it with `neuroalgebra verify FILE`)")
        return p

    p = certifiable(add("rrr", "reduced rank regression, Aoyagi & Watanabe (2005)", _run_rrr))
    p.add_argument("--M", type=_int("--M", 1), required=True, help="input dimension")
    p.add_argument("--N", type=_int("--N", 1), required=True, help="output dimension")
    p.add_argument("--H", type=_int("--H", 1), required=True, help="hidden width")
    p.add_argument("--r", type=_int("--r", 0), required=True, help="rank of the true map")

    p = certifiable(add("dln", "deep linear network, Aoyagi (2024)", _run_dln))
    p.add_argument("--widths", required=True, help="d0,...,dL from input to output, e.g. 4,3,3,5")
    p.add_argument("--r", type=_int("--r", 0), required=True, help="rank of the true product")

    p = certifiable(add("qk", "query-key composite A B^T, graph-attention paper Theorem 2", _run_qk))
    p.add_argument("--d", type=_int("--d", 1), required=True, help="embedding dimension")
    p.add_argument("--k", type=_int("--k", 1), required=True, help="query/key width (k <= d)")
    p.add_argument("--r", type=_int("--r", 0), required=True, help="teacher rank (r <= k)")

    p = add("regular", "regular model: lambda = rank/2", _run_regular)
    p.add_argument("--rank", type=_int("--rank", 0), required=True, help="number of identifiable directions")

    p = certifiable(add("quadratic", "quadratic network: lambda = certified secant dimension / 2 (grokking paper)", _run_quadratic))
    p.add_argument("--d", type=_int("--d", 1), required=True, help="input dimension")
    p.add_argument("--outputs", type=_int("--outputs", 1), required=True, help="number of outputs p")
    p.add_argument("--width", type=_int("--width", 1), required=True, help="hidden width K")
    p.add_argument("--bias", action="store_true", help="include biases b, c (Theorems G.1, G.2)")
    p.add_argument("--seed", type=seed_arg(), default=0, help="seed of the dimension engine")

    p = add("poly", "Newton polyhedron of a polynomial K >= 0 at the origin", _run_poly)
    p.add_argument("K", help='the loss polynomial itself, e.g. "x^2*y^4 + z^6"')
    p.add_argument("--variables", help="variable order, comma-separated (default: alphabetical)")
    p.add_argument("--prior", help="exponents h of a monomial prior w^h, comma-separated")

    p = add("fit", "numerical check: fit lambda from V(eps) or Z(n) by quasi-Monte Carlo", _run_fit)
    p.add_argument("K", help='the loss polynomial, e.g. "x^2*y^2" (uniform prior on [-1, 1]^d)')
    p.add_argument("--method", choices=("volume", "partition"), default="volume")
    p.add_argument("--multiplicity", type=_int("--multiplicity", 1), default=1, help="m assumed in the fitted form")
    p.add_argument("--log2-samples", type=_int("--log2-samples", 6), default=16, help="log2 of Sobol points per replicate")
    p.add_argument("--replicates", type=_int("--replicates", 2), default=8)
    p.add_argument("--seed", type=seed_arg(), default=0)
    p.add_argument("--plot", type=plot_file_arg(), help="save a log-log plot to this file (.png, .pdf or .svg; needs matplotlib)")

    p = add("ideal", "Newton polyhedron of K = f_1^2 + ... + f_k^2 for an ideal (f_1, ..., f_k)", _run_poly)
    p.add_argument("generators", nargs="+", help='generators, e.g. "x*y" "z^2"')
    p.add_argument("--variables", help="variable order, comma-separated (default: alphabetical)")
    p.add_argument("--prior", help="exponents h of a monomial prior w^h, comma-separated")
