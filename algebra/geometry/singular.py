"""Singular loci: symbolic (Groebner bases of minors) and by exact rank stratification.

Two routes, for two sizes of problem.

*Symbolic* (small cases, sympy Groebner bases over Q):

* :func:`singular_locus` -- the Jacobian criterion: the singular locus of
  ``V(I)`` (of codimension ``c``) is ``V(I + c x c minors of the Jacobian)``.
* :func:`critical_locus` -- the critical points of a parametrization: the
  ideal of the ``r x r`` minors of its Jacobian, ``r`` the generic rank.
* :func:`same_zero_set` -- certifies ``V(I) = V(J)`` over C: every generator
  of ``J`` has a power in ``I`` (ideal membership by reduction against a
  Groebner basis of ``I``) and every generator of ``I`` reduces to zero modulo
  a Groebner basis of ``J``.

*Rank stratification* (larger models): the exact rank over Q of the
differential at integer points of a named stratum.  The function space is
handled exactly: the Jacobian is evaluated at ``N`` random inputs, ``N`` the
number of monomials of the output degree, and the Vandermonde matrix of
those inputs is checked to be invertible, so the sample rank *is* the rank of
the differential in coefficient space (``J_sample = Vand J_coef``).  The
claims checked (:data:`STRATUM_CLAIMS`) are the proximity-bias paper's
Lemma D.3 (multi-token attention: ``dim J_{A,V} = d^2 + d d' - 1``, or
``d^2 + d d' - d`` exactly when ``A = k q^T``, ``V = h k^T``), Lemma D.6
(singular loci of ``P(X_a)``), Lemma E.1 (single token: the kernel is
``d``-dimensional exactly when ``V = h v^T`` and ``v^T x`` divides
``x^T S x``) and Proposition E.4 (``a > 1``, ``2a < d``: the singular locus
is ``rank S <= 2a - 1``).  A point is shown singular when the span of
tangent-cone directions there exceeds the dimension of the variety (the
Zariski tangent space contains that span); a nontrivial fiber is exhibited by
evaluating both preimages exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from math import comb

import numpy as np

from algebra.errors import InputError
from algebra.exact.field import RationalField
from algebra.exact.rank import rank_over_q
from algebra.engine import dimension
from algebra.models import LightningAttention
from algebra.models.base import monomial_count
from algebra.models.mlp import monomials

__all__ = [
    "singular_locus",
    "ideal_singular_locus",
    "critical_locus",
    "same_zero_set",
    "SYMBOLIC_EXAMPLES",
    "symbolic_example",
    "function_rank",
    "StratumCheck",
    "STRATUM_CLAIMS",
    "check_claim",
    "check_all",
    "stratum_verdict",
]


# -- symbolic --------------------------------------------------------------------------------


def _symbols(names):
    import sympy

    return [sympy.Symbol(n) for n in names]


def _minors(M, r: int) -> list:
    """All nonzero ``r x r`` minors of a sympy matrix: Plücker coordinates of its ``r``-row subsets."""
    from algebra.geometry.exterior import minors

    return minors(M, r)


def singular_locus(equations, variables, *, codim: int | None = None) -> dict:
    """Jacobian criterion: a Groebner basis of ``I + (c x c minors of the Jacobian)``.

    Parameters
    ----------
    equations : sequence of sympy expressions
        Generators of a prime (or at least radical, equidimensional) ideal ``I``.
    variables : sequence of str
    codim : int, optional
        Codimension ``c`` of ``V(I)``; defaults to ``len(equations)`` (a
        complete intersection).

    Returns
    -------
    dict
        ``groebner`` (a Groebner basis of ``I + minors``, sympy expressions), ``codim`` and the number of
        ``minors`` used.

    Raises
    ------
    InputError
        A codimension out of range.

    Examples
    --------
    >>> import sympy
    >>> x, y, z = sympy.symbols("x y z")
    >>> res = singular_locus([x * z - y**2], ["x", "y", "z"])       # the cone of Figure 3
    >>> same_zero_set(res["groebner"], [x, y, z], ["x", "y", "z"])
    True

    References
    ----------
    .. [1] Cox, Little, O'Shea, *Ideals, Varieties, and Algorithms*, 4th ed. (2015), Ch. 9 Sec. 6 (the Jacobian
       criterion for singular points).
    .. [2] The proximity-bias paper, Appendix D (the singular strata of neuromanifolds, Figure 3).
    """
    import sympy

    if not equations:
        raise InputError("equations", equations, "at least one equation")
    xs = _symbols(variables)
    c = len(equations) if codim is None else codim
    if not 1 <= c <= len(xs):
        raise InputError("codim", codim, f"an integer between 1 and {len(xs)}")
    Jac = sympy.Matrix([[sympy.diff(f, v) for v in xs] for f in equations])
    gens = [sympy.expand(f) for f in equations] + _minors(Jac, c)
    G = sympy.groebner(gens, *xs, order="grevlex")
    return {"variables": list(variables), "codim": c, "generators": len(gens), "groebner": list(G.exprs)}


#: Limits of :func:`ideal_singular_locus` (Groebner bases over Q grow fast; these keep a query to seconds).
MAX_IDEAL_VARIABLES = 6
MAX_IDEAL_GENERATORS = 6
MAX_IDEAL_DEGREE = 6
MAX_IDEAL_MINORS = 100


def _to_sympy(poly, symbols):
    """A :class:`~algebra.exact.polynomial.Polynomial` as a sympy expression, term by term (no text parsing)."""
    import sympy

    return sympy.Add(*[sympy.Rational(c.numerator, c.denominator) * sympy.Mul(*[x**k for x, k in zip(symbols, e)])
                       for e, c in poly.terms.items()])


def _from_sympy_text(expr, variables) -> str:
    """A sympy polynomial expression over Q in the toolkit's canonical text (``x^2*y - 3/2*z``)."""
    import sympy
    from fractions import Fraction

    from algebra.exact.polynomial import Polynomial

    poly = sympy.Poly(expr, *[sympy.Symbol(v) for v in variables])
    terms = {tuple(int(k) for k in m): Fraction(int(sympy.Rational(c).p), int(sympy.Rational(c).q))
             for m, c in poly.terms()}
    return Polynomial(tuple(variables), terms).to_text()


def ideal_singular_locus(generators, variables=None, *, codim: int | None = None) -> dict:
    """The singular locus of ``V(I)`` for a user's ideal ``I``, by the Jacobian criterion over Q.

    ``Sing V(I) = V(I + (c x c minors of the Jacobian))`` when ``I`` is radical and ``V(I)`` is equidimensional
    of codimension ``c``; the answer states that hypothesis rather than assuming it silently.  The polynomials
    are read by :func:`algebra.models.polynomial.parse_generators` (never by ``sympify``).

    Parameters
    ----------
    generators : sequence of str
        The generators of ``I``, e.g. ``["x^2 - y^3"]``.
    variables : str, optional
        ``"x,y,z"``: the ambient coordinates and their order (default: the variables that occur, sorted).
    codim : int, optional
        The codimension ``c`` of ``V(I)``; default the number of generators (a complete intersection).

    Returns
    -------
    dict
        ``variables``, ``generators`` (canonical text), ``codim``, ``hypothesis``, ``variety_empty`` (the
        Groebner basis of ``I`` is ``[1]``), ``groebner`` (a reduced grevlex Groebner basis of ``I + minors``,
        as text) and ``singular_locus``: ``"empty"`` (smooth), ``"the origin"`` (certified by
        :func:`same_zero_set`) or ``"V(groebner)"``.

    Raises
    ------
    InputError
        Text that is not a polynomial, more than :data:`MAX_IDEAL_VARIABLES` variables,
        :data:`MAX_IDEAL_GENERATORS` generators, degree :data:`MAX_IDEAL_DEGREE` or
        :data:`MAX_IDEAL_MINORS` minors, or a codimension out of range.

    Examples
    --------
    >>> r = ideal_singular_locus(["x^2 - y^3"])           # the cusp
    >>> r["groebner"], r["singular_locus"]
    (['y^2', 'x'], 'the origin')
    >>> ideal_singular_locus(["x^2 + y^2 - 1"])["singular_locus"]
    'empty'
    >>> ideal_singular_locus(["x^2 - y^2*z"])["groebner"]            # Whitney's umbrella: singular on the z-axis
    ['y^2', 'y*z', 'x']
    >>> cubic = ["x*z - y^2", "x*w - y*z", "y*w - z^2"]               # the cone over the twisted cubic
    >>> ideal_singular_locus(cubic, codim=2)["singular_locus"]
    'the origin'
    >>> ideal_singular_locus(["x^7 - y"])
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --ideal='x^7 - y': expected polynomials of degree at most 6 (MAX_IDEAL_DEGREE)

    References
    ----------
    .. [1] Cox, Little, O'Shea, *Ideals, Varieties, and Algorithms*, 4th ed. (2015), Ch. 9 Sec. 6.
    .. [2] Buchberger (1965): Groebner bases (sympy's ``groebner``, grevlex).
    """
    import sympy

    from algebra.models.polynomial import parse_generators

    texts = list(generators)
    if not texts or len(texts) > MAX_IDEAL_GENERATORS:
        raise InputError("--ideal", texts, f"1 to {MAX_IDEAL_GENERATORS} generators (MAX_IDEAL_GENERATORS)")
    polys, names = parse_generators(texts, variables)
    if not names or len(names) > MAX_IDEAL_VARIABLES:
        raise InputError("--variables", ",".join(names), f"1 to {MAX_IDEAL_VARIABLES} variables (MAX_IDEAL_VARIABLES)")
    for t, f in zip(texts, polys):
        if f.degree > MAX_IDEAL_DEGREE:
            raise InputError("--ideal", t, f"polynomials of degree at most {MAX_IDEAL_DEGREE} (MAX_IDEAL_DEGREE)")
    c = len(polys) if codim is None else codim
    if isinstance(c, bool) or not isinstance(c, int) or not 1 <= c <= len(names):
        raise InputError("--codim", codim, f"an integer between 1 and the number of variables {len(names)}")
    if comb(len(polys), c) * comb(len(names), c) > MAX_IDEAL_MINORS:
        raise InputError("--ideal", texts, f"at most {MAX_IDEAL_MINORS} minors of size {c} (MAX_IDEAL_MINORS; here "
                                           f"{comb(len(polys), c)} x {comb(len(names), c)})")
    xs = _symbols(names)
    exprs = [_to_sympy(f, xs) for f in polys]
    base = sympy.groebner(exprs, *xs, order="grevlex")
    if c == 1:  # the 1 x 1 minors are the partial derivatives (exterior.minors needs two or more columns)
        partials = [d for d in (sympy.diff(f, x) for f in exprs for x in xs) if d != 0]
        basis = list(sympy.groebner(exprs + partials, *xs, order="grevlex").exprs)
        minors = len(partials)
    else:
        res = singular_locus(exprs, names, codim=c)
        basis, minors = res["groebner"], res["generators"] - len(exprs)
    if list(basis) == [1]:
        where = "empty"
    elif same_zero_set(basis, xs, names):
        where = "the origin"
    else:
        where = "V(groebner)"
    return {"variables": list(names), "generators": [f.to_text() for f in polys], "codim": c,
            "hypothesis": f"I radical and V(I) equidimensional of codimension {c} (Jacobian criterion)",
            "variety_empty": list(base.exprs) == [1], "minors": minors,
            "groebner": [_from_sympy_text(g, names) for g in basis], "singular_locus": where}


def critical_locus(polynomials, parameters) -> dict:
    """Critical points of ``theta -> (f_1(theta), ...)``: the ideal of ``r x r`` Jacobian minors.

    ``r`` is the generic rank (computed symbolically).  Returns the generic
    rank and a Groebner basis of the minors' ideal.

    Examples
    --------
    >>> import sympy
    >>> v, a, b = sympy.symbols("v a b")
    >>> res = critical_locus([v * a**2, v * a * b, v * b**2], ["v", "a", "b"])   # f = v (a x1 + b x2)^2
    >>> res["generic_rank"], same_zero_set(res["groebner"], [v * a, v * b], ["v", "a", "b"])
    (2, True)
    """
    import sympy

    ps = _symbols(parameters)
    Jac = sympy.Matrix([[sympy.diff(f, v) for v in ps] for f in polynomials])
    r = Jac.rank()
    gens = _minors(Jac, r)
    G = sympy.groebner(gens, *ps, order="grevlex") if gens else None
    return {"parameters": list(parameters), "generic_rank": int(r), "generators": len(gens),
            "groebner": list(G.exprs) if G is not None else []}


def same_zero_set(groebner_exprs, target, variables, *, max_power: int = 8) -> bool:
    """``V(I) = V(J)`` over C, certified by ideal memberships (``I`` given by a Groebner basis).

    ``J``'s generators each have a power ``<= max_power`` in ``I`` (so
    ``V(I) <= V(J)``), and ``I``'s generators lie in ``J`` (so ``V(J) <= V(I)``).
    ``False`` means the check did not succeed (not necessarily that the sets differ).
    """
    import sympy

    xs = _symbols(variables)
    GI = sympy.groebner(list(groebner_exprs), *xs, order="grevlex")
    GJ = sympy.groebner(list(target), *xs, order="grevlex")
    for g in target:
        if not any(GI.contains(sympy.expand(g**k)) for k in range(1, max_power + 1)):
            return False
    return all(GJ.contains(f) for f in groebner_exprs)


def _sym3():
    import sympy

    s = sympy.symbols("s0:6")
    S = sympy.Matrix([[s[0], s[1], s[2]], [s[1], s[3], s[4]], [s[2], s[4], s[5]]])
    return s, S


def _example_table() -> dict:
    import sympy

    x, y, z = sympy.symbols("x y z")
    s, S = _sym3()
    m = sympy.symbols("m0:6")
    M = sympy.Matrix(2, 3, m)
    return {
        "cone": dict(
            location="proximity-bias paper, Figure 3 / Appendix G.3",
            statement="the single-neuron cone xz = y^2 is singular only at the origin",
            equations=[x * z - y**2], variables=["x", "y", "z"], codim=1, expected=[x, y, z]),
        "cubic-cone": dict(
            location="proximity-bias paper, Appendix G.4(c)",
            statement="the z-axis (U) is the singular locus of z(x^2 - y^2) = x^3",
            equations=[z * (x**2 - y**2) - x**3], variables=["x", "y", "z"], codim=1, expected=[x, y]),
        "sym-rank2": dict(
            location="proximity-bias paper, Lemma D.10 (d = 3)",
            statement="the singular locus of {S symmetric 3x3, rank <= 2} is its rank-<=1 locus",
            equations=[S.det()], variables=[str(v) for v in s], codim=1, expected=_minors(S, 2)),
        "det-2x3": dict(
            location="determinantal variety",
            statement="2 x 3 matrices of rank <= 1 are singular only at 0",
            equations=_minors(M, 2), variables=[str(v) for v in m], codim=2, expected=list(m)),
    }


SYMBOLIC_EXAMPLES = ("cone", "cubic-cone", "sym-rank2", "det-2x3")


def symbolic_example(name: str) -> dict:
    """Run one named symbolic example; ``confirmed`` is the certified ``V(I + minors) = V(expected)``.

    Examples
    --------
    >>> symbolic_example("cubic-cone")["confirmed"]
    True
    >>> symbolic_example("torus")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid example='torus': expected one of cone, cubic-cone, sym-rank2, det-2x3
    """
    table = _example_table()
    if name not in table:
        raise InputError("example", name, "one of " + ", ".join(SYMBOLIC_EXAMPLES))
    ex = table[name]
    res = singular_locus(ex["equations"], ex["variables"], codim=ex["codim"])
    ok = same_zero_set(res["groebner"], ex["expected"], ex["variables"])
    return {"example": name, "location": ex["location"], "statement": ex["statement"],
            "groebner": [str(g) for g in res["groebner"]], "expected_zero_set": [str(g) for g in ex["expected"]],
            "confirmed": ok, "verdict": "confirmed" if ok else "not confirmed"}


# -- exact rank stratification ---------------------------------------------------------------


def _vandermonde_rank(model, X) -> int:
    exps = []
    degs = [model.degree] if model.homogeneous else range(model.degree + 1)
    for k in degs:
        exps += monomials(model.n_inputs, k)
    V = np.array([[int(np.prod([int(x) ** e for x, e in zip(row, ex)])) for ex in exps] for row in X], dtype=object)
    return rank_over_q(V)


def function_rank(model, theta, *, seed: int = 0, bound: int = 7) -> int:
    """Exact rank over Q of the differential of ``model`` at ``theta``, in coefficient space.

    Evaluates the Jacobian at ``N`` random integer inputs (``N`` = number of
    monomials), after checking their Vandermonde matrix is invertible, so
    the rank equals the coefficient-space rank exactly.

    Examples
    --------
    >>> from algebra.models import LightningAttention
    >>> function_rank(LightningAttention(2, 1, 2), [1, 2, 3, 5, 1, -1])     # d^2 + d d' - 1
    5
    """
    N = monomial_count(model.n_inputs, model.degree, homogeneous=model.homogeneous)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    for _ in range(20):
        X = rng.integers(-bound, bound + 1, size=(N, model.n_inputs), dtype=np.int64)
        if _vandermonde_rank(model, X) == N:
            break
    else:  # pragma: no cover - vanishingly unlikely
        raise InputError("bound", bound, "a larger input range (no invertible Vandermonde found)")
    J = model.jacobian(np.asarray(theta, dtype=np.int64), X, RationalField())
    return rank_over_q(J)


@dataclass
class StratumCheck:
    """One checked statement: the ranks observed at points of a stratum against the claim."""

    claim: str
    location: str
    stratum: str
    size: dict
    expected: int | str
    observed: list
    holds: bool
    notes: dict = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """``refuted`` when an exact rank at a point of the stratum contradicts the claim, else ``out of reach``.

        Each observed value is an exact rank at an exact point of the named
        stratum, so one that violates the stated relation is a counterexample.
        Agreement at finitely many points does not prove a statement about
        every point of the stratum: it is evidence, and the verdict says so.
        """
        return "out of reach" if self.holds else "refuted"

    def to_json(self) -> dict:
        n = len(self.observed)
        evidence = (f"the relation holds at {n} exact point(s) of the stratum; that is evidence, not a proof for "
                    "every point" if self.holds else "an exact point of the stratum violates the relation")
        return {"claim": self.claim, "location": self.location, "stratum": self.stratum, "size": self.size,
                "expected": self.expected, "observed": self.observed, "holds_at_points": self.holds,
                "verdict": self.verdict, "evidence": evidence, "notes": self.notes}


def _ri(rng, *shape, bound=5):
    """A random integer array with no zero entries."""
    a = rng.integers(1, bound + 1, size=shape) * rng.choice([-1, 1], size=shape)
    return a.astype(np.int64)


def _pack(*arrays) -> np.ndarray:
    return np.concatenate([np.asarray(a, dtype=np.int64).ravel() for a in arrays])


def _check_D3(d, dp, rng, points):
    m = LightningAttention(d, dp, 2)
    P = d * d + d * dp
    out = []
    for _ in range(points):
        k, q, h = _ri(rng, d), _ri(rng, d), _ri(rng, dp)
        cases = [
            ("generic A, V", _ri(rng, d, d), _ri(rng, dp, d), P - 1),
            ("A = k q^T, V = h k^T", np.outer(k, q), np.outer(h, k), P - d),
        ]
        v = _ri(rng, d)
        while np.linalg.matrix_rank(np.stack([v, k])) < 2:
            v = _ri(rng, d)
        cases.append(("A = k q^T, V = h v^T, v not parallel to k", np.outer(k, q), np.outer(h, v), P - 1))
        if dp > 1:
            cases.append(("A = k q^T, V generic", np.outer(k, q), _ri(rng, dp, d), P - 1))
        for name, A, V, exp in cases:
            out.append((name, exp, function_rank(m, _pack(A, V), seed=int(rng.integers(2**31)))))
    return out


def _check_E1(d, dp, rng, points):
    m = LightningAttention(d, dp, 1)
    Ppsi = d * dp + comb(d + 1, 2)
    out = []
    for _ in range(points):
        v, w, u, h = _ri(rng, d), _ri(rng, d), _ri(rng, d), _ri(rng, dp)
        while np.linalg.matrix_rank(np.stack([u, v])) < 2:
            u = _ri(rng, d)
        cases = [
            ("generic S, V", _ri(rng, d, d), _ri(rng, dp, d), Ppsi - 1),
            ("V = h v^T, S = sym(v w^T): v^T x divides Q_S", np.outer(v, w), np.outer(h, v), Ppsi - d),
            ("V = h v^T, S = v v^T: Q_S = (v^T x)^2", np.outer(v, v), np.outer(h, v), Ppsi - d),
            ("V = h v^T, S = sym(u w^T), u not parallel to v", np.outer(u, w), np.outer(h, v), Ppsi - 1),
        ]
        if d >= 3:
            cases.append(("V = h v^T, S generic", _ri(rng, d, d), np.outer(h, v), Ppsi - 1))
        for name, A, V, exp in cases:
            out.append((name, exp, function_rank(m, _pack(A, V), seed=int(rng.integers(2**31)))))
    return out


def _dim(model, seed) -> int:
    r = dimension(model, seed=seed)
    if not r.certified:  # pragma: no cover - the attention dimensions are certified by symmetries
        raise InputError("model", model.spec(), "a model whose dimension the engine certifies")
    return r.dimension


def _check_D6(d, dp, a, rng, points):
    """Rank-based evidence for Lemma D.6: returns (name, relation, value, bound) tuples."""
    dim_a = _dim(LightningAttention(d, dp, 2, rank=a), 0)
    full = LightningAttention(d, dp, 2)
    out = []
    for _ in range(points):
        k, q, h, v = _ri(rng, d), _ri(rng, d), _ri(rng, dp), _ri(rng, d)
        while np.linalg.matrix_rank(np.stack([v, k])) < 2:
            v = _ri(rng, d)
        if a == 1 and a < d:
            # a = 1, d' > 1: Sing P(X_1) = P(Z), Z = {rank V = 1}; the rank-1 parametrization (K, Q, V)
            rank1 = LightningAttention(d, dp, 2, rank=1)
            r = function_rank(rank1, _pack(k, q, np.outer(h, k)), seed=int(rng.integers(2**31)))
            out.append(("a = 1, Z with k || v: differential rank < dim X_1 (critical, singular)", "<", r, dim_a))
            X = rng.integers(-9, 10, size=(6, d * 2))
            F = RationalField()
            y1 = rank1.forward(_pack(k, q, np.outer(h, v)), X, F)
            y2 = rank1.forward(_pack(v, q, np.outer(h, k)), X, F)
            out.append(("a = 1, Z with k not || v: phi(kq^T, hv^T) = phi(vq^T, hk^T), two projective preimages", "==",
                        int(bool(np.all(y1 == y2))), 1))
            r = function_rank(rank1, _pack(k, q, _ri(rng, dp, d)), seed=int(rng.integers(2**31)))
            out.append(("a = 1, outside Z (rank V > 1): differential rank = dim X_1", "==", r, dim_a))
        elif 1 < a < d:
            # a point of X_{a-1} (rank A = a-1): rank-one updates of A stay in D_a, so the
            # tangent cone spans J_{A,V}; more than dim X_a forces a singular point.
            Ka, Qa = _ri(rng, a - 1, d), _ri(rng, a - 1, d)
            A = Ka.T @ Qa
            span = function_rank(full, _pack(A, _ri(rng, dp, d)), seed=int(rng.integers(2**31)))
            out.append(("rank A = a-1: tangent-cone span > dim X_a (singular)", ">", span, dim_a))
            Ka, Qa = _ri(rng, a, d), _ri(rng, a, d)
            r = function_rank(LightningAttention(d, dp, 2, rank=a), _pack(Ka, Qa, _ri(rng, dp, d)),
                              seed=int(rng.integers(2**31)))
            out.append(("rank A = a: differential rank = dim X_a (injective mod scaling and gauge)", "==", r, dim_a))
        else:
            r = function_rank(full, _pack(np.outer(k, q), np.outer(h, k)), seed=int(rng.integers(2**31)))
            out.append(("Z with k || v: differential rank < dim X_d (critical, singular)", "<", r, dim_a))
            X = rng.integers(-9, 10, size=(6, d * 2))
            F = RationalField()
            y1 = full.forward(_pack(np.outer(k, q), np.outer(h, v)), X, F)
            y2 = full.forward(_pack(np.outer(v, q), np.outer(h, k)), X, F)
            same = bool(np.all(y1 == y2))
            out.append(("Z with k not || v: phi(kq^T, hv^T) = phi(vq^T, hk^T), two projective preimages", "==",
                        int(same), 1))
            r = function_rank(full, _pack(_ri(rng, d, d), _ri(rng, dp, d)), seed=int(rng.integers(2**31)))
            out.append(("outside Z: differential rank = dim X_d", "==", r, dim_a))
    return out


def _check_E4(d, dp, a, rng, points):
    # X_a is the image of D^sym_{2a} x C^{d' x d} (Proposition E.3): dim <= dim D^sym_{2a} + d d' - 1
    # (scaling), while the engine's symmetry bound misses the invisible antisymmetric part of K^T Q.
    lower = dimension(LightningAttention(d, dp, 1, rank=a), seed=0).lower_bound
    formula = comb(d + 1, 2) - comb(d - 2 * a + 1, 2) + d * dp - 1
    if lower != formula:  # pragma: no cover - would itself refute Proposition E.3's count
        raise InputError("size", (d, dp, a), f"a size where dim X_a is certified (lower {lower} vs {formula})")
    dim_a = formula
    full = LightningAttention(d, dp, 1)
    out = []
    for _ in range(points):
        Pm, R = _ri(rng, d, a), _ri(rng, d, a)
        R[:, 0] = 0  # S = P P^T - R R^T of rank 2a - 1
        S = Pm @ Pm.T - R @ R.T
        span = function_rank(full, _pack(S, _ri(rng, dp, d)), seed=int(rng.integers(2**31)))
        out.append(("rank S = 2a-1: tangent-cone span > dim X_a (singular)", ">", span, dim_a))
        K, Q = _ri(rng, a, d), _ri(rng, a, d)
        r = function_rank(LightningAttention(d, dp, 1, rank=a), _pack(K, Q, _ri(rng, dp, d)), seed=int(rng.integers(2**31)))
        out.append(("rank S = 2a: differential rank = dim X_a", "==", r, dim_a))
    return out


_REL = {"==": lambda x, y: x == y, "<": lambda x, y: x < y, ">": lambda x, y: x > y}

#: Most random points per stratum of :func:`check_claim`: each point costs up to about a second of exact
#: ranks (D.3, D.6), so 20 points are about 20 s; more are refused before the first is drawn.
MAX_POINTS = 20

#: claim id -> (location, statement, default sizes)
STRATUM_CLAIMS = {
    "D.3": ("proximity-bias paper, Lemma D.3",
            "t > 1: dim J_{A,V} = d^2 + d d' - 1 unless A = k q^T and V = h k^T, where it is d^2 + d d' - d",
            [(2, 1), (2, 2), (3, 1), (3, 2)]),
    "D.6": ("proximity-bias paper, Lemma D.6",
            "Sing P(X_a) = P(X_{a-1}) for 1 < a < d; = P(Z) for a = d or (a = 1, d' > 1) (rank evidence)",
            [(3, 1, 2), (3, 2, 2), (2, 1, 2), (3, 2, 3), (2, 2, 1), (3, 2, 1)]),
    "E.1": ("proximity-bias paper, Lemma E.1",
            "t = 1: the differential drops rank (kernel dimension d) exactly when V = h v^T and v^T x divides Q_S",
            [(2, 1), (2, 2), (3, 1), (3, 2)]),
    "E.4": ("proximity-bias paper, Proposition E.4",
            "a > 1, 2a < d: Sing P(X_a) = P{rank S <= 2a - 1} (rank evidence)",
            [(5, 1, 2)]),
}


def check_claim(claim: str, *, sizes=None, points: int = 1, seed: int = 0) -> list:
    """Check one of :data:`STRATUM_CLAIMS` at ``points`` random points per stratum and size.

    Returns one :class:`StratumCheck` per (size, stratum).

    Examples
    --------
    >>> [(c.holds, c.verdict) for c in check_claim("D.3", sizes=[(2, 1)])][0]
    (True, 'out of reach')
    """
    if claim not in STRATUM_CLAIMS:
        raise InputError("claim", claim, "one of " + ", ".join(STRATUM_CLAIMS))
    if isinstance(points, bool) or not isinstance(points, int) or not 1 <= points <= MAX_POINTS:
        raise InputError("points", points, f"an integer between 1 and {MAX_POINTS} (MAX_POINTS, about a second each)")
    location, statement, default = STRATUM_CLAIMS[claim]
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    out = []
    for size in sizes or default:
        if claim == "D.3":
            rows = [(n, "==", obs, exp) for n, exp, obs in _check_D3(*size, rng, points)]
            names = {"d": size[0], "dout": size[1], "tokens": 2}
        elif claim == "E.1":
            rows = [(n, "==", obs, exp) for n, exp, obs in _check_E1(*size, rng, points)]
            names = {"d": size[0], "dout": size[1], "tokens": 1}
        elif claim == "D.6":
            rows = _check_D6(*size, rng, points)
            names = {"d": size[0], "dout": size[1], "a": size[2], "tokens": 2}
        else:
            rows = _check_E4(*size, rng, points)
            names = {"d": size[0], "dout": size[1], "a": size[2], "tokens": 1}
        grouped: dict = {}
        for name, rel, obs, exp in rows:
            grouped.setdefault((name, rel, exp), []).append(obs)
        for (name, rel, exp), obs in grouped.items():
            ok = all(_REL[rel](o, exp) for o in obs)
            out.append(StratumCheck(claim=f"{claim}: {statement}", location=location, stratum=name, size=names,
                                    expected=exp if rel == "==" else f"{rel} {exp}", observed=obs, holds=ok,
                                    notes={"seed": seed, "points": points}))
    return out


def stratum_verdict(checks) -> str:
    """One verdict for a claim from its checks: ``refuted`` by any counterexample point, else ``out of reach``."""
    return "refuted" if any(not c.holds for c in checks) else "out of reach"


def check_all(*, points: int = 1, seed: int = 0) -> dict:
    """Every stratum claim with its default sizes: ``{claim: {"verdict", "checks"}}``."""
    out = {}
    for c in STRATUM_CLAIMS:
        checks = check_claim(c, points=points, seed=seed)
        out[c] = {"location": STRATUM_CLAIMS[c][0], "statement": STRATUM_CLAIMS[c][1],
                  "verdict": stratum_verdict(checks),
                  "checks": [x.to_json() for x in checks]}
    return out
