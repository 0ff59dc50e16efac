"""User-given polynomial maps ``theta -> (f_1(theta, x), ..., f_m(theta, x))``.

The polynomials are :class:`~algebra.models.polynomial.Polynomial` objects
(or text parsed safely, or sympy expressions converted term by term) in the
parameter variables and, optionally, input variables.  Jacobians are built
from the exact partial derivatives, evaluated vectorized over the samples.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import numpy as np

from algebra.errors import InputError
from algebra.models.base import Model
from algebra.models.polynomial import Polynomial, parse_polynomial

__all__ = ["PolynomialMap"]


def _from_sympy(expr, variables: tuple) -> Polynomial:
    import sympy

    poly = sympy.Poly(expr, *[sympy.Symbol(v) for v in variables])
    terms = {}
    for monom, coeff in poly.terms():
        c = sympy.Rational(coeff)
        terms[tuple(int(k) for k in monom)] = Fraction(int(c.p), int(c.q))
    return Polynomial(variables, terms)


class PolynomialMap(Model):
    """A polynomial map given by its component polynomials.

    Parameters
    ----------
    polynomials : sequence of str, Polynomial or sympy expressions
    parameters : sequence of str
        Parameter variable names (the Jacobian's columns, in this order).
    inputs : sequence of str, optional
        Input variable names (sample mode evaluates at generic inputs).

    Examples
    --------
    >>> m = PolynomialMap(["a*c", "a*d", "b*c", "b*d"], parameters="a b c d".split())
    >>> m.parameter_count, m.ambient_dimension()
    (4, 4)
    >>> PolynomialMap(["a*q"], parameters=["a"])
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid polynomials[0]='a*q': expected a polynomial in the variables a (got 'q')
    """

    family = "polynomial"

    def __init__(self, polynomials: Sequence, parameters: Sequence[str], inputs: Sequence[str] = ()):
        self.parameters = tuple(str(v) for v in parameters)
        self.inputs = tuple(str(v) for v in inputs)
        names = self.parameters + self.inputs
        if not self.parameters:
            raise InputError("parameters", parameters, "at least one parameter name")
        if len(set(names)) != len(names):
            raise InputError("parameters", names, "distinct variable names")
        polys = []
        for i, p in enumerate(polynomials):
            if isinstance(p, str):
                polys.append(parse_polynomial(p, variables=names, argument=f"polynomials[{i}]"))
            elif isinstance(p, Polynomial):
                if p.variables != names:
                    raise InputError(f"polynomials[{i}]", p.to_text(), f"a polynomial over the variables {names}")
                polys.append(p)
            else:
                polys.append(_from_sympy(p, names))
        if not polys:
            raise InputError("polynomials", polynomials, "at least one polynomial")
        self.polynomials = tuple(polys)
        P = len(self.parameters)
        self._derivs = [[p.derivative(v) for v in self.parameters] for p in polys]
        self._deg_x = max(max((sum(e[P:]) for e in p.terms), default=0) for p in polys)
        self._homog = len({sum(e[P:]) for p in polys for e in p.terms}) <= 1

    def param_blocks(self) -> list:
        return [("theta", (len(self.parameters),))]

    def spec(self) -> dict:
        return {
            "family": self.family,
            "parameters": list(self.parameters),
            "inputs": list(self.inputs),
            "polynomials": [p.to_json() for p in self.polynomials],
        }

    @property
    def n_inputs(self) -> int:
        return len(self.inputs)

    @property
    def n_outputs(self) -> int:
        return len(self.polynomials)

    @property
    def degree(self) -> int:
        return self._deg_x

    @property
    def homogeneous(self) -> bool:
        return self._homog

    def expected_dimension(self) -> int:
        return min(self.ambient_dimension(), self.parameter_count)

    def _eval(self, poly: Polynomial, theta, X, F) -> np.ndarray:
        P = len(self.parameters)
        M = X.shape[0]
        out = F.zeros(M)
        for e, c in poly.terms.items():
            term = F.zeros(M)
            term = F.add(term, F.scalar(c))
            for k, v in zip(e[:P], theta):
                if k:
                    for _ in range(k):
                        term = F.mul(term, v)
            for j, k in enumerate(e[P:]):
                for _ in range(k):
                    term = F.mul(term, X[:, j])
            out = F.add(out, term)
        return out

    def forward(self, theta, X, field) -> np.ndarray:
        F = field
        th = F.array(np.asarray(theta))
        Xf = F.array(X)
        return np.stack([self._eval(p, th, Xf, F) for p in self.polynomials], axis=1)

    def jacobian(self, theta, X, field) -> np.ndarray:
        F = field
        th = F.array(np.asarray(theta))
        Xf = F.array(X)
        M = Xf.shape[0]
        J = F.zeros((M, self.n_outputs, self.parameter_count))
        for o, row in enumerate(self._derivs):
            for j, dp in enumerate(row):
                if not dp.is_zero:
                    J[:, o, j] = self._eval(dp, th, Xf, F)
        return J.reshape(M * self.n_outputs, self.parameter_count)
