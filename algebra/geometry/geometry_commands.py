"""CLI: ``neuroalgebra secant | secant-table | proximity | singular | normal-form``.

Argument parsing only; every command calls a library function of
:mod:`algebra.geometry.secant`, :mod:`~algebra.geometry.proximity`,
:mod:`~algebra.geometry.singular` or :mod:`~algebra.geometry.normal_form`.
Exit status 0 on success, 2 on bad input, 1 when a checked claim is refuted
(``singular``) or a round trip fails (``normal-form``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from algebra.errors import InputError
from algebra.exact.field import DEFAULT_PRIME
from algebra.geometry.commands import nonnegative_arg, parse_widths, positive_arg

__all__ = ["register"]


def _variety(args):
    from algebra.geometry.secant import segre, segre_veronese, veronese

    if args.variety == "polynomial":
        from algebra.models import PolynomialMap

        if not args.polynomials or not args.parameters:
            raise InputError("--polynomials/--parameters", args.polynomials, "the atom's polynomials and its parameter names")
        params = [v.strip() for v in args.parameters.split(",") if v.strip()]
        inputs = [v.strip() for v in (args.inputs or "").split(",") if v.strip()]
        return PolynomialMap(args.polynomials, parameters=params, inputs=inputs)
    if args.variety == "veronese":
        if args.n is None or args.degree is None:
            raise InputError("--n/--degree", f"{args.n}/{args.degree}", "both --n and --degree for --variety veronese")
        return veronese(args.n, args.degree)
    if args.factors is None:
        raise InputError("--factors", None, f"comma-separated factor dimensions for --variety {args.variety}")
    factors = parse_widths(args.factors, "--factors", min_length=1)
    if args.variety == "segre":
        return segre(factors)
    if args.degrees is None:
        raise InputError("--degrees", None, "comma-separated degrees for --variety segre-veronese")
    degrees = parse_widths(args.degrees, "--degrees", min_length=1)
    if len(degrees) != len(factors):
        raise InputError("--degrees", args.degrees, f"{len(factors)} degrees (one per factor)")
    return segre_veronese(factors, degrees)


def _run_secant(args) -> int:
    from algebra.geometry.secant import secant_dimension

    X = _variety(args)
    if X.ambient_dimension() * args.k * X.parameter_count > 20_000_000:
        raise InputError("--k", args.k, "a smaller problem (the Terracini matrix would exceed 20M entries)")
    res = secant_dimension(X, args.k, seed=args.seed, prime=args.prime)
    if args.json:
        print(json.dumps(res.to_json(), indent=2))
    else:
        print(f"sigma_{res.k} of {res.variety.get('family')} {res.variety.get('factors', '')}: dimension of the affine cone {res.dimension} "
              f"(expected {res.expected_dimension}, ambient {res.ambient_dimension})")
        print(f"bounds [{res.lower_bound}, {res.upper_bound}]  certified: {'yes' if res.certified else 'NO'}  status: {res.status}")
        print(f"upper bound from: {res.upper_bound_reason}")
    return 0


def _run_table(args) -> int:
    from algebra.geometry.secant import sweep_quadratic, sweep_veronese, table_rows, write_table

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    progress = not args.no_progress and not args.json
    if args.variety == "veronese":
        results = sweep_veronese(args.n_max, args.degree_max, seed=args.seed, prime=args.prime, progress=progress)
        stem, title = f"veronese_n{args.n_max}_deg{args.degree_max}", "Defective secants of Veronese varieties"
        cmd = f"neuroalgebra secant-table --variety veronese --n-max {args.n_max} --degree-max {args.degree_max} --out {args.out}"
    else:
        results = sweep_quadratic(args.d_max, args.p_max, args.k_max, seed=args.seed, prime=args.prime, progress=progress)
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


def _run_proximity(args) -> int:
    from algebra.geometry.commands import parse_widths
    from algebra.geometry.proximity import proximity
    from algebra.models import MLP
    from algebra.models.mlp import parse_activation, parse_inactive

    widths = parse_widths(args.widths)
    n_hidden = len(widths) - 2
    if n_hidden < 1:
        raise InputError("--widths", args.widths, "at least one hidden layer")
    acts = [parse_activation(a, argument="--activation") for a in args.activation.split(";")]
    if len(acts) == 1:
        acts = acts * n_hidden
    elif len(acts) != n_hidden:
        raise InputError("--activation", args.activation, f"one activation or {n_hidden} separated by ';'")
    inactive = parse_inactive(args.inactive, n_hidden)
    if not inactive:
        raise InputError("--inactive", args.inactive, "at least one LAYER:NEURON pair")
    model = MLP(widths, acts, bias=args.bias)
    res = proximity(model, inactive, seed=args.seed, prime=args.prime)
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
    results = conjecture_sweep(seed=args.seed, prime=args.prime, progress=not args.no_progress and not args.json)
    csv_path, md_path = out / "conjecture_3_16.csv", out / "conjecture_3_16.md"
    counts = write_sweep_table(results, csv_path, md_path, command=f"neuroalgebra proximity sweep --out {args.out}")
    if args.json:
        print(json.dumps({"cases": len(results), "conjecture_3_16": counts, "csv": str(csv_path),
                          "markdown": str(md_path)}, indent=2))
    else:
        print(f"{len(results)} cases; Conjecture 3.16: {counts}; wrote {csv_path} and {md_path}")
    return 0


def _run_singular(args) -> int:
    from algebra.geometry.singular import STRATUM_CLAIMS, SYMBOLIC_EXAMPLES, check_claim, symbolic_example

    reports = []
    if args.example:
        reports.append(symbolic_example(args.example))
    if args.claim:
        checks = check_claim(args.claim, points=args.points, seed=args.seed)
        reports.append({"claim": args.claim, "location": STRATUM_CLAIMS[args.claim][0],
                        "statement": STRATUM_CLAIMS[args.claim][1],
                        "verdict": "confirmed" if all(c.confirmed for c in checks) else "refuted",
                        "checks": [c.to_json() for c in checks]})
    if not reports:
        raise InputError("--example/--claim", None, f"an example ({', '.join(SYMBOLIC_EXAMPLES)}) or a claim ({', '.join(STRATUM_CLAIMS)})")
    if args.json:
        print(json.dumps(reports, indent=2))
    else:
        for r in reports:
            name = r.get("example") or r.get("claim")
            print(f"{name}: {r['verdict'].upper()} -- {r.get('statement')} ({r['location']})")
            for c in r.get("checks", []):
                print(f"  {c['size']} {c['stratum']}: expected {c['expected']}, observed {c['observed']} -> {c['verdict']}")
    return 0 if all(r["verdict"] == "confirmed" for r in reports) else 1


def _canonical_qk(d: int, k: int, r: int, seed: int):
    from algebra.geometry.normal_form import canonical_orbit_point

    return canonical_orbit_point(d, k, r, seed=seed)


def _run_normal_form(args) -> int:
    from algebra.geometry.normal_form import linear_normal_form, qk_normal_form

    if args.family == "qk":
        if not args.rank <= min(args.d, args.k):
            raise InputError("--rank", args.rank, f"an integer between 1 and min(--d, --k) = {min(args.d, args.k)}")
        A, B = _canonical_qk(args.d, args.k, args.rank, args.seed)
        res = qk_normal_form(A, B)
        ok = res["round_trip"] and res["rank_identity"]
    else:
        widths = parse_widths(args.widths, "--widths")
        if len(widths) < 2:
            raise InputError("--widths", args.widths, "at least two widths")
        if not args.rank <= min(widths):
            raise InputError("--rank", args.rank, f"an integer between 1 and the smallest width {min(widths)}")
        rng = np.random.default_rng(np.random.SeedSequence(args.seed))
        Ws = []
        for l in range(1, len(widths)):
            W = np.zeros((widths[l], widths[l - 1]), dtype=np.int64)
            W[: args.rank, : args.rank] = rng.integers(1, 4, size=(args.rank, args.rank)) + 4 * np.eye(args.rank, dtype=np.int64)
            Ws.append(W)
        res = linear_normal_form(Ws)
        ok = res["round_trip"] and res["rank_identity"]
    if args.json:
        print(json.dumps({k: v for k, v in res.items()}, indent=2, default=str))
    else:
        for key in ("regular", "orbit", "stabilizer", "kernel_excess", "transverse"):
            if key in res:
                print(f"{key:<14} {res[key]}")
        print(f"Schur round trip: {'ok' if res['round_trip'] else 'FAILED'}; rank identity: {res['rank_identity']}")
    return 0 if ok else 1


def register(subparsers) -> None:
    """Add the geometry commands of issue 4 to the CLI."""
    from algebra.geometry.secant import VARIETIES

    def common(q):
        q.add_argument("--json", action="store_true", help="print JSON")
        q.add_argument("--seed", type=nonnegative_arg("--seed"), default=0, help="seed of the random point(s)")

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
    p.add_argument("--prime", type=int, default=DEFAULT_PRIME)
    common(p)
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
    p.add_argument("--out", default="secant_tables", help="output directory")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--prime", type=int, default=DEFAULT_PRIME)
    common(p)
    p.set_defaults(handler=_run_table)

    p = subparsers.add_parser("proximity", help="proximity-bias dimension counts for a submodel",
                              description="dim F, dim F', the constraint count m of a reinserted neuron and the "
                              "verdicts of Propositions 2.4, 3.13, 3.14, B.9 (proximity-bias paper).")
    fams = p.add_subparsers(dest="family", metavar="FAMILY")
    q = fams.add_parser("mlp", help="polynomial MLP with inactive neurons")
    q.add_argument("--widths", required=True, help="d0,d1,...,dL")
    q.add_argument("--activation", default="t^2", help="polynomial in t, or one per hidden layer separated by ';'")
    q.add_argument("--bias", action="store_true")
    q.add_argument("--inactive", required=True, help="LAYER:NEURON,... (hidden layers from 1, neurons from 0)")
    q.add_argument("--prime", type=int, default=DEFAULT_PRIME)
    common(q)
    q.set_defaults(handler=_run_proximity)
    q = fams.add_parser("sweep", help="Conjecture 3.16 sweep over (d0, h1, h2, 1) networks; CSV + Markdown")
    q.add_argument("--out", default="proximity_tables", help="output directory")
    q.add_argument("--no-progress", action="store_true")
    q.add_argument("--prime", type=int, default=DEFAULT_PRIME)
    common(q)
    q.set_defaults(handler=_run_proximity_sweep)
    p.set_defaults(handler=lambda args, p=p: (p.print_help(), 2)[1])

    p = subparsers.add_parser("singular", help="singular loci: Groebner examples and rank-stratum claims",
                              description="Symbolic singular loci of small varieties (Jacobian criterion) or exact "
                              "Jacobian ranks at points of named strata (Lemmas D.3, D.6, E.1, Prop. E.4).")
    p.add_argument("--example", choices=("cone", "cubic-cone", "sym-rank2", "det-2x3"))
    p.add_argument("--claim", choices=("D.3", "D.6", "E.1", "E.4"))
    p.add_argument("--points", type=positive_arg("--points"), default=1, help="random points per stratum")
    common(p)
    p.set_defaults(handler=_run_singular)

    p = subparsers.add_parser("normal-form", help="Schur-complement normal form of A B^T or W_L...W_1",
                              description="Counts of the graph-attention paper's Proposition 1 computed at a random "
                              "point of the gauge orbit of a canonical rank-r factorization, with exact Schur coordinates.")
    fams = p.add_subparsers(dest="family", metavar="FAMILY")
    q = fams.add_parser("qk", help="C = A B^T, A, B of shape d x k")
    q.add_argument("--d", type=positive_arg("--d"), required=True)
    q.add_argument("--k", type=positive_arg("--k"), required=True)
    q.add_argument("--rank", type=positive_arg("--rank"), required=True)
    common(q)
    q.set_defaults(handler=_run_normal_form)
    q = fams.add_parser("linear", help="deep linear network W_L ... W_1")
    q.add_argument("--widths", required=True)
    q.add_argument("--rank", type=positive_arg("--rank"), required=True)
    common(q)
    q.set_defaults(handler=_run_normal_form)
    p.set_defaults(handler=lambda args, p=p: (p.print_help(), 2)[1])
