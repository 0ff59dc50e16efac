"""CLI of the geometry layer: ``dim``, ``secant``, ``secant-table``, ``proximity``, ``singular``, ``normal-form``.

Argument parsing only: every command calls one library function
(:func:`algebra.engine.dimension`, :func:`algebra.geometry.secant.secant_dimension`,
:func:`algebra.geometry.proximity.proximity`, ...).  Exit status 0 on
success, 2 on bad input (an :class:`~algebra.errors.InputError` names the
argument), 1 when a checked claim is refuted (``singular``) or a round trip
fails (``normal-form``).

Adding a model family to ``neuroalgebra dim``
---------------------------------------------
Add one entry to :data:`MODEL_FAMILIES`::

    MODEL_FAMILIES["cnn"] = ModelFamily(
        help="convolutional network",
        add_arguments=_cnn_arguments,     # (parser) -> None: the family's own options
        build=_cnn_model,                 # (args) -> Model; raise InputError on bad values
        size_arguments=("--channels",),   # named when the model is too large to compute
    )

:func:`register` then adds ``dim cnn`` with the family's options plus the
common ones (:func:`add_dimension_options`), and :func:`model_from_args`
builds it.  Options shared by the geometry commands (``--json``, ``--seed``)
are added by :func:`add_output_options`; a new option for ``dim``/``secant``
belongs there or in :func:`add_dimension_options`.  Argument types and the
options of every command group (``--certificate``, ``--scheduler``) live in
:mod:`algebra.cli.args`.
"""

from __future__ import annotations

import argparse
import json
from math import prod
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


from algebra.cli._llc import flag_names
from algebra.cli.args import (add_certificate_option, memory_arg, output_directory_arg, add_progress_options, add_sweep_options, certificate_status,
                              claim_options, generators_named, seed_arg, parse_widths, positive_arg,
                              prime_arg, print_certificate, progress_bar, sweep_options, write_certificate)
from algebra.engine import MODES, dimension
from algebra.engine.dimension import DEFAULT_MAX_MEMORY, JACOBIAN_BYTES_PER_ENTRY
from algebra.errors import InputError, ResourceError
from algebra.exact.field import DEFAULT_PRIME
from algebra.models import DeepLinear, LightningAttention, MLP, PolynomialMap, QueryKey, quadratic_network, shallow_network
from algebra.models.cnn import cnn_from_text
from algebra.models.mlp import parse_activations, parse_inactive
from algebra.models.polynomial import parse_names

__all__ = [
    "register",
    "model_from_args",
    "ModelFamily",
    "MODEL_FAMILIES",
    "BUILTIN_EXAMPLES",
    "add_output_options",
    "add_dimension_options",
]


# -- options of the geometry commands ---------------------------------------------------------------


def _default(value, inherit: bool):
    # A subcommand's parser copies every attribute it sets over its parent's: with a real default,
    # `dim --over-q qk ...` would lose --over-q.  SUPPRESS sets nothing unless the option is given.
    return argparse.SUPPRESS if inherit else value


def add_output_options(parser, *, inherit: bool = False) -> None:
    """``--json`` and ``--seed``: every geometry command has them.

    ``inherit=True`` (a subcommand under a parser that has them too): no defaults, so a value
    given before the subcommand's name is kept and one given after it wins.
    """
    parser.add_argument("--json", action="store_true", default=_default(False, inherit), help="print JSON")
    parser.add_argument("--seed", type=seed_arg(), default=_default(0, inherit),
                        help="seed of the random point(s)")


def add_dimension_options(parser, *, inherit: bool = False) -> None:
    """The engine's options (``dim`` and each ``dim FAMILY``): output, mode, prime, --over-q, --witness, --samples."""
    add_output_options(parser, inherit=inherit)
    parser.add_argument("--mode", choices=MODES, default=_default("auto", inherit),
                        help="coefficient or sample space (auto: coefficient where direct)")
    parser.add_argument("--prime", type=prime_arg(), default=_default(DEFAULT_PRIME, inherit),
                        help=f"prime modulus < 2^21 (default {DEFAULT_PRIME})")
    parser.add_argument("--over-q", action="store_true", default=_default(False, inherit),
                        help="exact rank over Q instead of mod p (slow)")
    parser.add_argument("--witness", action="store_true", default=_default(False, inherit),
                        help="also report a nonzero maximal minor (rows, cols) with the point and inputs it is taken at")
    parser.add_argument("--samples", type=positive_arg("--samples"), default=_default(None, inherit),
                        help="number of sample inputs (sample mode)")
    parser.add_argument("--max-memory", type=memory_arg("--max-memory"), default=_default(DEFAULT_MAX_MEMORY, inherit),
                        metavar="BYTES", help="refuse above this predicted peak memory (suffixes K, M, G; default 16G)")


# -- model families of `dim` -----------------------------------------------------------------


@dataclass(frozen=True)
class ModelFamily:
    """One ``dim FAMILY`` subcommand: its options and how to build the model from them."""

    help: str
    add_arguments: Callable
    build: Callable
    size_arguments: tuple = ()


def _activations(args, n_hidden: int) -> tuple:
    return parse_activations(args.activation, n_hidden, argument="--activation")


def _mlp_arguments(q, *, inactive_required: bool = False) -> None:
    q.add_argument("--widths", required=True, help="d0,d1,...,dL")
    q.add_argument("--activation", default="t^2", help="polynomial in t, or one per hidden layer separated by ';'")
    q.add_argument("--bias", action="store_true")
    q.add_argument("--inactive", required=inactive_required, default="",
                   help="inactive neurons LAYER:NEURON,... (hidden layers from 1, neurons from 0)")


#: MLP's parameter names -> the options of ``dim mlp`` and ``proximity mlp``
_MLP_FLAGS = {"widths": "--widths", "inactive": "--inactive", "activation": "--activation",
              "activations": "--activation"}


def _mlp_model(args) -> MLP:
    widths = parse_widths(args.widths)
    n_hidden = len(widths) - 2
    with flag_names(_MLP_FLAGS):
        inactive = parse_inactive(args.inactive or "", n_hidden, argument="--inactive")
        return MLP(widths, _activations(args, n_hidden), bias=args.bias, inactive=inactive)


def _shallow_arguments(q) -> None:
    q.add_argument("--n", type=positive_arg("--n"), required=True, help="number of input variables")
    q.add_argument("--degree", type=positive_arg("--degree"), required=True)
    q.add_argument("--width", type=positive_arg("--width"), required=True)


def _quadratic_arguments(q) -> None:
    q.add_argument("--d", type=positive_arg("--d"), required=True)
    q.add_argument("--outputs", type=positive_arg("--outputs"), required=True)
    q.add_argument("--width", type=positive_arg("--width"), required=True)
    q.add_argument("--bias", action="store_true")


def _attention_arguments(q) -> None:
    q.add_argument("--d", type=positive_arg("--d"), required=True)
    q.add_argument("--dout", type=positive_arg("--dout"), required=True)
    q.add_argument("--tokens", type=positive_arg("--tokens"), required=True)
    q.add_argument("--rank", type=positive_arg("--rank"), default=None)


def _attention_model(args) -> LightningAttention:
    if args.rank is not None and args.rank > args.d:
        raise InputError("--rank", args.rank, f"an integer between 1 and --d={args.d}")
    return LightningAttention(args.d, args.dout, args.tokens, rank=args.rank)


def _qk_arguments(q) -> None:
    q.add_argument("--d", type=positive_arg("--d"), required=True)
    q.add_argument("--k", type=positive_arg("--k"), required=True)


def _names(text: str, option: str) -> tuple:
    return parse_names(text or "", argument=option)


def _polynomial_arguments(q) -> None:
    q.add_argument("polynomials", nargs="+", help="component polynomials, e.g. 'a*c' 'a*d'")
    q.add_argument("--parameters", required=True, help="parameter names, comma-separated")
    q.add_argument("--inputs", default="", help="input variable names, comma-separated")
    q.add_argument("--symmetry", action="append", default=[], metavar="X1,...,XP",
                   help="a kernel witness: one polynomial per parameter, comma-separated (verified; repeatable)")
    q.add_argument("--equation", action="append", default=[], metavar="G",
                   help="a polynomial in the outputs y1..ym vanishing on the image (verified; repeatable)")


def _polynomial_model(args) -> PolynomialMap:
    symmetries = [[c.strip() for c in fld.split(",")] for fld in args.symmetry]
    try:
        return PolynomialMap(args.polynomials, parameters=_names(args.parameters, "--parameters"),
                             inputs=_names(args.inputs, "--inputs"), symmetries=symmetries, equations=args.equation)
    except InputError as exc:
        _polymap_refused(exc, {"symmetries": ("--symmetry", args.symmetry), "equations": ("--equation", args.equation),
                               "parameters": ("--parameters", None), "inputs": ("--inputs", None),
                               "polynomials": ("polynomials", args.polynomials)})


def _polymap_refused(exc: InputError, options: dict):
    """Re-raise :class:`PolynomialMap`'s refusal (it names its arguments: ``polynomials[0]``) naming the option
    of ``options`` (``{argument: (option, the texts typed)}``) and the text as typed; others unchanged."""
    name, _, index = str(exc.argument).partition("[")
    if name not in options:
        raise exc
    option, texts = options[name]
    value = texts[int(index.rstrip("]"))] if texts is not None and index else exc.value
    where = f" (polynomial {int(index.rstrip(']')) + 1})" if name == "polynomials" and index else ""
    raise InputError(option, value, exc.allowed + where) from None


def _cnn_arguments(q, *, inactive_required: bool = False) -> None:
    q.add_argument("--input", required=True, help="input positions N (1-D) or HxW (2-D), e.g. 8 or 6x6")
    q.add_argument("--filters", required=True, help="filter size per layer, e.g. 3,2,4 or 3x3,2x2")
    q.add_argument("--channels", default=None, help="c0,c1,...,cL: input channels, then one count per layer (default all 1)")
    q.add_argument("--strides", default=None, help="one stride per layer, e.g. 1,2 or 1x2,1 (default 1)")
    q.add_argument("--activation", default="t^2", help="polynomial in t, or one per activated layer separated by ';'")
    q.add_argument("--bias", action="store_true", help="a bias per channel (and on the dense layer)")
    q.add_argument("--dense", type=positive_arg("--dense"), default=None, help="outputs of a final dense layer (default: none)")
    q.add_argument("--inactive", required=inactive_required, default="",
                   help="inactive channels LAYER:CHANNEL,... (layers from 1, channels from 0)")


def _cnn_model(args):
    return cnn_from_text(args.input, args.filters, channels=args.channels, strides=args.strides,
                         activation=args.activation, bias=args.bias, dense=args.dense, inactive=args.inactive)


#: ``dim FAMILY``: name -> :class:`ModelFamily` (see the module docstring to add one).
MODEL_FAMILIES = {
    "mlp": ModelFamily("polynomial MLP", _mlp_arguments, _mlp_model, ("--widths",)),
    "shallow": ModelFamily("sum_i v_i (w_i . x)^k", _shallow_arguments,
                           lambda a: shallow_network(a.n, a.degree, a.width), ("--n", "--degree", "--width")),
    "quadratic": ModelFamily("quadratic network V (W x + b)^2 + c with p outputs", _quadratic_arguments,
                             lambda a: quadratic_network(a.d, a.outputs, a.width, bias=a.bias), ("--d", "--outputs", "--width")),
    "attention": ModelFamily("lightning self-attention V X X^T A X", _attention_arguments, _attention_model,
                             ("--d", "--dout", "--tokens")),
    "qk": ModelFamily("query-key composite A B^T", _qk_arguments, lambda a: QueryKey(a.d, a.k), ("--d", "--k")),
    "linear": ModelFamily("deep linear network W_L ... W_1", lambda q: q.add_argument("--widths", required=True),
                          lambda a: DeepLinear(parse_widths(a.widths)), ("--widths",)),
    "polynomial": ModelFamily("a user polynomial map", _polynomial_arguments, _polynomial_model, ("polynomials",)),
    "cnn": ModelFamily("polynomial convolutional network (1-D or 2-D, valid padding)", _cnn_arguments, _cnn_model,
                       ("--input", "--filters", "--channels")),
}


def model_from_args(args):
    """Build the model named by parsed ``dim FAMILY`` arguments (``args.family`` in :data:`MODEL_FAMILIES`)."""
    family = MODEL_FAMILIES.get(args.family)
    if family is None:
        raise InputError("FAMILY", args.family, "one of " + ", ".join(MODEL_FAMILIES))
    try:
        return family.build(args)
    except InputError as exc:  # the library names its parameter ('degree'): report the option ('--degree')
        option = "--" + str(exc.argument).replace("_", "-")
        if option in family.size_arguments:
            raise InputError(option, exc.value, exc.allowed) from None
        raise


#: The engine's parameter names -> the options of ``dim`` (a library refusal is reported against the option).
_ENGINE_FLAGS = {"prime": "--prime", "samples": "--samples", "mode": "--mode", "seed": "--seed",
                 "max_memory": "--max-memory", "witness": "--witness"}


def _size_error(args, exc: ResourceError) -> InputError:
    """A refused size, reported against the family's size arguments (exit status 2)."""
    if getattr(exc, "argument", None) not in (None, "--max-memory"):  # the engine named the option (e.g. --over-q)
        return InputError(exc.argument, True, f"a smaller computation: {exc}")
    # a memory refusal is reported against the model's size, its message says how to raise --max-memory
    names = MODEL_FAMILIES[args.family].size_arguments or ("FAMILY",)
    value = "/".join(str(getattr(args, n.lstrip("-").replace("-", "_"), None)) for n in names)
    return InputError("/".join(names), value, f"a smaller model: {exc}")


#: The built-in examples run by ``neuroalgebra dim`` with no family.
BUILTIN_EXAMPLES = (
    ("shallow --n 4 --degree 3 --width 5", lambda: shallow_network(4, 3, 5)),
    ("shallow --n 3 --degree 4 --width 5 (Alexander-Hirschowitz exception)", lambda: shallow_network(3, 4, 5)),
    ("mlp --widths 3,4,1 --activation t^2 --bias", lambda: MLP((3, 4, 1), "t^2", bias=True)),
    ("mlp --widths 2,3,1,1 --activation t^3 (Example B.10, F)", lambda: MLP((2, 3, 1, 1), "t^3")),
    ("mlp --widths 2,3,1,1 --activation t^3 --inactive 1:0 (Example B.10, F')", lambda: MLP((2, 3, 1, 1), "t^3", inactive={1: [0]})),
    ("quadratic --d 4 --outputs 3 --width 5", lambda: quadratic_network(4, 3, 5)),
    ("attention --d 3 --dout 2 --tokens 2", lambda: LightningAttention(3, 2, 2)),
    ("attention --d 3 --dout 2 --tokens 1", lambda: LightningAttention(3, 2, 1)),
    ("attention --d 4 --dout 2 --tokens 3 --rank 2", lambda: LightningAttention(4, 2, 3, rank=2)),
    ("qk --d 5 --k 3", lambda: QueryKey(5, 3)),
    ("linear --widths 4,3,5", lambda: DeepLinear((4, 3, 5))),
)


# -- dim ------------------------------------------------------------------------------------------


def _table(rows: list) -> str:
    header = ["model", "P", "ambient", "expected", "lower", "upper", "certified", "rung", "s"]
    lines = [header] + rows
    widths = [max(len(str(r[i])) for r in lines) for i in range(len(header))]
    out = []
    for k, r in enumerate(lines):
        out.append("  ".join(str(v).ljust(w) for v, w in zip(r, widths)))
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _row(label: str, res) -> list:
    return [label, res.parameter_count, res.ambient_dimension, res.expected_dimension, res.lower_bound, res.upper_bound,
            "yes" if res.certified else "NO", res.rung, f"{res.seconds:.2f}"]


def _engine_options(args) -> dict:
    if getattr(args, "over_q", False) and getattr(args, "witness", False):
        # the witness is the minor that is nonzero modulo the prime; over Q there is no prime and the
        # engine returns none, so the option would be silently dropped
        raise InputError("--witness", True, "the option without --over-q (the witness is a minor nonzero modulo "
                         "--prime P; over Q there is none: use --certificate FILE for a proof the checker replays)")
    return dict(mode=args.mode, seed=args.seed, prime=None if args.over_q else args.prime, witness=args.witness,
                max_memory=args.max_memory)


def _run_dim(args) -> int:
    if args.family is None:
        it = progress_bar(BUILTIN_EXAMPLES, quiet=args.quiet, desc="dimensions", unit="model")
        results = [(label, dimension(make(), **_engine_options(args))) for label, make in it]
        if args.json:
            print(json.dumps([dict(r.to_json(), example=label) for label, r in results], indent=2))
        else:
            print(_table([_row(label, r) for label, r in results]))
        return 0
    model = model_from_args(args)
    if args.certificate and args.samples is not None:
        raise InputError("--samples", args.samples, "no --samples with --certificate (the certificate's route chooses "
                         "its sample inputs; drop --samples)")
    cert, claim = None, claim_options(args)
    if args.certificate:
        from algebra.certify.questions import dimension_with_certificate

        # One engine run is printed and certified: the certificate's own mode, with its witness minor.  Another
        # --mode, or --over-q (the checker replays minors modulo a prime), is run as asked, and the certificate
        # makes its own run mod p at the same seed.
        runs = []

        def emit(path):
            res, emitted = dimension_with_certificate(
                model, path, seed=args.seed, prime=args.prime, mode=args.mode, over_q=args.over_q,
                witness=args.witness, max_memory=args.max_memory, **claim)
            runs.append(res)
            return emitted

        try:
            with flag_names(_ENGINE_FLAGS):
                cert = write_certificate(args.certificate, emit)
        except ResourceError as exc:
            raise _size_error(args, exc) from None
        res = runs[0]
    else:
        try:
            with flag_names(_ENGINE_FLAGS):
                res = dimension(model, samples=args.samples, **_engine_options(args))
        except ResourceError as exc:
            raise _size_error(args, exc) from None
    if args.json:
        print(json.dumps(dict(res.to_json(), **({"certificate": cert} if cert else {})), indent=2))
    else:
        print(_table([_row(args.family, res)]))
        print(f"upper bound from: {res.upper_bound_reason}")
        if res.certified:
            print(f"certified: true (lower bound = exact rank at an integer point; upper bound by the {res.rung} rung)")
        else:
            print(f"certified: false -- dimension >= {res.lower_bound} proven, <= {res.upper_bound} proven")
            for note in res.notes:  # why the bounds did not meet (a small --prime, a skipped rung, ...)
                print(f"note: {note}")
        if args.witness and res.witness is not None:
            print(json.dumps({"witness": res.to_json()["witness"]}))
        if cert:
            print_certificate(cert)
    return certificate_status(cert)


# -- secant, secant-table ------------------------------------------------------------------------


def _variety(args):
    from algebra.models.segre_veronese import segre, segre_veronese, veronese

    if args.variety == "polynomial":
        if not args.polynomials or not args.parameters:
            raise InputError("--polynomials/--parameters", args.polynomials, "the atom's polynomials and its parameter names")
        try:
            return PolynomialMap(args.polynomials, parameters=_names(args.parameters, "--parameters"),
                                 inputs=_names(args.inputs, "--inputs"))
        except InputError as exc:
            _polymap_refused(exc, {"parameters": ("--parameters", None), "inputs": ("--inputs", None),
                                   "polynomials": ("--polynomials", args.polynomials)})
    if args.variety == "veronese":
        if args.n is None or args.degree is None:
            raise InputError("--n/--degree", f"{args.n}/{args.degree}", "both --n and --degree for --variety veronese")
        return veronese(args.n, args.degree)
    if args.factors is None:
        raise InputError("--factors", None, f"comma-separated factor dimensions for --variety {args.variety}")
    import algebra.inputs as inputs
    from algebra.models.segre_veronese import MAX_FACTORS

    factors = inputs.parse_integers(args.factors, "--factors", minimum=1, max_length=MAX_FACTORS)
    if args.variety == "segre":
        return segre(factors)
    if args.degrees is None:
        raise InputError("--degrees", None, "comma-separated degrees for --variety segre-veronese")
    degrees = inputs.parse_integers(args.degrees, "--degrees", minimum=1, max_length=MAX_FACTORS)
    if len(degrees) != len(factors):
        raise InputError("--degrees", args.degrees, f"{len(factors)} degrees (one per factor)")
    return segre_veronese(factors, degrees)


#: ``secant --variety V``: the options that set the variety's size (named when it is refused).
_VARIETY_SIZES = {"veronese": "--n/--degree", "segre": "--factors", "segre-veronese": "--factors/--degrees",
                  "polynomial": "--polynomials/--parameters"}


def _run_secant(args) -> int:
    from algebra.geometry.secant import secant_dimension

    try:
        X = _variety(args)
        if X.ambient_dimension() * args.k * X.parameter_count > 20_000_000:
            raise InputError("--k", args.k, "a smaller problem (the Terracini matrix would exceed 20M entries)")
        res = secant_dimension(X, args.k, seed=args.seed, prime=args.prime)
    except ResourceError as exc:  # the library names no option: the variety's own size options
        names = _VARIETY_SIZES[args.variety]
        value = "/".join(str(getattr(args, n.lstrip("-"), None)) for n in names.split("/"))
        raise InputError(names, value, f"a smaller variety ({exc})") from None
    cert, claim = None, claim_options(args)
    if args.certificate:
        from algebra.certify import certify_secant

        cert = write_certificate(args.certificate, lambda path: certify_secant(X, args.k, path, seed=args.seed, **claim))
    if args.json:
        print(json.dumps(dict(res.to_json(), **({"certificate": cert} if cert else {})), indent=2))
    else:
        print(f"sigma_{res.k} of {res.variety.get('family')} {res.variety.get('factors', '')}: dimension of the affine cone {res.dimension} "
              f"(expected {res.expected_dimension}, ambient {res.ambient_dimension})")
        print(f"bounds [{res.lower_bound}, {res.upper_bound}]  certified: {'yes' if res.certified else 'NO'}  status: {res.status}")
        print(f"upper bound from: {res.upper_bound_reason}")
        if cert:
            print_certificate(cert)
    return certificate_status(cert)


#: the secant sweeps' grid bounds -> the options of ``secant-table``
_SWEEP_FLAGS = {"n_max": "--n-max", "degree_max": "--degree-max", "d_max": "--d-max", "p_max": "--p-max",
                "k_max": "--k-max"}


def _run_secant_table(args) -> int:
    from algebra.geometry.secant import sweep_quadratic, sweep_veronese, table_rows, write_table

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    progress = not args.quiet
    runner = sweep_options(args, serial=True)  # a sweep of seconds does not pay for a cluster
    if args.variety == "veronese":
        with flag_names(_SWEEP_FLAGS):
            results = sweep_veronese(args.n_max, args.degree_max, seed=args.seed, prime=args.prime, progress=progress,
                                     **runner)
        stem, title = f"veronese_n{args.n_max}_deg{args.degree_max}", "Defective secants of Veronese varieties"
        cmd = f"neuroalgebra secant-table --variety veronese --n-max {args.n_max} --degree-max {args.degree_max} --out {args.out}"
    else:
        with flag_names(_SWEEP_FLAGS):
            results = sweep_quadratic(args.d_max, args.p_max, args.k_max, seed=args.seed, prime=args.prime,
                                      progress=progress, **runner)
        stem = f"quadratic_d{args.d_max}_p{args.p_max}_K{args.k_max}"
        title = "Defective quadratic networks (d, p, K): secants of P^{p-1} x v_2(P^{d-1})"
        cmd = (f"neuroalgebra secant-table --variety quadratic --d-max {args.d_max} --p-max {args.p_max} "
               f"--k-max {args.k_max} --out {args.out}")
    csv_path, md_path = out / f"{stem}.csv", out / f"{stem}.md"
    n_bad = write_table(results, csv_path, md_path, title=title, command=cmd)
    if args.json:
        bad = [row for row in table_rows(results) if row["lower_bound"] < row["expected"]]
        print(json.dumps({"cases": len(results), "defective": n_bad, "csv": str(csv_path), "markdown": str(md_path),
                          "defective_cases": bad}, indent=2))
    else:
        print(f"{len(results)} cases, {n_bad} defective; wrote {csv_path} and {md_path}")
    return 0


# -- proximity --------------------------------------------------------------------------------------


def _run_proximity(args) -> int:
    from algebra.geometry.proximity import proximity

    if len(parse_widths(args.widths)) < 3:
        raise InputError("--widths", args.widths, "at least one hidden layer")
    model = _mlp_model(args)
    if not model.inactive:
        raise InputError("--inactive", args.inactive, "at least one LAYER:NEURON pair")
    full = MLP(model.widths, model.activations, bias=model.bias)
    try:
        res = proximity(full, model.inactive, seed=args.seed, prime=args.prime)
    except ResourceError as exc:  # proximity has no --max-memory: the size is the model's
        reason = str(exc).replace("raise --max-memory or use a smaller model", "use a smaller model")
        raise InputError("--widths", args.widths, f"a smaller model ({reason})") from None
    if args.json:
        print(json.dumps(res.to_json(), indent=2))
    else:
        j = res.to_json()
        print(f"dim F  in [{j['dim_F']['lower_bound']}, {j['dim_F']['upper_bound']}]  ({j['dim_F']['upper_bound_reason']})")
        print(f"dim F' in [{j['dim_F_sub']['lower_bound']}, {j['dim_F_sub']['upper_bound']}]")
        if res.m is not None:
            print(f"m = {res.m['m']} constraints from the reinserted neuron (random point of F')")
        for p in res.propositions:
            print(f"  {p['id']:<18} {'applies' if p['applies'] else '-':<8} {p['detail']}")
        print(f"verdict: {res.verdict}; Conjecture 3.16: {res.conjecture_3_16}")
    return 0


def _run_proximity_sweep(args) -> int:
    from algebra.geometry.proximity import conjecture_sweep, write_sweep_table

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = conjecture_sweep(seed=args.seed, prime=args.prime, progress=not args.quiet)
    csv_path, md_path = out / "conjecture_3_16.csv", out / "conjecture_3_16.md"
    counts = write_sweep_table(results, csv_path, md_path, command=f"neuroalgebra proximity sweep --out {args.out}")
    if args.json:
        print(json.dumps({"cases": len(results), "conjecture_3_16": counts, "csv": str(csv_path),
                          "markdown": str(md_path)}, indent=2))
    else:
        print(f"{len(results)} cases; Conjecture 3.16: {counts}; wrote {csv_path} and {md_path}")
    return 0


def _run_proximity_cnn(args) -> int:
    from algebra.geometry.cnn_proximity import cnn_proximity, render

    sub = _cnn_model(args)
    if not sub.inactive:
        raise InputError("--inactive", args.inactive, "at least one LAYER:CHANNEL pair")
    try:
        res = cnn_proximity(sub.full(), sub.inactive, seed=args.seed, prime=args.prime)
    except InputError as exc:  # the network is too large: name the largest of the sizes the user typed
        if exc.argument != "model":
            raise
        sizes = {"--input": (prod(sub.input_shape), args.input), "--channels": (max(sub.channels), args.channels),
                 "--dense": (sub.dense or 0, args.dense)}
        option = max(sizes, key=lambda k: sizes[k][0])
        raise InputError(option, sizes[option][1], exc.allowed) from None
    print(json.dumps(res.to_json(), indent=2) if args.json else render(res))
    return 0


def _run_proximity_cnn_sweep(args) -> int:
    from algebra.geometry.cnn_proximity import cnn_sweep, write_cnn_sweep

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = cnn_sweep(fast=args.fast, seed=args.seed, prime=args.prime, progress=not args.quiet, **sweep_options(args))
    csv_path, md_path = out / "cnn_proximity.csv", out / "cnn_proximity.md"
    command = f"neuroalgebra proximity cnn-sweep --out {args.out}" + (" --fast" if args.fast else "")
    counts = write_cnn_sweep(rows, csv_path, md_path, command=command)
    if args.json:
        print(json.dumps({"cases": len(rows), "verdicts": counts, "csv": str(csv_path), "markdown": str(md_path)}, indent=2))
    else:
        print(f"{len(rows)} cases; verdicts: {counts}; wrote {csv_path} and {md_path}")
    return 0


# -- singular, normal-form -----------------------------------------------------------------------------


def _run_singular(args) -> int:
    from algebra.geometry.singular import STRATUM_CLAIMS, SYMBOLIC_EXAMPLES, check_claim, stratum_verdict, symbolic_example

    reports = []
    if args.ideal:
        from algebra.geometry.singular import ideal_singular_locus

        with generators_named("--ideal"):
            r = ideal_singular_locus(args.ideal, args.variables, codim=args.codim, method=args.method,
                                     timeout=args.timeout)
        if args.json:
            reports.append(r)
        else:
            _print_ideal_locus(r)
    if args.example:
        reports.append(symbolic_example(args.example))
    if args.claim:
        with flag_names({"points": "--points"}):
            checks = check_claim(args.claim, points=args.points, seed=args.seed)
        reports.append({"claim": args.claim, "location": STRATUM_CLAIMS[args.claim][0],
                        "statement": STRATUM_CLAIMS[args.claim][1],
                        "verdict": stratum_verdict(checks),
                        "checks": [c.to_json() for c in checks]})
    if not reports and not args.ideal:
        raise InputError("--ideal/--example/--claim", None, f"an ideal (--ideal 'x^2 - y^3'), an example "
                         f"({', '.join(SYMBOLIC_EXAMPLES)}) or a claim ({', '.join(STRATUM_CLAIMS)})")
    if args.json:
        print(json.dumps(reports, indent=2))
    else:
        for r in reports:
            if "singular_locus" in r:
                continue
            name = r.get("example") or r.get("claim")
            print(f"{name}: {r['verdict'].upper()} -- {r.get('statement')} ({r['location']})")
            for c in r.get("checks", []):
                print(f"  {c['size']} {c['stratum']}: expected {c['expected']}, observed {c['observed']} -> {c['verdict']}")
    # exit 1 when something was refuted or a symbolic example not confirmed; "out of reach" is not a failure
    return 1 if any(r.get("verdict") in ("refuted", "not confirmed") for r in reports) else 0


def _yes_no(holds) -> str:
    return {True: "yes", False: "no", None: "not decided"}[holds]


def _print_ideal_locus(r) -> None:
    """The text form of :func:`~algebra.geometry.singular.ideal_singular_locus`: hypotheses first, then the locus."""
    ring = f"Q[{', '.join(r['variables'])}]"
    shape = "V(I) is empty" if r["variety_empty"] else f"dim V(I) = {r['dimension']}, codim {r['codim']}"
    print(f"ideal ({', '.join(r['generators'])}) in {ring}: {shape}")
    for key, h in r["hypotheses"].items():
        print(f"  {key}: {_yes_no(h['holds'])} ({h['how']})")
    if r["locus_ideal"] is None:
        print(f"  singular locus of the reduced variety: out of reach -- {r['reason']}")
        return
    print(f"  singular locus of the reduced variety: {r['singular_locus']}; ideal ({', '.join(r['locus_ideal'])}), "
          f"dimension {r['locus_dimension']}")
    print(f"  computed by: {r['method']}")


#: normal-form's library parameters -> its options (the sizes are refused before the point is built)
_NORMAL_FORM_FLAGS = {"d": "--d", "k": "--k", "r": "--rank", "widths": "--widths"}


def _run_normal_form(args) -> int:
    from algebra.geometry.normal_form import canonical_orbit_point, linear_normal_form, linear_orbit_point, qk_normal_form

    with flag_names(_NORMAL_FORM_FLAGS):
        if args.family == "qk":
            if not args.rank <= min(args.d, args.k):
                raise InputError("--rank", args.rank, f"an integer between 1 and min(--d, --k) = {min(args.d, args.k)}")
            res = qk_normal_form(*canonical_orbit_point(args.d, args.k, args.rank, seed=args.seed))
        else:
            res = linear_normal_form(linear_orbit_point(parse_widths(args.widths, "--widths"), args.rank, seed=args.seed))
    ok = res["round_trip"] and res["rank_identity"]
    if args.json:
        print(json.dumps(dict(res), indent=2, default=str))
    else:
        for key in ("regular", "orbit", "stabilizer", "kernel_excess", "transverse"):
            if key in res:
                print(f"{key:<14} {res[key]}")
        print(f"Schur round trip: {'ok' if res['round_trip'] else 'FAILED'}; rank identity: {res['rank_identity']}")
    return 0 if ok else 1


# -- registration --------------------------------------------------------------------------------------


def _help(parser):
    return lambda args: (parser.print_help(), 2)[1]


def register(subparsers) -> None:
    """Add ``dim``, ``secant``, ``secant-table``, ``proximity``, ``singular`` and ``normal-form`` to the CLI."""
    from algebra.models.segre_veronese import VARIETIES

    p = subparsers.add_parser(
        "dim", help="certified dimension of a neuromanifold",
        description="Exact generic Jacobian rank of a model's parametrization map, with a proven lower bound and the "
        "engine's ladder of proven upper bounds. Without FAMILY, runs the built-in examples.")
    p.set_defaults(handler=_run_dim, family=None)
    add_dimension_options(p)
    add_progress_options(p)  # the built-in examples' bar (one model is one engine run: no steps to count)
    fams = p.add_subparsers(dest="family", metavar="FAMILY")
    for name, family in MODEL_FAMILIES.items():
        q = fams.add_parser(name, help=family.help)
        family.add_arguments(q)
        add_dimension_options(q, inherit=True)  # `dim --json FAMILY ...` keeps the parent's --json
        add_certificate_option(q, claim=True)

    p = subparsers.add_parser("secant", help="certified dimension of a secant variety (Terracini)",
                              description="Dimension of the affine cone over sigma_k(X) for a Veronese, Segre or "
                              "Segre-Veronese variety X, with certified bounds and defect.")
    p.add_argument("--variety", choices=VARIETIES + ("polynomial",), required=True)
    p.add_argument("--n", type=positive_arg("--n"), help="number of variables (veronese)")
    p.add_argument("--degree", type=positive_arg("--degree"), help="degree (veronese)")
    p.add_argument("--factors", help="factor dimensions, e.g. 3,4 (segre, segre-veronese)")
    p.add_argument("--degrees", help="degrees per factor, e.g. 1,2 (segre-veronese)")
    p.add_argument("--polynomials", nargs="+", help="atom parametrization (polynomial variety), e.g. 'a^2' 'a*b' 'b^2'")
    p.add_argument("--parameters", help="parameter names of the atom, comma-separated (polynomial variety)")
    p.add_argument("--inputs", default="", help="input variable names, comma-separated (polynomial variety)")
    p.add_argument("--k", type=positive_arg("--k"), required=True, help="number of points (atoms)")
    p.add_argument("--prime", type=prime_arg(), default=DEFAULT_PRIME)
    add_output_options(p)
    add_certificate_option(p, claim=True)
    p.set_defaults(handler=_run_secant)

    p = subparsers.add_parser("secant-table", help="sweep secant dimensions; CSV + Markdown of defective cases",
                              description="Veronese sweep (n, degree, k up to filling) or quadratic-network sweep "
                              "(d, p, K) against the grokking paper's Corollary 4.2.")
    p.add_argument("--variety", choices=("veronese", "quadratic"), required=True)
    p.add_argument("--n-max", type=positive_arg("--n-max"), default=6)
    p.add_argument("--degree-max", type=positive_arg("--degree-max"), default=5)
    p.add_argument("--d-max", type=positive_arg("--d-max"), default=8)
    p.add_argument("--p-max", type=positive_arg("--p-max"), default=6)
    p.add_argument("--k-max", type=positive_arg("--k-max"), default=12)
    p.add_argument("--out", default="secant_tables", type=output_directory_arg("--out"), help="output directory")
    add_progress_options(p, legacy=("--no-progress",))
    p.add_argument("--prime", type=prime_arg(), default=DEFAULT_PRIME)
    add_output_options(p)
    add_sweep_options(p, serial_by_default=True)
    p.set_defaults(handler=_run_secant_table)

    p = subparsers.add_parser("proximity", help="proximity-bias dimension counts for a submodel",
                              description="dim F, dim F', the constraint count m of a reinserted neuron and the "
                              "verdicts of Propositions 2.4, 3.13, 3.14, B.9 (proximity-bias paper).")
    fams = p.add_subparsers(dest="family", metavar="FAMILY")
    q = fams.add_parser("mlp", help="polynomial MLP with inactive neurons")
    _mlp_arguments(q, inactive_required=True)
    q.add_argument("--prime", type=prime_arg(), default=DEFAULT_PRIME)
    add_output_options(q)
    q.set_defaults(handler=_run_proximity)
    q = fams.add_parser("sweep", help="Conjecture 3.16 sweep over (d0, h1, h2, 1) networks; CSV + Markdown")
    q.add_argument("--out", default="proximity_tables", type=output_directory_arg("--out"), help="output directory")
    add_progress_options(q, legacy=("--no-progress",))
    q.add_argument("--prime", type=prime_arg(), default=DEFAULT_PRIME)
    add_output_options(q)
    q.set_defaults(handler=_run_proximity_sweep)
    q = fams.add_parser("cnn", help="polynomial CNN with inactive channels (Appendix C: rank of d phi on F')")
    _cnn_arguments(q, inactive_required=True)
    q.add_argument("--prime", type=prime_arg(), default=DEFAULT_PRIME)
    add_output_options(q)
    q.set_defaults(handler=_run_proximity_cnn)
    q = fams.add_parser("cnn-sweep", help="one inactive channel in small 1-D and 2-D polynomial CNNs; CSV + Markdown")
    q.add_argument("--out", default="proximity_tables", type=output_directory_arg("--out"), help="output directory")
    q.add_argument("--fast", action="store_true", help="3 cases instead of 84")
    add_progress_options(q, legacy=("--no-progress",))
    q.add_argument("--prime", type=prime_arg(), default=DEFAULT_PRIME)
    add_output_options(q)
    add_sweep_options(q)
    q.set_defaults(handler=_run_proximity_cnn_sweep)
    p.set_defaults(handler=_help(p))

    p = subparsers.add_parser("singular", help="singular loci: your ideal, Groebner examples and rank-stratum claims",
                              description="Symbolic singular loci of small varieties (Jacobian criterion) or exact "
                              "Jacobian ranks at points of named strata (Lemmas D.3, D.6, E.1, Prop. E.4).")
    p.add_argument("--ideal", nargs="+", metavar="POLY",
                   help="generators of your own ideal, e.g. 'x^2 - y^3' (at most 6 generators, 6 variables, degree 6, "
                        "and the size measures MAX_IDEAL_WORK / MAX_JACOBIAN_BEZOUT): Sing of the reduced variety "
                        "V(I), with radicality and equidimensionality decided first (sympy Groebner bases over Q; "
                        "Singular's primdec.lib where sympy cannot decide, 'out of reach' without it)")
    p.add_argument("--variables", default=None, help="the ambient coordinates of --ideal, comma-separated "
                   "(default: the variables that occur)")
    p.add_argument("--codim", type=positive_arg("--codim"), default=None,
                   help="the codimension you expect for V(I): checked against the one computed from a Groebner "
                        "basis (a mismatch is refused)")
    p.add_argument("--method", choices=("auto", "sympy", "singular"), default="auto",
                   help="--ideal route: sympy where it decides the hypotheses, else Singular (auto, default); "
                        "sympy only; or everything in Singular")
    p.add_argument("--timeout", type=positive_arg("--timeout"), default=60,
                   help="seconds one Singular run may take (--ideal; default 60)")
    p.add_argument("--example", choices=("cone", "cubic-cone", "sym-rank2", "det-2x3"))
    p.add_argument("--claim", choices=("D.3", "D.6", "E.1", "E.4"))
    p.add_argument("--points", type=positive_arg("--points"), default=1, help="random points per stratum")
    add_output_options(p)
    p.set_defaults(handler=_run_singular)

    p = subparsers.add_parser("normal-form", help="Schur-complement normal form of A B^T or W_L...W_1",
                              description="Counts of the graph-attention paper's Proposition 1 computed at a random "
                              "point of the gauge orbit of a canonical rank-r factorization, with exact Schur coordinates.")
    fams = p.add_subparsers(dest="family", metavar="FAMILY")
    q = fams.add_parser("qk", help="C = A B^T, A, B of shape d x k")
    q.add_argument("--d", type=positive_arg("--d"), required=True)
    q.add_argument("--k", type=positive_arg("--k"), required=True)
    q.add_argument("--rank", type=positive_arg("--rank"), required=True)
    add_output_options(q)
    q.set_defaults(handler=_run_normal_form)
    q = fams.add_parser("linear", help="deep linear network W_L ... W_1")
    q.add_argument("--widths", required=True)
    q.add_argument("--rank", type=positive_arg("--rank"), required=True)
    add_output_options(q)
    q.set_defaults(handler=_run_normal_form)
    p.set_defaults(handler=_help(p))
