"""Sparse polynomials over Q, their one product, and the field of polynomials models evaluate through.

* :class:`Polynomial` -- a sparse multivariate polynomial with Fraction
  coefficients over an explicit tuple of variable names (the text parser,
  :func:`algebra.models.polynomial.parse_polynomial`, builds them);
* :func:`multiply_terms` -- the product of two sparse polynomials given as
  ``{exponents: coefficient}`` dicts, with the term budget every caller shares;
* :class:`PolynomialField` -- the :class:`~algebra.exact.field.Field` of
  polynomials in ``t0, t1, ...`` on ``object`` arrays: running a model's own
  ``forward``, ``jacobian`` or ``symmetry_fields`` code over it returns the
  outputs, the Jacobian or the kernel witnesses as explicit polynomials;
* :func:`symbolic_forward` -- the one symbolic evaluator: a model's outputs as
  polynomials in its free parameters and its inputs;
* :func:`sparse_polynomial` -- a polynomial in the certificate's (and the checker's) sparse form.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Sequence

import numpy as np

from algebra.errors import InputError
from algebra.exact.field import NativeField

__all__ = ["MAX_TERMS", "Polynomial", "PolynomialField", "multiply_terms", "sparse_polynomial", "symbolic_forward"]

#: Terms a product may have (hostile input cannot exhaust memory).
MAX_TERMS = 20_000


def multiply_terms(a: Mapping, b: Mapping, *, max_terms: int = MAX_TERMS) -> dict:
    """The product of two sparse polynomials ``{exponents: coefficient}`` (exponent tuples of one length).

    Zero coefficients are dropped; more than ``max_terms`` terms raise.

    Raises
    ------
    InputError
        When the product grows past ``max_terms`` terms.

    Examples
    --------
    >>> multiply_terms({(1, 0): Fraction(1), (0, 1): Fraction(1)}, {(1, 0): Fraction(1), (0, 1): Fraction(-1)})
    {(2, 0): Fraction(1, 1), (0, 2): Fraction(-1, 1)}
    >>> multiply_terms({(k,): 1 for k in range(3)}, {(3 * k,): 1 for k in range(3)}, max_terms=5)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid polynomial='(product)': expected at most 5 terms
    """
    out: dict = {}
    for e1, c1 in a.items():
        for e2, c2 in b.items():
            e = tuple(x + y for x, y in zip(e1, e2))
            s = out.get(e, 0) + c1 * c2
            if s:
                out[e] = s
            else:
                out.pop(e, None)
        if len(out) > max_terms:
            raise InputError("polynomial", "(product)", f"at most {max_terms} terms")
    return out


@dataclass(frozen=True)
class Polynomial:
    """A sparse multivariate polynomial with rational coefficients.

    Parameters
    ----------
    variables : tuple of str
        Variable names, in the order of the exponent tuples.
    terms : dict
        ``{exponents: Fraction}`` with no zero coefficients.

    Examples
    --------
    >>> p = Polynomial(("x", "y"), {(2, 0): Fraction(1), (1, 1): Fraction(-2), (0, 0): Fraction(1, 2)})
    >>> p.to_text(), p.degree
    ('x^2 - 2*x*y + 1/2', 2)
    >>> p.evaluate({"x": 3, "y": 1})
    Fraction(7, 2)
    >>> p.derivative("x").to_text()
    '2*x - 2*y'
    """

    variables: tuple
    terms: Mapping

    # -- construction -------------------------------------------------------
    @classmethod
    def constant(cls, c, variables: Sequence[str]) -> "Polynomial":
        c = Fraction(c)
        n = len(variables)
        return cls(tuple(variables), {(0,) * n: c} if c else {})

    @classmethod
    def variable(cls, name: str, variables: Sequence[str]) -> "Polynomial":
        variables = tuple(variables)
        e = tuple(1 if v == name else 0 for v in variables)
        return cls(variables, {e: Fraction(1)})

    # -- arithmetic ---------------------------------------------------------
    def _check(self, other: "Polynomial") -> None:
        if self.variables != other.variables:
            raise ValueError("polynomials over different variables")

    def __add__(self, other: "Polynomial") -> "Polynomial":
        self._check(other)
        out = dict(self.terms)
        for e, c in other.terms.items():
            s = out.get(e, 0) + c
            if s:
                out[e] = s
            else:
                out.pop(e, None)
        return Polynomial(self.variables, out)

    def __neg__(self) -> "Polynomial":
        return Polynomial(self.variables, {e: -c for e, c in self.terms.items()})

    def __sub__(self, other: "Polynomial") -> "Polynomial":
        return self + (-other)

    def __mul__(self, other: "Polynomial") -> "Polynomial":
        self._check(other)
        return Polynomial(self.variables, multiply_terms(self.terms, other.terms))

    def scale(self, c) -> "Polynomial":
        c = Fraction(c)
        if not c:
            return Polynomial(self.variables, {})
        return Polynomial(self.variables, {e: c * v for e, v in self.terms.items()})

    def __pow__(self, k: int) -> "Polynomial":
        result = Polynomial.constant(1, self.variables)
        for _ in range(k):
            result = result * self
        return result

    # -- queries ------------------------------------------------------------
    @property
    def degree(self) -> int:
        """Total degree (``-1`` for the zero polynomial)."""
        return max((sum(e) for e in self.terms), default=-1)

    @property
    def is_zero(self) -> bool:
        return not self.terms

    def is_constant(self) -> bool:
        return all(sum(e) == 0 for e in self.terms)

    def derivative(self, name: str) -> "Polynomial":
        i = self.variables.index(name)
        out = {}
        for e, c in self.terms.items():
            if e[i]:
                f = list(e)
                f[i] -= 1
                out[tuple(f)] = c * e[i]
        return Polynomial(self.variables, out)

    def evaluate(self, values: Mapping[str, object]) -> Fraction:
        """Exact value at a point given as ``{name: number}``."""
        point = [Fraction(values[v]) for v in self.variables]
        total = Fraction(0)
        for e, c in self.terms.items():
            term = c
            for x, k in zip(point, e):
                if k:
                    term *= x**k
            total += term
        return total

    def evaluate_mod(self, values: Sequence[int], p: int) -> int:
        """Value modulo the prime ``p`` at an integer point (ordered as ``variables``)."""
        total = 0
        for e, c in self.terms.items():
            term = c.numerator * pow(c.denominator, -1, p)
            for x, k in zip(values, e):
                if k:
                    term = term * pow(x, k, p) % p
            total += term
        return total % p

    def coefficients_univariate(self) -> list:
        """Coefficient list ``[c0, c1, ...]`` of a univariate polynomial."""
        if len(self.variables) != 1:
            raise ValueError("not univariate")
        deg = max(self.degree, 0)
        coeffs = [Fraction(0)] * (deg + 1)
        for (k,), c in self.terms.items():
            coeffs[k] = c
        return coeffs

    def to_text(self) -> str:
        """Canonical text form (re-parses to the same polynomial)."""
        if not self.terms:
            return "0"
        parts = []
        for e in sorted(self.terms, key=lambda e: (-sum(e), tuple(-k for k in e))):
            c = self.terms[e]
            mono = "*".join(
                (v if k == 1 else f"{v}^{k}") for v, k in zip(self.variables, e) if k
            )
            mag = abs(c)
            if mono and mag == 1:
                body = mono
            elif mono:
                body = f"{_fraction_text(mag)}*{mono}"
            else:
                body = _fraction_text(mag)
            sign = "-" if c < 0 else "+"
            parts.append((sign, body))
        first_sign, first = parts[0]
        text = ("-" if first_sign == "-" else "") + first
        for sign, body in parts[1:]:
            text += f" {sign} {body}"
        return text

    def to_json(self) -> list:
        """Canonical JSON form: sorted list of ``[exponents, "p/q"]`` pairs."""
        return [[list(e), _fraction_text(c)] for e, c in sorted(self.terms.items())]


def sparse_polynomial(poly: Polynomial) -> list:
    """``[[[[var, exp], ...], "coef"], ...]`` sorted: the certificate's polynomial form.

    Variables are indices into ``poly.variables``; coefficients are exact strings.

    Examples
    --------
    >>> sparse_polynomial(Polynomial(("x", "y", "z"), {(2, 0, 1): 1, (0, 1, 0): Fraction(-1, 2)}))
    [[[[0, 2], [2, 1]], '1'], [[[1, 1]], '-1/2']]
    """
    out = []
    for e, c in poly.terms.items():
        out.append([[[i, int(k)] for i, k in enumerate(e) if k], _fraction_text(c)])
    out.sort(key=lambda t: (t[0], t[1]))
    return out


def _fraction_text(c: Fraction) -> str:
    c = Fraction(c)
    return str(c.numerator) if c.denominator == 1 else f"{c.numerator}/{c.denominator}"


class PolynomialField(NativeField):
    """The :class:`~algebra.exact.field.Field` ``Q[t0, ..., t{nvars-1}]`` on object arrays of :class:`Polynomial`.

    Constants are lifted to constant polynomials; the arithmetic is the
    polynomials' own (:func:`multiply_terms`).

    Examples
    --------
    >>> F = PolynomialField(2)
    >>> x, y = F.variables()
    >>> (F.mul(x, y) + F.scalar(1)).to_text()
    't0*t1 + 1'
    >>> F.matmul(F.array([[x, 1]]), F.array([[y], [2]]))[0, 0].to_text()
    't0*t1 + 2'
    >>> F.polyval([0, 1, 1], F.array([x]))[0].to_text()       # t + t^2 at t0
    't0^2 + t0'
    """

    exact_rationals = True
    p = None
    name = "Q[t]"

    def __init__(self, nvars: int):
        if isinstance(nvars, bool) or not isinstance(nvars, (int, np.integer)) or nvars < 0:
            raise InputError("nvars", nvars, "an integer >= 0")
        self.names = tuple(f"t{i}" for i in range(int(nvars)))

    def __repr__(self) -> str:
        return f"PolynomialField({len(self.names)})"

    def variables(self) -> np.ndarray:
        """The variables ``t0 .. t{nvars-1}`` as an object array."""
        out = np.empty(len(self.names), dtype=object)
        out[:] = [Polynomial.variable(v, self.names) for v in self.names]
        return out

    def scalar(self, c) -> Polynomial:
        return Polynomial.constant(Fraction(c), self.names)

    def lift(self, v) -> Polynomial:
        """``v`` itself when it is a polynomial, else the constant polynomial ``v``."""
        return v if isinstance(v, Polynomial) else self.scalar(v)


    def array(self, x) -> np.ndarray:
        a = np.asarray(x, dtype=object)
        out = np.empty(a.shape, dtype=object)
        out.ravel()[:] = [self.lift(v) for v in a.ravel()]
        return out

    def matmul(self, a, b):
        if a.shape[-1] == 0:
            return self.zeros(a.shape[:-1] + b.shape[-1:])
        return np.matmul(a, b)

    def polyval(self, coeffs, z):
        """``sum coeffs[i] z^i`` entrywise (Horner), coefficients lifted to constant polynomials."""
        z = np.asarray(z, dtype=object)
        out = self.full(z.shape, coeffs[-1])
        for c in reversed(coeffs[:-1]):
            out = out * z + self.scalar(c)
        return out


def symbolic_forward(model, theta=None) -> tuple:
    """``(outputs, parameters, inputs)``: ``model``'s outputs as polynomials in its free parameters and its inputs.

    Runs the model's own ``forward`` over a :class:`PolynomialField` (small
    models only: every output is expanded).

    Parameters
    ----------
    model : algebra.models.Model
    theta : sequence, optional
        One entry per parameter: a rational (that parameter fixed) or ``None``
        (a variable); all variables when omitted.  The free parameters are
        ``t0 ..`` in order, the inputs the next variables.

    Returns
    -------
    tuple
        The outputs (a list of :class:`Polynomial`, flattened like
        ``forward``'s one row), the parameter names and the input names.

    Examples
    --------
    >>> from algebra.models import QueryKey
    >>> polys, params, inputs = symbolic_forward(QueryKey(2, 1))
    >>> [p.to_text() for p in polys][:2], params, inputs
    (['t0*t2', 't0*t3'], ('t0', 't1', 't2', 't3'), ())
    >>> polys, params, _ = symbolic_forward(QueryKey(2, 1), theta=[1, None, 3, None])
    >>> [p.to_text() for p in polys], params
    (['3', 't1', '3*t0', 't0*t1'], ('t0', 't1'))
    >>> symbolic_forward(QueryKey(2, 1), theta=[1, 2])
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid theta=[1, 2]: expected 4 entries (a rational or None each)
    """
    P, n = model.parameter_count, model.n_inputs
    if theta is None:
        theta = [None] * P
    theta = list(theta)
    if len(theta) != P:
        raise InputError("theta", theta, f"{P} entries (a rational or None each)")
    free = sum(v is None for v in theta)
    F = PolynomialField(free + n)
    v = F.variables()
    point = np.empty(P, dtype=object)
    k = 0
    for i, t in enumerate(theta):
        if t is None:
            point[i] = v[k]
            k += 1
        else:
            point[i] = F.scalar(t)
    X = v[free:].reshape(1, n) if n else np.zeros((1, 0), dtype=object)
    out = np.asarray(model.forward(point, X, F)).ravel()
    return [F.lift(y) for y in out], F.names[:free], F.names[free:]
