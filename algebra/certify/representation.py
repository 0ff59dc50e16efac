"""``score_representation`` certificates: Lemma 1 and (13)-(15) of the graph-attention paper on a design.

The heavy side writes the design as data -- the graph's edges, the group as node
permutations, the exact character table (:mod:`algebra.graph.characters`, eigenvalue
multiplicities per element), the visibility radius, the biases and every input's
features as exact binary64 -- and the independent checker
(:mod:`algebra.checker.representation`) derives the claim from it: the group,
``rho_score`` (13), the commutation (14) for every teacher, the projectors (15)
and their ranks.  Nothing is computed here that the checker does not recompute;
the library's own checks (:meth:`algebra.graph.fisher.ScoreSpace.check_identities`)
are a separate route.
"""

from __future__ import annotations

from algebra.certify.canonical import seal
from algebra.certify.envelope import Emitted, header, self_check
from algebra.errors import CertificateError
from algebra.exact.rounding import binary64_hex

__all__ = ["representation_data", "representation_certificate"]


def representation_data(design, table=None) -> dict:
    """The ``representation`` block of ``design`` (an :class:`~algebra.graph.attention.AttentionDesign`).

    Inputs are the orbit closure in the order ``(m, h)`` of
    :meth:`~algebra.graph.attention.AttentionDesign.closure_rows`: the input
    labelled ``[m, h]`` has the features ``P_h F_m``.

    Examples
    --------
    >>> from algebra.graph.attention import make_design
    >>> from algebra.graph.groups import parse_graph
    >>> block = representation_data(make_design(parse_graph("cyclic:3"), 2, 1, 1, num_draws=1))
    >>> block["graph"], block["characters"]["irreps"][1]["values"][1], block["design"]["inputs"][2]["label"]
    ({'nodes': 3, 'edges': [[0, 1], [0, 2], [1, 2]]}, [0, 1, 0], [0, 2])
    """
    from algebra.graph.attention import permute_nodes
    from algebra.graph.characters import character_table

    sg = design.graph
    G = sg.group
    table = character_table(G) if table is None else table
    irreps = [{"name": table.names[a],
               "values": [[int(v) for v in table.multiplicities[a, G.class_of[g]]] for g in range(G.order)]}
              for a in range(table.num_irreps)]
    inputs = [{"label": [m, h], "features": [[binary64_hex(v, form="full") for v in row]
                                             for row in permute_nodes(design.features[m], G.elements[h])]}
              for m in range(design.num_draws) for h in range(G.order)]
    return {"graph": {"nodes": sg.num_nodes, "edges": sorted(sorted(map(int, e)) for e in sg.graph.edges())},
            "group": {"elements": [list(map(int, g)) for g in G.elements]},
            "characters": {"conductor": int(table.conductor), "irreps": irreps},
            "design": {"radius": int(design.radius), "inputs": inputs,
                       "bias": [[binary64_hex(design.bias[i, j], form="full") for j in vis]
                                for i, vis in enumerate(design.visible)]}}


def representation_certificate(design, table=None, *, source: dict | None = None) -> Emitted:
    """Certify Lemma 1 / (13)-(15) on ``design``; the verdict is the derived claim's.

    ``confirmed`` when the checker derives (14) (the score inputs are invariant)
    as well as (13) and (15); ``hypothesis fails`` when the inputs of some score
    coordinate differ from its image's -- the design is not an orbit closure of
    equivariant features with orbit-constant biases, so (14) is not derived (the
    certificate then proves that difference, and (13), (15) still).
    ``lower``/``upper`` of the result are the score dimension.

    Examples
    --------
    >>> from algebra.graph.attention import make_design
    >>> from algebra.graph.groups import parse_graph
    >>> e = representation_certificate(make_design(parse_graph("dihedral:3"), 2, 1, 1, num_draws=1))
    >>> e.verdict, e.lower          # 6 inputs x 6 nodes x 4 visible: 24 copies of the regular representation
    ('confirmed', 144)
    >>> [(c["dimension"], c["multiplicity"], c["rank"]) for c in e.certificate["claim"]["components"]]
    [(1, 24, 24), (1, 24, 24), (2, 48, 96)]
    """
    from algebra.checker import Reject, derive_claim

    cert = header("score_representation", source)
    cert["representation"] = representation_data(design, table)
    try:
        cert["claim"] = derive_claim(cert)
    except Reject as exc:
        raise CertificateError(f"the score representation does not verify: {exc}") from None
    cert = seal(cert)
    reason = self_check(cert)
    claim = cert["claim"]
    n = claim["about"]["score_dimension"]
    if claim["invariant"]:
        return Emitted(cert, "score_representation", n, n, "confirmed", reason)
    note = (f"hypothesis (5) on an orbit-closed design with orbit-constant biases fails: {claim['difference']}; "
            "(14) is not derived, (13) and (15) are")
    return Emitted(cert, "score_representation", n, n, "hypothesis fails", reason, note)
