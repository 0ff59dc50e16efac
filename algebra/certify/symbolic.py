"""A field of polynomials: run a model's own ``symmetry_fields`` code symbolically.

:class:`PolynomialField` has the interface of :mod:`algebra.exact.field`
(``scalar``, ``array``, ``zeros``, ``add``, ``mul``, ...) on ``object`` arrays
of :class:`~algebra.models.polynomial.Polynomial`.  Evaluating
``model.symmetry_fields(theta, PolynomialField(P))`` with ``theta`` the vector
of the parameter variables ``t0 .. t{P-1}`` returns the kernel witnesses as
explicit polynomial vector fields, which a certificate can carry and the
checker can test (``J X = 0`` identically) without knowing where they came from.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from algebra.exact.field import RationalField
from algebra.models.polynomial import Polynomial

__all__ = ["PolynomialField", "symbolic_symmetry_fields", "sparse_polynomial"]


class PolynomialField(RationalField):
    """Arithmetic on object arrays of polynomials in ``nvars`` variables ``t0, t1, ...``.

    Examples
    --------
    >>> F = PolynomialField(2)
    >>> x, y = F.variables()
    >>> (F.mul(x, y) + F.scalar(1)).to_text()
    't0*t1 + 1'
    """

    exact_rationals = True
    p = None
    name = "Q[t]"

    def __init__(self, nvars: int):
        self.names = tuple(f"t{i}" for i in range(nvars))

    def variables(self) -> np.ndarray:
        out = np.empty(len(self.names), dtype=object)
        out[:] = [Polynomial.variable(v, self.names) for v in self.names]
        return out

    def scalar(self, c) -> Polynomial:
        return Polynomial.constant(Fraction(c), self.names)

    def _lift(self, v):
        return v if isinstance(v, Polynomial) else self.scalar(v)

    def polyval(self, coeffs, z):
        """``sum coeffs[i] z^i`` entrywise (Horner), coefficients lifted to constant polynomials."""
        z = np.asarray(z, dtype=object)
        out = self.full(z.shape, coeffs[-1])
        for c in reversed(coeffs[:-1]):
            out = out * z + self.scalar(c)
        return out

    def array(self, x) -> np.ndarray:
        a = np.asarray(x, dtype=object)
        out = np.empty(a.shape, dtype=object)
        out.ravel()[:] = [self._lift(v) for v in a.ravel()]
        return out


def symbolic_symmetry_fields(model) -> list:
    """The model's kernel witnesses as lists of ``P`` polynomials (one list per field)."""
    F = PolynomialField(model.parameter_count)
    S = model.symmetry_fields(F.variables(), F)
    return [[F._lift(v) for v in row] for row in S]


def sparse_polynomial(poly: Polynomial) -> list:
    """``[[[[var, exp], ...], "coef"], ...]`` sorted: the certificate's polynomial form.

    Examples
    --------
    >>> from algebra.models.polynomial import parse_polynomial
    >>> sparse_polynomial(parse_polynomial("x^2*z - y/2", variables=("x", "y", "z")))
    [[[[0, 2], [2, 1]], '1'], [[[1, 1]], '-1/2']]
    """
    out = []
    for e, c in poly.terms.items():
        mono = [[i, int(k)] for i, k in enumerate(e) if k]
        c = Fraction(c)
        out.append([mono, str(c.numerator) if c.denominator == 1 else f"{c.numerator}/{c.denominator}"])
    out.sort(key=lambda t: (t[0], t[1]))
    return out
