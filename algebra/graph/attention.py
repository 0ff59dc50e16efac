"""The learning setup of the graph-attention paper, Section 2, as exact finite objects.

* Node features ``X`` (``|V| x d``) are drawn i.i.d. standard Gaussian per
  node (a law invariant under every node permutation, so ``Gamma``-invariant),
  or, for the deliberately bad design, one constant row for every node.
* A frozen encoder ``H = E(G, X)``: one layer of shared-weight message
  passing ``tanh(X W0 + D^-1 Adj X W1)``; it is equivariant (5) under every
  automorphism by construction (:func:`encode_binary64` evaluates it
  exactly, so its equivariance is exact), and :func:`equivariance_error`
  checks the float encoder :func:`encode` numerically on every design.  (A second layer smooths neighbouring
  features so much that ``Q`` (17) had condition number ~1700 on
  ``cyclic:8``, d = 4, against ~30 with one layer, which slows sampling.)
* Visibility ``A_i(G)``: nodes within graph distance ``radius`` (networkx
  shortest paths); the mask ``M_ij`` of (7) is ``-inf`` elsewhere.
* Logits (7): ``s_ij = h_i^T A B^T h_j / sqrt(k) + b_{w(i,j)}`` with one
  fixed bias per orbit ``w(i, j)`` of ``Gamma`` on visible pairs.
* The design ``D``: ``num_draws`` representative feature matrices ``F_m`` and
  their orbit closure ``{(P_h F_m, i) : h in Gamma, i in V}``, with the
  features of ``P_h X`` *defined* as ``P_h E(X)`` so that the design is
  exactly closed under ``Gamma`` (the encoder check says how far the float
  encoder is from that).
* Teacher (9), (30): ``C* = U_r Sigma_r V_r^T`` with random orthogonal
  ``U, V`` (Cayley transforms ``(I - S)(I + S)^-1`` of Gaussian skew-symmetric
  ``S``: exactly orthogonal rational matrices); canonical balanced factors
  ``A* = [U_r Sigma^1/2, 0]``, ``B* = [V_r Sigma^1/2, 0]``.
* Population KL (10) as a finite sum with the teacher's probabilities as
  soft labels: ``K(A, B) = mean over D of KL(p*(.|i) || p_AB(.|i))``.

Machine-independent bits.  The design's numbers enter certificates as the
exact rationals their binary64 values are (``graph-a1-*``, ``graph-lemma1-*``),
so each is defined as one rounding of an exact value, never as the output of
BLAS, LAPACK or a SIMD ``exp``/``tanh`` (whose last bits depend on the CPU
kernel): the seed's :class:`numpy.random.SeedSequence` gives PCG64 integers
(pure integer arithmetic); a standard Gaussian is Box-Muller on two 53-bit
dyadic uniforms, ``sqrt(-2 log u1) cos(2 pi u2)``; the encoder's
pre-activation ``X W0 + Ahat X W1`` and the teacher's ``U``, ``V`` and
``C* = A* B*^T`` are exact rationals (python-flint ``fmpq_mat``); and every
non-dyadic value is rounded once to nearest binary64 from a ball-arithmetic
enclosure (:func:`binary64`).  ``W0, W1`` are ``fl(z / fl(sqrt(d_in)))``,
IEEE-correctly-rounded basic operations.

Orbit reduction.  The logits are equivariant (Lemma 1) and the biases are
constant on pair orbits, so the input ``(P_h F_m, h(i))`` has the same KL
as ``(F_m, i)``: the mean over the closure equals the mean over the
``num_draws * |V|`` representative rows.  :class:`AttentionDesign` evaluates
the loss on the representatives (``|Gamma|`` times fewer rows) and
:meth:`AttentionDesign.closure_rows` builds the full closure (for the score
space of :mod:`algebra.graph.fisher` and for the test of this identity).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from algebra.errors import InputError
from algebra.exact.rounding import binary64  # the one rounding rule
from algebra.graph import FEATURES
from algebra.graph.groups import SymmetricGraph

__all__ = ["AttentionDesign", "Rows", "make_design", "encode", "encode_binary64", "encoder_weights",
           "equivariance_error", "permute_nodes", "random_gauge", "open_case_pair", "binary64", "gaussians",
           "FEATURES"]

#: Working precisions (bits) of :func:`binary64`, tried in order until the ball's ends round alike.


def gaussians(rng: np.random.Generator, shape) -> np.ndarray:
    """Standard normal binary64 draws whose bits depend only on ``rng``'s integers.

    Box-Muller on 53-bit dyadic uniforms ``u1 = (a + 1) / 2^53`` in ``(0, 1]``
    and ``u2 = b / 2^53`` in ``[0, 1)``, ``a, b`` from ``rng.integers`` (PCG64:
    integer arithmetic): ``z = sqrt(-2 log u1) cos(2 pi u2)``, rounded once to
    nearest (:func:`binary64`).  ``Generator.standard_normal`` is not used: its
    ziggurat calls the platform's ``exp``/``log1p``.

    Examples
    --------
    >>> z = gaussians(np.random.default_rng(0), (2, 3))
    >>> z.shape, z.dtype.name
    ((2, 3), 'float64')
    >>> z.ravel().tolist() == gaussians(np.random.default_rng(0), 6).tolist()
    True
    >>> w = gaussians(np.random.default_rng(1), 20000)
    >>> bool(abs(w.mean()) < 0.03 and abs(w.std() - 1) < 0.03)
    True
    """
    import flint

    shape = tuple(np.atleast_1d(np.asarray(shape, dtype=np.int64)).tolist())
    n = math.prod(shape)
    ab = rng.integers(0, 2 ** 53, size=(n, 2), dtype=np.int64).tolist()
    one = 2 ** 53

    def draw(a, b):
        return binary64(lambda: (-2 * flint.arb(flint.fmpq(a + 1, one)).log()).sqrt()
                        * flint.arb(flint.fmpq(b, one // 2)).cos_pi())

    return np.array([draw(a, b) for a, b in ab], dtype=np.float64).reshape(shape)


def _fmpq_mat(M) -> "flint.fmpq_mat":  # noqa: F821 - lazy import
    """The exact rationals of a 2-D float / int / Fraction array as an ``fmpq_mat``."""
    import flint

    M = np.asarray(M)
    vals = [Fraction(v) if not isinstance(v, Fraction) else v for v in M.ravel().tolist()]
    return flint.fmpq_mat(M.shape[0], M.shape[1], [flint.fmpq(v.numerator, v.denominator) for v in vals])


def _rounded(Mq, transform=None) -> np.ndarray:
    """``fmpq_mat`` entries (optionally through ``transform(arb)``) rounded once to nearest binary64."""
    import flint

    m, n = Mq.nrows(), Mq.ncols()
    if transform is None:
        vals = [float(Fraction(int(v.p), int(v.q))) for v in Mq.entries()]
    else:
        vals = [binary64(lambda v=v: transform(flint.arb(v))) for v in Mq.entries()]
    return np.array(vals, dtype=np.float64).reshape(m, n)



def permute_nodes(X: np.ndarray, g) -> np.ndarray:
    """``P_g X``: row ``i`` of ``X`` moves to row ``g(i)``.

    Examples
    --------
    >>> permute_nodes(np.array([[0.0], [1.0], [2.0]]), (1, 2, 0)).ravel().tolist()
    [2.0, 0.0, 1.0]
    """
    out = np.empty_like(X)
    out[np.asarray(g)] = X
    return out


def encoder_weights(d_in: int, d: int, rng: np.random.Generator) -> tuple:
    """Weights ``(W0, W1)`` of the message-passing layer: :func:`gaussians` scaled by ``1/sqrt(fan-in)``."""
    scale = math.sqrt(d_in)
    return gaussians(rng, (d_in, d)) / scale, gaussians(rng, (d_in, d)) / scale


def _mean_adjacency(sg: SymmetricGraph) -> np.ndarray:
    adj = sg.adjacency()
    deg = adj.sum(axis=1, keepdims=True)
    return np.divide(adj, deg, out=np.zeros_like(adj), where=deg > 0)


def encode(mean_adjacency: np.ndarray, X: np.ndarray, weights: tuple) -> np.ndarray:
    """Frozen encoder ``H = tanh(X W0 + Ahat X W1)``.

    ``Ahat = D^-1 Adj`` commutes with every automorphism's permutation
    matrix, so ``encode(P_g X) = P_g encode(X)`` (paper eq. (5)).
    """
    W0, W1 = weights
    return np.tanh(X @ W0 + mean_adjacency @ X @ W1)


def encode_binary64(sg: SymmetricGraph, X: np.ndarray, weights: tuple) -> np.ndarray:
    """``fl(tanh(X W0 + Ahat X W1))``: :func:`encode` with bits that depend on no CPU kernel.

    The pre-activation is the exact rational ``X W0 + D^-1 Adj X W1`` of the
    binary64 inputs (``fmpq_mat``), and each ``tanh`` is rounded once to
    nearest (:func:`binary64`).  Exact evaluation commutes with every
    automorphism, so ``encode_binary64(P_g X) = P_g encode_binary64(X)`` holds
    bit for bit.

    Examples
    --------
    >>> from algebra.graph.groups import parse_graph
    >>> sg = parse_graph("cyclic:5")
    >>> rng = np.random.default_rng(0)
    >>> w, X = encoder_weights(3, 3, rng), gaussians(rng, (5, 3))
    >>> H = encode_binary64(sg, X, w)
    >>> bool(np.abs(H - encode(_mean_adjacency(sg), X, w)).max() < 1e-15)
    True
    >>> g = sg.group.elements[1]
    >>> bool((encode_binary64(sg, permute_nodes(X, g), w) == permute_nodes(H, g)).all())
    True
    """
    import flint

    adj = sg.adjacency()
    deg = adj.sum(axis=1)
    V = sg.num_nodes
    Ahat = flint.fmpq_mat(V, V, [flint.fmpq(int(adj[i, j]), int(deg[i])) if deg[i] else 0
                                 for i in range(V) for j in range(V)])
    Xq = _fmpq_mat(X)
    pre = Xq * _fmpq_mat(weights[0]) + Ahat * Xq * _fmpq_mat(weights[1])
    return _rounded(pre, lambda t: t.tanh())


def equivariance_error(sg: SymmetricGraph, X: np.ndarray, weights: tuple) -> float:
    """``max_g max |E(P_g X) - P_g E(X)|`` over the group (paper eq. (5), checked numerically).

    Examples
    --------
    >>> from algebra.graph.groups import parse_graph
    >>> sg = parse_graph("dihedral:4")
    >>> rng = np.random.default_rng(0)
    >>> w = encoder_weights(3, 3, rng)
    >>> equivariance_error(sg, rng.standard_normal((8, 3)), w) < 1e-12
    True
    """
    Ahat = _mean_adjacency(sg)
    base = encode(Ahat, X, weights)
    return max(float(np.max(np.abs(encode(Ahat, permute_nodes(X, g), weights) - permute_nodes(base, g))))
               for g in sg.group.elements)


@dataclass(frozen=True)
class Rows:
    """Design rows in padded form: one row per input ``(features, active node i)``.

    ``query`` (R, d) is ``h_i``; ``keys`` (R, A, d) the visible ``h_j`` in slot
    order (zero in pads); ``bias`` (R, A); ``valid`` (R, A) marks real slots;
    ``nodes`` (R, A) the visible node of each slot (-1 in pads); ``active`` (R,)
    the node ``i``.
    """

    query: np.ndarray
    keys: np.ndarray
    bias: np.ndarray
    valid: np.ndarray
    nodes: np.ndarray
    active: np.ndarray

    def features_outer(self) -> np.ndarray:
        """``vec(h_i h_j^T)`` per (row, slot), shape (R * A, d * d), zero in pads."""
        R, A, d = self.keys.shape
        out = (self.query[:, None, :, None] * self.keys[:, :, None, :]).reshape(R * A, d * d)
        return out * self.valid.reshape(-1, 1)


@dataclass(frozen=True)
class AttentionDesign:
    """A finite orbit-closed design with its teacher (module docstring).

    Use :func:`make_design` to build one.
    """

    graph: SymmetricGraph
    d: int
    k: int
    r: int
    radius: int
    features: np.ndarray = field(repr=False)       # (M, V, d) encoder outputs of the representatives
    visible: tuple = field(repr=False)
    bias: np.ndarray = field(repr=False)           # (V, V), nan where not visible
    pair_orbit: np.ndarray = field(repr=False)     # (V, V) orbit index, -1 where not visible
    A_star: np.ndarray = field(repr=False)
    B_star: np.ndarray = field(repr=False)
    equivariance_error: float
    feature_law: str
    seed: int
    rows: Rows = field(init=False, repr=False)
    C_star: np.ndarray = field(init=False, repr=False)   # fl(A* B*^T), each entry rounded once
    p_star: np.ndarray = field(init=False, repr=False)
    _phi: np.ndarray = field(init=False, repr=False)
    _slot_major: tuple = field(init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "rows", self._rows(representatives=True))
        object.__setattr__(self, "_phi", self.rows.features_outer())
        object.__setattr__(self, "C_star", _rounded(_fmpq_mat(self.A_star) * _fmpq_mat(self.B_star).transpose()))
        object.__setattr__(self, "_slot_major", _slot_major(self.rows, self.probabilities(self.C_star[None])[0]))
        object.__setattr__(self, "p_star", self.probabilities(self.C_star[None])[0])

    @property
    def num_draws(self) -> int:
        return int(self.features.shape[0])

    @property
    def slots(self) -> int:
        return max(len(v) for v in self.visible)

    def _rows(self, *, representatives: bool) -> Rows:
        G = self.graph.group
        V, A = self.graph.num_nodes, self.slots
        M = self.num_draws
        hs = [0] if representatives else range(G.order)
        q, K, b, valid, nodes, active = [], [], [], [], [], []
        for m in range(M):
            for h in hs:
                F = permute_nodes(self.features[m], G.elements[h])
                for i in range(V):
                    vis = self.visible[i]
                    pad = A - len(vis)
                    q.append(F[i])
                    K.append(np.concatenate([F[list(vis)], np.zeros((pad, self.d))]))
                    b.append(np.concatenate([self.bias[i, list(vis)], np.zeros(pad)]))
                    valid.append([True] * len(vis) + [False] * pad)
                    nodes.append(list(vis) + [-1] * pad)
                    active.append(i)
        return Rows(np.array(q), np.array(K), np.array(b), np.array(valid), np.array(nodes), np.array(active))

    def closure_rows(self) -> Rows:
        """All ``num_draws * |Gamma| * |V|`` rows of the orbit-closed design, ordered ``(m, h, i)``."""
        return self._rows(representatives=False)

    def logits(self, C: np.ndarray, rows: Rows | None = None) -> np.ndarray:
        """Logits (7) for composites ``C`` (chains, d, d): shape (chains, R, A), ``-inf`` in pads.

        Computed as one matrix product ``vec(C) . vec(h_i h_j^T)`` (the rows of ``J_C``, (16)).
        """
        rows = self.rows if rows is None else rows
        phi = self._phi if rows is self.rows else rows.features_outer()
        R, A = rows.valid.shape
        s = (C.reshape(C.shape[0], -1) @ phi.T).reshape(C.shape[0], R, A) / math.sqrt(self.k) + rows.bias[None]
        return np.where(rows.valid[None], s, -np.inf)

    def probabilities(self, C: np.ndarray, rows: Rows | None = None) -> np.ndarray:
        """Attention distributions (8), shape (chains, R, A) (zero in pads)."""
        s = self.logits(C, rows)
        s = s - s.max(axis=2, keepdims=True)
        e = np.exp(s)
        return e / e.sum(axis=2, keepdims=True)

    def kl_and_grad(self, C: np.ndarray, rows: Rows | None = None, p_star: np.ndarray | None = None):
        """Population KL (10) and its gradient in ``C`` for composites ``C`` (chains, d, d).

        ``d KL / d s_ij = p_ij - p*_ij``, and ``d s_ij / d C = h_i h_j^T / sqrt(k)`` (16).
        Arrays are laid out slot-major, ``(chains, A, R)``, so that the
        softmax reductions run over the short slot axis with long inner loops
        (3x faster than reducing a trailing axis of length 3).
        """
        if rows is None or rows is self.rows:
            phi, bias, valid, ps, logps = self._slot_major
        else:
            ps = self.probabilities(self.C_star[None], rows)[0] if p_star is None else p_star
            phi, bias, valid, ps, logps = _slot_major(rows, ps)
        A, R = bias.shape
        c = C.shape[0]
        s = (C.reshape(c, -1) @ phi.T).reshape(c, A, R) * (1.0 / math.sqrt(self.k)) + bias
        if valid is not None:
            s = np.where(valid, s, -np.inf)
        s = s - s.max(axis=1, keepdims=True)
        e = np.exp(s)
        z = e.sum(axis=1, keepdims=True)
        logp = s - np.log(z)
        if valid is not None:
            logp = np.where(valid, logp, 0.0)
        kl = np.sum(ps * (logps - logp), axis=1).mean(axis=1)
        diff = e / z - ps
        grad = (diff.reshape(c, -1) @ phi).reshape(C.shape)
        return kl, grad / (math.sqrt(self.k) * R)

    def describe(self) -> dict:
        return {"graph": self.graph.name, "group": self.graph.group.name, "group_order": self.graph.group.order,
                "nodes": self.graph.num_nodes, "d": self.d, "k": self.k, "r": self.r, "radius": self.radius,
                "num_draws": self.num_draws, "visible_per_node": sorted({len(v) for v in self.visible}),
                "pair_orbits": int(self.pair_orbit.max() + 1), "feature_law": self.feature_law,
                "design_size": self.num_draws * self.graph.group.order * self.graph.num_nodes,
                "equivariance_error": self.equivariance_error, "seed": self.seed,
                "teacher_min_probability": float(self.p_star[self.rows.valid].min())}


def _slot_major(rows: Rows, p_star: np.ndarray) -> tuple:
    """``(phi, bias, valid, p*, log p*)`` reordered slot-major (A, R); ``valid`` None when all slots are."""
    R, A = rows.valid.shape
    phi = rows.features_outer().reshape(R, A, -1).transpose(1, 0, 2).reshape(A * R, -1)
    valid = rows.valid.T.copy()
    ps = np.where(valid, p_star.T, 0.0)
    logps = np.log(np.where(valid & (ps > 0), ps, 1.0))
    return phi, np.where(valid, rows.bias.T, 0.0), None if valid.all() else valid, ps, logps


def _pair_orbits(sg: SymmetricGraph, visible) -> np.ndarray:
    V = sg.num_nodes
    orbit = -np.ones((V, V), dtype=np.int64)
    count = 0
    for i in range(V):
        for j in visible[i]:
            if orbit[i, j] >= 0:
                continue
            for g in sg.group.elements:
                orbit[g[i], g[j]] = count
            count += 1
    return orbit


def _cayley_orthogonal(d: int, rng: np.random.Generator):
    """``(I - S)(I + S)^-1`` for ``S`` skew-symmetric with :func:`gaussians` entries: exactly orthogonal over Q.

    ``I + S`` is invertible for every real skew ``S`` (its eigenvalues are ``1 + i t``).
    """
    import flint

    z = iter(gaussians(rng, d * (d - 1) // 2).tolist())
    S = [[Fraction(0)] * d for _ in range(d)]
    for i in range(d):
        for j in range(i + 1, d):
            S[i][j] = Fraction(next(z))
            S[j][i] = -S[i][j]
    Sq = _fmpq_mat(np.array(S, dtype=object))
    eye = flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    return (eye - Sq) * (eye + Sq).inv()


def _teacher(d: int, k: int, r: int, rng: np.random.Generator, scale: float):
    """Balanced factors ``[U_r Sigma^1/2, 0]``, ``[V_r Sigma^1/2, 0]``, each entry rounded once (module docstring).

    ``sigma_j = scale (1 + b_j / 2^53)`` with 53-bit integers ``b_j``: uniform on ``[scale, 2 scale)``.
    """
    import flint

    U = _cayley_orthogonal(d, rng)
    Vm = _cayley_orthogonal(d, rng)
    sigma = [Fraction(scale) * (1 + Fraction(int(b), 2 ** 53))
             for b in rng.integers(0, 2 ** 53, size=r, dtype=np.int64).tolist()]
    A = np.zeros((d, k))
    B = np.zeros((d, k))
    for out, Mq in ((A, U), (B, Vm)):
        for i in range(d):
            for j in range(r):
                u, s = Mq[i, j], sigma[j]
                out[i, j] = binary64(lambda u=u, s=s: flint.arb(u) * flint.arb(flint.fmpq(s.numerator,
                                                                                          s.denominator)).sqrt())
    return A, B


def make_design(sg: SymmetricGraph, d: int, k: int, r: int, *, radius: int = 1,
                num_draws: int | None = None, features: str = "gaussian", seed: int = 0,
                teacher_scale: float = 1.0, bias_scale: float = 0.5) -> AttentionDesign:
    """Build the orbit-closed design and the canonical teacher of rank ``r`` (module docstring).

    Parameters
    ----------
    sg : SymmetricGraph
    d, k, r : int
        Embedding dimension, head width (``k <= d``) and teacher rank (``r <= k``).
    radius : int
        Visibility radius ``R`` (0 hides every neighbour).
    num_draws : int, optional
        Representative feature draws; default ``max(2, ceil(64 / |V|))``.
    features : {"gaussian", "constant"}
        The feature law; ``"constant"`` gives every node the same row (fails Assumption 1).
    seed : int
        Root of the :class:`numpy.random.SeedSequence` (features, encoder, teacher, biases); the
        design's bits are a function of the seed alone (module docstring: machine-independent bits).

    Examples
    --------
    >>> from algebra.graph.groups import parse_graph
    >>> D = make_design(parse_graph("cyclic:5"), 3, 2, 1, seed=1)
    >>> D.rows.query.shape, D.slots, bool(D.equivariance_error < 1e-12)
    ((65, 3), 3, True)
    >>> abs(float(D.kl_and_grad(D.C_star[None])[0][0])) < 1e-14
    True
    >>> make_design(parse_graph("cyclic:5"), 3, 4, 1)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid k=4: expected an integer with 1 <= k <= d = 3
    """
    for name, v, lo in (("d", d, 1), ("k", k, 1), ("r", r, 0), ("radius", radius, 0)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise InputError(name, v, f"an integer >= {lo}")
    if k > d:
        raise InputError("k", k, f"an integer with 1 <= k <= d = {d}")
    if r > k:
        raise InputError("r", r, f"an integer with 0 <= r <= k = {k}")
    if features not in FEATURES:
        raise InputError("features", features, "one of " + ", ".join(FEATURES))
    V = sg.num_nodes
    if num_draws is None:
        num_draws = max(2, math.ceil(64 / V))
    if isinstance(num_draws, bool) or not isinstance(num_draws, (int, np.integer)) or num_draws < 1:
        raise InputError("num_draws", num_draws, "a positive integer")
    ss = np.random.SeedSequence(int(seed))
    r_feat, r_enc, r_teach, r_bias = (np.random.default_rng(c) for c in ss.spawn(4))
    weights = encoder_weights(d, d, r_enc)
    if features == "gaussian":
        X = gaussians(r_feat, (num_draws, V, d))
    else:
        X = np.repeat(gaussians(r_feat, (num_draws, 1, d)), V, axis=1)
    H = np.stack([encode_binary64(sg, x, weights) for x in X])
    err = max(equivariance_error(sg, x, weights) for x in X)
    visible = sg.visible(int(radius))
    orbit = _pair_orbits(sg, visible)
    values = bias_scale * gaussians(r_bias, int(orbit.max()) + 1)
    bias = np.where(orbit >= 0, values[np.maximum(orbit, 0)], np.nan)
    A_star, B_star = _teacher(d, k, r, r_teach, teacher_scale)
    return AttentionDesign(sg, int(d), int(k), int(r), int(radius), H, visible, bias, orbit, A_star, B_star,
                           float(err), features, int(seed))


def random_gauge(k: int, rng: np.random.Generator, *, spread: float = 2.0) -> np.ndarray:
    """A random ``xi`` in GL(k) with singular values in ``[1/spread, spread]`` (Corollary 1).

    Examples
    --------
    >>> xi = random_gauge(3, np.random.default_rng(0))
    >>> s = np.linalg.svd(xi, compute_uv=False)
    >>> bool(s.min() >= 0.5 and s.max() <= 2.0)
    True
    """
    Q1, _ = np.linalg.qr(rng.standard_normal((k, k)))
    Q2, _ = np.linalg.qr(rng.standard_normal((k, k)))
    s = np.exp(rng.uniform(-math.log(spread), math.log(spread), size=k))
    return (Q1 * s) @ Q2


def open_case_pair(design: AttentionDesign, rng: np.random.Generator, *, size: float = 1.0):
    """Factors with the teacher's product whose unused columns cancel without vanishing (Section 5).

    For ``s = k - r >= 2``: unused columns ``A[:, r] = A[:, r+1] = u`` and
    ``B[:, r] = v``, ``B[:, r+1] = -v`` with random ``u, v``, so
    ``A B^T = C*`` while neither factor's unused block is zero.  Such a pair is
    not on the gauge orbit of the canonical pair (its unused columns leave
    the column span of ``A*``).

    Examples
    --------
    >>> from algebra.graph.groups import parse_graph
    >>> D = make_design(parse_graph("cyclic:4"), 4, 3, 1, seed=0)
    >>> A, B = open_case_pair(D, np.random.default_rng(0))
    >>> bool(np.allclose(A @ B.T, D.C_star)), bool(np.abs(A[:, 1:]).min() > 0)
    (True, True)
    """
    s = design.k - design.r
    if s < 2:
        raise InputError("k - r", s, "at least 2 unused columns for cancelling columns")
    A, B = design.A_star.copy(), design.B_star.copy()
    u = size * rng.standard_normal(design.d) / math.sqrt(design.d)
    v = size * rng.standard_normal(design.d) / math.sqrt(design.d)
    r = design.r
    A[:, r], A[:, r + 1] = u, u
    B[:, r], B[:, r + 1] = v, -v
    return A, B
