"""Kernel witnesses and polynomials in the certificate's form, from a model's own code run symbolically.

The field of polynomials is :class:`algebra.exact.polynomial.PolynomialField`
(re-exported here for callers of the old name).  Evaluating
``model.symmetry_fields(theta, PolynomialField(P))`` with ``theta`` the vector
of the parameter variables ``t0 .. t{P-1}`` returns the kernel witnesses as
explicit polynomial vector fields, which a certificate can carry and the
checker can test (``J X = 0`` identically) without knowing where they came from.
:func:`~algebra.exact.polynomial.sparse_polynomial` (the certificate's polynomial form) lives beside the
polynomials, in :mod:`algebra.exact.polynomial`, so that a model family writes its own spec with it.
"""

from __future__ import annotations

from algebra.exact.polynomial import PolynomialField, sparse_polynomial

__all__ = ["PolynomialField", "symbolic_symmetry_fields", "sparse_polynomial"]


def symbolic_symmetry_fields(model) -> list:
    """The model's kernel witnesses as lists of ``P`` polynomials (one list per field)."""
    F = PolynomialField(model.parameter_count)
    S = model.symmetry_fields(F.variables(), F)
    return [[F.lift(v) for v in row] for row in S]
