"""Score-space Fisher, its isotypic decomposition, and Assumption 1 decided (paper Section 3).

Score space.  ``S`` is the direct sum over the orbit-closed design of the
logit matrices.  ``F_score`` (11) acts on input ``(G, X, i)`` through row
``i`` only, and ``Gamma`` maps the active row ``i`` of an input to the active
row ``g(i)`` of its image, so the *active rows* (restricted to the visible
entries) form a ``Gamma``-invariant subspace that carries all of ``F_score``
and all of ``Q``; :class:`ScoreSpace` works there (dimension
``|D| x |A_i|`` instead of ``|D| x |V|^2``; the complement contributes
nothing to (17)-(20)).  On it ``rho_score(g)`` (13) is a permutation of the
basis ``(m, h, i, j) -> (m, g h, g(i), g(j))``.

Projectors (15): ``Pi_rho = d_rho/|Gamma| sum_g conj(chi_rho(g)) rho_score(g)``,
applied to vectors (never formed densely).  :meth:`ScoreSpace.check_identities`
measures on random vectors: idempotence, mutual orthogonality, sum to the
identity, self-adjointness, (14) ``F rho(g) = rho(g) F``, ``Q = sum Q_rho``
(19), ``trace Pi_rho = d_rho m_rho``.

A fact the decomposition shows (measured, and proved in one line): ``Gamma``
does not act on the parameters, and the logits are equivariant (Lemma 1) on
an orbit-closed design, so ``J_C Delta C`` is a ``Gamma``-*invariant* score
vector: ``Pi_rho J_C = 0`` for every non-trivial ``rho``.  Hence
``Q = Q_trivial`` and every non-trivial ``Q_rho`` vanishes, while ``F_score``
itself has weight ``d_rho^2 tr(F) / |Gamma|`` on every isotypic component
(``fisher_trace`` below).  In (20) the non-trivial components therefore
always fail by the mechanism ``Pi_rho J Delta C = 0``, and Assumption 1 is
decided by the trivial component alone.

Assumption 1 (18), decided (:func:`decide_assumption1`).  Since the teacher
probabilities are interior (finite logits), ``I(p)`` has kernel exactly the
constants, so ``Q(Delta C) = 0`` iff every active row of ``J_C Delta C`` is
constant on the visible entries, i.e. iff ``Delta C`` is in the kernel of
``L: Delta C -> (h_i^T Delta C (h_j - h_j0))``.  With the design's features
taken as the exact rationals their floats are, ``rank_Q L`` is computed
exactly (python-flint ``fmpq_mat``):

* ``rank L = d^2``: Assumption 1 holds; the constant ``alpha`` is certified by
  ball arithmetic (python-flint ``arb``): ``Q`` is enclosed entrywise
  (``exp`` and ``sqrt(k)`` rigorously), and an ``LDL^T`` factorisation of
  ``Q - alpha I`` with every pivot certainly positive proves
  ``Q >= alpha ||.||_F^2`` for the stated rational ``alpha``;
* ``rank L < d^2``: an exact rational kernel direction ``Delta C`` is
  returned, checked exactly (each active row of ``J_C Delta C`` constant),
  with, per irrep, the mechanism that kills it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from algebra.errors import CertificateError, ResourceError
from algebra.graph.attention import AttentionDesign
from algebra.graph.characters import CharacterTable, character_table

__all__ = ["ScoreSpace", "score_space", "quadratic_form", "Assumption1", "decide_assumption1",
           "certify_alpha", "fisher_report"]

MAX_PERM_ENTRIES = 3 * 10**7  # refuse rho_score tables larger than this (240 MB of int64)
RANK_RTOL = 1e-9  # numerical rank of Q_rho: eigenvalues below RANK_RTOL * ||Q|| count as zero


@dataclass
class ScoreSpace:
    """Active-row score space of an orbit-closed design (module docstring).

    Attributes
    ----------
    design : AttentionDesign
    table : CharacterTable
    perms : ndarray (|Gamma|, dim)
        ``rho_score(g)`` sends basis vector ``w`` to ``perms[g, w]``.
    J : ndarray (dim, d*d)
        ``J_C`` (16): row ``(input, j)`` is ``vec(h_i h_j^T) / sqrt(k)``.
    p : ndarray (rows, A)
        Teacher probabilities per closure row (zero in pads).
    valid : ndarray (dim,) of bool
        False on pad slots (rows with fewer visible nodes than the maximum).
    """

    design: AttentionDesign
    table: CharacterTable
    perms: np.ndarray = field(repr=False)
    J: np.ndarray = field(repr=False)
    p: np.ndarray = field(repr=False)
    valid: np.ndarray = field(repr=False)

    @property
    def dim(self) -> int:
        return int(self.valid.sum())

    @property
    def slots(self) -> int:
        return int(self.p.shape[1])

    def act(self, g: int, X: np.ndarray) -> np.ndarray:
        """``rho_score(g) X`` for X of shape (dim_padded, ...)."""
        out = np.empty_like(X)
        out[self.perms[g]] = X
        return out

    def fisher(self, X: np.ndarray) -> np.ndarray:
        """``F_score X``: ``(diag(p) - p p^T) / |D|`` on every active row (11); X (dim_padded, t)."""
        R, A = self.p.shape
        Y = X.reshape(R, A, -1)
        p = self.p[:, :, None]
        out = p * Y - p * np.sum(p * Y, axis=1, keepdims=True)
        return out.reshape(X.shape) / R

    def project(self, a: int, X: np.ndarray) -> np.ndarray:
        """``Pi_rho X`` (15) for irrep ``a`` of the table."""
        chi = self.table.on_elements()[a]
        G = self.table.group
        out = np.zeros(X.shape, dtype=complex)
        for g in range(G.order):
            out += np.conj(chi[g]) * self.act(g, X)
        return out * (self.table.degrees[a] / G.order)

    def Q(self) -> np.ndarray:
        """The Hessian form (17) of ``K~`` at ``C*`` as a ``d^2 x d^2`` matrix, ``J^T F J``."""
        return self.J.T @ self.fisher(self.J)

    def q_scale(self) -> float:
        """``max(||Q||, ||J||^2 / rows)``: the size ``Q`` would have; relative tolerances use it
        (on a failing design ``Q`` itself is rounding noise)."""
        return max(float(np.linalg.norm(self.Q())), float(np.linalg.norm(self.J)) ** 2 / self.p.shape[0], 1e-300)

    def Q_rho(self, a: int) -> np.ndarray:
        """``Q_rho`` (19) on real ``Delta C``: ``Re((Pi J)^H F (Pi J))``."""
        PJ = self.project(a, self.J)
        return np.real(PJ.conj().T @ self.fisher(PJ))

    def multiplicities(self) -> list:
        """Multiplicity of each irrep in ``rho_score`` from the permutation character (exact integers)."""
        G = self.table.group
        fixed = np.array([int(np.sum((self.perms[g] == np.arange(self.perms.shape[1])) & self.valid))
                          for g in range(G.order)])
        chi = self.table.on_elements()
        raw = (np.conj(chi) @ fixed) / G.order
        out = [int(round(v.real)) for v in raw]
        if np.max(np.abs(raw - np.array(out))) > 1e-6:  # pragma: no cover - not a character
            raise CertificateError("permutation character has non-integral multiplicities")
        return out

    def fisher_trace(self, a: int) -> float:
        """``trace(F_score Pi_rho)``: the weight of ``F_score`` on the isotypic component of irrep ``a``."""
        G = self.table.group
        chi = self.table.on_elements()[a]
        R, A = self.p.shape
        diag = (self.p * (1 - self.p)).reshape(-1) / R
        # F is block diagonal by row and rho(g) moves rows unless g = e: only g = e contributes
        tr_e = float(np.sum(diag[self.valid]))
        return float(np.real(np.conj(chi[0]) * tr_e) * self.table.degrees[a] / G.order)

    def check_identities(self, *, seed: int = 0, vectors: int = 3) -> dict:
        """Residuals of the projector identities, (14) and (19) on random vectors (module docstring)."""
        rng = np.random.default_rng(np.random.SeedSequence(seed))
        n = self.perms.shape[1]
        X = rng.standard_normal((n, vectors)) * self.valid[:, None]
        Y = rng.standard_normal((n, vectors)) * self.valid[:, None]
        P = [self.project(a, X) for a in range(self.table.num_irreps)]
        scale = float(np.linalg.norm(X))
        idem = max(float(np.linalg.norm(self.project(a, P[a]) - P[a])) for a in range(len(P))) / scale
        orth = max((float(np.linalg.norm(self.project(b, P[a]))) for a in range(len(P)) for b in range(len(P))
                    if a != b), default=0.0) / scale
        total = float(np.linalg.norm(sum(P) - X)) / scale
        adj = max(float(abs(np.vdot(Y, P[a]) - np.vdot(self.project(a, Y), X))) for a in range(len(P))) \
            / (scale * float(np.linalg.norm(Y)))
        FX = self.fisher(X)
        comm = max(float(np.linalg.norm(self.fisher(self.act(g, X)) - self.act(g, FX)))
                   for g in range(self.table.group.order)) / max(float(np.linalg.norm(FX)), 1e-300)
        Qm = self.Q()
        qsum = float(np.linalg.norm(sum(self.Q_rho(a) for a in range(len(P))) - Qm)) / self.q_scale()
        invariant = max(float(np.linalg.norm(self.act(g, self.J) - self.J)) for g in range(self.table.group.order)) \
            / max(float(np.linalg.norm(self.J)), 1e-300)
        mult = self.multiplicities()
        traces = []
        for a in range(len(P)):
            # trace Pi_rho = sum_w <e_w, Pi e_w>, by the same formula: d_rho/|G| sum_g conj chi(g) fix(g)
            traces.append(abs(sum(np.conj(self.table.on_elements()[a][g])
                                  * np.sum((self.perms[g] == np.arange(n)) & self.valid)
                                  for g in range(self.table.group.order)) * self.table.degrees[a]
                              / self.table.group.order - self.table.degrees[a] * mult[a]))
        return {"idempotent": idem, "orthogonal": orth, "sum_to_identity": total, "self_adjoint": adj,
                "commutation_14": comm, "Q_sum_19": qsum, "J_invariant": invariant,
                "trace_dimension": float(max(traces))}


def score_space(design: AttentionDesign, table: CharacterTable | None = None) -> ScoreSpace:
    """Build the active-row score space of ``design`` (module docstring).

    Examples
    --------
    >>> from algebra.graph.groups import parse_graph
    >>> from algebra.graph.attention import make_design
    >>> S = score_space(make_design(parse_graph("cyclic:4"), 2, 1, 1, num_draws=1))
    >>> S.dim, S.perms.shape           # 1 draw x 4 shifts x 4 nodes x 3 visible
    (48, (4, 48))
    >>> all(v < 1e-12 for v in S.check_identities().values())
    True
    """
    G = design.graph.group
    table = character_table(G) if table is None else table
    rows = design.closure_rows()
    V, A, M = design.graph.num_nodes, design.slots, design.num_draws
    slot_of = -np.ones((V, V), dtype=np.int64)
    for i, vis in enumerate(design.visible):
        for a, j in enumerate(vis):
            slot_of[i, j] = a
    elems = np.array(G.elements, dtype=np.int64)  # (|G|, V)
    table_arr = G.table
    n_rows = M * G.order * V
    if G.order * n_rows * A > MAX_PERM_ENTRIES:
        raise ResourceError(f"score space of {n_rows * A} coordinates under {G.order} group elements needs "
                            f"{G.order * n_rows * A} permutation entries > {MAX_PERM_ENTRIES}; use fewer --draws "
                            f"or a smaller graph")
    idx = np.arange(n_rows * A)
    row, a = np.divmod(idx, A)
    m, rest = np.divmod(row, G.order * V)
    h, i = np.divmod(rest, V)
    valid = rows.valid.reshape(-1)
    j = rows.nodes.reshape(-1)
    perms = np.empty((G.order, n_rows * A), dtype=np.int64)
    for g in range(G.order):
        gi = elems[g][i]
        new_row = (m * G.order + table_arr[g, h]) * V + gi
        gj = elems[g][np.where(valid, j, 0)]
        new_a = np.where(valid, slot_of[gi, gj], a)
        perms[g] = new_row * A + new_a
    if any(sorted(p.tolist()) != list(range(n_rows * A)) for p in perms[:2]):  # pragma: no cover
        raise CertificateError("rho_score is not a permutation of the score basis")
    J = rows.features_outer() / math.sqrt(design.k)
    p = design.probabilities(design.C_star[None], rows)[0]
    return ScoreSpace(design, table, perms, J, p, valid)


def quadratic_form(design: AttentionDesign) -> np.ndarray:
    """``Q`` (17) from the representative rows: ``1/(k R) sum_r (h_i h_i^T) (x) (K^T I(p) K)``.

    Equal to :meth:`ScoreSpace.Q` by the orbit reduction (tested), at
    ``1/|Gamma|`` of the cost.
    """
    rows, p = design.rows, design.p_star
    K = rows.keys
    Kp = np.einsum("ra,rad->rd", p, K)
    G = np.einsum("ra,rad,rae->rde", p, K, K) - Kp[:, :, None] * Kp[:, None, :]
    q = rows.query
    d = design.d
    Q = np.einsum("ra,rc,rbe->abce", q, q, G).reshape(d * d, d * d)
    return Q / (design.k * q.shape[0])


# ------------------------------------------------------------ Assumption 1


@dataclass(frozen=True)
class Assumption1:
    """The decision of Assumption 1 (18) on a design (module docstring).

    Attributes
    ----------
    holds : bool
        Proved by the exact rank of ``L`` (``rank == d^2``).
    rank : int
        Exact rank of ``L`` over Q (out of ``d^2``).
    alpha_lower : Fraction or None
        Certified ``alpha`` with ``Q >= alpha ||.||_F^2`` (ball-arithmetic LDL^T).
    lambda_min : float
        Smallest eigenvalue of ``Q`` in float64 (informational).
    kernel : tuple of Fraction or None
        ``vec(Delta C)`` (row-major), an exact kernel direction when the assumption fails.
    kernel_logits_zero : bool or None
        Whether ``J_C Delta C = 0`` exactly (else it is a nonzero row-constant shift).
    precision : int
        Bits of the ball arithmetic that certified ``alpha``.
    """

    holds: bool
    rank: int
    alpha_lower: Fraction | None
    lambda_min: float
    kernel: tuple | None
    kernel_logits_zero: bool | None
    precision: int | None

    def to_json(self) -> dict:
        return {"assumption1_holds": self.holds, "rank_L": self.rank,
                "alpha_lower": None if self.alpha_lower is None else str(self.alpha_lower),
                "alpha_lower_float": None if self.alpha_lower is None else float(self.alpha_lower),
                "lambda_min_float": self.lambda_min,
                "kernel": None if self.kernel is None else [str(v) for v in self.kernel],
                "kernel_logits_zero": self.kernel_logits_zero, "precision_bits": self.precision}


def _identifiability_rows(design: AttentionDesign) -> list:
    """Rows ``vec(h_i (h_j - h_j0)^T)`` of ``L`` as exact Fractions (representatives suffice)."""
    rows = design.rows
    out = []
    for r in range(rows.query.shape[0]):
        slots = np.nonzero(rows.valid[r])[0]
        q = [Fraction(float(v)) for v in rows.query[r]]
        base = [Fraction(float(v)) for v in rows.keys[r, slots[0]]]
        for a in slots[1:]:
            diff = [Fraction(float(v)) - b for v, b in zip(rows.keys[r, a], base)]
            out.append([qa * db for qa in q for db in diff])
    return out


def _arb_quadratic_form(design: AttentionDesign):
    """``Q`` (17) as an ``arb_mat`` enclosure from the exact float inputs."""
    import flint

    rows = design.rows
    d, R = design.d, rows.query.shape[0]
    C = flint.arb_mat(d, d, [flint.arb(float(v)) for v in design.C_star.ravel()])
    inv_sqrt_k = 1 / flint.arb(design.k).sqrt()
    dd = d * d
    U = []
    Vg = []
    for r in range(R):
        slots = np.nonzero(rows.valid[r])[0]
        A = len(slots)
        q = flint.arb_mat(1, d, [flint.arb(float(v)) for v in rows.query[r]])
        K = flint.arb_mat(A, d, [flint.arb(float(v)) for v in rows.keys[r, slots].ravel()])
        s = (q * C) * K.transpose()
        e = [(s[0, a] * inv_sqrt_k + flint.arb(float(rows.bias[r, slots[a]]))).exp() for a in range(A)]
        z = sum(e[1:], e[0])
        p = [v / z for v in e]
        I = flint.arb_mat(A, A, [(p[a] if a == b else 0) - p[a] * p[b] for a in range(A) for b in range(A)])
        Gr = K.transpose() * I * K
        U.append([q[0, a] * q[0, c] for a in range(d) for c in range(d)])
        Vg.append([Gr[b, e_] for b in range(d) for e_ in range(d)])
    Um = flint.arb_mat(R, dd, [v for row in U for v in row])
    Vm = flint.arb_mat(R, dd, [v for row in Vg for v in row])
    P = Um.transpose() * Vm  # P[(a,c),(b,e)] = sum_r q_a q_c G_r[b,e]
    scale = 1 / (flint.arb(design.k) * R)
    return flint.arb_mat(dd, dd, [P[(ab // d) * d + ce // d, (ab % d) * d + ce % d] * scale
                                  for ab in range(dd) for ce in range(dd)])


def _ldl_positive(Q, alpha) -> bool:
    """Whether an LDL^T of ``Q - alpha I`` (balls) has every pivot certainly positive."""
    n = Q.nrows()
    L = [[None] * n for _ in range(n)]
    D = [None] * n
    for j in range(n):
        s = Q[j, j] - alpha
        for t in range(j):
            s -= L[j][t] * L[j][t] * D[t]
        if not s > 0:
            return False
        D[j] = s
        for i in range(j + 1, n):
            s = Q[i, j]
            for t in range(j):
                s -= L[i][t] * L[j][t] * D[t]
            L[i][j] = s / D[j]
    return True


def certify_alpha(design: AttentionDesign, *, precisions=(64, 128, 256)):
    """The largest ``alpha`` in ``{2^e, 3 * 2^(e-1)}`` that arb certifies, from the enclosure of ``Q`` alone.

    At each precision in turn, ``e`` runs down from ``ceil(log2 trace Q)``
    (``lambda_min <= trace``) for at most 128 steps to the first ``2^e`` with
    ``Q - 2^e I`` certified positive definite (:func:`_ldl_positive`), and
    ``3 * 2^(e-1)`` is tried next.  The answer is within a factor 4/3 of the
    largest power-of-two-and-a-half below ``lambda_min``, and a function of the
    design's binary64 inputs only: no float eigenvalue (LAPACK's last bits
    vary with the CPU kernel) chooses it.

    Returns ``(alpha, bits)`` or ``(None, None)`` when no candidate is certified.
    """
    import flint

    def passes(Q, alpha: Fraction) -> bool:
        return _ldl_positive(Q, flint.arb(flint.fmpq(alpha.numerator, alpha.denominator)))

    for bits in precisions:
        with flint.ctx.workprec(bits):
            Q = _arb_quadratic_form(design)
            top = float(sum((Q[i, i] for i in range(1, Q.nrows())), Q[0, 0]).upper())
            if not top > 0:
                return None, None
            e0 = math.frexp(top)[1]  # top < 2^e0
            for e in range(e0, e0 - 128, -1):
                alpha = Fraction(2) ** e
                if passes(Q, alpha):
                    wider = 3 * alpha / 2
                    return (wider if passes(Q, wider) else alpha), bits
    return None, None


def decide_assumption1(design: AttentionDesign) -> Assumption1:
    """Decide Assumption 1 (18) on ``design`` (module docstring).

    Examples
    --------
    >>> from algebra.graph.groups import parse_graph
    >>> from algebra.graph.attention import make_design
    >>> good = decide_assumption1(make_design(parse_graph("cyclic:6"), 3, 2, 1, seed=0))
    >>> good.holds, good.rank, good.alpha_lower > 0
    (True, 9, True)
    >>> bad = decide_assumption1(make_design(parse_graph("cyclic:6"), 3, 2, 1, radius=0))
    >>> bad.holds, bad.rank, bad.kernel_logits_zero
    (False, 0, False)
    """
    from algebra.exact.rank import rank_over_q
    from algebra.exact.rational import nullspace_q

    d2 = design.d ** 2
    L = _identifiability_rows(design)
    rank = rank_over_q(np.array(L, dtype=object).reshape(len(L), d2)) if L else 0
    lam = float(np.linalg.eigvalsh(quadratic_form(design))[0])
    if rank == d2:
        alpha, bits = certify_alpha(design)
        return Assumption1(True, rank, alpha, lam, None, None, bits)
    basis = nullspace_q(L, columns=d2)  # with no rows, the standard basis: basis[0] = e_0
    dC = tuple(basis[0])
    logits_zero, row_constant = _kernel_logits(design, dC)
    if not row_constant:  # pragma: no cover - the nullspace is wrong
        raise CertificateError("kernel direction does not give row-constant logit changes")
    return Assumption1(False, rank, None, lam, dC, logits_zero, None)


def _kernel_logits(design: AttentionDesign, dC) -> tuple:
    """Exact check of ``J_C Delta C`` on every representative row: (all zero?, each row constant?)."""
    d = design.d
    M = [[dC[a * d + b] for b in range(d)] for a in range(d)]
    rows = design.rows
    zero, const = True, True
    for r in range(rows.query.shape[0]):
        q = [Fraction(float(v)) for v in rows.query[r]]
        qM = [sum(q[a] * M[a][b] for a in range(d)) for b in range(d)]
        vals = {sum(qM[b] * Fraction(float(rows.keys[r, s, b])) for b in range(d))
                for s in np.nonzero(rows.valid[r])[0]}
        const &= len(vals) == 1
        zero &= vals == {0}
    return zero, const


def fisher_report(design: AttentionDesign, *, seed: int = 0, with_identities: bool = True) -> dict:
    """Everything ``neuroalgebra graph fisher`` prints: Assumption 1, components, identities.

    ``components``: per irrep its name, dimension ``d_rho``, multiplicity in
    ``rho_score``, the dimension of ``S_rho``, the rank of ``Q_rho`` (numerical,
    relative tolerance :data:`RANK_RTOL`), ``fisher_trace`` and, when
    Assumption 1 fails, the mechanism that kills the kernel direction in
    that component.
    """
    S = score_space(design)
    a1 = decide_assumption1(design)
    Qm = S.Q()
    norm = S.q_scale()
    mult = S.multiplicities()
    kvec = None
    if a1.kernel is not None:
        kvec = np.array([float(v) for v in a1.kernel])
        kvec /= np.linalg.norm(kvec)
        JdC = S.J @ kvec
        jnorm = float(np.linalg.norm(JdC))
    comps = []
    for a in range(S.table.num_irreps):
        Qa = S.Q_rho(a)
        ev = np.linalg.eigvalsh(0.5 * (Qa + Qa.T))
        entry = {"irrep": S.table.names[a], "dimension": S.table.degrees[a], "multiplicity": mult[a],
                 "isotypic_dimension": S.table.degrees[a] * mult[a],
                 "rank_Q_rho": int(np.sum(ev > RANK_RTOL * norm)),
                 "fisher_trace": S.fisher_trace(a)}
        if kvec is not None:
            PJ = S.project(a, JdC[:, None])
            pn = float(np.linalg.norm(PJ))
            fn = float(np.linalg.norm(S.fisher(PJ)))
            if pn <= 1e-9 * max(jnorm, 1e-300) or jnorm == 0:
                entry["mechanism"] = "Pi_rho J dC = 0"
            elif fn <= 1e-9 * pn:
                entry["mechanism"] = "row-constant shift (F Pi_rho J dC = 0)"
            else:  # pragma: no cover - contradicts the exact kernel check
                raise CertificateError(f"kernel direction not killed in component {S.table.names[a]}")
        comps.append(entry)
    out = {**design.describe(), **a1.to_json(), "rank_Q": int(np.sum(np.linalg.eigvalsh(Qm) > RANK_RTOL * norm)),
           "score_dimension": S.dim, "components": comps}
    if with_identities:
        out["identities"] = S.check_identities(seed=seed)
    return out
