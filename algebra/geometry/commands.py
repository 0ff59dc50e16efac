"""CLI: ``neuroalgebra dim FAMILY [options] [--json]``."""

from __future__ import annotations

import argparse
import json

from algebra.errors import InputError, ResourceError
from algebra.exact.field import DEFAULT_PRIME
from algebra.geometry.dimension import MODES, dimension
from algebra.models import DeepLinear, LightningAttention, MLP, PolynomialMap, QueryKey, quadratic_network, shallow_network
from algebra.models.mlp import parse_activation, parse_inactive

__all__ = ["register", "model_from_args", "parse_widths", "positive_arg", "nonnegative_arg", "BUILTIN_EXAMPLES"]

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


def parse_widths(text: str, argument: str = "--widths", *, min_length: int = 2) -> tuple:
    """``"3,4,1"`` -> ``(3, 4, 1)``; every entry a positive integer.

    Examples
    --------
    >>> parse_widths("3,4,1")
    (3, 4, 1)
    >>> parse_widths("3,-4")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --widths='3,-4': expected at least 2 positive integers separated by commas
    """
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) < min_length or not all(p.isdigit() and int(p) > 0 for p in parts):
        count = "" if min_length <= 1 else f"at least {min_length} "
        raise InputError(argument, text, f"{count}positive integers separated by commas")
    return tuple(int(p) for p in parts)


def positive_arg(name: str):
    """argparse type: a positive integer, with a message naming the argument."""

    def parse(text: str) -> int:
        if not text.strip().isdigit() or int(text) < 1:
            raise argparse.ArgumentTypeError(str(InputError(name, text, "a positive integer")))
        return int(text)

    return parse


def model_from_args(args):
    """Build the model named by parsed CLI arguments."""
    fam = args.family
    if fam == "mlp":
        widths = parse_widths(args.widths)
        n_hidden = len(widths) - 2
        acts = [parse_activation(a, argument="--activation") for a in args.activation.split(";")]
        if len(acts) == 1:
            acts = acts * n_hidden
        elif len(acts) != n_hidden:
            raise InputError("--activation", args.activation, f"one activation or {n_hidden} separated by ';'")
        inactive = parse_inactive(args.inactive or "", n_hidden)
        return MLP(widths, acts, bias=args.bias, inactive=inactive)
    if fam == "shallow":
        return shallow_network(args.n, args.degree, args.width)
    if fam == "quadratic":
        return quadratic_network(args.d, args.outputs, args.width, bias=args.bias)
    if fam == "attention":
        if args.rank is not None and args.rank > args.d:
            raise InputError("--rank", args.rank, f"an integer between 1 and --d={args.d}")
        return LightningAttention(args.d, args.dout, args.tokens, rank=args.rank)
    if fam == "qk":
        return QueryKey(args.d, args.k)
    if fam == "linear":
        return DeepLinear(parse_widths(args.widths))
    if fam == "polynomial":
        params = [v.strip() for v in args.parameters.split(",") if v.strip()]
        inputs = [v.strip() for v in (args.inputs or "").split(",") if v.strip()]
        symmetries = [[c.strip() for c in field.split(",")] for field in args.symmetry]
        return PolynomialMap(args.polynomials, parameters=params, inputs=inputs, symmetries=symmetries, equations=args.equation)
    raise InputError("FAMILY", fam, "one of mlp, shallow, quadratic, attention, qk, linear, polynomial")


_SIZE_ARGS = {
    "mlp": "--widths",
    "linear": "--widths",
    "shallow": "--n/--degree/--width",
    "quadratic": "--d/--outputs/--width",
    "attention": "--d/--dout/--tokens",
    "qk": "--d/--k",
    "polynomial": "polynomials",
}


def _size_value(args) -> str:
    keys = {"mlp": ["widths"], "linear": ["widths"], "shallow": ["n", "degree", "width"], "quadratic": ["d", "outputs", "width"],
            "attention": ["d", "dout", "tokens"], "qk": ["d", "k"], "polynomial": ["parameters"]}[args.family]
    return "/".join(str(getattr(args, k)) for k in keys)


def _table(rows: list) -> str:
    header = ["model", "P", "ambient", "expected", "lower", "upper", "certified", "mode", "s"]
    lines = [header] + rows
    widths = [max(len(str(r[i])) for r in lines) for i in range(len(header))]
    out = []
    for k, r in enumerate(lines):
        out.append("  ".join(str(v).ljust(w) for v, w in zip(r, widths)))
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _row(label: str, res) -> list:
    return [
        label,
        res.parameter_count,
        res.ambient_dimension,
        res.expected_dimension,
        res.lower_bound,
        res.upper_bound,
        "yes" if res.certified else "NO",
        res.mode,
        f"{res.seconds:.2f}",
    ]


def _run_dim(args) -> int:
    prime = None if args.over_q else args.prime
    if args.family is None:
        results = []
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover
            tqdm = None
        examples = BUILTIN_EXAMPLES
        it = tqdm(examples, desc="dimensions", disable=args.json) if tqdm else examples
        for label, make in it:
            results.append((label, dimension(make(), mode=args.mode, seed=args.seed, prime=prime, witness=args.witness)))
        if args.json:
            print(json.dumps([dict(r.to_json(), example=label) for label, r in results], indent=2))
        else:
            print(_table([_row(label, r) for label, r in results]))
        return 0
    model = model_from_args(args)
    try:
        res = dimension(model, mode=args.mode, seed=args.seed, prime=prime, witness=args.witness, samples=args.samples)
    except ResourceError as exc:
        raise InputError(_SIZE_ARGS.get(args.family, "FAMILY"), _size_value(args), f"a smaller model: {exc}") from None
    if args.json:
        print(json.dumps(res.to_json(), indent=2))
    else:
        print(_table([_row(args.family, res)]))
        print(f"upper bound from: {res.upper_bound_reason}")
        print("certified: the lower bound (exact rank at an integer point) meets the upper bound" if res.certified else "NOT certified: bounds differ")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "dim",
        help="certified dimension of a neuromanifold",
        description="Exact generic Jacobian rank of a model's parametrization map, with certified lower and upper bounds. "
        "Without FAMILY, runs the built-in examples.",
    )
    p.set_defaults(handler=_run_dim, family=None)
    common = dict(
        mode=dict(choices=MODES, default="auto", help="coefficient or sample space (auto: coefficient where direct)"),
        seed=dict(type=nonnegative_arg("--seed"), default=0, help="seed of the integer point and inputs"),
        prime=dict(type=int, default=DEFAULT_PRIME, help=f"prime modulus < 2^21 (default {DEFAULT_PRIME})"),
    )

    def add_common(q):
        q.add_argument("--json", action="store_true", help="print one JSON object")
        q.add_argument("--mode", **common["mode"])
        q.add_argument("--seed", **common["seed"])
        q.add_argument("--prime", **common["prime"])
        q.add_argument("--over-q", action="store_true", help="exact rank over Q instead of mod p (slow)")
        q.add_argument("--witness", action="store_true", help="also report a nonzero maximal minor (rows, cols)")
        q.add_argument("--samples", type=positive_arg("--samples"), default=None, help="number of sample inputs (sample mode)")

    add_common(p)
    fams = p.add_subparsers(dest="family", metavar="FAMILY")
    q = fams.add_parser("mlp", help="polynomial MLP")
    q.add_argument("--widths", required=True, help="d0,d1,...,dL")
    q.add_argument("--activation", default="t^2", help="polynomial in t, or one per hidden layer separated by ';'")
    q.add_argument("--bias", action="store_true")
    q.add_argument("--inactive", default="", help="inactive neurons LAYER:NEURON,... (hidden layers from 1, neurons from 0)")
    add_common(q)
    q = fams.add_parser("shallow", help="sum_i v_i (w_i . x)^k")
    q.add_argument("--n", type=positive_arg("--n"), required=True, help="number of input variables")
    q.add_argument("--degree", type=positive_arg("--degree"), required=True)
    q.add_argument("--width", type=positive_arg("--width"), required=True)
    add_common(q)
    q = fams.add_parser("quadratic", help="quadratic network V (W x + b)^2 + c with p outputs")
    q.add_argument("--d", type=positive_arg("--d"), required=True)
    q.add_argument("--outputs", type=positive_arg("--outputs"), required=True)
    q.add_argument("--width", type=positive_arg("--width"), required=True)
    q.add_argument("--bias", action="store_true")
    add_common(q)
    q = fams.add_parser("attention", help="lightning self-attention V X X^T A X")
    q.add_argument("--d", type=positive_arg("--d"), required=True)
    q.add_argument("--dout", type=positive_arg("--dout"), required=True)
    q.add_argument("--tokens", type=positive_arg("--tokens"), required=True)
    q.add_argument("--rank", type=positive_arg("--rank"), default=None)
    add_common(q)
    q = fams.add_parser("qk", help="query-key composite A B^T")
    q.add_argument("--d", type=positive_arg("--d"), required=True)
    q.add_argument("--k", type=positive_arg("--k"), required=True)
    add_common(q)
    q = fams.add_parser("linear", help="deep linear network W_L ... W_1")
    q.add_argument("--widths", required=True)
    add_common(q)
    q = fams.add_parser("polynomial", help="a user polynomial map")
    q.add_argument("polynomials", nargs="+", help="component polynomials, e.g. 'a*c' 'a*d'")
    q.add_argument("--parameters", required=True, help="parameter names, comma-separated")
    q.add_argument("--inputs", default="", help="input variable names, comma-separated")
    q.add_argument("--symmetry", action="append", default=[], metavar="X1,...,XP",
                   help="a kernel witness: one polynomial per parameter, comma-separated (verified; repeatable)")
    q.add_argument("--equation", action="append", default=[], metavar="G",
                   help="a polynomial in the outputs y1..ym vanishing on the image (verified; repeatable)")
    add_common(q)


def nonnegative_arg(name: str):
    """argparse type: a non-negative integer."""

    def parse(text: str) -> int:
        if not text.strip().isdigit():
            raise argparse.ArgumentTypeError(str(InputError(name, text, "a non-negative integer")))
        return int(text)

    return parse
