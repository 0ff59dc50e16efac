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
from algebra.inputs import sequence as _sequence
from algebra.exact.polynomial import sparse_polynomial
from algebra.models.base import Model
from algebra.models.polynomial import MAX_VARIABLES, Polynomial, parse_names, parse_polynomial

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
    parameters : str or sequence of str
        Parameter variable names (the Jacobian's columns, in this order): ``"a,c,d"`` or
        ``["a", "c", "d"]`` (read by :func:`algebra.models.polynomial.parse_names`, as ``--parameters`` is).
    inputs : str or sequence of str, optional
        Input variable names (sample mode evaluates at generic inputs), spelled like ``parameters``.
    symmetries : sequence of sequences, optional
        User kernel witnesses: each is a vector field given by one polynomial
        per parameter (in the parameter variables).  Each is *verified* on
        construction: ``sum_j (df_i/dtheta_j) X_j`` must be the zero
        polynomial for every output ``f_i``.
    equations : sequence, optional
        User left-kernel witnesses (maps without inputs only): polynomials in
        the output coordinates ``y1, ..., ym`` vanishing on the image.  Each is
        verified on construction: ``g(f_1, ..., f_m)`` must be the zero
        polynomial.  A witness that fails verification raises InputError.

    Examples
    --------
    >>> m = PolynomialMap(["a*c", "a*d", "b*c", "b*d"], parameters="a b c d".split())
    >>> m.parameter_count, m.ambient_dimension()
    (4, 4)
    >>> PolynomialMap(["a*c", "a*d"], parameters="a,c,d").parameters
    ('a', 'c', 'd')
    >>> m = PolynomialMap(["a*c", "a*d", "b*c", "b*d"], parameters="a b c d".split(),
    ...                   symmetries=[["a", "b", "-c", "-d"]], equations=["y1*y4 - y2*y3"])
    >>> m.symmetry_count(), len(m.image_equations())
    (1, 1)
    >>> PolynomialMap(["a*c"], parameters=["a", "c"], symmetries=[["a", "c"]])
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid symmetries[0]=['a', 'c']: expected a vector field X with J X = 0 identically (output 1 gives 2*a*c)
    >>> PolynomialMap(["a*q"], parameters=["a"])
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid polynomials[0]='a*q': expected a polynomial in the variables a (got 'q')
    """

    family = "polynomial"

    def __init__(
        self,
        polynomials: Sequence,
        parameters: Sequence[str],
        inputs: Sequence[str] = (),
        *,
        symmetries: Sequence = (),
        equations: Sequence = (),
    ):
        self.parameters = parse_names(parameters, argument="parameters")
        self.inputs = parse_names(inputs, argument="inputs")
        names = self.parameters + self.inputs
        if not self.parameters:
            raise InputError("parameters", parameters, "at least one parameter name")
        if len(set(names)) != len(names):
            raise InputError("parameters", names, "distinct variable names")
        if len(names) > MAX_VARIABLES:  # named by the larger of the two lists; refused before any polynomial is read
            raise InputError("inputs" if len(self.inputs) > len(self.parameters) else "parameters",
                             f"{len(names)} variables", f"at most {MAX_VARIABLES} parameters and inputs (MAX_VARIABLES)")
        polys = []
        for i, p in enumerate(_sequence(polynomials, "polynomials", "a list of polynomials (text or Polynomial)")):
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
        self.symmetries = tuple(self._check_symmetry(i, field) for i, field in enumerate(symmetries))
        self.equations = tuple(self._check_equation(i, g) for i, g in enumerate(equations))

    def _lift(self, poly: Polynomial) -> Polynomial:
        """A polynomial in the parameters, as one in parameters + inputs."""
        pad = (0,) * len(self.inputs)
        return Polynomial(self.parameters + self.inputs, {e + pad: c for e, c in poly.terms.items()})

    def _check_symmetry(self, i: int, field) -> tuple:
        arg = f"symmetries[{i}]"
        comps = list(field)
        if len(comps) != len(self.parameters):
            raise InputError(arg, field, f"{len(self.parameters)} polynomials, one per parameter")
        parsed = tuple(
            c if isinstance(c, Polynomial) and c.variables == self.parameters
            else parse_polynomial(str(c), variables=self.parameters, argument=arg)
            for c in comps
        )
        lifted = [self._lift(c) for c in parsed]
        for o, row in enumerate(self._derivs):
            total = Polynomial.constant(0, self.parameters + self.inputs)
            for dp, x in zip(row, lifted):
                total = total + dp * x
            if not total.is_zero:
                raise InputError(arg, field, f"a vector field X with J X = 0 identically (output {o + 1} gives {total.to_text()})")
        return parsed

    def _check_equation(self, i: int, g) -> Polynomial:
        arg = f"equations[{i}]"
        if self.inputs:
            raise InputError(arg, g, "no equations for a map with inputs (coefficient coordinates are not the outputs)")
        names = self.output_variables()
        poly = g if isinstance(g, Polynomial) and g.variables == names else parse_polynomial(str(g), variables=names, argument=arg)
        total = Polynomial.constant(0, self.parameters)
        for e, c in poly.terms.items():
            term = Polynomial.constant(c, self.parameters)
            for f, k in zip(self.polynomials, e):
                term = term * (f**k)
            total = total + term
        if not total.is_zero:
            raise InputError(arg, g, f"a polynomial vanishing on the image (composition gives {total.to_text()})")
        return poly

    def joint_degree(self) -> int:
        return max(max(p.degree, 1) for p in self.polynomials)

    def symmetry_degree(self) -> int:
        return max((c.degree for fld in self.symmetries for c in fld), default=1)

    def output_variables(self) -> tuple:
        """Names of the output coordinates used by image equations: ``y1, ..., ym``."""
        return tuple(f"y{i + 1}" for i in range(len(self.polynomials)))

    def symmetry_count(self) -> int:
        return len(self.symmetries)

    def symmetry_names(self) -> list:
        return [f"user vector field {i + 1}" for i in range(len(self.symmetries))]

    def symmetry_fields(self, theta, field) -> np.ndarray:
        F = field
        if not self.symmetries:
            return F.zeros((0, self.parameter_count))
        th = F.array(np.asarray(theta))
        X0 = F.zeros((1, 0))
        rows = [[self._eval(c, th, X0, F)[0] for c in fld] for fld in self.symmetries]
        out = F.zeros((len(rows), self.parameter_count))
        for i, row in enumerate(rows):
            for j, v in enumerate(row):
                out[i, j] = v
        return out

    def image_equations(self) -> list:
        return list(self.equations)

    def param_blocks(self) -> list:
        return [("theta", (len(self.parameters),))]

    def spec(self) -> dict:
        out = {
            "family": self.family,
            "parameters": list(self.parameters),
            "inputs": list(self.inputs),
            "polynomials": [p.to_json() for p in self.polynomials],
        }
        if self.symmetries:  # only present when given, so plain maps keep the short spec
            out["symmetries"] = [[c.to_json() for c in fld] for fld in self.symmetries]
        if self.equations:
            out["equations"] = [g.to_json() for g in self.equations]
        return out

    # -- certificate form (registered in :mod:`algebra.models.registry`) ------
    def to_spec(self) -> dict:
        """The map in the checker's self-contained form: the counts, the polynomials in sparse form
        (:func:`~algebra.exact.polynomial.sparse_polynomial`) and the variable names.

        Examples
        --------
        >>> m = PolynomialMap(["a*x - c/2"], parameters="a,c", inputs="x")
        >>> m.to_spec()
        {'family': 'polynomial', 'parameters': 2, 'inputs': 1, 'polynomials': [[[[[0, 1], [2, 1]], '1'], [[[1, 1]], '-1/2']]], 'names': ['a', 'c', 'x']}
        >>> PolynomialMap.from_spec(m.to_spec()).spec() == m.spec()
        True
        """
        return {
            "family": "polynomial",
            "parameters": len(self.parameters),
            "inputs": len(self.inputs),
            "polynomials": [sparse_polynomial(p) for p in self.polynomials],
            "names": list(self.parameters) + list(self.inputs),
        }

    @classmethod
    def from_spec(cls, spec: dict) -> "PolynomialMap":
        """Inverse of :meth:`to_spec` (names ``p0 ..``, ``x0 ..`` when the spec's are missing or not distinct)."""
        n, k = spec["parameters"], spec["inputs"]
        names = spec.get("names")
        ok = isinstance(names, list) and len(names) == n + k and len(set(map(str, names))) == n + k
        names = tuple(map(str, names)) if ok else tuple(f"p{i}" for i in range(n)) + tuple(f"x{i}" for i in range(k))
        polys = []
        for p in spec["polynomials"]:
            terms = {}
            for mono, c in p:
                e = [0] * len(names)
                for i, power in mono:
                    e[i] = power
                terms[tuple(e)] = Fraction(c)
            polys.append(Polynomial(names, terms))
        return cls(polys, parameters=names[:n], inputs=names[n:])

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
        return min(self.ambient_dimension(), self.parameter_count - self.symmetry_count())

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
