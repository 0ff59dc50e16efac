"""The interface every parametrization map implements.

A model is a polynomial map ``theta -> f_theta`` from a parameter space of
dimension ``P`` to a space of polynomial functions of ``n_inputs`` variables
with ``n_outputs`` outputs.  Its *neuromanifold* is the image; its dimension
is the generic rank of the Jacobian of the map (the function is identified
with its coefficient vector in a monomial basis, the *coefficient mode*, or
with its values on a finite set of generic inputs, the *sample mode*).

Conventions shared by all models (and by the independent checker, which has
its own copy of every evaluator):

* ``theta`` is a flat integer vector, the concatenation of the blocks listed
  by :meth:`Model.param_blocks`, each flattened row-major.
* inputs are an ``(M, n_inputs)`` integer array, one sample per row;
* the Jacobian at ``theta`` on inputs ``X`` has rows ordered sample-major
  (row ``m * n_outputs + o``) and one column per parameter.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from math import comb
from typing import Any

import numpy as np

import algebra.inputs as inputs
from algebra.errors import InputError, NotFinishedError

__all__ = ["Model", "NoInputModel", "monomial_count", "positive_int", "int_list", "layer_widths", "MAX_LAYERS"]

#: Entries of integer points and inputs are drawn uniformly from [-BOUND, BOUND].
DEFAULT_POINT_BOUND = 2**15

#: Most layers of a layered model (MLP, deep linear network).  The symmetry fields and the ladder cost
#: quadratically in depth: 100 layers take under a second, 1000 would take minutes, so deeper is refused.
MAX_LAYERS = 100


def monomial_count(n: int, degree: int, *, homogeneous: bool) -> int:
    """Number of monomials of degree ``degree`` (or ``<= degree``) in ``n`` variables.

    Examples
    --------
    >>> monomial_count(3, 4, homogeneous=True), monomial_count(2, 2, homogeneous=False)
    (15, 6)
    >>> monomial_count("3", 4, homogeneous=True)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid n='3': expected an integer >= 0
    """
    n = inputs.integer(n, "n", minimum=0)
    degree = inputs.integer(degree, "degree", minimum=0)
    if n == 0:
        return 1
    return comb(n + degree - 1, degree) if homogeneous else comb(n + degree, degree)


def positive_int(name: str, value: Any, *, minimum: int = 1) -> int:
    """An integer argument ``>= minimum``: :func:`algebra.inputs.integer` (``bool`` and floats refused).

    Examples
    --------
    >>> positive_int("width", 3)
    3
    >>> positive_int("width", 2.7)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid width=2.7: expected an integer >= 1 (not a float)
    """
    return inputs.integer(value, name, minimum=minimum)


def int_list(name: str, values: Any, *, minimum: int = 1, min_length: int = 1) -> tuple:
    """A sequence of integers ``>= minimum`` of length ``>= min_length``: :func:`algebra.inputs.integers`."""
    return inputs.integers(values, name, minimum=minimum, min_length=min_length)


def layer_widths(name: str, values: Any) -> tuple:
    """Validate the widths ``(d_0, ..., d_L)`` of a layered model: positive, ``1 <= L <= MAX_LAYERS``.

    Examples
    --------
    >>> layer_widths("widths", (2, 3, 1))
    (2, 3, 1)
    >>> layer_widths("widths", (2,) * 102)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid widths='102 widths': expected at most 101 widths (100 layers, MAX_LAYERS)
    """
    try:
        n = len(values)
    except TypeError:
        n = None
    if n is not None and n - 1 > MAX_LAYERS:  # refused before reading the entries
        raise InputError(name, f"{n} widths", f"at most {MAX_LAYERS + 1} widths ({MAX_LAYERS} layers, MAX_LAYERS)")
    return inputs.integers(values, name, minimum=1, min_length=2, max_length=MAX_LAYERS + 1)


class Model(ABC):
    """A polynomial parametrization map (abstract base class)."""

    #: short family name used in specs and on the command line
    family: str = ""

    # -- description ------------------------------------------------------
    @abstractmethod
    def param_blocks(self) -> list:
        """``[(name, shape), ...]`` in the order they are packed into ``theta``."""

    @abstractmethod
    def spec(self) -> dict:
        """Canonical, self-contained JSON description (family + hyperparameters)."""

    @property
    @abstractmethod
    def n_inputs(self) -> int:
        """Number of input variables (0 for maps with no inputs, e.g. ``A B^T``)."""

    @property
    @abstractmethod
    def n_outputs(self) -> int:
        """Number of output coordinates per sample."""

    @property
    @abstractmethod
    def degree(self) -> int:
        """Total degree of the outputs in the inputs."""

    @property
    @abstractmethod
    def homogeneous(self) -> bool:
        """True when every output is homogeneous of degree :attr:`degree` in the inputs."""

    @property
    def parameter_count(self) -> int:
        return int(sum(int(np.prod(shape)) for _, shape in self.param_blocks()))

    def ambient_dimension(self) -> int:
        """Dimension of the coefficient space containing ``span F`` (an upper bound).

        ``n_outputs`` times the number of monomials of the output degree
        (exactly that degree when homogeneous, at most it otherwise).
        """
        return self.n_outputs * monomial_count(self.n_inputs, self.degree, homogeneous=self.homogeneous)

    def expected_dimension(self) -> int | None:
        """``min(ambient, P - generic number of known symmetries)``; ``None`` if not defined."""
        return min(self.ambient_dimension(), self.parameter_count - self.symmetry_count())

    def symmetry_count(self) -> int:
        """Number of symmetry vector fields :meth:`symmetry_fields` returns."""
        return 0

    def symmetry_names(self) -> list:
        """Human names of the symmetry families (for reports)."""
        return []

    # -- points ----------------------------------------------------------------
    def random_point(self, rng: np.random.Generator, bound: int = DEFAULT_POINT_BOUND) -> np.ndarray:
        """A uniformly random integer parameter vector with entries in ``[-bound, bound]``."""
        return rng.integers(-bound, bound + 1, size=self.parameter_count, dtype=np.int64)

    def random_inputs(self, rng: np.random.Generator, samples: int, bound: int = DEFAULT_POINT_BOUND) -> np.ndarray:
        """``samples`` random integer inputs, shape ``(samples, n_inputs)``."""
        if self.n_inputs == 0:
            return np.zeros((1, 0), dtype=np.int64)
        return rng.integers(-bound, bound + 1, size=(samples, self.n_inputs), dtype=np.int64)

    def unpack(self, theta: np.ndarray) -> dict:
        """Split a flat parameter vector into its named blocks (views)."""
        theta = np.asarray(theta)
        if theta.shape != (self.parameter_count,):
            raise InputError("theta", f"shape {theta.shape}", f"a vector of length {self.parameter_count}")
        out, k = {}, 0
        for name, shape in self.param_blocks():
            size = int(np.prod(shape))
            out[name] = theta[k : k + size].reshape(shape)
            k += size
        return out

    def offsets(self) -> dict:
        """``{block name: (start, shape)}`` column offsets in the Jacobian."""
        out, k = {}, 0
        for name, shape in self.param_blocks():
            out[name] = (k, shape)
            k += int(np.prod(shape))
        return out

    # -- exact evaluation --------------------------------------------------------
    @abstractmethod
    def forward(self, theta, X, field) -> np.ndarray:
        """Outputs at inputs ``X``: array ``(M, n_outputs)`` over ``field``."""

    @abstractmethod
    def jacobian(self, theta, X, field) -> np.ndarray:
        """Jacobian ``(M * n_outputs, P)`` over ``field`` (rows sample-major)."""

    #: True when :meth:`coefficient_jacobian` computes the coefficient-mode Jacobian directly
    has_coefficient_jacobian = False

    def coefficient_jacobian(self, theta, field) -> np.ndarray:
        """Direct coefficient-mode Jacobian (only where ``has_coefficient_jacobian``)."""
        raise InputError("mode", "coefficient", f"sample mode for the {self.family} family (no direct coefficient Jacobian)")

    def symmetry_fields(self, theta, field) -> np.ndarray:
        """Kernel witnesses evaluated at ``theta``: array ``(s, P)``.

        Each row is a polynomial vector field ``X_j(theta)`` with
        ``J(theta) X_j(theta) = 0`` identically in ``theta`` and the inputs.
        """
        return field.zeros((0, self.parameter_count))

    def image_equations(self) -> list:
        """Left-kernel witnesses: polynomials in the output coordinates vanishing on the image.

        Only meaningful for maps without inputs (``n_inputs == 0``); returns a
        list of :class:`~algebra.models.polynomial.Polynomial` objects whose
        variables are the output coordinates.
        """
        return []

    # -- what the engine's identity checks need (algebra.engine.identities) ---------
    def joint_degree(self) -> int:
        """An upper bound on the total degree of the outputs in ``(theta, x)`` jointly.

        The Schwartz–Zippel rungs of the engine need it; a model without it
        gets no probabilistic rung (the engine reports the bounds it has).
        """
        raise NotFinishedError(f"{type(self).__name__}.joint_degree (needed by the engine's identity checks)")

    def symmetry_degree(self) -> int:
        """Total degree in ``theta`` of the fields :meth:`symmetry_fields` returns (linear by default)."""
        return 1

    def image_equation_count(self) -> int:
        """Number of image equations (without building them where a model can count them directly)."""
        return len(self.image_equations())

    def image_equation_degree(self) -> int:
        """Largest degree of an image equation (0 when there are none)."""
        return max((g.degree for g in self.image_equations()), default=0)

    def image_equation_values(self, theta, field) -> list:
        """Values ``g_i(F(theta))`` of the image equations over ``field`` (all zero when they hold)."""
        y = [int(v) for v in self.forward(theta, np.zeros((1, 0), dtype=np.int64), field)[0]]
        return [g.evaluate_mod(y, field.p) for g in self.image_equations()]

    def image_equation_gradients(self, theta, field) -> np.ndarray:
        """Gradients ``Dg_i(F(theta))`` over a prime field: array ``(#equations, n_outputs)``.

        The derivatives of the equations are taken once per model and cached;
        models whose equations have a closed-form gradient override this.
        """
        eqs = self.image_equations()
        if not eqs:
            return field.zeros((0, self.n_outputs))
        if getattr(self, "_equation_derivatives", None) is None:
            self._equation_derivatives = [[g.derivative(v) for v in g.variables] for g in eqs]
        y = [int(v) for v in self.forward(theta, np.zeros((1, 0), dtype=np.int64), field)[0]]
        G = field.zeros((len(eqs), self.n_outputs))
        for i, row in enumerate(self._equation_derivatives):
            for j, dg in enumerate(row):
                if not dg.is_zero:
                    G[i, j] = dg.evaluate_mod(y, field.p)
        return G

    # -- helpers for subclasses ---------------------------------------------------
    def _blocks(self, theta, field) -> dict:
        return self.unpack(field.array(np.asarray(theta)))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.spec().items() if k != "family")
        return f"{type(self).__name__}({args})"


class NoInputModel(Model):
    """A map with no input variables: its outputs are already coefficients.

    The coefficient space is the output space itself (``ambient = n_outputs``),
    e.g. the entries of ``A B^T`` or of a Segre–Veronese tensor.
    """

    @property
    def n_inputs(self) -> int:
        return 0

    @property
    def degree(self) -> int:
        return 0

    @property
    def homogeneous(self) -> bool:
        return True

    def ambient_dimension(self) -> int:
        return self.n_outputs
