"""The field protocol: every field implements it, and all of them agree on one table of known values."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from algebra.engine.identities import ResidueField
from algebra.exact.field import Field, FloatField, PrimeField, RationalField
from algebra.exact.polynomial import Polynomial, PolynomialField, multiply_terms, symbolic_forward

FIELDS = {"GF(p)": PrimeField(1048573), "QQ": RationalField(), "float64": FloatField(),
          "GF(q)": ResidueField(2**127 - 1), "Q[t]": PolynomialField(0)}


def _value(F, v):
    """An element of F as a Fraction (reduced mod p for the prime fields)."""
    if isinstance(v, Polynomial):
        return v.evaluate({})
    return Fraction(v) if F.p is None else Fraction(int(v) % F.p)


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_every_field_implements_the_protocol_and_agrees(name):
    F = FIELDS[name]
    assert isinstance(F, Field)
    a, b = F.array([[1, 2], [3, 4]]), F.array([[5], [-1]])
    expect = [3, 11]  # [[1, 2], [3, 4]] @ [5, -1]
    want = [Fraction(v) if F.p is None else Fraction(v % F.p) for v in expect]
    assert [_value(F, v) for v in F.matmul(a, b).ravel()] == want
    z = F.array([2, 3])
    assert [_value(F, v) for v in F.polyval([1, 0, 2], z)] == [Fraction(9), Fraction(19)]  # 1 + 2 t^2
    assert F.matmul(F.zeros((2, 0)), F.zeros((0, 3))).shape == (2, 3)  # an empty inner dimension gives zeros
    assert _value(F, F.sub(F.mul(F.array([3]), F.ones(1)), F.array([1]))[0]) == Fraction(2)


def test_a_field_missing_an_operation_cannot_be_built():
    class NoMatmul(RationalField.__mro__[1]):  # NativeField: everything but scalar, array, matmul, polyval
        name, p, exact_rationals = "broken", None, True

        def scalar(self, c):
            return Fraction(c)

        def array(self, x):
            return np.asarray(x, dtype=object)

        def polyval(self, coeffs, z):  # pragma: no cover - never reached
            return z

    with pytest.raises(TypeError, match="matmul"):
        NoMatmul()


def test_the_product_is_the_polynomials_product():
    x, y = PolynomialField(2).variables()
    assert (x + y) * (x - y) == Polynomial(x.variables, multiply_terms((x + y).terms, (x - y).terms))
    assert ((x + y) * (x - y)).to_text() == "t0^2 - t1^2"


def test_symbolic_forward_evaluates_the_model_itself():
    """The polynomials at a point are the model's own forward pass there (QQ route)."""
    from algebra.models import MLP

    m = MLP((2, 2, 1), "t^2+t", bias=True)
    polys, params, inputs = symbolic_forward(m)
    theta, x = list(range(1, m.parameter_count + 1)), [3, -2]
    values = dict(zip(params + inputs, theta + x))
    Q = RationalField()
    assert [p.evaluate(values) for p in polys] == list(m.forward(Q.array(theta), Q.array([x]), Q).ravel())
