"""Kernel witnesses and polynomials in the certificate's form, from a model's own code run symbolically.

The field of polynomials is :class:`algebra.exact.polynomial.PolynomialField`
(re-exported here for callers of the old name).  Evaluating
``model.symmetry_fields(theta, PolynomialField(P))`` with ``theta`` the vector
of the parameter variables ``t0 .. t{P-1}`` returns the kernel witnesses as
explicit polynomial vector fields, which a certificate can carry and the
checker can test (``J X = 0`` identically) without knowing where they came from.
"""

from __future__ import annotations

from fractions import Fraction

from algebra.exact.polynomial import Polynomial, PolynomialField

__all__ = ["PolynomialField", "symbolic_symmetry_fields", "sparse_polynomial"]


def symbolic_symmetry_fields(model) -> list:
    """The model's kernel witnesses as lists of ``P`` polynomials (one list per field)."""
    F = PolynomialField(model.parameter_count)
    S = model.symmetry_fields(F.variables(), F)
    return [[F.lift(v) for v in row] for row in S]


def sparse_polynomial(poly: Polynomial) -> list:
    """``[[[[var, exp], ...], "coef"], ...]`` sorted: the certificate's polynomial form.

    Examples
    --------
    >>> from algebra.models import parse_polynomial
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
