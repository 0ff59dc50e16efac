"""The ``score_representation`` kind: Lemma 1 and (13)-(15) of the graph-attention paper, derived exactly.

Part of the independent checker (plug-in): imports only :mod:`algebra.checker.core`.  The block
``representation`` of the certificate carries

* ``graph``: ``{"nodes": V, "edges": [[u, v], ...]}``;
* ``group``: ``{"elements": [[g(0), ..., g(V-1)], ...]}`` (product ``g h = g o h``);
* ``characters``: ``{"conductor": N, "irreps": [{"name", "values": [per element: N integers]}]}``
  (``name``: a distinct :data:`LABEL`, kept in the data only; the claim names the ``a``-th irrep ``Pi_a``),
  ``[c_0, ..., c_{N-1}]`` being ``sum_k c_k E(N)^k`` (character values are algebraic
  integers, so integer coefficients exist: the eigenvalue multiplicities);
* ``design``: ``{"radius": R, "bias": [per node i: one exact number per visible j],
  "inputs": [{"label": [m, h], "features": V rows of d exact numbers}]}``; the input
  labelled ``[m, h]`` is the feature matrix ``P_h F_m`` (exact numbers as in
  :func:`algebra.checker.core.exact_number`, compared exactly).

What is derived, without search (graph-attention paper, Section 3):

1. each element is a permutation of the nodes mapping every edge to an edge, the set
   is closed under composition and holds the identity: a group of automorphisms
   (finite and closed, so inverses exist); its table and conjugacy classes are computed here;
2. (13): the visible nodes ``A_i`` are those at graph distance ``<= R`` (breadth-first
   search); the score coordinates are ``(t, i, j)``, ``j in A_i``, in input, node, node
   order (the active rows' visible entries: ``F_score`` vanishes on the other rows and
   the masked entries, a ``rho_score``-invariant complement); ``rho_score(g)`` maps
   ``(t, i, j)`` to ``(t', g i, g j)`` where ``t'`` is labelled ``[m, g h]`` (the labels
   must be closed: an orbit-closed design), rows onto rows; ``rho_score(e) = 1`` and
   ``rho_score(g s) = rho_score(g) rho_score(s)`` for every ``g`` and every ``s`` of a
   generating set picked here: a homomorphism (induct on words in the ``s``);
3. (14): ``F_score`` applies ``(diag(p) - p p^T) / |D|`` to each row, ``p`` the softmax
   of ``s_ij = h_i^T C h_j / sqrt(k) + b_ij``.  When for every ``g``, input ``t`` and
   node ``x`` the features of ``t'`` at ``g x`` equal those of ``t`` at ``x`` (query and
   key features alike) and ``b_{g i, g j} = b_ij``, every row has the logits of its
   image for every teacher ``C``, hence the same ``p``, and ``F_score`` commutes with
   every ``rho_score(g)``.  Otherwise the first difference is the derived claim (the
   paper's hypotheses, (5) on an orbit-closed design with orbit-constant biases, fail);
4. (15): in ``Q(E(N)) = Q[x] / Phi_N`` (``Phi_N`` computed here): each ``chi`` is a class
   function, ``chi(e) = d`` a positive integer, ``chi(g^-1) = conj chi(g)``; with
   ``E_a = sum_g conj chi_a(g) g``: ``E_a E_b = delta_ab (|G| / d_a) E_a`` (both central,
   so checked at one element per class; the class of ``e`` is the first orthogonality
   relation), ``sum_a d_a E_a = |G| e``, and the second orthogonality relation.  With
   as many characters as classes, the ``e_a = d_a E_a / |G|`` are ``r`` nonzero
   orthogonal idempotents summing to 1 in the centre ``C^r`` of ``C[G]``, i.e. its
   primitive idempotents: the ``chi_a`` are the irreducible characters, and
   ``Pi_a = rho_score(e_a)`` are self-adjoint orthogonal idempotents summing to the
   identity, of rank ``trace Pi_a = (d_a / |G|) sum_g conj chi_a(g) fix(g) = d_a m_a``.

Canonical spelling: every object has exactly its documented fields; ``graph.edges`` are pairs
``[u, v]`` with ``u < v`` in increasing order, ``group.elements`` and the input labels are in
increasing order (they are sets; the identity is then element 0), irrep names are distinct, every
number is one canonical spelling (:func:`algebra.checker.core.exact_number`; binary64 as ``float.hex``
writes it).

Work: every phase is charged to one budget of :data:`MAX_WORK` steps before it runs (the group
table ``|G|^2 V``, the breadth-first searches edge by edge, ``rho_score`` ``|G| (n + T V d)`` and
``|G| |gens| n``, the checks of (15) ``r^2 (r + 1) |G| phi(N)^2`` and the parsing of ``r |G| N``
coefficients), and ``rho_score`` to :data:`MAX_SLOTS` list slots (``docs/certificate-format.md``).
"""

from __future__ import annotations

import re

from algebra.checker.core import (ENVELOPE, OPTIONAL, block_fields, charge, digest, exact_number, get, int_list, need,
                                  register_kind, small_int)

__all__ = ["cyclotomic", "derive_representation_claim", "render_representation_claim"]

MAX_NODES = 4096
MAX_ORDER = 1000
MAX_CONDUCTOR = 1000
MAX_ENTRIES = 10**6  # edges, features, bias entries, score coordinates, character coefficients
MAX_SLOTS = 10**7  # |G| n: the permutations rho_score(g) held at once (about 0.4 GB of Python ints)
MAX_WORK = 5 * 10**7  # steps of the whole check (module docstring, "Work"); about 30 s measured at the limit
#: An irrep's name: printable ASCII without spaces, at most 64 characters (data only, never in the claim).
LABEL = re.compile(r"[!-~]{1,64}")
_PHI = {}


def _divide(c, q):
    """``(quotient, remainder)`` of integer polynomials (lowest degree first), ``q`` monic."""
    c, m = list(c), len(q) - 1
    quo = [0] * max(len(c) - m, 0)
    for k in range(len(c) - 1, m - 1, -1):
        f = quo[k - m] = c[k]
        if f:
            for i in range(m + 1):
                c[k - m + i] -= f * q[i]
    return quo, tuple(c[:m]) + (0,) * (m - len(c))


def cyclotomic(n: int) -> list:
    """``Phi_n`` (lowest degree first): ``x^n - 1`` divided by ``Phi_d`` for every ``d | n``, ``d < n``.

    At most ``sum_{m | n} m sigma(m)`` steps: a constant for ``n <= MAX_CONDUCTOR`` (under 0.1 s).

    Examples
    --------
    >>> cyclotomic(1), cyclotomic(6), cyclotomic(8)
    ([-1, 1], [1, -1, 1], [1, 0, 0, 0, 1])
    """
    if n not in _PHI:
        p = [-1] + [0] * (n - 1) + [1]
        for d in range(1, n):
            if n % d == 0:
                p = _divide(p, cyclotomic(d))[0]
        _PHI[n] = p
    return _PHI[n]


def _mul(a, b, q):
    c = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                c[i + j] += x * y
    return _divide(c, q)[1]


def _increasing(items) -> bool:
    """``items`` strictly increasing: a sorted list of distinct members (one spelling of a set)."""
    return all(a < b for a, b in zip(items, items[1:]))


def _edges(graph, V, work):
    """``graph.edges`` as a sorted list of pairs ``(u, v)``, ``u < v`` (refused in any other spelling)."""
    raw = get(graph, "edges", list, "graph")
    need(len(raw) <= MAX_ENTRIES, f"more than {MAX_ENTRIES} edges")
    charge(work, len(raw), "reading the edges", MAX_WORK)
    edges = [tuple(int_list(x, 0, V - 1, "edge", 2)) for x in raw]
    need(all(u < v for u, v in edges) and _increasing(edges),
         "graph.edges: pairs [u, v] with u < v, listed in increasing order, each once")
    return edges


def _group(block, V, edges, work):
    """Elements, table, inverses, classes; each element checked to be an automorphism."""
    els = get(block_fields(block, "group", ("elements",)), "elements", list, "group")
    order = len(els)
    need(1 <= order <= MAX_ORDER, f"group: 1..{MAX_ORDER} elements")
    charge(work, order * (V + 2 * len(edges)) + order * order * (V + 3), "the group table", MAX_WORK)
    G = [tuple(int_list(g, 0, V - 1, "group element", V)) for g in els]
    need(_increasing(G), "group.elements must be listed in increasing order, each once (a set)")
    need(all(len(set(g)) == V for g in G), "group elements must be permutations of the nodes")
    need(G[0] == tuple(range(V)), "the identity permutation is not among the group elements")
    index, eset = {g: a for a, g in enumerate(G)}, set(edges)
    for a, g in enumerate(G):
        bad = next(([u, v] for u, v in edges if (min(g[u], g[v]), max(g[u], g[v])) not in eset), None)
        need(bad is None, f"group element {a} is not an automorphism: it maps the edge {bad} to a non-edge")
    table = [[index.get(tuple(g[x] for x in h)) for h in G] for g in G]
    need(all(v is not None for row in table for v in row), "the group elements are not closed under composition")
    e = 0
    inv = [row.index(e) for row in table]
    cls, classes = [None] * order, []
    for x in range(order):
        if cls[x] is None:
            members = sorted({table[table[g][x]][inv[g]] for g in range(order)})
            for y in members:
                cls[y] = len(classes)
            classes.append(members)
    return G, table, inv, e, classes


def _generators(table, work) -> list:
    """A generating set: each element outside the subgroup generated so far joins it (greedy)."""
    gens, H = [], {0}
    for x in range(len(table)):
        if x not in H:
            gens.append(x)
            charge(work, len(table) * len(gens), "the generating set", MAX_WORK)
            todo = list(H)
            while todo:
                h = todo.pop()
                for s in gens:
                    if table[h][s] not in H:
                        H.add(table[h][s])
                        todo.append(table[h][s])
    return gens


def _visible(V, edges, radius, work):
    """Per node, the sorted nodes at graph distance ``<= radius`` (breadth-first search, charged edge by edge)."""
    adj = [[] for _ in range(V)]
    for u, v in edges:
        adj[u].append(v)
        adj[v].append(u)
    out, total = [], 0
    for i in range(V):
        seen, frontier = {i}, [i]
        for _ in range(radius):
            charge(work, len(frontier), "the visibility search", MAX_WORK)
            charge(work, 2 * sum(len(adj[x]) for x in frontier), "the visibility search", MAX_WORK)
            frontier = sorted({y for x in frontier for y in adj[x]} - seen)
            seen.update(frontier)
            if not frontier:
                break
        out.append(sorted(seen))
        total += len(seen)
        need(total <= MAX_ENTRIES, f"more than {MAX_ENTRIES} visible pairs")
    return out


def _score(design, G, table, V, vis, work):
    """``(rho_score as permutations, T, n, first difference of the inputs or None)``."""
    bias = get(design, "bias", list, "design")
    need(len(bias) == V and all(isinstance(b, list) and len(b) == len(v) for b, v in zip(bias, vis)),
         "design.bias: one exact number per visible node of every node")
    width = sum(len(v) for v in vis)
    charge(work, width, "reading the biases", MAX_WORK)
    bias = [[exact_number(x, "bias", hex_form="full") for x in b] for b in bias]
    inputs = get(design, "inputs", list, "design")
    need(1 <= len(inputs) and len(inputs) * V <= MAX_ENTRIES, f"design.inputs: 1.. inputs, at most {MAX_ENTRIES} rows")
    charge(work, len(inputs) * V, "reading the inputs", MAX_WORK)
    labels, rows = [], []
    for x in inputs:
        block_fields(x, "input", ("label", "features"))
        labels.append(tuple(int_list(get(x, "label", list, "input"), 0, MAX_ENTRIES, "input label", 2)))
        rows.append(get(x, "features", list, "input"))
        need(len(rows[-1]) == V and all(isinstance(r, list) for r in rows[-1]), "input features: V rows")
    T, d = len(labels), len(rows[0][0])
    need(all(len(r) == d for f in rows for r in f) and d >= 1, "input features: rows of the same length d >= 1")
    need(T * V * d <= MAX_ENTRIES, f"at most {MAX_ENTRIES} features")
    need(_increasing(labels), "design.inputs: labels listed in increasing order, each once (a set)")
    need(all(h < len(G) for _, h in labels), "an input label names no group element")
    n = T * width
    need(n <= MAX_ENTRIES and len(G) * n <= MAX_SLOTS,
         f"at most {MAX_ENTRIES} score coordinates and {MAX_SLOTS} slots of rho_score (|G| n)")
    charge(work, T * V * d, "reading the features", MAX_WORK)
    feats = [[tuple(exact_number(v, "feature", hex_form="full") for v in r) for r in f] for f in rows]
    gens = _generators(table, work)
    charge(work, len(G) * (2 * n + T * V * (d + 1) + width) + 2 * len(G) * len(gens) * n, "rho_score and (14)", MAX_WORK)
    where = {lab: t for t, lab in enumerate(labels)}
    start = [sum(len(v) for v in vis[:i]) for i in range(V)]
    slot = [{j: a for a, j in enumerate(v)} for v in vis]
    perms, diff = [], None
    for a, g in enumerate(G):
        act = [where.get((m, table[a][h])) for m, h in labels]
        need(None not in act, f"the inputs are not closed under the group: no input labelled [m, g h] for g = {a}")
        p = []
        for t in range(T):
            for i in range(V):
                base, row = act[t] * width + start[g[i]], slot[g[i]]
                p += [base + row.get(g[j], -n) for j in vis[i]]
                if diff is None and feats[act[t]][g[i]] != feats[t][i]:
                    diff = {"element": a, "input": t, "node": i}
        need(min(p) >= 0 and len(set(p)) == n, "rho_score does not map rows onto rows")
        if diff is None:
            diff = next(({"element": a, "pair": [i, j]} for i in range(V) for s, j in enumerate(vis[i])
                         if bias[g[i]][slot[g[i]][g[j]]] != bias[i][s]), None)
        perms.append(p)
    need(perms[0] == list(range(n)), "rho_score(e) != 1")
    for a in range(len(G)):
        for b in gens:
            need(perms[table[a][b]] == [perms[a][w] for w in perms[b]], f"rho_score({a} {b}) != rho_score({a}) rho_score({b})")
    return perms, T, n, diff


def _characters(block, G, table, inv, e, classes, work):
    """``(N, [(degree, conj chi per element)])`` after the checks of (15) (module docstring, 4)."""
    block_fields(block, "characters", ("conductor", "irreps"))
    N = small_int(get(block, "conductor", int, "characters"), 1, MAX_CONDUCTOR, "characters.conductor")
    irreps, order, r = get(block, "irreps", list, "characters"), len(G), len(classes)
    need(len(irreps) == r, f"{len(irreps)} characters for {r} conjugacy classes")
    need(r * order * N <= MAX_ENTRIES, f"more than {MAX_ENTRIES} character coefficients")
    q = cyclotomic(N)
    phi = len(q) - 1
    mul = 2 * phi * phi + phi + 40  # one product in Q(E(N)): phi^2 multiply-adds, the reduction, the sum, ~40 for the calls
    charge(work, r * order * (2 * N + 2 * (N - phi + 1) * (phi + 1) + 2 * phi)  # read, reduce, conjugate, compare
           + (r * (r + 1) // 2) * r * order * mul + order * r * phi + r * r * r * mul, "the checks of (15)", MAX_WORK)
    const = lambda c: (c,) + (0,) * (phi - 1)  # noqa: E731
    out, names = [], []
    for a, ir in enumerate(irreps):
        block_fields(ir, f"irrep {a}", ("name", "values"))
        name, vals = get(ir, "name", str, "irrep"), get(ir, "values", list, "irrep")
        need(LABEL.fullmatch(name) is not None, f"irrep {a}: the name must be 1..64 printable ASCII characters, no spaces")
        need(len(vals) == order, f"irrep {a}: one value per group element")
        names.append(name)
        raw = [int_list(v, -10**6, 10**6, "character coefficient", N) for v in vals]
        chi = [_divide(v, q)[1] for v in raw]
        conj = [_divide([v[-k % N] for k in range(N)], q)[1] for v in raw]
        deg = chi[e][0]
        need(chi[e] == const(deg) and deg >= 1, f"chi_{a}(e) is not a positive integer")
        need(all(chi[y] == chi[c[0]] for c in classes for y in c), f"chi_{a} is not a class function")
        need(all(chi[inv[g]] == conj[g] for g in range(order)), f"chi_{a}(g^-1) != conj chi_{a}(g)")
        out.append((deg, conj))
    need(len(set(names)) == len(names), "the irreps' names must be distinct")
    need(sum(d * d for d, _ in out) == order, "the squared degrees do not sum to |G|")
    for a, (da, Ea) in enumerate(out):
        for b, (_, Eb) in enumerate(out[a:], a):
            for c in classes:
                h = c[0]
                s = [0] * phi
                for g in range(order):
                    s = [x + y for x, y in zip(s, _mul(Ea[g], Eb[table[inv[g]][h]], q))]
                want = [order * x for x in Ea[h]] if a == b else [0] * phi
                need([da * x for x in s] == want, f"E_{a} E_{b} != delta (|G|/d) E_{a} at a class representative "
                     "(the class of e: the first orthogonality relation)")
    for g in range(order):
        s = [sum(d * E[g][k] for d, E in out) for k in range(phi)]
        need(tuple(s) == const(order if g == e else 0), "sum_rho d_rho E_rho != |G| e: the projectors do not sum to 1")
    for c in classes:  # chi(g) = conj chi(g^-1) = E(g^-1)
        for c2 in classes:
            s = [0] * phi
            for _, E in out:
                s = [x + y for x, y in zip(s, _mul(E[inv[c[0]]], E[c2[0]], q))]
            need(tuple(s) == const(order // len(c) if c is c2 else 0), "the second orthogonality relation fails")
    return N, out


def render_representation_claim(claim: dict) -> str:
    """The canonical text of a ``score_representation`` claim (only numbers the checker derived).

    ``Pi_a`` is the projector of the ``a``-th character listed in the data; the data's names
    for the irreps never enter the claim.

    Examples
    --------
    >>> about = {"representation_sha256": "ab" * 32, "nodes": 3, "edges": 3, "radius": 1, "inputs": 3,
    ...          "score_dimension": 27, "group_order": 3, "classes": 3, "conductor": 3}
    >>> comps = [{"irrep": a, "dimension": 1, "multiplicity": 9, "rank": 9} for a in range(3)]
    >>> text = render_representation_claim({"about": about, "invariant": True, "difference": None, "components": comps})
    >>> text[:78], text[-49:]
    ('on the design with data sha256 abababababababab... (a graph with 3 nodes and 3', 'Pi_0: 1 x 9 = 9, Pi_1: 1 x 9 = 9, Pi_2: 1 x 9 = 9')
    """
    ab, diff = claim["about"], claim["difference"]
    if claim["invariant"]:
        mid = ("every score coordinate's query feature, key feature, bias and visibility equal its image's, so "
               "F_score commutes with rho_score(g) for every g and every teacher (14)")
    else:
        where = f"the features of node {diff['node']} of input {diff['input']}" if "node" in diff else \
            f"the bias of the visible pair {tuple(diff['pair'])}"
        mid = f"the score inputs are not invariant (element {diff['element']} changes {where}), so (14) is not derived"
    ranks = ", ".join(f"Pi_{c['irrep']}: {c['dimension']} x {c['multiplicity']} = {c['rank']}" for c in claim["components"])
    return (f"on the design with data sha256 {ab['representation_sha256'][:16]}... (a graph with {ab['nodes']} nodes "
            f"and {ab['edges']} edges, visibility radius {ab['radius']}, {ab['inputs']} inputs, "
            f"{ab['score_dimension']} score coordinates), the {ab['group_order']} node permutations are automorphisms "
            f"forming a group with {ab['classes']} conjugacy classes and rho_score is a homomorphism into the "
            f"permutations of the score coordinates (13); {mid}; the {ab['classes']} characters in Q(E({ab['conductor']})) "
            "are the irreducible characters (both orthogonality relations hold) and the projectors (15) are self-adjoint "
            "orthogonal idempotents summing to the identity, with rank = dimension x multiplicity (Pi_a for the a-th "
            f"character listed): {ranks}")


def derive_representation_claim(cert, notes) -> dict:
    """Derive the claim of a ``score_representation`` certificate (module docstring); raise ``Reject``."""
    block_fields(cert, "a score_representation certificate", ENVELOPE + ("representation",), OPTIONAL)
    block = block_fields(get(cert, "representation", dict), "representation", ("graph", "group", "characters", "design"))
    graph = block_fields(get(block, "graph", dict, "representation"), "graph", ("nodes", "edges"))
    design = block_fields(get(block, "design", dict, "representation"), "design", ("radius", "bias", "inputs"))
    work = [MAX_WORK]
    V = small_int(get(graph, "nodes", int, "graph"), 1, MAX_NODES, "graph.nodes")
    edges = _edges(graph, V, work)
    G, table, inv, e, classes = _group(get(block, "group", dict, "representation"), V, edges, work)
    N, chars = _characters(get(block, "characters", dict, "representation"), G, table, inv, e, classes, work)
    radius = small_int(get(design, "radius", int, "design"), 0, MAX_NODES, "design.radius")
    perms, T, n, diff = _score(design, G, table, V, _visible(V, edges, radius, work), work)
    charge(work, len(G) * n + len(chars) * len(G) * len(chars[0][1][0]), "the projector traces", MAX_WORK)
    fix = [sum(w == x for w, x in enumerate(p)) for p in perms]
    comps = []
    for a, (deg, conj) in enumerate(chars):
        tr = [sum(f * c[k] for f, c in zip(fix, conj)) for k in range(len(conj[0]))]
        need(not any(tr[1:]) and tr[0] % len(G) == 0, f"trace of Pi_{a}: not d x a whole multiplicity")
        comps.append({"irrep": a, "dimension": deg, "multiplicity": tr[0] // len(G), "rank": deg * tr[0] // len(G)})
    need(sum(c["rank"] for c in comps) == n, "the projector ranks do not add up to the score dimension")
    about = {"representation_sha256": digest(block), "nodes": V, "edges": len(edges), "radius": radius, "inputs": T,
             "score_dimension": n, "group_order": len(G), "classes": len(classes), "conductor": N}
    derived = {"about": about, "invariant": diff is None, "difference": diff, "components": comps}
    derived["text"] = render_representation_claim(derived)
    notes.append(f"score_representation: |G| = {len(G)}, {n} score coordinates, {len(chars)} irreps; "
                 + ("(14) derived" if diff is None else "inputs not invariant"))
    return derived


register_kind("score_representation", derive_representation_claim, ("representation",))
