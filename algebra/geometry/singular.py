"""Singular loci: symbolic (Groebner bases of minors) and by exact rank stratification.

Two routes, for two sizes of problem.

*Symbolic* (small cases, sympy Groebner bases over Q):

* :func:`singular_locus` -- the Jacobian criterion: the singular locus of
  ``V(I)`` (of codimension ``c``) is ``V(I + c x c minors of the Jacobian)``.
* :func:`ideal_singular_locus` -- the singular locus of the reduced variety of a user's ideal, with
  ``dim V(I)``, radicality and equidimensionality decided (sympy where it can prove them, else Singular's
  primdec.lib, else "out of reach").
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

import re
from dataclasses import dataclass, field
from itertools import combinations
from math import comb

import numpy as np

import algebra.inputs as inputs
from algebra.errors import AlgebraError, InputError
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
    inputs.integer(c, "codim", minimum=1, maximum=len(xs), allowed=f"an integer between 1 and {len(xs)}")
    Jac = sympy.Matrix([[sympy.diff(f, v) for v in xs] for f in equations])
    gens = [sympy.expand(f) for f in equations] + _minors(Jac, c)
    G = sympy.groebner(gens, *xs, order="grevlex")
    return {"variables": list(variables), "codim": c, "generators": len(gens), "groebner": list(G.exprs)}


#: Limits of :func:`ideal_singular_locus`.  sympy's Buchberger over Q grows fast with the variables and the
#: degrees; the per-axis limits are as documented, and two measures bound their combination, each checked before the
#: Groebner basis it guards.  Dense random generators with small coefficients, whole call on the sympy route, this
#: machine (2 cores):
#:
#: ===========================  =======  ===========  =======
#: variables, generators x deg  work     Jacobian     seconds
#: ===========================  =======  ===========  =======
#: 6, 2 x 2                     84       64           7.8
#: 4, 4 x 2                     126      16           3.3
#: 3, 3 x 3                     120      54           3.0
#: 2, 2 x 6                     78       60           2.7
#: 3, 1 x 4                     35       36           2.4
#: 3, 1 x 5 (refused)           56       80           9.0 without the limit
#: 3, 2 x 4 (refused)           120      216          60 without the limit
#: 6, 3 x 2 (refused)           210      729          > 120 without the limit
#: 4, 4 x 3 (refused)           715      --           17.5 for the basis of I alone
#: 6, 6 x 2 (refused)           1716     --           54 for the basis of I alone
#: ===========================  =======  ===========  =======
#:
#: (seconds of one process, Python start included; /tmp scripts, random coefficients in [-3, 3], seed 1).
#: ``work`` (:func:`_ideal_work`, before the basis of I) is the number of monomials below the Macaulay degree;
#: ``Jacobian`` (:func:`_jacobian_bezout`, before the basis of I + minors, once the codimension is known) is the
#: Bezout number of that ideal's largest degrees.
MAX_IDEAL_VARIABLES = 6
MAX_IDEAL_GENERATORS = 6
MAX_IDEAL_DEGREE = 6
MAX_IDEAL_MINORS = 100
MAX_IDEAL_WORK = 300
MAX_JACOBIAN_BEZOUT = 64

#: Seconds one Singular subprocess may run before :func:`ideal_singular_locus` raises a ResourceError.
SINGULAR_TIMEOUT = 60

#: The routes of :func:`ideal_singular_locus`.
IDEAL_METHODS = ("auto", "sympy", "singular")


def _to_sympy(poly, symbols):
    """A :class:`~algebra.exact.polynomial.Polynomial` as a sympy expression, term by term (no text parsing)."""
    import sympy

    return sympy.Add(*[sympy.Rational(c.numerator, c.denominator) * sympy.Mul(*[x**k for x, k in zip(symbols, e)])
                       for e, c in poly.terms.items()])


def _to_polynomial(expr, variables):
    """A sympy polynomial expression over Q as a :class:`~algebra.exact.polynomial.Polynomial`."""
    import sympy
    from fractions import Fraction

    from algebra.exact.polynomial import Polynomial

    poly = sympy.Poly(expr, *[sympy.Symbol(v) for v in variables])
    return Polynomial(tuple(variables), {tuple(int(k) for k in m): Fraction(int(sympy.Rational(c).p), int(sympy.Rational(c).q))
                                         for m, c in poly.terms() if c != 0})


def _from_sympy_text(expr, variables) -> str:
    """A sympy polynomial expression over Q in the toolkit's canonical text (``x^2*y - 3/2*z``)."""
    return _to_polynomial(expr, variables).to_text()


def _ideal_work(degrees, n: int) -> int:
    """The size bounded by :data:`MAX_IDEAL_WORK` before the basis of ``I``: monomials in ``n`` variables of degree
    at most the Macaulay degree ``1 + sum(d - 1)`` over the largest ``min(m, n)`` generator degrees.

    Examples
    --------
    >>> _ideal_work([2, 2, 2], 6)             # the 2 x 2 minors of a generic 2 x 3 matrix
    210
    >>> _ideal_work([3, 3, 3, 3], 4)          # four dense cubics in four variables: refused
    715
    """
    top = sorted(degrees, reverse=True)[:min(len(degrees), n)]
    return comb(n + 1 + sum(d - 1 for d in top), n)


def _jacobian_bezout(degrees, n: int, c: int) -> int:
    """The size bounded by :data:`MAX_JACOBIAN_BEZOUT` before the basis of ``I + (c x c minors)``: the product of
    the ``n`` largest degrees among the generators and the minors (of degree the sum of the ``c`` largest
    ``d - 1``).

    Examples
    --------
    >>> _jacobian_bezout([2, 2, 2], 6, 2)     # 2 x 3 matrices of rank <= 1: quadrics and quadric minors
    64
    >>> _jacobian_bezout([5], 3, 1)           # a quintic surface: refused
    80
    """
    minor = sum(sorted((d - 1 for d in degrees), reverse=True)[:c])
    top = sorted(list(degrees) + [minor] * min(n, comb(len(degrees), c) * comb(n, c)), reverse=True)[:n]
    out = 1
    for d in top:
        out *= max(d, 1)
    return out


def _leading_exponents(basis, xs) -> list:
    """The grevlex leading exponent vectors of a sympy Groebner basis."""
    from sympy.polys.orderings import grevlex

    return [tuple(int(e) for e in p.monoms(order=grevlex)[0]) for p in basis.polys]


def _dimension(leading, n: int) -> int:
    """Krull dimension of ``Q[x]/I`` from the leading monomials of a Groebner basis of ``I``: the largest set of
    variables no leading monomial is supported in (Cox, Little, O'Shea, Ch. 9 Sec. 3, Prop. 3); -1 for ``I = (1)``.

    Examples
    --------
    >>> _dimension([(2, 0, 0), (1, 1, 0)], 3)      # (x^2, x*y): the plane x = 0
    2
    >>> _dimension([(0, 0)], 2)
    -1
    """
    if any(sum(e) == 0 for e in leading):
        return -1
    best = 0
    for k in range(n, 0, -1):
        for S in combinations(range(n), k):
            if all(any(e[i] for i in range(n) if i not in S) for e in leading):
                return k
    return best


def _hilbert_numerator(gens, n: int) -> tuple:
    """Numerator ``N(t)`` of the Hilbert series ``N(t) / (1 - t)^n`` of ``Q[x]/M``, ``M`` the monomial ideal of
    the exponent vectors ``gens`` (coefficients, lowest degree first).

    Pivots on a variable of a mixed generator: ``HS(S/M) = HS(S/(M + x)) + t HS(S/(M : x))`` (the exact sequence
    of multiplication by ``x``; Bayer and Stillman, *Computation of Hilbert functions*, J. Symb. Comp. 14 (1992)).

    Examples
    --------
    >>> _hilbert_numerator([(2, 0), (1, 1)], 2)       # (x^2, x*y): 1 - 2t^2 + t^3
    (1, 0, -2, 1)
    """
    gens = [g for g in set(gens) if not any(h != g and all(a <= b for a, b in zip(h, g)) for h in set(gens))]
    if any(sum(g) == 0 for g in gens):
        return (0,)
    mixed = [g for g in gens if sum(1 for e in g if e) > 1]
    if not mixed:
        out = [1]
        for g in gens:
            d = sum(g)
            out = [a - (out[i - d] if i >= d else 0) for i, a in enumerate(out + [0] * d)]
        return _trim(out)
    i = next(k for k, e in enumerate(mixed[0]) if e)
    unit = tuple(1 if k == i else 0 for k in range(n))
    plus = _hilbert_numerator([g for g in gens if not g[i]] + [unit], n)
    colon = _hilbert_numerator([tuple(e - 1 if k == i and e else e for k, e in enumerate(g)) for g in gens], n)
    out = [0] * max(len(plus), len(colon) + 1)
    for k, a in enumerate(plus):
        out[k] += a
    for k, a in enumerate(colon):
        out[k + 1] += a
    return _trim(out)


def _trim(coeffs) -> tuple:
    coeffs = list(coeffs)
    while len(coeffs) > 1 and coeffs[-1] == 0:
        coeffs.pop()
    return tuple(coeffs)


def _times_one_minus_t(coeffs) -> tuple:
    return _trim([a - (coeffs[k - 1] if k else 0) for k, a in enumerate(list(coeffs) + [0])])


def _length(leading, n: int) -> int:
    """``dim_Q Q[x]/I`` of a zero-dimensional ``I`` (the number of standard monomials), from its leading exponents."""
    q = list(_hilbert_numerator(leading, n))
    for _ in range(n):  # N(t) = (1 - t)^n HS(t), HS a polynomial for a zero-dimensional ideal
        q = [sum(q[:k + 1]) for k in range(len(q) - 1)]
    return sum(q)


def _jacobian_ideal(exprs, xs, c: int) -> list:
    """The nonzero ``c x c`` minors of the Jacobian matrix of ``exprs`` (the partials when ``c = 1``)."""
    import sympy

    if c == 1:  # the 1 x 1 minors are the partial derivatives (exterior.minors needs two or more columns)
        return [d for d in (sympy.diff(f, x) for f in exprs for x in xs) if d != 0]
    return _minors(sympy.Matrix([[sympy.diff(f, v) for v in xs] for f in exprs]), c)


def _groebner(exprs, xs):
    import sympy

    return sympy.groebner([e for e in exprs if e != 0] or [sympy.Integer(0)], *xs, order="grevlex")


def _is_origin(basis, xs) -> bool:
    """``V(K) = {0}`` exactly: ``K`` is zero-dimensional, has no constant term, and each variable is nilpotent
    modulo ``K`` of index at most ``dim_Q Q[x]/K`` (so ``rad K = (x_1, ..., x_n)``)."""
    n = len(xs)
    leading = _leading_exponents(basis, xs)
    if _dimension(leading, n) != 0 or any(g.subs({x: 0 for x in xs}) != 0 for g in basis.exprs):
        return False
    L = _length(leading, n)
    return all(basis.contains(x**L) for x in xs)


def _cohen_macaulay(basis, xs) -> tuple:
    """A sound sufficient test that ``Q[x]/I`` is Cohen-Macaulay (``I`` given by a grevlex Groebner basis).

    Homogeneous ``I`` (else its homogenization ``I^h``, generated by the homogenized grevlex basis: Cox, Little,
    O'Shea, Ch. 8 Sec. 4, Thm. 4) is tested for a regular sequence of ``d = dim`` linear forms: ``l`` is a
    nonzerodivisor on the graded ``M`` exactly when ``HS(M / l M) = (1 - t) HS(M)`` (the sequence
    ``0 -> (0 :_M l)(-1) -> M(-1) -> M -> M/lM -> 0``).  Depth ``d`` = dimension ``d`` is Cohen-Macaulay; a graded
    Cohen-Macaulay ring is unmixed (Matsumura, *Commutative Ring Theory*, Thm. 17.3), and dehomogenizing by the
    nonzerodivisor ``h - 1`` keeps both.  ``False`` means only that the chosen forms were not a regular sequence.

    Returns
    -------
    (bool, str)
        Whether the test succeeded, and how.

    Examples
    --------
    >>> import sympy
    >>> x, y, z = sympy.symbols("x y z")
    >>> _cohen_macaulay(sympy.groebner([x*y, x*z, y*z], x, y, z, order="grevlex"), [x, y, z])[0]    # three axes
    True
    >>> _cohen_macaulay(sympy.groebner([x*z, y*z], x, y, z, order="grevlex"), [x, y, z])[0]   # plane and line
    False
    """
    import sympy

    gens = list(basis.exprs)
    homogeneous = all(sympy.Poly(g, *xs).is_homogeneous for g in gens)
    ys = list(xs)
    if not homogeneous:
        h = sympy.Symbol("_h")
        ys = list(xs) + [h]
        gens = [sympy.Poly(g, *xs).homogenize(h).as_expr() for g in gens]
    n = len(ys)
    current = sympy.groebner(gens, *ys, order="grevlex")
    numerator = _hilbert_numerator(_leading_exponents(current, ys), n)
    d = _dimension(_leading_exponents(current, ys), n)
    for k in range(d):  # deterministic, Vandermonde-like linear forms: distinct rows, no zero coefficient
        form = sum((j + 2) ** (k + 1) * y for j, y in enumerate(ys))
        nxt = sympy.groebner(list(current.exprs) + [form], *ys, order="grevlex")
        num = _hilbert_numerator(_leading_exponents(nxt, ys), n)
        if num != _times_one_minus_t(numerator):
            return False, (f"the linear form number {k + 1} is a zerodivisor on the quotient by the previous ones "
                           "(Hilbert series test), so Cohen-Macaulayness is not shown")
        current, numerator = nxt, num
    where = "I" if homogeneous else "the homogenization I^h"
    return True, (f"Cohen-Macaulay: {d} linear forms are a regular sequence on Q[x]/{where} (Hilbert series "
                  "HS(M/lM) = (1-t) HS(M) at each step), so I is unmixed")


def _find_singular():
    """The path of the ``Singular`` binary, or ``None`` (tests monkeypatch this lookup)."""
    import shutil

    return shutil.which("Singular")


_SINGULAR_LINE = re.compile(r"^(DIM|RAD|COMP|LDIM|TERM) (-?\d+)(?: ([0-9,]+) (-?\d+(?:/\d+)?))?$")


def _singular_script(polys, n: int) -> str:
    """A Singular script for the reduced variety of ``I``: built from the parsed terms, never from user text.

    Variables are renamed ``v1 .. vn`` (no clash with Singular's reserved words); the answer comes back as tagged
    lines of integers and rationals (exponent vectors and coefficients), not as polynomial text.
    """
    names = [f"v{i + 1}" for i in range(n)]

    def text(p):
        terms = []
        for e, c in sorted(p.terms.items()):
            mono = "*".join(f"{v}^{k}" for v, k in zip(names, e) if k)
            terms.append(f"({c.numerator}/{c.denominator})" + (f"*{mono}" if mono else ""))
        return "+".join(terms) or "0"

    return "\n".join([
        'LIB "primdec.lib";',
        "option(redSB);",
        f"ring r = 0, ({','.join(names)}), dp;",
        "ideal I = " + ", ".join(text(p) for p in polys) + ";",
        "ideal G = std(I);",
        'print("DIM " + string(dim(G)));',
        "if (dim(G) == -1) { quit; }",
        'print("RAD " + string(size(reduce(radical(I), G)) == 0));',
        "list L = minAssGTZ(I);",
        "int k; int j; int c; poly p; ideal P;",
        "ideal S = 1;",
        "for (k = 1; k <= size(L); k++) {",
        "  P = std(L[k]);",
        '  print("COMP " + string(dim(P)));',
        "  c = nvars(basering) - dim(P);",
        "  S = intersect(S, L[k] + minor(jacob(L[k]), c));",
        "  for (j = k + 1; j <= size(L); j++) { S = intersect(S, L[k] + L[j]); }",
        "}",
        "S = std(radical(S));",
        'print("LDIM " + string(dim(S)));',
        "for (k = 1; k <= ncols(S); k++) {",
        "  p = S[k];",
        '  while (p != 0) { print("TERM " + string(k) + " " + string(leadexp(p)) + " " + string(leadcoef(p)));'
        " p = p - lead(p); }",
        "}",
        "quit;",
        "",
    ])


def _run_singular(polys, names, *, timeout) -> dict:
    """Run :func:`_singular_script` and read its tagged answer (``dim``, ``radical``, ``components``, ``locus``)."""
    import subprocess
    import tempfile
    from fractions import Fraction
    from pathlib import Path

    from algebra.errors import ResourceError
    from algebra.exact.polynomial import Polynomial

    binary = _find_singular()
    n = len(names)
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "locus.sing"
        script.write_text(_singular_script(polys, n))
        try:
            run = subprocess.run([binary, "-q", "-t", "--no-rc", str(script)], capture_output=True, text=True,
                                 timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise ResourceError(f"Singular did not finish within {timeout} s (timeout, --timeout)") from None
    out = {"dim": None, "radical": None, "components": [], "locus_dim": None, "terms": {}}
    for line in run.stdout.splitlines():
        m = _SINGULAR_LINE.match(line.strip())
        if m is None:
            continue
        tag, value = m.group(1), int(m.group(2))
        if tag == "DIM":
            out["dim"] = value
        elif tag == "RAD":
            out["radical"] = value == 1
        elif tag == "COMP":
            out["components"].append(value)
        elif tag == "LDIM":
            out["locus_dim"] = value
        else:
            exps = tuple(int(e) for e in m.group(3).split(","))
            out["terms"].setdefault(value, {})[exps] = Fraction(m.group(4))
    complete = out["dim"] is not None and (out["dim"] < 0 or None not in (out["radical"], out["locus_dim"])
                                            and out["components"])
    if run.returncode != 0 or not complete:
        raise AlgebraError(f"Singular failed (exit {run.returncode}): {(run.stderr or run.stdout).strip()[-500:]}")
    out["locus"] = [Polynomial(tuple(names), t) for _, t in sorted(out.pop("terms").items())]
    return out


def _hypothesis(holds, how: str) -> dict:
    return {"holds": holds, "how": how}


def ideal_singular_locus(generators, variables=None, *, codim: int | None = None, method: str = "auto",
                         timeout: float = SINGULAR_TIMEOUT) -> dict:
    """The singular locus of the variety ``V(I)`` of a user's ideal ``I``, with its hypotheses checked.

    The Jacobian criterion ``Sing V(I) = V(I + (c x c minors of the Jacobian))`` holds when ``I`` is radical and
    ``V(I)`` is equidimensional of codimension ``c``; both are decided here, never assumed.  ``dim V(I)`` comes
    from the leading monomials of a grevlex Groebner basis of ``I`` over Q (exact), and ``c = n - dim``.

    The sympy route decides the hypotheses soundly where it can:

    * ``V(I)`` empty, ``I = 0`` or ``dim V(I) = 0`` (a finite set of points is smooth; ``I`` is radical exactly
      when ``I + (n x n minors) = (1)``);
    * ``I`` principal: ``rad (f) = (squarefree part of f)`` and a hypersurface is equidimensional, so the locus
      of the reduced variety is ``V(f_red, grad f_red)``;
    * otherwise ``I`` is *not radical* when the ``c x c`` minors vanish on a top-dimensional component
      (``dim V(I + minors) = dim V(I)``; Eisenbud, Cor. 16.20), and *radical and equidimensional* when they do
      not and ``I`` is unmixed: generated by ``c`` elements (Macaulay's unmixedness theorem) or shown
      Cohen-Macaulay by :func:`_cohen_macaulay` (Serre's criterion: R0 + S1 is reduced).

    Where a hypothesis fails or is undecided, ``method="auto"`` hands the ideal to Singular (``radical`` and
    ``minAssGTZ`` of primdec.lib; ``Sing(V_1 u V_2) = Sing V_1 u Sing V_2 u (V_1 n V_2)`` over the minimal primes,
    each prime by the Jacobian criterion) when the binary is installed, and otherwise answers ``"out of reach"``
    naming the hypothesis.  The polynomials are read by :func:`algebra.models.polynomial.parse_generators`
    (never by ``sympify``); Singular's input is written from the parsed terms.

    Parameters
    ----------
    generators : sequence of str
        The generators of ``I``, e.g. ``["x^2 - y^3"]``.
    variables : str, optional
        ``"x,y,z"``: the ambient coordinates and their order (default: the variables that occur, sorted).
    codim : int, optional
        The codimension the caller expects; refused unless it equals the computed ``n - dim V(I)``.
    method : {"auto", "sympy", "singular"}
        ``"auto"`` (default: sympy where it decides the hypotheses, since it needs no external program; Singular
        otherwise), ``"sympy"`` (never calls Singular) or ``"singular"`` (the whole answer from Singular, the
        route the tests compare with the sympy one).
    timeout : float
        Seconds a Singular run may take (default :data:`SINGULAR_TIMEOUT`).

    Returns
    -------
    dict
        ``variables``, ``generators`` (canonical text), ``dimension`` (of ``V(I)``; -1 when empty), ``codim``
        (``None`` when empty), ``variety_empty``, ``hypotheses`` (``radical`` and ``equidimensional``, each
        ``{"holds": True / False / None, "how": ...}``), ``route`` (``"sympy"``, ``"singular"`` or ``None``),
        ``method`` (what computed the locus), ``singular_locus`` (``"empty"``, ``"the origin"``,
        ``"V(locus_ideal)"`` or ``"out of reach"``), ``locus_ideal`` (a grevlex Groebner basis, as text, whose
        zero set is the singular locus of the reduced variety ``V(I)``; radical on the Singular route),
        ``locus_dimension`` (-1 when empty) and ``reason`` (why it is out of reach, else ``None``).

    Raises
    ------
    InputError
        Text that is not a polynomial; more than :data:`MAX_IDEAL_VARIABLES` variables,
        :data:`MAX_IDEAL_GENERATORS` generators, degree :data:`MAX_IDEAL_DEGREE`, :data:`MAX_IDEAL_MINORS`
        minors or :data:`MAX_IDEAL_WORK`; a ``codim`` other than the computed one; an unknown ``method``.
    ResourceError
        Singular ran past ``timeout`` seconds.

    Examples
    --------
    >>> r = ideal_singular_locus(["x^2 - y^3"])           # the cusp
    >>> r["locus_ideal"], r["singular_locus"], r["hypotheses"]["radical"]["holds"]
    (['y^2', 'x'], 'the origin', True)
    >>> ideal_singular_locus(["(x^2 + y^2 - 1)^2"])["singular_locus"]       # the reduced variety is a smooth circle
    'empty'
    >>> ideal_singular_locus(["x^2 - y^2*z"])["locus_ideal"]                # Whitney's umbrella: the z-axis
    ['y^2', 'y*z', 'x']
    >>> r = ideal_singular_locus(["a*e - b*d", "a*f - c*d", "b*f - c*e"])   # 2 x 3 matrices of rank <= 1
    >>> r["codim"], r["singular_locus"], r["hypotheses"]["equidimensional"]["holds"]
    (2, 'the origin', True)
    >>> r = ideal_singular_locus(["x^2", "x*y"], method="sympy")            # a line with an embedded point
    >>> r["singular_locus"], r["hypotheses"]["radical"]["holds"]
    ('out of reach', None)
    >>> ideal_singular_locus(["x^2 - y^3"], codim=2)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --codim=2: expected the codimension of V(I), which is 1 (dim V(I) = 1, from a Groebner basis of I)
    >>> ideal_singular_locus(["x^7 - y"])
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --ideal='x^7 - y': expected polynomials of degree at most 6 (MAX_IDEAL_DEGREE)

    References
    ----------
    .. [1] Cox, Little, O'Shea, *Ideals, Varieties, and Algorithms*, 4th ed. (2015), Ch. 9 Sec. 3 and 6.
    .. [2] Eisenbud, *Commutative Algebra with a View Toward Algebraic Geometry* (1995), Cor. 16.20 (the Jacobian
       criterion), Cor. 18.14 (unmixedness of complete intersections), Thm. 18.15 (Serre's criterion).
    .. [3] Greuel, Pfister, *A Singular Introduction to Commutative Algebra*, 2nd ed. (2008), Sec. 4.5 (``radical``,
       ``minAssGTZ``) and Sec. 5.7 (singular loci).
    """
    import sympy

    from algebra.models.polynomial import parse_generators

    texts = list(inputs.sequence(generators, "generators", "a list of polynomials such as ['x^2 - y^3']"))
    if not texts or len(texts) > MAX_IDEAL_GENERATORS:
        raise InputError("--ideal", texts, f"1 to {MAX_IDEAL_GENERATORS} generators (MAX_IDEAL_GENERATORS)")
    inputs.choice(method, "--method", IDEAL_METHODS)
    inputs.real(timeout, "--timeout", low=0, high=3600, low_open=True, allowed="a number of seconds in (0, 3600]")
    polys, names = parse_generators(texts, variables)
    n = len(names)
    if not names or n > MAX_IDEAL_VARIABLES:  # blame --variables only when the user gave it
        raise InputError("--variables" if variables else "--ideal", ",".join(names) if variables else texts,
                         f"polynomials in 1 to {MAX_IDEAL_VARIABLES} variables (MAX_IDEAL_VARIABLES)")
    for t, f in zip(texts, polys):
        if f.degree > MAX_IDEAL_DEGREE:
            raise InputError("--ideal", t, f"polynomials of degree at most {MAX_IDEAL_DEGREE} (MAX_IDEAL_DEGREE)")
    if codim is not None:
        inputs.integer(codim, "--codim", minimum=1, maximum=n, allowed=f"an integer between 1 and the number of variables {n}")
    nonzero = [f for f in polys if f.terms]
    m = len(nonzero)
    minors = max([comb(m, c) * comb(n, c) for c in range(1, min(m, n) + 1)] + [n])
    if minors > MAX_IDEAL_MINORS:
        raise InputError("--ideal", texts, f"at most {MAX_IDEAL_MINORS} Jacobian minors of one size "
                                           f"(MAX_IDEAL_MINORS; here up to {minors})")
    work = _ideal_work([f.degree for f in nonzero], n)
    if work > MAX_IDEAL_WORK:
        raise InputError("--ideal", texts, f"at most {MAX_IDEAL_WORK} monomials below the Macaulay degree "
                                           f"(MAX_IDEAL_WORK; here {work}: fewer variables, generators or degrees)")

    xs = _symbols(names)
    exprs = [_to_sympy(f, xs) for f in nonzero]
    base = _groebner(exprs, xs)
    zero_ideal = not exprs
    d = n if zero_ideal else _dimension(_leading_exponents(base, xs), n)
    c = None if d < 0 else n - d
    if codim is not None and codim != c:
        raise InputError("--codim", codim, "nothing: V(I) is empty" if c is None else
                         f"the codimension of V(I), which is {c} (dim V(I) = {d}, from a Groebner basis of I)")
    out = {"variables": list(names), "generators": [f.to_text() for f in polys], "dimension": d, "codim": c,
           "variety_empty": d < 0}

    def finish(radical, equidim, route, how, locus_basis, reason=None):
        out["hypotheses"] = {"radical": radical, "equidimensional": equidim}
        out["route"], out["method"], out["reason"] = route, how, reason
        if locus_basis is None:
            out.update(singular_locus="out of reach", locus_ideal=None, locus_dimension=None)
            return out
        ld = _dimension(_leading_exponents(locus_basis, xs), n)
        where = "empty" if ld < 0 else "the origin" if _is_origin(locus_basis, xs) else "V(locus_ideal)"
        out.update(singular_locus=where, locus_ideal=[_from_sympy_text(g, names) for g in locus_basis.exprs],
                   locus_dimension=ld)
        return out

    one = sympy.groebner([sympy.Integer(1)], *xs, order="grevlex")

    def check_jacobian(degrees, size):
        bezout = _jacobian_bezout(degrees, n, size)
        if bezout > MAX_JACOBIAN_BEZOUT:
            raise InputError("--ideal", texts, f"a Jacobian ideal (I + {size} x {size} minors) of Bezout number at "
                             f"most {MAX_JACOBIAN_BEZOUT} (MAX_JACOBIAN_BEZOUT; here {bezout}: fewer variables or "
                             "lower degrees, or --method singular)")

    if d < 0:
        return finish(_hypothesis(True, "I = (1): its reduced Groebner basis is [1]"),
                      _hypothesis(True, "V(I) is empty"), "sympy", "V(I) is empty (Groebner basis [1])", one)
    if zero_ideal:
        return finish(_hypothesis(True, "I = 0 is prime"), _hypothesis(True, f"V(I) is all of the {n}-space"),
                      "sympy", "V(I) is the whole affine space, which is smooth", one)
    if method == "singular":
        return _by_singular(out, finish, nonzero, names, xs, d, timeout, decided={})

    decided = {}
    locus = None
    if d == 0:
        check_jacobian([f.degree for f in nonzero], n)
        K = _groebner(exprs + _jacobian_ideal(exprs, xs, n), xs)
        reduced = list(K.exprs) == [1]
        decided["radical"] = _hypothesis(reduced, (
            f"I + ({n} x {n} Jacobian minors) = (1): the Jacobian has rank {n} at every point, so I is reduced there "
            "(Jacobian criterion, Eisenbud Cor. 16.20), and a zero-dimensional ideal has no embedded component"
            if reduced else
            f"the {n} x {n} Jacobian minors vanish at a point of V(I): I is not reduced there (Eisenbud Cor. 16.20)"))
        decided["equidimensional"] = _hypothesis(True, "V(I) is a finite set of points (dimension 0)")
        return finish(decided["radical"], decided["equidimensional"], "sympy",
                      "V(I) is a finite set of points, which is smooth (dimension 0, from a Groebner basis of I)", one)
    if len(base.exprs) == 1:
        g = base.exprs[0]
        g_red = sympy.sqf_part(g, *xs)
        squarefree = sympy.Poly(g_red, *xs).total_degree() == sympy.Poly(g, *xs).total_degree()
        red = _from_sympy_text(sympy.Poly(g_red, *xs).monic().as_expr(), names)
        decided["radical"] = _hypothesis(squarefree, "sympy squarefree factorization: I = (f) with f " + (
            "squarefree, so (f) is radical" if squarefree else f"not squarefree; rad I = ({red})"))
        decided["equidimensional"] = _hypothesis(True, "I is principal: every minimal prime has height 1 "
                                                       "(Krull's principal ideal theorem)")
        check_jacobian([sympy.Poly(g_red, *xs).total_degree()], 1)
        locus = _groebner([g_red] + _jacobian_ideal([g_red], xs, 1), xs)
        return finish(decided["radical"], decided["equidimensional"], "sympy",
                      f"Jacobian criterion on rad I = ({red}): V(f_red, grad f_red), sympy Groebner basis over Q", locus)

    check_jacobian([f.degree for f in nonzero], c)
    K = _groebner(exprs + _jacobian_ideal(exprs, xs, c), xs)
    dK = _dimension(_leading_exponents(K, xs), n)
    generically_reduced = dK < d
    complete_intersection = c in (m, len(base.exprs))
    if complete_intersection:
        decided["equidimensional"] = _hypothesis(True, f"I is generated by c = {c} elements, so it is unmixed "
                                                       "(Macaulay's unmixedness theorem, Eisenbud Cor. 18.14)")
    else:
        cm, cm_how = _cohen_macaulay(base, xs)
        decided["equidimensional"] = _hypothesis(True if cm else None, cm_how if cm else (
            f"not decided by sympy: I needs more than c = {c} generators, and {cm_how}"))
    unmixed = decided["equidimensional"]["holds"]
    if not generically_reduced:
        decided["radical"] = _hypothesis(False, (
            f"the {c} x {c} Jacobian minors vanish on a top-dimensional component (dim V(I + minors) = {dK} = "
            "dim V(I)): I is not reduced at its generic point (Jacobian criterion, Eisenbud Cor. 16.20)"))
    elif unmixed:
        decided["radical"] = _hypothesis(True, (
            f"generically reduced (dim V(I + {c} x {c} minors) = {dK} < {d}: Jacobian criterion, Eisenbud "
            "Cor. 16.20) and unmixed: reduced by Serre's criterion R0 + S1 (Eisenbud Thm. 18.15)"))
    else:
        decided["radical"] = _hypothesis(None, (
            f"generically reduced (dim V(I + {c} x {c} minors) = {dK} < {d}), but an embedded or lower-dimensional "
            "component is not excluded by sympy"))
    if decided["radical"]["holds"] and unmixed:
        return finish(decided["radical"], decided["equidimensional"], "sympy",
                      f"Jacobian criterion: V(I + {c} x {c} minors of the Jacobian), sympy Groebner basis over Q", K)
    return _by_singular(out, finish, nonzero, names, xs, d, timeout, decided=decided, allowed=method == "auto")


def _by_singular(out, finish, polys, names, xs, d, timeout, *, decided, allowed=True):
    """The Singular route of :func:`ideal_singular_locus` (or ``out of reach`` when it is not allowed/installed)."""
    failed = [f"{key}: " + ("no" if decided[key]["holds"] is False else "not decided") + f" ({decided[key]['how']})"
              for key in ("radical", "equidimensional") if key in decided and decided[key]["holds"] is not True]
    if not allowed or _find_singular() is None:
        why = "method='sympy' does not call Singular" if not allowed else "Singular is not installed"
        return finish(decided.get("radical", _hypothesis(None, "not checked")),
                      decided.get("equidimensional", _hypothesis(None, "not checked")), None, None, None,
                      reason="; ".join(failed + [f"Singular's radical and minAssGTZ (primdec.lib) would decide this "
                                                 f"and give the locus of the reduced variety, but {why}"]))
    s = _run_singular(polys, names, timeout=timeout)
    radical = _hypothesis(s["radical"], "Singular radical() (primdec.lib): rad I " + ("==" if s["radical"] else "!=")
                          + " I")
    dims = sorted(set(s["components"]))
    equidim = _hypothesis(len(dims) == 1, f"Singular minAssGTZ (primdec.lib): {len(s['components'])} minimal "
                                          f"prime(s) over Q, of dimension(s) {', '.join(map(str, s['components']))}")
    for key, mine in (("radical", radical), ("equidimensional", equidim)):
        if key in decided and decided[key]["holds"] is not None and decided[key]["holds"] != mine["holds"]:
            raise AlgebraError(f"sympy and Singular disagree on '{key}': {decided[key]['how']} / {mine['how']}")
    if s["dim"] != d:
        raise AlgebraError(f"sympy and Singular disagree on dim V(I): {d} / {s['dim']}")
    locus = _groebner([_to_sympy(p, xs) for p in s["locus"]], xs)
    return finish(radical, equidim, "singular",
                  "Singular: the Jacobian criterion on each minimal prime P_i (minAssGTZ) and V(P_i + P_j) for each "
                  "pair (Sing(V1 u V2) = Sing V1 u Sing V2 u (V1 n V2)), radical of the union", locus)


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
    inputs.choice(claim, "claim", STRATUM_CLAIMS)
    inputs.integer(points, "points", minimum=1, maximum=MAX_POINTS,
                   allowed=f"an integer between 1 and {MAX_POINTS} (MAX_POINTS, about a second each)")
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
