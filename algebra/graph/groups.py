"""Finite groups as permutation groups, and the graphs they act on (networkx).

A :class:`PermutationGroup` is a list of permutations of ``range(degree)``
(``elements[0]`` is the identity) with its multiplication table, inverses
and conjugacy classes.  Convention: a permutation ``g`` is the tuple of
images, ``g(x) = g[x]``, and the product ``g h`` is the composition
``x -> g(h(x))``, so ``table[a, b]`` is the index of ``elements[a] o elements[b]``.

A :class:`SymmetricGraph` is a :class:`networkx.Graph` on the nodes
``0..n-1`` together with a group ``Gamma <= Aut(G)`` acting on the nodes
(the graph-attention paper, Section 1.1: "we choose [a graph] with a known
automorphism group, so Cayley graphs become a natural choice").

Built-in families (``parse_graph``):

``cyclic:n``      Cayley graph of Z_n with generator 1: the cycle C_n
``torus:nxm``     Cayley graph of Z_n x Z_m with generators (1,0), (0,1)
``hypercube:k``   Cayley graph of Z_2^k with the unit vectors
``dihedral:n``    Cayley graph of D_n (order 2n) with generators r, s
``symmetric:n``   Cayley graph of S_n with (0 1) and (0 1 ... n-1)
``petersen``      the Petersen graph with Aut = S_5 (order 120), found by
                  networkx's isomorphism matcher
``edges:0-1,1-2,...``  a user graph with its automorphism group (matcher)

On a Cayley graph the group acts by left multiplication ``x -> g x``, which
preserves the edges ``{x, x s}``; each element carries a label (``j`` for
Z_n, ``(a, b)`` for the torus, the bit tuple for the hypercube, ``(f, j)``
for ``s^f r^j`` in D_n) from which the closed-form characters of
:mod:`algebra.graph.characters` are evaluated.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

import algebra.inputs as inputs
from algebra.errors import InputError, ResourceError

__all__ = [
    "PermutationGroup",
    "SymmetricGraph",
    "cyclic_group",
    "torus_group",
    "hypercube_group",
    "dihedral_group",
    "symmetric_group",
    "cayley_graph",
    "automorphism_group",
    "parse_group",
    "parse_graph",
    "parse_permutation",
    "permutation_group",
    "MAX_DEGREE",
    "MAX_GENERATORS",
    "MAX_ORDER",
    "MAX_GRAPH_NODES",
    "MAX_GRAPH_EDGES",
]

MAX_ORDER = 2000  # refuse larger groups before building an order x order table
#: Most nodes and edges of a user graph (``edges:...``, :func:`automorphism_group`), checked before networkx's
#: isomorphism matcher searches it: the matcher's search grows about quadratically with the nodes (a path of 800
#: nodes takes about a second, one of 9,000 minutes).
MAX_GRAPH_NODES = 1000
MAX_GRAPH_EDGES = 10_000


@dataclass(frozen=True)
class PermutationGroup:
    """A finite group given by permutations, with its multiplication table.

    Parameters
    ----------
    name : str
    elements : tuple of tuple of int
        Distinct permutations of ``range(degree)``; ``elements[0]`` is the identity.
    family : str
        ``"cyclic"``, ``"torus"``, ``"hypercube"``, ``"dihedral"`` (closed-form
        characters) or ``"generic"`` (characters by Burnside-Dixon).
    params : tuple
        The family's parameters (``(n,)``, ``(n, m)``, ...).
    labels : tuple
        Per element, its label in the family (see the module docstring).

    Examples
    --------
    >>> G = dihedral_group(4)
    >>> G.order, G.degree, len(G.classes)
    (8, 4, 5)
    >>> int(G.table[G.inverse[3], 3])   # g^-1 g = identity
    0
    """

    name: str
    elements: tuple
    family: str = "generic"
    params: tuple = ()
    labels: tuple = ()
    table: np.ndarray = field(init=False, repr=False, compare=False)
    inverse: tuple = field(init=False, repr=False, compare=False)
    classes: tuple = field(init=False, repr=False, compare=False)
    class_of: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        els = tuple(tuple(int(x) for x in g) for g in self.elements)
        if not els:
            raise InputError("elements", els, "at least the identity permutation")
        n = len(els[0])
        if els[0] != tuple(range(n)):
            raise InputError("elements", els[0], "the identity permutation first")
        if len(els) > MAX_ORDER:
            raise ResourceError(f"group of order {len(els)} exceeds MAX_ORDER={MAX_ORDER}")
        if len(set(els)) != len(els) or any(sorted(g) != list(range(n)) for g in els):
            raise InputError("elements", self.name, "distinct permutations of one set")
        table = _multiplication_table(np.array(els, dtype=np.int64))
        if table is None:
            raise InputError("elements", self.name, "a set closed under composition")
        inv = np.argmax(table == 0, axis=1)
        inverse = tuple(int(v) for v in inv)
        class_of = [-1] * len(els)
        classes = []
        for a in range(len(els)):
            if class_of[a] >= 0:
                continue
            members = np.unique(table[table[:, a], inv]).tolist()
            for m in members:
                class_of[m] = len(classes)
            classes.append(tuple(members))
        object.__setattr__(self, "elements", els)
        object.__setattr__(self, "table", table)
        object.__setattr__(self, "inverse", inverse)
        object.__setattr__(self, "classes", tuple(classes))
        object.__setattr__(self, "class_of", tuple(class_of))
        if not self.labels:
            object.__setattr__(self, "labels", tuple(range(len(els))))

    @property
    def order(self) -> int:
        return len(self.elements)

    @property
    def degree(self) -> int:
        return len(self.elements[0])

    def element_order(self, a: int) -> int:
        """Order of ``elements[a]`` (smallest ``t >= 1`` with ``g^t = e``)."""
        x, t = a, 1
        while x != 0:
            x, t = int(self.table[x, a]), t + 1
        return t

    @property
    def exponent(self) -> int:
        """Least common multiple of the element orders."""
        return math.lcm(*(self.element_order(a) for a in range(self.order)))

    def power(self, a: int, t: int) -> int:
        """Index of ``elements[a] ** t`` (``t >= 0``)."""
        x = 0
        for _ in range(t):
            x = int(self.table[x, a])
        return x

    def regular_action(self) -> "PermutationGroup":
        """The same group acting on itself by left multiplication (points = element indices)."""
        perms = tuple(tuple(int(v) for v in self.table[a]) for a in range(self.order))
        return PermutationGroup(self.name, perms, self.family, self.params, self.labels)


@dataclass(frozen=True)
class SymmetricGraph:
    """A graph on nodes ``0..n-1`` with a group of automorphisms acting on the nodes.

    Examples
    --------
    >>> sg = parse_graph("cyclic:6")
    >>> sg.graph.number_of_nodes(), sg.graph.number_of_edges(), sg.group.order
    (6, 6, 6)
    >>> sg.check_automorphisms()
    True
    """

    name: str
    graph: nx.Graph
    group: PermutationGroup

    @property
    def num_nodes(self) -> int:
        return self.graph.number_of_nodes()

    def check_automorphisms(self) -> bool:
        """Whether every group element maps edges to edges (and is a permutation of the nodes)."""
        edges = {frozenset(e) for e in self.graph.edges()}
        return all(frozenset((g[u], g[v])) in edges for g in self.group.elements for u, v in self.graph.edges())

    def adjacency(self) -> np.ndarray:
        """Adjacency matrix in node order ``0..n-1`` (``networkx.to_numpy_array``)."""
        return nx.to_numpy_array(self.graph, nodelist=range(self.num_nodes))

    def visible(self, radius: int) -> tuple:
        """Per node ``i``, the sorted nodes within graph distance ``radius`` (``i`` included)."""
        out = []
        for i in range(self.num_nodes):
            dist = nx.single_source_shortest_path_length(self.graph, i, cutoff=radius)
            out.append(tuple(sorted(dist)))
        return tuple(out)


def _multiplication_table(arr: np.ndarray):
    """``table[a, b]`` = index of ``arr[a] o arr[b]``, or None if the set is not closed.

    Elements are told apart by their images of a base (points on which all
    elements differ), encoded as one integer each, so the table costs
    ``O(order^2 |base|)`` array operations instead of ``order^2`` tuple lookups.
    """
    order, n = arr.shape
    base = []
    codes = np.zeros(order, dtype=object if n ** n > 2**62 else np.int64)
    for x in range(n):
        if len(set(codes.tolist())) == order:
            break
        base.append(x)
        codes = codes * n + arr[:, x]
    sorter = np.argsort(codes)
    sorted_codes = codes[sorter]
    comp = np.zeros((order, order), dtype=codes.dtype)
    for x in base:
        comp = comp * n + arr[:, arr[:, x]]  # [a, b] -> a(b(x))
    pos = np.searchsorted(sorted_codes, comp)
    pos = np.minimum(pos, order - 1)
    if not np.array_equal(sorted_codes[pos], comp):
        return None
    return sorter[pos].astype(np.int64)


def _check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(name, value, f"an integer >= {minimum}")
    return int(value)


def _check_order(name: str, order: int) -> None:
    """Refuse (:class:`ResourceError`) a group above :data:`MAX_ORDER` before any element is built."""
    if order > MAX_ORDER:
        raise ResourceError(f"{name} has order {'more than ' if order >= 2**64 else ''}{min(order, 2**64)}, "
                            f"above MAX_ORDER = {MAX_ORDER}")


def _from_labels(name, family, params, labels, act) -> PermutationGroup:
    """Group whose element with label ``l`` is the permutation ``act(l)`` (identity label first)."""
    return PermutationGroup(name, tuple(act(l) for l in labels), family, params, tuple(labels))


def cyclic_group(n: int) -> PermutationGroup:
    """Z_n acting on ``n`` points by ``x -> x + j``.

    Examples
    --------
    >>> cyclic_group(5).exponent
    5
    """
    n = _check_int("n", n, 1)
    _check_order(f"Z_{n}", n)
    return _from_labels(f"Z_{n}", "cyclic", (n,), range(n), lambda j: tuple((x + j) % n for x in range(n)))


def torus_group(n: int, m: int) -> PermutationGroup:
    """Z_n x Z_m acting on ``n m`` points (``(x, y)`` stored as ``x m + y``).

    Examples
    --------
    >>> torus_group(2, 3).order, torus_group(2, 3).exponent
    (6, 6)
    """
    n, m = _check_int("n", n, 1), _check_int("m", m, 1)
    _check_order(f"Z_{n} x Z_{m}", n * m)
    labels = [(a, b) for a in range(n) for b in range(m)]
    return _from_labels(f"Z_{n} x Z_{m}", "torus", (n, m), labels,
                        lambda l: tuple(((x + l[0]) % n) * m + (y + l[1]) % m for x in range(n) for y in range(m)))


def hypercube_group(k: int) -> PermutationGroup:
    """Z_2^k acting on ``2^k`` points by bitwise xor.

    Examples
    --------
    >>> hypercube_group(3).order, hypercube_group(3).exponent
    (8, 2)
    """
    k = _check_int("k", k, 1)
    _check_order(f"Z_2^{k}", 2**k if k < 64 else 2**64)
    labels = list(itertools.product((0, 1), repeat=k))
    return _from_labels(f"Z_2^{k}", "hypercube", (k,), labels,
                        lambda l: tuple(x ^ int("".join(map(str, l)), 2) for x in range(2**k)))


def dihedral_group(n: int) -> PermutationGroup:
    """D_n (order 2n) acting on the ``n`` vertices of a polygon; label ``(f, j)`` is ``s^f r^j``.

    ``r: x -> x + 1``, ``s: x -> -x``, so ``s^f r^j: x -> (-1)^f (x + j)``.

    Examples
    --------
    >>> G = dihedral_group(5)
    >>> G.order, sorted(len(c) for c in G.classes)
    (10, [1, 2, 2, 5])
    """
    n = _check_int("n", n, 3)
    _check_order(f"D_{n}", 2 * n)
    labels = [(f, j) for f in (0, 1) for j in range(n)]
    return _from_labels(f"D_{n}", "dihedral", (n,), labels,
                        lambda l: tuple(((-1) ** l[0] * (x + l[1])) % n for x in range(n)))


def symmetric_group(n: int) -> PermutationGroup:
    """S_n (all permutations of ``n`` points); characters by Burnside-Dixon.

    Examples
    --------
    >>> symmetric_group(4).order, len(symmetric_group(4).classes)
    (24, 5)
    """
    n = _check_int("n", n, 1)
    _check_order(f"S_{n}", math.factorial(n) if n <= 20 else math.factorial(21))
    perms = sorted(itertools.permutations(range(n)), key=lambda p: p != tuple(range(n)))
    return PermutationGroup(f"S_{n}", tuple(perms), "generic", (n,))


#: Largest point a permutation given by the user may move (its degree is at most this plus one).
MAX_DEGREE = 64
#: Most generators of a group given by generators.
MAX_GENERATORS = 16


def parse_permutation(text: str, *, argument: str = "generators") -> tuple:
    """Read one permutation in cycle notation on the points ``0, 1, 2, ...``: ``"(0,1,2)(3,4)"``; ``"()"`` is
    the identity.

    Parameters
    ----------
    text : str
        Disjoint cycles of ASCII integers ``0 .. MAX_DEGREE - 1``, comma-separated inside parentheses (GAP's
        notation, with the points counted from 0 as the graph nodes are).
    argument : str
        The argument (or option) named when the text is refused.

    Returns
    -------
    dict
        ``{point: image}`` for the points the permutation moves.

    Raises
    ------
    InputError
        Text that is not disjoint cycles of distinct points below :data:`MAX_DEGREE`.

    Examples
    --------
    >>> parse_permutation("(0,1,2)(3,4)")
    {0: 1, 1: 2, 2: 0, 3: 4, 4: 3}
    >>> parse_permutation("(0,1)(1,2)")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid generators='(0,1)(1,2)': expected disjoint cycles of distinct points 0..63, e.g. (0,1,2)(3,4)
    """
    allowed = f"disjoint cycles of distinct points 0..{MAX_DEGREE - 1}, e.g. (0,1,2)(3,4)"
    if not isinstance(text, str) or len(text) > 20 * MAX_DEGREE:
        raise InputError(argument, text, allowed)
    body = text.replace(" ", "")
    if body in ("", "()"):
        return {}
    if not (body.startswith("(") and body.endswith(")")):
        raise InputError(argument, text, allowed)
    image, seen = {}, set()
    for cycle in body[1:-1].split(")("):
        parts = cycle.split(",")
        if not all(q.isascii() and q.isdigit() for q in parts):
            raise InputError(argument, text, allowed)
        points = [int(q) for q in parts]
        if any(x >= MAX_DEGREE or x in seen for x in points) or len(set(points)) != len(points):
            raise InputError(argument, text, allowed)
        seen.update(points)
        if len(points) > 1:
            image.update(zip(points, points[1:] + points[:1]))
    return image


def permutation_group(generators, *, name: str | None = None, limit: int = MAX_ORDER,
                      argument: str = "generators") -> PermutationGroup:
    """The permutation group generated by ``generators`` (cycle notation or image tuples), by closure.

    The closure multiplies by the generators until no new element appears and stops (ResourceError) as soon
    as it holds more than ``limit`` elements, before the ``order x order`` table is built.  Characters come
    from Burnside-Dixon (:func:`algebra.graph.characters.character_table`).

    Parameters
    ----------
    generators : str or sequence of (str or sequence of int)
        ``"(0,1,2);(0,1)"`` (``;`` between generators), or a list of cycle texts or image tuples
        (``(1, 2, 0)`` maps 0 to 1, 1 to 2, 2 to 0).
    name : str, optional
        A name for printing; default ``<generators>``.
    limit : int
        Largest order accepted.
    argument : str
        The argument (or option) named when the generators are refused.

    Returns
    -------
    PermutationGroup
        Acting on ``0 .. n-1``, ``n`` one more than the largest point moved (or given).

    Raises
    ------
    InputError
        Malformed generators, more than :data:`MAX_GENERATORS` of them, or none.
    ResourceError
        The group has more than ``limit`` elements.

    Examples
    --------
    >>> G = permutation_group("(0,1,2,3);(0,2)")           # the dihedral group of the square
    >>> G.order, len(G.classes)
    (8, 5)
    >>> permutation_group("(0,1,2,3,4,5,6,7);(0,1)")
    Traceback (most recent call last):
    ...
    algebra.errors.ResourceError: <(0,1,2,3,4,5,6,7);(0,1)> has more than 2000 elements (MAX_ORDER = 2000)

    References
    ----------
    .. [1] Holt, Eick, O'Brien, *Handbook of Computational Group Theory*, CRC (2005), Sec. 4.1 (orbit
       algorithms; the closure is the orbit of the identity under right multiplication).
    """
    if isinstance(generators, str):
        label = generators.strip()
        items = [g for g in label.split(";")]
    else:
        items = list(generators)
        label = ";".join(g if isinstance(g, str) else str(tuple(g)) for g in items)
    if not items or len(items) > MAX_GENERATORS:
        raise InputError(argument, generators, f"1 to {MAX_GENERATORS} generators separated by ';'")
    maps = []
    for g in items:
        if isinstance(g, str):
            maps.append(parse_permutation(g, argument=argument))
        else:
            img = tuple(int(x) for x in g)
            if sorted(img) != list(range(len(img))) or len(img) > MAX_DEGREE:
                raise InputError(argument, generators, f"permutations of 0..n-1 (n <= {MAX_DEGREE}) as image tuples")
            maps.append(dict(enumerate(img)))
    n = max([max(m, default=0) for m in maps] + [0]) + 1
    gens = [tuple(m.get(x, x) for x in range(n)) for m in maps]
    identity = tuple(range(n))
    elements, frontier, seen = [identity], [identity], {identity}
    while frontier:
        nxt = []
        for a in frontier:
            for g in gens:
                b = tuple(g[a[x]] for x in range(n))
                if b not in seen:
                    seen.add(b)
                    elements.append(b)
                    nxt.append(b)
                    if len(elements) > limit:
                        raise ResourceError(f"<{label}> has more than {limit} elements (MAX_ORDER = {MAX_ORDER})")
        frontier = nxt
    return PermutationGroup(name or f"<{label}>", tuple(elements), "generic", ())


def _generator_indices(G: PermutationGroup, family: str) -> list:
    """Indices of the Cayley generators of a built-in family."""
    want = {
        "cyclic": lambda: [1 % G.params[0]],
        "torus": lambda: [(1 % G.params[0], 0), (0, 1 % G.params[1])],
        "hypercube": lambda: [tuple(int(i == t) for i in range(G.params[0])) for t in range(G.params[0])],
        "dihedral": lambda: [(0, 1), (1, 0)],
    }
    if family in want:
        pos = {l: a for a, l in enumerate(G.labels)}
        return [pos[l] for l in want[family]()]
    n = G.degree
    transposition = tuple([1, 0] + list(range(2, n))) if n >= 2 else (0,)
    cycle = tuple((x + 1) % n for x in range(n))
    pos = {g: a for a, g in enumerate(G.elements)}
    return sorted({pos[transposition], pos[cycle]})


def cayley_graph(G: PermutationGroup, generators=None, *, name: str | None = None) -> SymmetricGraph:
    """Cayley graph ``{x, x s}`` of ``G`` on its elements, with ``G`` acting by left multiplication.

    Parameters
    ----------
    G : PermutationGroup
    generators : sequence of int, optional
        Element indices; default: the family's generators (module docstring).

    Examples
    --------
    >>> sg = cayley_graph(torus_group(3, 4))
    >>> nx.is_isomorphic(sg.graph, nx.grid_2d_graph(3, 4, periodic=True))
    True
    """
    gens = _generator_indices(G, G.family) if generators is None else [int(s) for s in generators]
    graph = nx.Graph()
    graph.add_nodes_from(range(G.order))
    for x in range(G.order):
        for s in gens:
            y = int(G.table[x, s])
            if y != x:
                graph.add_edge(x, y)
    return SymmetricGraph(name or f"Cayley({G.name})", graph, G.regular_action())


def automorphism_group(graph: nx.Graph, *, name: str = "graph", limit: int = MAX_ORDER) -> SymmetricGraph:
    """The graph with its full automorphism group, enumerated by networkx's ``GraphMatcher``.

    Nodes are relabelled ``0..n-1`` in sorted order.  Refuses (ResourceError)
    more than ``limit`` automorphisms.

    Examples
    --------
    >>> sg = automorphism_group(nx.petersen_graph(), name="petersen")
    >>> sg.group.order, len(sg.group.classes)
    (120, 7)
    """
    if not isinstance(graph, nx.Graph) or graph.number_of_nodes() == 0:
        raise InputError("graph", graph, "a non-empty networkx.Graph")
    _check_graph_size(graph.number_of_nodes(), graph.number_of_edges(), "graph")
    g = nx.convert_node_labels_to_integers(graph, ordering="sorted")
    n = g.number_of_nodes()
    perms = []
    matcher = nx.algorithms.isomorphism.GraphMatcher(g, g)
    for mapping in matcher.isomorphisms_iter():
        perms.append(tuple(mapping[x] for x in range(n)))
        if len(perms) > limit:
            raise ResourceError(f"{name} has more than {limit} automorphisms")
    perms.sort(key=lambda p: p != tuple(range(n)))
    return SymmetricGraph(name, g, PermutationGroup(f"Aut({name})", tuple(perms), "generic", ()))


def _check_graph_size(nodes: int, edges: int, argument: str) -> None:
    """Refuse a user graph above :data:`MAX_GRAPH_NODES` or :data:`MAX_GRAPH_EDGES` (before the matcher runs)."""
    if nodes > MAX_GRAPH_NODES or edges > MAX_GRAPH_EDGES:
        raise InputError(argument, f"a graph of {nodes:,} nodes and {edges:,} edges",
                         f"at most {MAX_GRAPH_NODES:,} nodes and {MAX_GRAPH_EDGES:,} edges (MAX_GRAPH_NODES, "
                         "MAX_GRAPH_EDGES: its automorphisms are found by an isomorphism search)")


def _split_spec(text: str, argument: str, allowed: str) -> tuple:
    if not isinstance(text, str) or ":" not in text:
        raise InputError(argument, text, allowed)
    head, _, tail = text.partition(":")
    return head.strip().lower(), tail.strip()


def _ints(text: str, sep: str, argument: str, allowed: str, whole: str | None = None) -> list:
    """ASCII decimal integers separated by ``sep`` (:func:`algebra.inputs.parse_integer`: ``int()`` also read
    ``'١'`` as 1); a refusal shows ``whole`` (the full specification) when given."""
    try:
        return [inputs.parse_integer(p, argument) for p in text.split(sep)]
    except InputError:
        raise InputError(argument, text if whole is None else whole, allowed) from None


GROUP_SPECS = "cyclic:N, dihedral:N (N>=3), torus:NxM, hypercube:K, symmetric:N, generators:(0,1,2);(0,1)"
GRAPH_SPECS = GROUP_SPECS + ", cycle:N (= cyclic:N), petersen, edges:U-V,U-V,..."


def parse_group(text: str, *, argument: str = "--group") -> PermutationGroup:
    """Parse ``cyclic:7``, ``dihedral:6``, ``torus:3x4``, ``hypercube:3`` or ``symmetric:4``.

    Parameters
    ----------
    text : str
        ``FAMILY:SIZE`` as above.
    argument : str
        The argument (or option) named when the text is refused.

    Returns
    -------
    PermutationGroup
        The group acting on ``{0, ..., degree - 1}``, with its elements and multiplication table.

    Raises
    ------
    InputError
        An unknown family, a bad size, or a group above the order limit.

    Examples
    --------
    >>> parse_group("torus:3x4").order
    12
    >>> parse_group("klein")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --group='klein': expected one of cyclic:N, dihedral:N (N>=3), torus:NxM, hypercube:K, symmetric:N, generators:(0,1,2);(0,1)
    >>> parse_group("generators:(0,1,2);(0,1)").order      # S_3 by two generators
    6

    References
    ----------
    .. [1] The graph-attention paper (*Symmetries and Singularities*), Section 2 (the groups acting on the graphs).
    """
    allowed = "one of " + GROUP_SPECS
    head, tail = _split_spec(text, argument, allowed)
    try:
        if head in ("cyclic", "cycle"):
            (n,) = _ints(tail, "x", argument, allowed, text)
            return cyclic_group(n)
        if head == "torus":
            n, m = _ints(tail, "x", argument, allowed, text)
            return torus_group(n, m)
        if head == "hypercube":
            (k,) = _ints(tail, "x", argument, allowed, text)
            return hypercube_group(k)
        if head == "dihedral":
            (n,) = _ints(tail, "x", argument, allowed, text)
            return dihedral_group(n)
        if head == "symmetric":
            (n,) = _ints(tail, "x", argument, allowed, text)
            return symmetric_group(n)
        if head == "generators":
            return permutation_group(tail, argument=argument)
    except (InputError, ValueError) as exc:
        if isinstance(exc, InputError) and exc.argument == argument:
            raise
        raise InputError(argument, text, allowed) from None
    raise InputError(argument, text, allowed)


def parse_graph(text: str, *, argument: str = "--graph") -> SymmetricGraph:
    """Parse a graph specification (module docstring) into a :class:`SymmetricGraph`.

    Parameters
    ----------
    text : str
        A Cayley graph (``cyclic:7``, ...) or an explicit edge list ``edges:0-1,1-2``.
    argument : str
        The argument (or option) named when the text is refused.

    Returns
    -------
    SymmetricGraph
        The networkx graph with the group acting on it (its automorphism group for an edge list).

    Raises
    ------
    InputError
        A specification that is not one of the above, or a graph above the size limits.

    Examples
    --------
    >>> parse_graph("edges:0-1,1-2,2-0").group.order      # triangle: Aut = S_3
    6
    >>> parse_graph("dihedral:5").graph.degree(0)
    3

    References
    ----------
    .. [1] The graph-attention paper (*Symmetries and Singularities*), Section 2.
    """
    allowed = "one of " + GRAPH_SPECS
    if isinstance(text, str) and text.strip().lower() == "petersen":
        return automorphism_group(nx.petersen_graph(), name="petersen")
    head, tail = _split_spec(text, argument, allowed)
    if head == "edges":
        if tail.count(",") >= MAX_GRAPH_EDGES:  # counted in the text, before any edge is read
            _check_graph_size(0, tail.count(",") + 1, argument)
        pairs = []
        for part in tail.split(","):
            ends = _ints(part, "-", argument, "edges as U-V pairs of node integers separated by commas", text)
            if len(ends) != 2 or min(ends) < 0 or ends[0] == ends[1]:
                raise InputError(argument, text, "edges as U-V pairs of distinct nonnegative integers separated by "
                                 "commas")
            pairs.append(tuple(ends))
        _check_graph_size(len({x for e in pairs for x in e}), len({frozenset(e) for e in pairs}), argument)
        graph = nx.Graph()
        graph.add_edges_from(pairs)
        return automorphism_group(graph, name=text.strip())
    G = parse_group(text, argument=argument)
    graph = cayley_graph(G, name=text.strip())
    if graph.graph.number_of_edges() == 0:  # Z_1, hypercube:0, S_1: one node, nothing for attention to mix
        raise InputError(argument, text, "a graph with at least one edge (a group of order >= 2)")
    return graph
