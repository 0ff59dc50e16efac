"""The learning setup of the graph-attention paper, Section 2, as exact finite objects.

* Node features ``X`` (``|V| x d``) are drawn i.i.d. standard Gaussian per
  node (a law invariant under every node permutation, so ``Gamma``-invariant),
  or, for the deliberately bad design, one constant row for every node.
* A frozen encoder ``H = E(G, X)``: one layer of shared-weight message
  passing ``tanh(X W0 + D^-1 Adj X W1)``; it is equivariant (5) under every
  automorphism by construction, and :func:`equivariance_error` checks it
  numerically on every design.  (A second layer smooths neighbouring
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
  ``U, V``; canonical balanced factors ``A* = [U_r Sigma^1/2, 0]``,
  ``B* = [V_r Sigma^1/2, 0]``.
* Population KL (10) as a finite sum with the teacher's probabilities as
  soft labels: ``K(A, B) = mean over D of KL(p*(.|i) || p_AB(.|i))``.

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

import numpy as np

from algebra.errors import InputError
from algebra.graph import FEATURES
from algebra.graph.groups import SymmetricGraph

__all__ = ["AttentionDesign", "Rows", "make_design", "encode", "encoder_weights",
           "equivariance_error", "permute_nodes", "random_gauge", "open_case_pair", "FEATURES"]



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
    """Weights ``(W0, W1)`` of the message-passing layer (scale ``1/sqrt(fan-in)``)."""
    return (rng.standard_normal((d_in, d)) / math.sqrt(d_in), rng.standard_normal((d_in, d)) / math.sqrt(d_in))


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
    p_star: np.ndarray = field(init=False, repr=False)
    _phi: np.ndarray = field(init=False, repr=False)
    _slot_major: tuple = field(init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "rows", self._rows(representatives=True))
        object.__setattr__(self, "_phi", self.rows.features_outer())
        object.__setattr__(self, "_slot_major", _slot_major(self.rows, self.probabilities(self.C_star[None])[0]))
        object.__setattr__(self, "p_star", self.probabilities(self.C_star[None])[0])

    @property
    def C_star(self) -> np.ndarray:
        return self.A_star @ self.B_star.T

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


def _teacher(d: int, k: int, r: int, rng: np.random.Generator, scale: float):
    U, _ = np.linalg.qr(rng.standard_normal((d, d)))
    Vm, _ = np.linalg.qr(rng.standard_normal((d, d)))
    sigma = scale * rng.uniform(1.0, 2.0, size=r)
    A = np.zeros((d, k))
    B = np.zeros((d, k))
    A[:, :r] = U[:, :r] * np.sqrt(sigma)
    B[:, :r] = Vm[:, :r] * np.sqrt(sigma)
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
        Root of the :class:`numpy.random.SeedSequence` (features, encoder, teacher, biases).

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
        X = r_feat.standard_normal((num_draws, V, d))
    else:
        X = np.repeat(r_feat.standard_normal((num_draws, 1, d)), V, axis=1)
    Ahat = _mean_adjacency(sg)
    H = np.stack([encode(Ahat, x, weights) for x in X])
    err = max(equivariance_error(sg, x, weights) for x in X)
    visible = sg.visible(int(radius))
    orbit = _pair_orbits(sg, visible)
    values = bias_scale * r_bias.standard_normal(int(orbit.max()) + 1)
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
