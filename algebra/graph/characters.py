"""Exact character tables of finite permutation groups, with orthogonality verified exactly.

Representation.  Every character value ``chi(g)`` is a sum of ``chi(1)``
roots of unity, the eigenvalues of ``rho(g)``; with ``N`` the exponent of
the group, ``chi(g) = sum_k m_k E(N)^k`` where ``E(N) = exp(2 pi i / N)``
and ``m_k >= 0`` is the multiplicity of the eigenvalue ``E(N)^k``.  A
:class:`CharacterTable` stores these integers, ``m[chi, class, k]``, which
is exact, and renders a value in the reduced power basis of ``Q(E(N))``
(reduction modulo the cyclotomic polynomial with python-flint).

Routes (chosen by the group's family):

* cyclic, torus (``Z_n x Z_m``), hypercube (``Z_2^k``): closed forms
  ``chi(g) = E(N)^(<k, g>)``;
* dihedral ``D_n``: the 1-dimensional characters and
  ``rho_h(r^j) ~ diag(E(n)^(hj), E(n)^(-hj))``, reflections with eigenvalues
  ``+1, -1`` (Serre 1977, Section 5.3);
* anything else (``S_n``, automorphism groups of user graphs): Dixon's
  modular form of Burnside's algorithm (Dixon 1967, *Numer. Math.* 10,
  446-450): the central characters are the common eigenvectors of the class
  matrices modulo a prime ``p = 1 mod N``, ``p > 2 |G|``; a random
  combination of class matrices is diagonalised, degrees come from
  ``chi(1)^2 = |G| / sum_m w_m w_m* / h_m``, and the eigenvalue
  multiplicities are recovered as ``m_k = (1/N) sum_l chi(g^l) w^(-kl)``
  (``w`` a primitive ``N``-th root of unity mod ``p``).

Verification (:func:`verify_orthogonality`).  Both orthogonality relations
are identities in ``Z[E(N)]``.  They are checked modulo a prime ``q = 1 mod
N`` under *every* ring map ``E(N) -> w`` (``w`` running over the ``phi(N)``
primitive ``N``-th roots of unity mod ``q``).  An element ``x`` of
``Z[E(N)]`` that vanishes under all of them lies in every prime above
``q``, hence ``x / q`` is an algebraic integer; if ``|sigma(x)| < q`` for
every complex embedding ``sigma`` (true for ``q > |G| (|G| + 1)``, a bound
on both relations' residuals), the norm of ``x / q`` is an integer of
absolute value below 1, so ``x = 0``.  The check is therefore exact, and
it is independent of how the table was computed.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from algebra.errors import CertificateError, InputError
from algebra.exact.field import is_prime
from algebra.graph.groups import PermutationGroup

__all__ = ["CharacterTable", "character_table", "burnside_dixon", "verify_orthogonality",
           "prime_one_mod"]


@dataclass(frozen=True)
class CharacterTable:
    """Irreducible characters of ``group`` as eigenvalue multiplicities (module docstring).

    Attributes
    ----------
    group : PermutationGroup
    conductor : int
        ``N``: values lie in ``Q(E(N))``.
    multiplicities : ndarray (irreps, classes, N) of int
        ``m[a, c, k]``: multiplicity of ``E(N)^k`` as an eigenvalue of ``rho_a(g_c)``.
    names : tuple of str
    method : str
        Which route produced the table (closed form / Burnside-Dixon with its prime).

    Examples
    --------
    >>> from algebra.graph.groups import dihedral_group
    >>> t = character_table(dihedral_group(5))
    >>> t.degrees, t.value_text(3, 1)
    ((1, 1, 2, 2), 'E(10)^3 - E(10)^2 - 1')
    >>> verify_orthogonality(t)["verified"]
    True
    """

    group: PermutationGroup
    conductor: int
    multiplicities: np.ndarray = field(repr=False)
    names: tuple
    method: str

    @property
    def num_irreps(self) -> int:
        return int(self.multiplicities.shape[0])

    @property
    def degrees(self) -> tuple:
        return tuple(int(v) for v in self.multiplicities[:, 0, :].sum(axis=1))

    @property
    def class_sizes(self) -> tuple:
        return tuple(len(c) for c in self.group.classes)

    def values(self) -> np.ndarray:
        """Complex values ``chi_a(g_c)`` (irreps x classes)."""
        N = self.conductor
        roots = np.exp(2j * np.pi * np.arange(N) / N)
        return self.multiplicities @ roots

    def on_elements(self) -> np.ndarray:
        """Complex values ``chi_a(g)`` for every element index ``g`` (irreps x order)."""
        return self.values()[:, list(self.group.class_of)]

    def value_text(self, a: int, c: int) -> str:
        """Exact value ``chi_a(g_c)`` in the reduced power basis of ``Q(E(N))``."""
        return _cyclotomic_text(self.multiplicities[a, c], self.conductor)

    def to_json(self) -> dict:
        G = self.group
        return {
            "group": G.name, "order": G.order, "conductor": self.conductor, "method": self.method,
            "basis": BASIS_TEXT.format(N=self.conductor),
            "classes": [{"size": len(c), "representative": list(G.elements[c[0]]),
                         "element_order": G.element_order(c[0])} for c in G.classes],
            "irreps": [{"name": self.names[a], "dimension": self.degrees[a],
                        "character": [self.value_text(a, c) for c in range(len(G.classes))],
                        "numeric": [[round(v.real, 12), round(v.imag, 12)] for v in self.values()[a]]}
                       for a in range(self.num_irreps)],
        }


#: the basis character values are written in (text output and JSON): a Sage user's ``CyclotomicField(N)`` basis,
#: with GAP's name ``E(N)`` for the root of unity
BASIS_TEXT = ("power basis 1, E({N}), ..., E({N})^(phi({N})-1) of Q(E({N})), E({N}) = exp(2 pi i/{N}) (GAP's E({N}); "
              "the basis of Sage's CyclotomicField({N}))")


def _cyclotomic_text(mult, N: int) -> str:
    """``sum_k mult[k] E(N)^k`` reduced modulo the N-th cyclotomic polynomial, as text."""
    import flint

    poly = flint.fmpq_poly([int(v) for v in mult])
    phi = flint.fmpq_poly(flint.fmpz_poly.cyclotomic(N).coeffs())
    red = poly % phi
    coeffs = [Fraction(int(c.p), int(c.q)) for c in red.coeffs()]
    terms = []
    for k in range(len(coeffs) - 1, -1, -1):
        c = coeffs[k]
        if c == 0:
            continue
        mono = "" if k == 0 else (f"E({N})" if k == 1 else f"E({N})^{k}")
        if not mono:
            body = str(abs(c))
        elif abs(c) == 1:
            body = mono
        else:
            body = f"{abs(c)}*{mono}"
        terms.append(("-" if c < 0 else "+", body))
    if not terms:
        return "0"
    out = ("-" if terms[0][0] == "-" else "") + terms[0][1]
    for sign, body in terms[1:]:
        out += f" {sign} {body}"
    return out


# ------------------------------------------------------------ closed forms


def _closed_form_exponents(G: PermutationGroup, N: int):
    """Per irrep, a function label -> list of eigenvalue exponents mod N; and the names."""
    fam, par = G.family, G.params
    if fam == "cyclic":
        (n,) = par
        return [(f"chi_{k}", lambda l, k=k: [k * l * (N // n)]) for k in range(n)]
    if fam == "torus":
        n, m = par
        return [(f"chi_({k},{q})", lambda l, k=k, q=q: [k * l[0] * (N // n) + q * l[1] * (N // m)])
                for k in range(n) for q in range(m)]
    if fam == "hypercube":
        (k,) = par
        return [("chi_" + "".join(map(str, S)), lambda l, S=S: [(N // 2) * (sum(a * b for a, b in zip(S, l)) % 2)])
                for S in itertools.product((0, 1), repeat=k)]
    if fam == "dihedral":
        (n,) = par
        half = N // 2
        out = [("trivial", lambda l: [0]), ("sign", lambda l: [half * l[0]])]
        if n % 2 == 0:
            out.append(("eps_r", lambda l: [half * (l[1] % 2)]))
            out.append(("eps_rs", lambda l: [half * ((l[0] + l[1]) % 2)]))
        for h in range(1, (n - 1) // 2 + 1):
            out.append((f"rho_{h}", lambda l, h=h: [h * l[1] * (N // n), -h * l[1] * (N // n)]
                        if l[0] == 0 else [0, half]))
        return out
    raise InputError("group.family", fam, "cyclic, torus, hypercube or dihedral for a closed form")


def _closed_form(G: PermutationGroup) -> CharacterTable:
    N = G.exponent
    irreps = _closed_form_exponents(G, N)
    r = len(G.classes)
    if len(irreps) != r:  # pragma: no cover - a bug in the closed forms
        raise CertificateError(f"{G.name}: {len(irreps)} closed-form characters for {r} classes")
    m = np.zeros((r, r, N), dtype=np.int64)
    for a, (_, eig) in enumerate(irreps):
        for c, members in enumerate(G.classes):
            vecs = set()
            for g in members:
                v = np.bincount(np.mod(eig(G.labels[g]), N), minlength=N)
                vecs.add(tuple(int(x) for x in v))
            if len(vecs) != 1:  # pragma: no cover - the closed form is not a class function
                raise CertificateError(f"{G.name}: closed-form character {a} not constant on class {c}")
            m[a, c] = next(iter(vecs))
    return CharacterTable(G, N, m, tuple(name for name, _ in irreps), f"closed form ({G.family})")


# ------------------------------------------------------------ Burnside-Dixon


def prime_one_mod(N: int, above: int) -> int:
    """Smallest prime ``p = 1 mod N`` with ``p > above``.

    Examples
    --------
    >>> prime_one_mod(12, 100)
    109
    """
    p = (above // N + 1) * N + 1
    while not is_prime(p):
        p += N
    return p


def _primitive_root_of_unity(N: int, p: int) -> int:
    """An element of exact multiplicative order ``N`` modulo the prime ``p`` (``N | p - 1``)."""
    qs = [q for q in range(2, N + 1) if N % q == 0 and is_prime(q)]
    for a in range(2, p):
        w = pow(a, (p - 1) // N, p)
        if all(pow(w, N // q, p) != 1 for q in qs):
            return w
    raise CertificateError(f"no primitive {N}-th root of unity mod {p}")  # pragma: no cover


def _class_matrices(G: PermutationGroup) -> np.ndarray:
    """``c[j, l, m] = #{x in K_j : x^-1 g_m in K_l}`` (class multiplication coefficients)."""
    r = len(G.classes)
    inv = np.array(G.inverse)
    cls = np.array(G.class_of)
    c = np.zeros((r, r, r), dtype=np.int64)
    for m, members in enumerate(G.classes):
        g_m = members[0]
        for j, K in enumerate(G.classes):
            y = G.table[inv[list(K)], g_m]
            c[j, :, m] = np.bincount(cls[y], minlength=r)
    return c


def burnside_dixon(G: PermutationGroup, *, seed: int = 0, tries: int = 20) -> CharacterTable:
    """Character table of ``G`` by Dixon's modular Burnside algorithm (module docstring).

    Parameters
    ----------
    G : PermutationGroup
    seed : int
        Seed of the random combinations of class matrices.
    tries : int
        Random combinations tried before giving up (each fails with
        probability below ``r^2 / p``).

    Examples
    --------
    >>> from algebra.graph.groups import symmetric_group
    >>> t = burnside_dixon(symmetric_group(3))
    >>> sorted(t.degrees), [t.value_text(a, 1) for a in range(3)]
    ([1, 1, 2], ['1', '-1', '0'])
    """
    import flint

    order, N, r = G.order, G.exponent, len(G.classes)
    p = prime_one_mod(N, max(2 * order, 10**4))
    w = _primitive_root_of_unity(N, p)
    coeff = _class_matrices(G) % p
    h = np.array([len(c) for c in G.classes], dtype=np.int64)
    inv_class = [G.class_of[G.inverse[c[0]]] for c in G.classes]
    e_class = G.class_of[0]
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    vectors = None
    for _ in range(tries):
        a = rng.integers(1, p, size=r)
        M = np.tensordot(a, coeff, axes=1) % p
        Mf = flint.nmod_mat(r, r, [int(v) for v in M.ravel()], p)
        roots = Mf.charpoly().roots()
        if len(roots) != r or any(mult != 1 for _, mult in roots):
            continue
        vectors = []
        for lam, _ in roots:
            shifted = Mf - flint.nmod_mat(r, r, [int(lam) if i == j else 0 for i in range(r) for j in range(r)], p)
            X, nullity = shifted.nullspace()
            vec = [int(X[i, 0]) for i in range(r)]
            scale = pow(vec[e_class], -1, p)
            vectors.append([(v * scale) % p for v in vec])
        break
    if vectors is None:
        raise CertificateError(f"{G.name}: no random class-matrix combination with distinct eigenvalues mod {p}")
    hinv = [pow(int(x), -1, p) for x in h]
    chi = np.zeros((r, r), dtype=np.int64)
    for a, vec in enumerate(vectors):
        s = sum(vec[m] * vec[inv_class[m]] * hinv[m] for m in range(r)) % p
        d2 = order * pow(s, -1, p) % p
        degree = next((d for d in range(1, math.isqrt(order) + 1) if d * d % p == d2), None)
        if degree is None:
            raise CertificateError(f"{G.name}: degree of character {a} not found mod {p}")
        chi[a] = [(degree * vec[m] * hinv[m]) % p for m in range(r)]
    # power map: class of g_c^l for l = 0..N-1
    pm = np.zeros((r, N), dtype=np.int64)
    for c, members in enumerate(G.classes):
        x = 0
        for ell in range(N):
            pm[c, ell] = G.class_of[x]
            x = int(G.table[x, members[0]])
    X = chi[:, pm]  # (r, r, N): chi_a(g_c^l)
    W = np.array([[pow(w, (-k * ell) % N, p) for k in range(N)] for ell in range(N)], dtype=np.int64)
    m = (np.tensordot(X, W, axes=([2], [0])) % p) * pow(N, -1, p) % p
    degrees = m[:, 0, :].sum(axis=1) if m.size else np.zeros(0)
    if np.any(m > np.max(degrees, initial=0)):
        raise CertificateError(f"{G.name}: eigenvalue multiplicities mod {p} are not small integers")
    trivial = [bool(np.all(m[a, :, 0] == 1)) for a in range(r)]
    order_key = sorted(range(r), key=lambda a: (int(degrees[a]), not trivial[a], a))
    m = m[order_key]
    names = tuple(f"chi_{a}" for a in range(r))
    return CharacterTable(G, N, m.astype(np.int64), names, f"Burnside-Dixon mod {p}")


def character_table(G: PermutationGroup, *, method: str = "auto", seed: int = 0) -> CharacterTable:
    """Character table of ``G``: closed form when the family has one, Burnside-Dixon otherwise.

    ``method`` is ``"auto"``, ``"closed"`` or ``"dixon"`` (the latter works for
    every group and is used in the tests to cross-check the closed forms).

    Parameters
    ----------
    G : PermutationGroup
        The group.
    method : {"auto", "closed", "dixon"}
        The route; ``auto`` takes the closed form when ``G``'s family has one.
    seed : int
        Seed of Burnside-Dixon's random class-matrix combination.

    Returns
    -------
    CharacterTable
        Exact characters (cyclotomic values, ``E(N)`` as GAP writes roots of unity), class sizes and degrees.

    Raises
    ------
    InputError
        An unknown ``method``, or ``closed`` for a group without a closed form.

    Examples
    --------
    >>> from algebra.graph.groups import cyclic_group
    >>> character_table(cyclic_group(4)).value_text(1, 1)
    'E(4)'
    >>> character_table(cyclic_group(4), method="qr")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid method='qr': expected 'auto', 'closed' or 'dixon'

    References
    ----------
    .. [1] Dixon, "High speed computation of group characters", Numer. Math. 10 (1967) (Burnside's algorithm
       modulo a prime).
    .. [2] The graph-attention paper (*Symmetries and Singularities*), Section 3 (the isotypic decomposition).
    """
    if not isinstance(G, PermutationGroup):
        raise InputError("G", G, "a permutation group, e.g. parse_group('cyclic:4')")
    if method not in ("auto", "closed", "dixon"):
        raise InputError("method", method, "'auto', 'closed' or 'dixon'")
    closed = G.family in ("cyclic", "torus", "hypercube", "dihedral")
    if method == "closed" or (method == "auto" and closed):
        return _closed_form(G)
    return burnside_dixon(G, seed=seed)


def verify_orthogonality(table: CharacterTable) -> dict:
    """Check both orthogonality relations exactly (module docstring) and the degree sum.

    Returns a dict with ``verified`` (bool), ``rows``, ``columns``,
    ``degree_sum`` (each bool), ``prime`` and ``embeddings`` (the number of
    ring maps checked).

    Examples
    --------
    >>> from algebra.graph.groups import torus_group
    >>> rep = verify_orthogonality(character_table(torus_group(2, 3)))
    >>> rep["verified"], rep["embeddings"]
    (True, 2)

    A wrong table is rejected:

    >>> t = character_table(torus_group(2, 3))
    >>> bad = CharacterTable(t.group, t.conductor, t.multiplicities[[0, 0, 2, 3, 4, 5]], t.names, "tampered")
    >>> verify_orthogonality(bad)["verified"]
    False
    """
    G = table.group
    order, N = G.order, table.conductor
    m = np.asarray(table.multiplicities, dtype=np.int64)
    r = len(G.classes)
    h = np.array([len(c) for c in G.classes], dtype=np.int64)
    q = prime_one_mod(N, order * (order + 1))
    w = _primitive_root_of_unity(N, q)
    units = [j for j in range(1, N + 1) if math.gcd(j, N) == 1]
    rows_ok = cols_ok = m.shape[0] == r
    centralizer = order // h
    for j in units:
        pw = np.array([pow(w, j * k % N, q) for k in range(N)], dtype=np.int64)
        pw_conj = np.array([pow(w, (-j * k) % N, q) for k in range(N)], dtype=np.int64)
        V = (m @ pw) % q
        Vc = (m @ pw_conj) % q
        if rows_ok:
            rows = ((V * h % q) @ Vc.T) % q
            rows_ok = bool(np.array_equal(rows, (order * np.eye(r, dtype=np.int64)) % q))
        if cols_ok:
            cols = (V.T @ Vc) % q
            cols_ok = bool(np.array_equal(cols, np.diag(centralizer) % q))
        if not (rows_ok or cols_ok):
            break
    degree_sum = sum(d * d for d in table.degrees) == order
    return {"verified": bool(rows_ok and cols_ok and degree_sum), "rows": bool(rows_ok),
            "columns": bool(cols_ok), "degree_sum": bool(degree_sum), "prime": q,
            "embeddings": len(units)}
