"""Polynomial identities proven by Schwartz–Zippel at a random point modulo a fresh large prime.

Every probabilistic rung of the dimension engine reduces to an identity
``f(theta, x) = 0`` between polynomials with rational coefficients of total
degree at most ``D``:

* a *kernel field* ``X`` (a symmetry): ``J(theta, x) X(theta) = 0``
  (degree ``<= joint degree + field degree``);
* an *image equation* ``g``: ``g(F(theta)) = 0`` (degree ``<= deg g * joint degree``);
* the *Cramer fields* of a nonsingular ``r x r`` block ``J[R, B]`` of the
  Jacobian (rows ``R`` at fixed integer inputs): for every column ``c`` not in
  ``B`` the field ``det J[R,B] e_c - sum_i adj(J[R,B]) J[R, c]`` lies in
  ``ker J(theta, x)``, i.e. every row of ``J`` satisfies
  ``J[:, N] = J[:, B] J[R,B]^-1 J[R,N]`` (degree ``<= (r + 1) * joint degree``).
  When this holds the generic rank is at most ``r``: each row is determined by
  its ``B`` entries.

Schwartz–Zippel (Schwartz 1980, Zippel 1979): a nonzero polynomial of
degree ``D`` over ``GF(q)`` vanishes at a uniformly random point with
probability at most ``D / q``.  The identity has rational coefficients; it
can only reduce to zero modulo ``q`` when ``q`` divides the content of its
cleared numerator, and ``q`` is drawn from the ``~2^193`` primes of
``[2^200, 2^201)``, so (as in the independent checker,
:mod:`algebra.checker.rank`) that adds at most ``2^-120`` per point for
contents below ``2^(2^70)``; ``q`` is proven prime (``flint.fmpz.is_prime``,
after a BPSW screen).  Matrix identities are tested on a random
combination of their columns (one more factor ``1/q``).  The prime, the
point and the combinations are drawn from a seed stream independent of the
identity, so the result is reproducible from the seed (and calls with one
seed reuse one primality proof).  One point gives a failure probability below
``2^-119`` for degrees below ``2^80``; more points are taken until the bound
is below ``2^-60``.

Arithmetic modulo ``q`` runs through :class:`ResidueField` (object arrays of
Python ints, an :class:`algebra.exact.field.Field` like :class:`~algebra.exact.field.PrimeField`),
so every model evaluates its Jacobian there unchanged; matrix products of
:data:`FLINT_MATMUL_MIN` scalar products or more go through ``flint.fmpz_mat``
(exact products over Z, then reduced), linear algebra modulo ``q`` through
``flint.fmpz_mod_mat``.

**Memory.** The kernel-field identity needs only the vector ``J v`` for
``v = X(theta)^T c``, never ``J`` itself; a model with a
``symmetry_combination(theta, c, field)`` method (the MLP) returns ``v``
without forming the ``s x P`` fields over the 200-bit field (the same
polynomial vector, so the same identity and bound).  Above :data:`JVP_MIN_ENTRIES`
Jacobian entries it is computed from ``D + 1`` forward evaluations
``F(theta + t v, x)``, ``t = 0..D`` (``D`` the joint degree bounds the
degree in ``t``), by exact Lagrange interpolation of the linear coefficient
(:func:`jacobian_vector_product`): the same polynomial identity, so the
same failure bound, at the memory of ``D + 1`` outputs instead of a
``n_outputs x P`` array of 200-bit integers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from fractions import Fraction
from math import floor, log2

import numpy as np

from algebra.errors import InputError, ResourceError
from algebra.exact.field import ModularArithmetic, NativeField

__all__ = ["ResidueField", "random_prime", "IdentityCheck", "failure_bound", "kernel_fields_hold",
           "cramer_fields_hold", "image_equations_hold", "jacobian_vector_product", "SZ_BITS", "TARGET_BITS",
           "JVP_MIN_ENTRIES", "JVP_MAX_DEGREE", "FLINT_MATMUL_MIN"]

SZ_BITS = 200  # the identity primes live in [2^200, 2^201)
TARGET_BITS = 60  # every probabilistic rung fails with probability below 2^-60
_CONTENT = Fraction(1, 2**120)  # q divides the content of a nonzero identity (see the module docstring)
#: Above this many Jacobian entries (``n_outputs x P`` at one input) the kernel-field test uses
#: :func:`jacobian_vector_product` instead of forming ``J`` over the 200-bit field.
JVP_MIN_ENTRIES = 1_000_000
#: :meth:`ResidueField.matmul` multiplies through ``flint.fmpz_mat`` from this many scalar products (numpy's
#: object loop below: converting the operands costs about as much as 2,000 products of 200-bit integers).
FLINT_MATMUL_MIN = 4096
#: ... and when the joint degree is at most this (the product costs ``joint degree + 1`` forward evaluations).
JVP_MAX_DEGREE = 256


class ResidueField(ModularArithmetic, NativeField):
    """``GF(q)`` for a prime ``q`` of any size, on ``object`` arrays of Python ints in ``[0, q)``.

    Examples
    --------
    >>> G = ResidueField(2**127 - 1)
    >>> G.matmul(G.array([[1, 2]]), G.array([[Fraction(1, 2)], [3]])).tolist() == [[(2**126 + 6) % (2**127 - 1)]]
    True
    >>> G.polyval([1, 0, 1], G.array([2]))[0]        # 1 + t^2 at t = 2
    5
    """

    exact_rationals = False

    def __init__(self, q: int):
        if isinstance(q, bool) or not isinstance(q, int) or q < 3:
            raise InputError("q", q, "a prime >= 3")
        self.p = int(q)
        self.name = f"GF({q})"

    def __repr__(self) -> str:
        return f"ResidueField({self.p})"

    def scalar(self, c) -> int:
        if isinstance(c, (int, np.integer)):
            return int(c) % self.p
        c = Fraction(c)
        return c.numerator * pow(c.denominator, -1, self.p) % self.p

    def array(self, x) -> np.ndarray:
        a = np.asarray(x)
        out = np.empty(a.shape, dtype=object)
        out.ravel()[:] = [self.scalar(v) for v in a.ravel()]
        return out

    def matmul(self, a, b):
        if a.shape[-1] == 0:
            return self.zeros(a.shape[:-1] + b.shape[-1:])
        if a.ndim == b.ndim == 2 and a.shape[0] * a.shape[1] * b.shape[1] >= FLINT_MATMUL_MIN:
            product = _fmpz_product(a, b)  # the same integers as numpy's object loop, ~2.5x faster
            if product is not None:
                out = np.empty(product.nrows() * product.ncols(), dtype=object)
                out[:] = [int(v) % self.p for v in product.entries()]
                return out.reshape(a.shape[0], b.shape[1])
        return np.matmul(a, b) % self.p

    def polyval(self, coeffs, z):
        cs = [self.scalar(c) for c in coeffs]
        out = self.full(np.shape(z), cs[-1])
        for c in reversed(cs[:-1]):
            out = (out * z + c) % self.p
        return out


def _fmpz_product(a: np.ndarray, b: np.ndarray):
    """``a @ b`` over Z as a ``flint.fmpz_mat``, or None unless every entry is a Python ``int``."""
    import flint

    entries = []
    for x in (a, b):
        flat = x.ravel().tolist()
        if not all(type(v) is int for v in flat):  # never truncate a Fraction or a float: numpy's loop takes them
            return None
        entries.append(flat)
    return flint.fmpz_mat(a.shape[0], a.shape[1], entries[0]) * flint.fmpz_mat(b.shape[0], b.shape[1], entries[1])


@lru_cache(maxsize=256)
def _next_prime(n: int) -> int:
    """The least proven prime ``>= n`` (BPSW screens the candidates, ``fmpz.is_prime`` proves the survivor).

    A pure function of ``n``: every call of the engine with the same seed reuses the proof.
    """
    import flint

    n |= 1
    while not (flint.fmpz(n).is_probable_prime() and flint.fmpz(n).is_prime()):
        n += 2
    return n


def random_prime(rng: np.random.Generator, bits: int = SZ_BITS) -> int:
    """A random proven prime in ``[2^bits, 2^(bits+1))``: the next prime after a point drawn from ``rng``.

    Examples
    --------
    >>> q = random_prime(np.random.default_rng(0))
    >>> q.bit_length(), q % 2
    (201, 1)
    """
    return _next_prime(int.from_bytes(rng.bytes(bits // 8 + 1), "big") % (1 << bits) | (1 << bits))


def failure_bound(degree: int, points: int = 1) -> Fraction:
    """Probability that a false identity of this degree passes ``points`` random points.

    Per point: the identity (times a random combination, one more degree)
    vanishes at the point (``(degree + 1) / q``), or ``q`` divides its content
    (``2^-120``).  ``q`` is a proven prime.
    """
    per_point = Fraction(max(int(degree), 1) + 1, 2**SZ_BITS) + _CONTENT
    return per_point**points


@dataclass(frozen=True)
class IdentityCheck:
    """The outcome of testing an identity: did it hold, at how many points, with what failure bound."""

    holds: bool
    degree: int
    points: int
    what: str

    @property
    def failure_log2(self) -> int:
        """``k`` with failure probability ``<= 2^-k`` (meaningful when ``holds``)."""
        bound = failure_bound(self.degree, self.points)
        k = floor(-log2(bound)) + 1  # float log2 may round up; settle it exactly
        while bound > Fraction(1, 2**k):
            k -= 1
        return k

    def to_json(self) -> dict:
        return {"identity": self.what, "holds": self.holds, "degree": self.degree, "points": self.points,
                "failure_probability": f"<= 2^-{self.failure_log2}", "failure_log2": -self.failure_log2}


def _points_needed(degree: int) -> int:
    if failure_bound(degree) >= Fraction(1, 2):  # no number of points would reach the target
        raise ResourceError(f"an identity of degree {degree} is too high to test modulo a {SZ_BITS}-bit prime "
                            f"(Schwartz–Zippel needs degree < 2^{SZ_BITS - 1})")
    k = 1
    while failure_bound(degree, k) >= Fraction(1, 2**TARGET_BITS):
        k += 1
    return k


def _fmpz_mod_mat(A, q: int):
    import flint

    A = np.asarray(A, dtype=object)
    rows, cols = A.shape
    return flint.fmpz_mod_mat(rows, cols, [int(v) for v in A.ravel()], flint.fmpz_mod_ctx(q))


def _random_vector(rng, n: int, G: ResidueField) -> np.ndarray:
    """``n`` residues modulo ``G.p`` from ``SZ_BITS + 16`` random bits each (one draw from ``rng``).

    Each residue has probability at most ``(1 + 2^-15) / q``, which is what the Schwartz–Zippel bound needs
    (the lemma holds for independent coordinates whose values each have probability ``<= 1/q`` up to that factor).
    """
    width = SZ_BITS // 8 + 2
    data = rng.bytes(width * n)
    out = np.empty(n, dtype=object)
    out[:] = [int.from_bytes(data[k * width : (k + 1) * width], "big") % G.p for k in range(n)]
    return out


def _random_point(model, rng, G: ResidueField):
    theta = _random_vector(rng, model.parameter_count, G)
    return theta, _random_vector(rng, model.n_inputs, G).reshape(1, model.n_inputs)


def _combine_rows(c: np.ndarray, S: np.ndarray, G: ResidueField) -> np.ndarray:
    """``c^T S`` over ``G`` touching only the nonzero entries of ``S`` (symmetry fields are sparse).

    The same vector as ``G.matmul(c[None, :], S)[0]``: the zero entries add nothing.
    """
    i, j = np.nonzero(S != 0)  # one comparison per entry, then a boolean scan (faster than nonzero on objects)
    v = np.zeros(S.shape[1], dtype=object)
    if i.size:
        order = np.argsort(j, kind="stable")
        js = j[order]
        starts = np.flatnonzero(np.r_[True, js[1:] != js[:-1]])
        v[js[starts]] = np.add.reduceat((c[i] * S[i, j])[order], starts) % G.p
    return v


def _run(model, rng, degree: int, what: str, test) -> IdentityCheck:
    points = _points_needed(degree)
    for _ in range(points):
        G = ResidueField(random_prime(rng))
        theta, x = _random_point(model, rng, G)
        if not test(G, theta, x):
            return IdentityCheck(False, degree, points, what)
    return IdentityCheck(True, degree, points, what)


@lru_cache(maxsize=64)
def _derivative_weights(degree: int) -> tuple:
    """``w_t`` with ``g'(0) = sum_t w_t g(t)`` for every polynomial ``g`` of degree ``<= degree`` (nodes ``0..degree``)."""
    nodes = range(degree + 1)
    weights = []
    for k in nodes:
        others = [m for m in nodes if m != k]
        denominator = 1
        for m in others:
            denominator *= k - m
        # d/dt prod_{m != k} (t - m) at t = 0
        numerator = 0
        for m in others:
            term = 1
            for l in others:
                if l != m:
                    term *= -l
            numerator += term
        weights.append(Fraction(numerator, denominator))
    return tuple(weights)


def jacobian_vector_product(model, theta, x, v, G: ResidueField) -> np.ndarray:
    """``J(theta, x) v`` over ``G`` (flattened like the Jacobian's rows) from forward evaluations only.

    ``t -> F(theta + t v, x)`` is a polynomial of degree ``<= D`` (the joint
    degree), so its derivative at 0 is ``sum_t w_t F(theta + t v, x)`` over
    the nodes ``t = 0..D`` with the Lagrange weights ``w_t``: exact in GF(q)
    (``q > D``).

    Examples
    --------
    >>> from algebra.models import QueryKey
    >>> m, G = QueryKey(3, 2), ResidueField(2**127 - 1)
    >>> th, v = G.array(np.arange(1, 13)), G.array(np.arange(5, 17))
    >>> x = np.zeros((1, 0), dtype=np.int64)
    >>> bool((jacobian_vector_product(m, th, x, v, G) == G.matmul(m.jacobian(th, x, G), v[:, None]).ravel()).all())
    True
    """
    out = None
    for t, w in enumerate(_derivative_weights(int(model.joint_degree()))):
        if w == 0:
            continue
        y = model.forward(G.add(theta, G.mul(v, G.scalar(t))), x, G).ravel()
        term = G.mul(y, G.scalar(w))
        out = term if out is None else G.add(out, term)
    return out


def kernel_fields_hold(model, rng: np.random.Generator) -> IdentityCheck:
    """Schwartz–Zippel test of ``J(theta, x) X_j(theta) = 0`` for every symmetry field of ``model``.

    Examples
    --------
    >>> from algebra.models import QueryKey
    >>> c = kernel_fields_hold(QueryKey(3, 2), np.random.default_rng(0))
    >>> c.holds, c.failure_log2 >= 60
    (True, True)
    """
    degree = model.joint_degree() + model.symmetry_degree()
    # D + 1 forward evaluations: only for moderate joint degrees (deep high-degree chains form J instead)
    jvp = model.n_outputs * model.parameter_count > JVP_MIN_ENTRIES and model.joint_degree() <= JVP_MAX_DEGREE

    combination = getattr(model, "symmetry_combination", None)  # c^T S without forming S, where a model has it

    def test(G, theta, x):
        # J S^T != 0 implies J S^T c != 0 for all but a 1/q fraction of combinations c
        if combination is not None:
            if not model.symmetry_count():
                return True
            v = combination(theta, _random_vector(rng, model.symmetry_count(), G), G)
        else:
            S = model.symmetry_fields(theta, G)
            if not S.shape[0]:
                return True
            v = _combine_rows(_random_vector(rng, S.shape[0], G), S, G)
        if jvp:  # J v without J (module docstring)
            return not any(jacobian_vector_product(model, theta, x, v, G))
        return not any(G.matmul(model.jacobian(theta, x, G), v[:, None]).ravel())

    route = " (J v from forward evaluations)" if jvp else ""
    return _run(model, rng, degree, f"{model.symmetry_count()} symmetry fields in ker J{route}", test)


def image_equations_hold(model, rng: np.random.Generator) -> IdentityCheck:
    """Schwartz–Zippel test of ``g(F(theta)) = 0`` for every image equation of ``model`` (no inputs)."""
    degree = model.image_equation_degree() * model.joint_degree()

    def test(G, theta, x):
        return not any(model.image_equation_values(theta, G))

    return _run(model, rng, degree, f"{model.image_equation_count()} image equations vanish on the image", test)


def cramer_fields_hold(model, jacobians, rows: tuple, cols: tuple, rng: np.random.Generator) -> IdentityCheck:
    """Schwartz–Zippel test of the Cramer fields of the block ``J[rows, cols]``.

    ``jacobians(theta, x, G)`` returns ``(JR, J)`` over ``G``: the Jacobian rows
    ``rows`` (in that order) at ``theta``, and rows spanning every output at
    the random input ``x`` (sample mode) or the whole Jacobian (coefficient
    mode, no inputs).
    """
    r = len(rows)
    degree = (r + 1) * model.joint_degree()
    P = model.parameter_count
    N = [c for c in range(P) if c not in set(cols)]

    def test(G, theta, x):
        if not N:
            return True
        # every row of J must satisfy J[:, N] = J[:, B] Y with Y = J[R,B]^-1 J[R,N]; tested on a
        # random combination c of the columns N (a nonzero J[:, N] - J[:, B] Y survives it but for 1/q)
        c = _random_vector(rng, len(N), G)[:, None]
        JR, J = jacobians(theta, x, G)
        try:
            y = _fmpz_mod_mat(JR[:, list(cols)], G.p).solve(_fmpz_mod_mat(G.matmul(JR[:, N], c), G.p))
        except ZeroDivisionError:  # the block is singular at this point: the identity is not shown
            return False
        y = G.array(np.array([[int(y[i, 0])] for i in range(r)], dtype=object).reshape(r, 1))
        return not any(G.sub(G.matmul(J[:, N], c), G.matmul(J[:, list(cols)], y)).ravel())

    return _run(model, rng, degree, f"{P - r} Cramer fields of a {r}x{r} block in ker J", test)
