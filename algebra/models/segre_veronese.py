"""Secant (join) models and the Segre–Veronese cones they are built from.

* :class:`SegreVeroneseCone`: the affine cone over the Segre–Veronese variety
  ``P^{n_1-1} x ... x P^{n_m-1}`` embedded by ``O(d_1, ..., d_m)``, the map
  ``(v_1, ..., v_m) -> (prod_i v_i^{alpha_i})_alpha`` with one coordinate per
  tuple of monomials ``alpha_i`` of degree ``d_i`` in ``n_i`` variables (graded
  lex).  These coordinates differ from polynomial coefficients by the
  multinomial factors, an invertible diagonal change of coordinates that
  changes no rank.  Veronese is ``m = 1``; Segre is all ``d_i = 1``; the
  quadratic network ``x -> V (W x)^2`` of the grokking paper (Appendix G) is
  ``factors = (p, d)``, ``degrees = (1, 2)``.
* :class:`SecantMap`: the sum of ``k`` independent copies of any atom model,
  whose image is the affine cone over the ``k``-th secant (join) variety;
  by Terracini's lemma its dimension is the generic rank of the Jacobian.

Examples
--------
>>> X = veronese(3, 4)
>>> X.parameter_count, X.ambient_dimension(), SecantMap(X, 5).expected_dimension()
(3, 15, 15)
"""

from __future__ import annotations

from itertools import product
from math import comb
from typing import Sequence

import numpy as np

import algebra.inputs as inputs
from algebra.errors import InputError, ResourceError
from algebra.models.base import Model, NoInputModel, int_list, positive_int
from algebra.models.mlp import monomials

__all__ = ["SegreVeroneseCone", "SecantMap", "veronese", "segre", "segre_veronese", "VARIETIES", "MAX_COORDINATES", "MAX_FACTORS"]

VARIETIES = ("veronese", "segre", "segre-veronese")

#: Largest ambient space (number of coordinates) a Segre-Veronese cone may have.
MAX_COORDINATES = 200_000
#: Most factors of a Segre-Veronese variety (``secant --factors``): the ambient bound above allows at most 17 factors of
#: size 2 or more, so larger counts are factors of size 1, which add parameters and no coordinate.
MAX_FACTORS = 64


class SegreVeroneseCone(NoInputModel):
    """Affine cone over the Segre–Veronese variety: ``(v_1..v_m) -> prod_i v_i^{alpha_i}``.

    Parameters
    ----------
    factors : sequence of int
        ``(n_1, ..., n_m)``, the dimensions of the vector spaces.
    degrees : sequence of int
        ``(d_1, ..., d_m)``, the degree of the embedding in each factor.

    The ``m - 1`` relative scalings ``v_i -> s^{d_m} v_i``, ``v_m -> s^{-d_i} v_m``
    are kernel witnesses, so the cone has dimension ``sum n_i - (m - 1)``
    (the engine certifies it).

    Examples
    --------
    >>> X = SegreVeroneseCone((3, 4), (1, 2))
    >>> X.parameter_count, X.ambient_dimension(), X.expected_dimension()
    (7, 30, 6)
    >>> SegreVeroneseCone((3, 4), (1,))
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid degrees=(1,): expected one degree per factor (2)
    """

    family = "segre-veronese-cone"

    def __init__(self, factors: Sequence[int], degrees: Sequence[int]):
        # the factor count is bounded before any entry is read: 200,001 factors of size 1 fit MAX_COORDINATES (one
        # coordinate) but hung the Terracini matrix's symbolic set-up
        self.factors = inputs.integers(factors, "factors", minimum=1, max_length=MAX_FACTORS)
        self.degrees = inputs.integers(degrees, "degrees", minimum=1, max_length=MAX_FACTORS)
        if len(self.degrees) != len(self.factors):
            raise InputError("degrees", self.degrees, f"one degree per factor ({len(self.factors)})")
        size = 1
        for n, d in zip(self.factors, self.degrees):
            size *= comb(n + d - 1, d)
        if size > MAX_COORDINATES:  # refuse before listing the monomials
            raise ResourceError(f"the ambient space would have {size:,} coordinates, above the limit of {MAX_COORDINATES:,}")
        per = [monomials(n, d) for n, d in zip(self.factors, self.degrees)]
        self.factor_monomials = per
        #: one row per ambient coordinate: the concatenated exponent vector
        self.exponents = np.array([sum(t, ()) for t in product(*per)], dtype=np.int64)
        self.index = {tuple(int(v) for v in row): i for i, row in enumerate(self.exponents)}

    def param_blocks(self) -> list:
        return [(f"v{i + 1}", (n,)) for i, n in enumerate(self.factors)]

    def spec(self) -> dict:
        return {"family": self.family, "factors": list(self.factors), "degrees": list(self.degrees)}

    @property
    def n_outputs(self) -> int:
        return len(self.exponents)

    def joint_degree(self) -> int:
        return sum(self.degrees)

    def symmetry_count(self) -> int:
        return len(self.factors) - 1

    def symmetry_names(self) -> list:
        return ["relative scalings of the factors"] if len(self.factors) > 1 else []

    def _powers(self, v, F):
        """``v^E`` for the exponent matrix ``E`` of the coordinates (and helper tables)."""
        top = int(self.exponents.max()) if self.exponents.size else 0
        pw = [F.ones(v.shape)]
        for _ in range(top):
            pw.append(F.mul(pw[-1], v))
        table = np.stack(pw)  # (top+1, P)
        return table

    def forward(self, theta, X, field) -> np.ndarray:
        F = field
        v = F.array(np.asarray(theta))
        table = self._powers(v, F)
        E = self.exponents
        out = F.ones(len(E))
        for j in range(E.shape[1]):
            out = F.mul(out, table[E[:, j], j])
        return out.reshape(1, -1)

    def jacobian(self, theta, X, field) -> np.ndarray:
        """``d(v^alpha)/dv_j = alpha_j v^(alpha - e_j)``, shape ``(N, P)``."""
        F = field
        v = F.array(np.asarray(theta))
        table = self._powers(v, F)
        E = self.exponents
        N, P = E.shape
        J = F.zeros((N, P))
        for j in range(P):
            col = F.array(E[:, j].copy())
            Ej = E.copy()
            Ej[:, j] = np.maximum(Ej[:, j] - 1, 0)
            term = col
            for i in range(P):
                term = F.mul(term, table[Ej[:, i], i])
            J[:, j] = term
        return J

    def symmetry_fields(self, theta, field) -> np.ndarray:
        F = field
        m = len(self.factors)
        if m == 1:
            return F.zeros((0, self.parameter_count))
        blocks = self._blocks(theta, F)
        offs = self.offsets()
        rows = []
        dm = self.degrees[-1]
        last = f"v{m}"
        for i in range(m - 1):
            vec = F.zeros(self.parameter_count)
            s, _ = offs[f"v{i + 1}"]
            vec[s : s + self.factors[i]] = F.mul(blocks[f"v{i + 1}"], F.scalar(dm))
            s2, _ = offs[last]
            vec[s2 : s2 + self.factors[-1]] = F.neg(F.mul(blocks[last], F.scalar(self.degrees[i])))
            rows.append(vec)
        return np.stack(rows)


def veronese(n: int, degree: int) -> SegreVeroneseCone:
    """Affine cone over ``v_degree(P^{n-1})`` in ``Sym^degree C^n`` (``n`` variables).

    Parameters
    ----------
    n : int
        Number of variables (``>= 1``).
    degree : int
        The degree ``d >= 1`` of the forms ``l^d``.

    Returns
    -------
    SegreVeroneseCone
        The map ``l -> l^d`` into the ``binomial(n + d - 1, d)`` coefficients.

    Raises
    ------
    InputError
        A non-positive ``n`` or ``degree``.

    Examples
    --------
    >>> X = veronese(3, 2)                     # squares of linear forms in 3 variables
    >>> X.parameter_count, X.ambient_dimension()
    (3, 6)
    >>> veronese(0, 2)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid n=0: expected an integer >= 1

    References
    ----------
    .. [1] Alexander, Hirschowitz, "Polynomial interpolation in several variables", J. Algebraic Geom. 4 (1995).
    """
    return SegreVeroneseCone((positive_int("n", n),), (positive_int("degree", degree),))


def segre(factors: Sequence[int]) -> SegreVeroneseCone:
    """Affine cone over the Segre variety ``P^{n_1-1} x ... x P^{n_m-1}`` (rank-one tensors).

    Parameters
    ----------
    factors : sequence of int
        The dimensions ``n_1, ..., n_m`` (each ``>= 1``).

    Returns
    -------
    SegreVeroneseCone
        The map ``(v_1, ..., v_m) -> v_1 (x) ... (x) v_m``.

    Raises
    ------
    InputError
        An empty list or a non-positive factor.

    Examples
    --------
    >>> X = segre((2, 3))                      # 2 x 3 matrices of rank one
    >>> X.parameter_count, X.ambient_dimension()
    (5, 6)

    References
    ----------
    .. [1] Landsberg, *Tensors: Geometry and Applications*, AMS 2012, Sec. 4.3.
    """
    factors = inputs.integers(factors, "factors", minimum=1, max_length=MAX_FACTORS)
    return SegreVeroneseCone(factors, (1,) * len(factors))


def segre_veronese(factors: Sequence[int], degrees: Sequence[int]) -> SegreVeroneseCone:
    """Affine cone over the Segre–Veronese variety (see :class:`SegreVeroneseCone`).

    Parameters
    ----------
    factors : sequence of int
        The dimensions ``n_1, ..., n_m``.
    degrees : sequence of int
        One degree ``d_i >= 1`` per factor.

    Returns
    -------
    SegreVeroneseCone
        The map ``(v_1, ..., v_m) -> v_1^{d_1} (x) ... (x) v_m^{d_m}``.

    Raises
    ------
    InputError
        Lists of different lengths or non-positive entries.

    Examples
    --------
    >>> X = segre_veronese((2, 2), (1, 2))     # v (x) w^2
    >>> X.parameter_count, X.ambient_dimension()
    (4, 6)

    References
    ----------
    .. [1] Landsberg, *Tensors: Geometry and Applications*, AMS 2012, Sec. 4.3 and 5.5.
    """
    return SegreVeroneseCone(factors, degrees)


class SecantMap(Model):
    """The sum of ``k`` independent copies of an atom map (Terracini's parametrization).

    Works for any :class:`~algebra.models.base.Model` as atom (e.g. the
    one-neuron cone ``MLP((n, 1, 1), "t^3")``, whose ``k``-fold sum is the
    width-``k`` shallow network).  Kernel witnesses are the atoms' own.

    Examples
    --------
    >>> S = SecantMap(veronese(3, 2), 2)
    >>> S.parameter_count, S.ambient_dimension(), S.expected_dimension()
    (6, 6, 6)
    """

    family = "secant"

    def __init__(self, atom: Model, k: int):
        if not isinstance(atom, Model):
            raise InputError("atom", atom, "a Model")
        self.atom = atom
        self.k = positive_int("k", k)

    def param_blocks(self) -> list:
        return [(f"{name}_{j}", shape) for j in range(self.k) for name, shape in self.atom.param_blocks()]

    def spec(self) -> dict:
        return {"family": self.family, "k": self.k, "atom": self.atom.spec()}

    @property
    def n_inputs(self) -> int:
        return self.atom.n_inputs

    @property
    def n_outputs(self) -> int:
        return self.atom.n_outputs

    @property
    def degree(self) -> int:
        return self.atom.degree

    @property
    def homogeneous(self) -> bool:
        return self.atom.homogeneous

    def ambient_dimension(self) -> int:
        return self.atom.ambient_dimension()

    def expected_dimension(self) -> int:
        """``min(ambient, k * dim cone X)`` with ``dim cone X = P_atom - #symmetries``."""
        cone = self.atom.parameter_count - self.atom.symmetry_count()
        return min(self.ambient_dimension(), self.k * cone)

    def joint_degree(self) -> int:
        return self.atom.joint_degree()

    def symmetry_degree(self) -> int:
        return self.atom.symmetry_degree()

    def symmetry_count(self) -> int:
        return self.k * self.atom.symmetry_count()

    def symmetry_names(self) -> list:
        return [f"{name} (each of {self.k} atoms)" for name in self.atom.symmetry_names()]

    def _split(self, theta):
        theta = np.asarray(theta)
        Pa = self.atom.parameter_count
        return [theta[j * Pa : (j + 1) * Pa] for j in range(self.k)]

    def forward(self, theta, X, field) -> np.ndarray:
        F = field
        parts = self._split(theta)
        out = self.atom.forward(parts[0], X, F)
        for th in parts[1:]:
            out = F.add(out, self.atom.forward(th, X, F))
        return out

    def jacobian(self, theta, X, field) -> np.ndarray:
        return np.concatenate([self.atom.jacobian(th, X, field) for th in self._split(theta)], axis=1)

    def symmetry_fields(self, theta, field) -> np.ndarray:
        F = field
        Pa = self.atom.parameter_count
        rows = []
        for j, th in enumerate(self._split(theta)):
            S = self.atom.symmetry_fields(th, F)
            if S.shape[0]:
                block = F.zeros((S.shape[0], self.parameter_count))
                block[:, j * Pa : (j + 1) * Pa] = S
                rows.append(block)
        if not rows:
            return F.zeros((0, self.parameter_count))
        return np.concatenate(rows)
