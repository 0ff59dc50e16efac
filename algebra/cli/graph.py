"""``neuroalgebra graph irreps|fisher`` and ``neuroalgebra llc graph`` (issue 13).

``graph irreps --group SPEC`` prints the conjugacy classes, irreducible
characters (exact values in ``Q(E(N))``) and the exact orthogonality check;
exit status 0 when the table is verified, 1 otherwise.

``graph fisher --graph SPEC --d D --k K --r R --radius RAD`` builds the
orbit-closed design and prints Assumption 1 (``assumption1_holds``,
``alpha_lower``, ``kernel`` when it fails), the isotypic ``components``
(irrep, dimension, multiplicity, rank of ``Q_rho``) and the residuals of the
projector identities; exit status 0 when Assumption 1 holds, 1 when it
fails (a decided answer, like ``suspect`` for ``llc``), and a
``CertificateError`` (status 1) if an identity is violated.
``--certificate FILE`` also writes a ``score_representation`` certificate of
Lemma 1 / (13)-(15) on the design (:mod:`algebra.certify.representation`),
re-checked by the independent checker before the command reports it.

``llc graph`` (registered by :mod:`algebra.cli.numeric` through
:func:`register_llc_graph`) prints the keys of the other ``llc`` commands
(:func:`algebra.cli._llc.llc_summary`) plus ``assumption1_holds``.
"""

from __future__ import annotations

import json

from algebra.cli._llc import EXIT_STATUS, LLC_FLAGS, add_llc_options, flag_names, llc_settings, print_llc
from algebra.cli.args import nonnegative_arg, seed_arg, output_file_arg, positive_arg, write_certificate
from algebra.errors import CertificateError, InputError, ResourceError

__all__ = ["register", "register_llc_graph", "IDENTITY_TOL", "MAX_DESIGN_ENTRIES", "MAX_D"]

IDENTITY_TOL = 1e-10  # relative residual of a projector identity that counts as a violation

#: Most float64 numbers of a design's features (draws x nodes x --d), refused before they are drawn (80 MB).
MAX_DESIGN_ENTRIES = 10**7
#: Largest --d: the score space has d^2 coordinates and its Fisher d^2 x d^2 entries (d = 100: 800 MB).
MAX_D = 100


def _sized(text: str, argument: str, parse):
    """``parse(text)``, a group or graph above :data:`~algebra.graph.groups.MAX_ORDER` refused naming ``argument``."""
    from algebra.graph.groups import MAX_ORDER

    try:
        return parse(text)
    except ResourceError as exc:  # refused before the group is built
        raise InputError(argument, text, f"a group of order at most {MAX_ORDER} ({exc})") from None


def _group_or_graph(text: str):
    from algebra.graph.groups import GRAPH_SPECS, parse_graph, parse_group

    head = text.strip().lower() if isinstance(text, str) else ""
    if head == "petersen" or head.startswith("edges:"):
        return _sized(text, "--group", lambda t: parse_graph(t, argument="--group")).group
    if head.startswith("generators:"):  # its own refusals say what is wrong with the cycles
        return _sized(text, "--group", parse_group)
    def group(t):
        try:
            return parse_group(t)
        except InputError:
            raise InputError("--group", t, "one of " + GRAPH_SPECS) from None

    return _sized(text, "--group", group)


def _checked_graph(args):
    """The ``--graph`` of a design command, with its sizes refused before anything is drawn."""
    from algebra.graph.groups import parse_graph

    sg = _sized(args.graph, "--graph", parse_graph)
    if args.d > MAX_D:
        raise InputError("--d", args.d, f"an integer <= {MAX_D} (MAX_D: the score-space Fisher has d^4 entries)")
    draws = args.draws if args.draws is not None else max(2, -(-64 // sg.num_nodes))  # make_design's default
    if draws * sg.num_nodes * args.d > MAX_DESIGN_ENTRIES:
        raise InputError("--draws" if args.draws is not None else "--graph", args.draws or args.graph,
                         f"draws x nodes x --d <= {MAX_DESIGN_ENTRIES:,} (MAX_DESIGN_ENTRIES; here {draws:,} x "
                         f"{sg.num_nodes:,} x {args.d:,})")
    return sg


def _run_irreps(args) -> int:
    from algebra.graph.characters import character_table, verify_orthogonality

    G = _group_or_graph(args.group)
    table = character_table(G, method=args.method)
    check = verify_orthogonality(table)
    out = {**table.to_json(), "orthogonality": check}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"{G.name}: order {G.order}, {len(G.classes)} classes, values in Q(E({table.conductor})), "
              f"{table.method}")
        print(f"values in the {out['basis']}")
        print("class sizes:", " ".join(str(len(c)) for c in G.classes))
        print("element orders:", " ".join(str(G.element_order(c[0])) for c in G.classes))
        for a in range(table.num_irreps):
            vals = ", ".join(table.value_text(a, c) for c in range(len(G.classes)))
            print(f"  {table.names[a]} (dim {table.degrees[a]}): {vals}")
        print(f"orthogonality (rows, columns, sum d^2 = |G|) verified exactly mod {check['prime']} "
              f"under {check['embeddings']} embeddings: {check['verified']}")
    return 0 if check["verified"] else 1


def _design_args(args):
    from algebra.graph.attention import make_design

    sg = _checked_graph(args)
    with flag_names(LLC_FLAGS):
        return make_design(sg, args.d, args.k, args.r, radius=args.radius, num_draws=args.draws,
                           features=args.features, seed=args.seed)


def _run_fisher(args) -> int:
    from algebra.graph.fisher import fisher_report

    design = _design_args(args)
    report = fisher_report(design, seed=args.seed)
    bad = {k: v for k, v in report["identities"].items() if not v <= IDENTITY_TOL}
    if bad:
        raise CertificateError(f"projector identities violated: {bad}")
    if args.certificate:
        from algebra.certify.canonical import render, write_atomic
        from algebra.certify.representation import representation_certificate

        def emit(path):
            emitted = representation_certificate(design)
            write_atomic(path, render(emitted.certificate))
            return emitted

        report["certificate"] = write_certificate(args.certificate, emit)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"graph {report['graph']} (group {report['group']}, order {report['group_order']}), "
              f"d={report['d']} k={report['k']} r={report['r']} radius={report['radius']}, "
              f"design {report['design_size']} inputs, score space dim {report['score_dimension']}")
        print(f"encoder equivariance error {report['equivariance_error']:.2e}")
        if report["assumption1_holds"]:
            alpha = report["alpha_lower"]
            print(f"Assumption 1 HOLDS: rank L = {report['rank_L']} = d^2 (exact over Q); "
                  f"alpha >= {alpha} ~ {report['alpha_lower_float']:.3e} (ball arithmetic) "
                  f"[float lambda_min {report['lambda_min_float']:.3e}]" if alpha else
                  f"Assumption 1 HOLDS: rank L = {report['rank_L']} = d^2 (exact over Q); alpha not certified")
        else:
            print(f"Assumption 1 FAILS: rank L = {report['rank_L']} < d^2 = {report['d'] ** 2}; "
                  f"kernel dC = [{', '.join(report['kernel'])}] "
                  f"({'J dC = 0' if report['kernel_logits_zero'] else 'J dC row-constant, nonzero'})")
        print(f"{'irrep':<14}{'dim':>4}{'mult':>8}{'rank Q_rho':>12}{'tr F Pi':>12}  mechanism")
        for c in report["components"]:
            print(f"{c['irrep']:<14}{c['dimension']:>4}{c['multiplicity']:>8}{c['rank_Q_rho']:>12}"
                  f"{c['fisher_trace']:>12.4g}  {c.get('mechanism', '-')}")
        worst = max(report["identities"].values())
        print(f"projector identities and (14), (19): worst relative residual {worst:.1e}")
        if args.certificate:
            c = report["certificate"]
            print(f"certificate: {c['path']} ({c['kind']}; independent checker: "
                  f"{'VERIFIED' if c['verified'] else 'REFUSED: ' + c['checker']})")
    return 0 if report["assumption1_holds"] else 1


def _design_options(p, *, fisher: bool) -> None:
    from algebra.graph import FEATURES

    p.add_argument("--graph", required=True,
                   help="cyclic:N | dihedral:N | torus:NxM | hypercube:K | symmetric:N | petersen | edges:U-V,...")
    p.add_argument("--d", type=positive_arg("--d"), required=True, help="embedding dimension")
    p.add_argument("--k", type=positive_arg("--k"), required=True, help="head width (k <= d)")
    p.add_argument("--r", type=nonnegative_arg("--r"), required=True, help="teacher rank (r <= k)")
    p.add_argument("--radius", type=nonnegative_arg("--radius"), default=1, help="visibility radius (0 hides neighbours)")
    p.add_argument("--draws", type=positive_arg("--draws"), default=None, help="representative feature draws")
    p.add_argument("--features", choices=FEATURES, default="gaussian",
                   help="feature law ('constant' fails Assumption 1 on purpose)")
    if fisher:
        p.add_argument("--seed", type=seed_arg(), default=0)
        p.add_argument("--json", action="store_true", help="print JSON")


def register(subparsers) -> None:
    graph = subparsers.add_parser(
        "graph", help="graph attention with symmetries: characters, score-space Fisher, Assumption 1",
        description="Groups acting on graphs (networkx), exact character tables, the isotypic "
                    "decomposition of the score-space Fisher and Assumption 1 (graph-attention paper).")
    sub = graph.add_subparsers(dest="graph_command", metavar="COMMAND")
    p = sub.add_parser("irreps", help="conjugacy classes and exact irreducible characters")
    p.add_argument("--group", required=True,
                   help="cyclic:N | dihedral:N | torus:NxM | hypercube:K | symmetric:N | petersen | edges:... | "
                        "generators:'(0,1,2);(0,1)' (a permutation group by generators in cycle notation, points "
                        "from 0, ';' between generators; order at most MAX_ORDER = 2000)")
    p.add_argument("--method", choices=("auto", "closed", "dixon"), default="auto")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_run_irreps)
    p = sub.add_parser("fisher", help="score-space Fisher, isotypic Q_rho ranks, Assumption 1 decided")
    _design_options(p, fisher=True)
    p.add_argument("--certificate", metavar="FILE", default=None, type=output_file_arg("--certificate"),
                   help="also write a certificate of Lemma 1 / (13)-(15) on this design to FILE "
                        "(re-check it with `neuroalgebra verify FILE`)")
    p.set_defaults(handler=_run_fisher)
    graph.set_defaults(handler=lambda a: (graph.print_help(), 2)[1])


def _run_llc_graph(args) -> int:
    from algebra.graph.llc import graph_llc

    _checked_graph(args)
    with flag_names(LLC_FLAGS):
        row = graph_llc(args.graph, args.d, args.k, args.r, radius=args.radius, point=args.point,
                        settings=llc_settings(args), seed=args.seed, num_draws=args.draws, features=args.features,
                        bar=not args.quiet)
    extra = {k: row[k] for k in ("assumption1_holds", "alpha_lower", "point", "lambda_44", "multiplicity_45",
                                 "relative_to_44", "frozen_chains", "design")}
    if args.json:
        return print_llc(row, True, extra)
    code = print_llc(row, False)
    print(f"assumption 1    {'holds (alpha >= ' + str(row['alpha_lower']) + ')' if row['assumption1_holds'] else 'FAILS'}")
    print(f"point           {row['point']} (lambda_44 = {row['lambda_44']}, "
          f"estimate {100 * row['relative_to_44']:+.2f}% from it)")
    return code


def register_llc_graph(sub) -> None:
    """Add ``llc graph`` to the ``llc`` subparsers (called from :mod:`algebra.cli.numeric`)."""
    from algebra.graph import POINTS

    p = sub.add_parser("graph", help="QK block of graph attention on a Cayley/automorphism graph "
                                     "(graph-attention paper, Thm 2 under Assumption 1)", epilog=EXIT_STATUS)
    _design_options(p, fisher=False)
    p.add_argument("--point", choices=POINTS, default="canonical",
                   help="reference factors: canonical (30), a random GL(k) gauge, or the open case")
    add_llc_options(p, sample_size=False)  # the loss is the exact population KL: no --n
    p.set_defaults(handler=_run_llc_graph)
