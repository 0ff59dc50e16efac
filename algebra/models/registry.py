"""The one table of model families a certificate can carry, and the two functions that use it.

A family owns its certificate form: its class writes it (``to_spec``, the
self-contained spec the independent checker evaluates) and reads it back
(``from_spec``).  :data:`SPEC_FAMILIES` lists those classes, and it is the only
place that dispatches on a family's name: :mod:`algebra.certify` calls
:func:`to_spec`, :func:`from_spec` and :func:`has_spec`, never a family by name.
A model of any other family (a secant map, a Segre-Veronese cone) is certified
as its polynomial map (:func:`as_polynomial_map`, through the one symbolic
evaluator :func:`algebra.exact.polynomial.symbolic_forward`).

Adding a family: its module in ``algebra/models/`` defines the model with
``to_spec`` / ``from_spec``, and its class joins :data:`SPEC_FAMILIES`
(``CONTRIBUTING.md``, "Adding a model family").
"""

from __future__ import annotations

from algebra.errors import InputError
from algebra.exact.polynomial import symbolic_forward
from algebra.models.attention import LightningAttention
from algebra.models.base import Model
from algebra.models.cnn import CNN
from algebra.models.factorization import DeepLinear, QueryKey
from algebra.models.mlp import MLP
from algebra.models.polymap import PolynomialMap

__all__ = ["SPEC_FAMILIES", "as_polynomial_map", "certified_model", "from_spec", "has_spec", "to_spec"]

#: family name -> the class whose ``to_spec`` / ``from_spec`` write and read its certificate form
#: (the families the checker evaluates itself), in the order error messages name them
SPEC_FAMILIES = {cls.family: cls for cls in (MLP, LightningAttention, QueryKey, DeepLinear, PolynomialMap, CNN)}

_ALLOWED = "a model of family " + ", ".join(list(SPEC_FAMILIES)[:-1]) + " or " + list(SPEC_FAMILIES)[-1]


def has_spec(model) -> bool:
    """Whether ``model``'s family writes its own certificate form (else it is certified as its polynomial map).

    Examples
    --------
    >>> from algebra.models import MLP, veronese
    >>> has_spec(MLP((2, 2, 1), "t^2")), has_spec(veronese(2, 2))
    (True, False)
    """
    return getattr(model, "family", None) in SPEC_FAMILIES


def to_spec(model) -> dict:
    """The model in the checker's self-contained form (its family's ``to_spec``).

    Raises
    ------
    InputError
        A model whose family has no certificate form.

    Examples
    --------
    >>> from algebra.models import quadratic_network, veronese
    >>> to_spec(quadratic_network(2, 1, 3))["activations"]
    [['0', '0', '1']]
    >>> to_spec(veronese(2, 2))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid model=...: expected a model of family mlp, attention, qk, linear, polynomial or cnn
    """
    if not isinstance(model, Model) or not has_spec(model):
        raise InputError("model", model, _ALLOWED)
    return model.to_spec()


def from_spec(spec: dict) -> Model:
    """Inverse of :func:`to_spec`: rebuild the :class:`~algebra.models.Model` (its family's ``from_spec``).

    Raises
    ------
    InputError
        A spec that is not one of a registered family, or that the family's constructor refuses.

    Examples
    --------
    >>> from algebra.models import MLP
    >>> m = MLP((2, 3, 1), "t^2 + t", bias=True, inactive={1: [2]})
    >>> from_spec(to_spec(m)).spec() == m.spec()
    True
    >>> from_spec({"family": "mlp"})
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid spec={'family': 'mlp'}: expected a model spec in the checker's form (KeyError)
    """
    try:
        family = spec["family"]
        cls = SPEC_FAMILIES.get(family) if isinstance(family, str) else None
        if cls is not None:
            return cls.from_spec(spec)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise InputError("spec", spec, f"a model spec in the checker's form ({type(exc).__name__})") from None
    raise InputError("spec", spec, _ALLOWED)


def as_polynomial_map(model) -> PolynomialMap:
    """Any :class:`~algebra.models.Model` as a :class:`~algebra.models.PolynomialMap`: its outputs computed
    by running the model's own ``forward`` over polynomials (:func:`~algebra.exact.polynomial.symbolic_forward`).

    Examples
    --------
    >>> from algebra.models import QueryKey
    >>> m = as_polynomial_map(QueryKey(2, 1))
    >>> m.parameter_count, [p.to_text() for p in m.polynomials][:2]
    (4, ['t0*t2', 't0*t3'])
    """
    outputs, parameters, inputs = symbolic_forward(model)
    return PolynomialMap(outputs, parameters=parameters, inputs=inputs)


def certified_model(model) -> Model:
    """The model a certificate is about: ``model`` when its family writes its own form, else its polynomial map.

    Examples
    --------
    >>> from algebra.models import MLP, veronese
    >>> certified_model(veronese(2, 2)).family, certified_model(MLP((2, 2, 1), "t^2")).family
    ('polynomial', 'mlp')
    """
    return model if has_spec(model) else as_polynomial_map(model)
