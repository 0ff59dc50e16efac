"""The field protocol models evaluate through, and its array fields over GF(p), Q and float64.

Models evaluate their outputs and Jacobians through a *field* object, so one
implementation serves every route: the fast route (``GF(p)``: ``int64``
arrays, matrix products done in ``float64`` BLAS in chunks small enough to be
exact), and the slow exact route over ``Q`` (``object`` arrays of
:class:`fractions.Fraction`).  What a field must provide is written down once,
in :class:`Field`; every field of the package implements it:

======================================  ==========================================
:class:`PrimeField`                     ``GF(p)``, ``p < 2**21``, ``int64`` arrays
:class:`RationalField`                  ``Q``, ``object`` arrays of Fractions
:class:`FloatField`                     float64 (the proof-free peer route)
:class:`algebra.engine.identities.ResidueField`  ``GF(q)`` for a prime of any size
:class:`algebra.exact.polynomial.PolynomialField`  ``Q[t0, t1, ...]`` (symbolic evaluation)
======================================  ==========================================

Why float64 BLAS for GF(p): numpy's integer ``matmul`` does not use BLAS and
is ~20x slower.  A ``float64`` product of two matrices with entries in
``[0, p)`` is exact as long as every partial sum stays below ``2**53``; with
``p < 2**21`` we can sum ``2**53 // (p-1)**2 >= 2048`` products per chunk,
then reduce modulo ``p``.  The default prime ``1048573`` (the largest prime
below ``2**20``) gives chunks of 8192 terms, so realistic layer widths need a
single chunk.

The rank of a Jacobian modulo ``p`` at an integer point is a *lower bound*
on its rank over Q at that point, hence on the generic rank (a nonzero minor
mod p is a nonzero integer).  A small prime only makes an accidental drop
more likely, never an unsound answer.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from fractions import Fraction

import numpy as np

from algebra.errors import InputError
from algebra.inputs import is_prime  # the one exact test (refuses n >= 3.3e24, where fixed bases stop being a proof)

__all__ = ["DEFAULT_PRIME", "MAX_PRIME", "Field", "FloatField", "ModularArithmetic", "NativeField", "PrimeField",
           "RationalField", "is_prime"]

DEFAULT_PRIME = 1048573  # largest prime < 2**20
MAX_PRIME = 2**21  # keeps float64 BLAS chunks >= 2048 terms and int64 products exact


class Field(ABC):
    """What a model's ``forward``, ``jacobian`` and ``symmetry_fields`` may ask of the field they run over.

    Elements live in numpy arrays (``int64`` residues, ``object`` arrays of
    Fractions, Python ints or polynomials, or float64); every operation below
    is elementwise unless it says otherwise, and broadcasts like numpy.

    Attributes
    ----------
    name : str
        ``"GF(p)"``, ``"QQ"``, ``"float64"``, ``"Q[t]"``.
    p : int or None
        The characteristic for a prime field, else ``None``.
    exact_rationals : bool
        ``True`` when a rational scalar is represented as itself (Q and Q[t]),
        ``False`` when it is reduced (GF(p)) or rounded (float64).

    A subclass that leaves out an operation cannot be instantiated (the
    abstract methods), so a field missing ``matmul`` or ``polyval`` fails
    where it is built, not inside a model.

    Examples
    --------
    >>> F = PrimeField(7)
    >>> isinstance(F, Field), isinstance(RationalField(), Field)
    (True, True)
    >>> class Half(Field):
    ...     name, p, exact_rationals = "half", None, True
    >>> Half()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: Can't instantiate abstract class Half ...
    """

    name: str
    p: int | None
    exact_rationals: bool

    @abstractmethod
    def scalar(self, c):
        """One element: the image of the rational ``c`` (an int, a Fraction, or a text the Fraction constructor reads)."""

    @abstractmethod
    def array(self, x) -> np.ndarray:
        """An array of elements from integers, Fractions (or, where the field has them, its own elements)."""

    @abstractmethod
    def zeros(self, shape) -> np.ndarray:
        """The array of ``shape`` filled with ``0``."""

    @abstractmethod
    def ones(self, shape) -> np.ndarray:
        """The array of ``shape`` filled with ``1``."""

    @abstractmethod
    def add(self, a, b):
        """``a + b``."""

    @abstractmethod
    def sub(self, a, b):
        """``a - b``."""

    @abstractmethod
    def neg(self, a):
        """``-a``."""

    @abstractmethod
    def mul(self, a, b):
        """``a * b``."""

    @abstractmethod
    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The matrix product ``a @ b`` (stacked like ``np.matmul``; an empty inner dimension gives zeros)."""

    @abstractmethod
    def polyval(self, coeffs, z):
        """``sum coeffs[i] z^i`` entrywise, for rational ``coeffs`` (lowest degree first) and an array ``z``."""


class ModularArithmetic(Field):
    """Elementwise ``+ - *`` reduced modulo ``self.p``: shared by :class:`PrimeField` and the engine's large-prime field."""

    p: int

    def add(self, a, b):
        return (a + b) % self.p

    def sub(self, a, b):
        return (a - b) % self.p

    def neg(self, a):
        return (-a) % self.p

    def mul(self, a, b):
        return (a * b) % self.p


class PrimeField(ModularArithmetic):
    """Arithmetic on ``int64`` numpy arrays with entries in ``[0, p)``.

    Parameters
    ----------
    p : int
        A prime ``< 2**21``.

    Examples
    --------
    >>> F = PrimeField(101)
    >>> F.matmul(F.array([[1, 2], [3, 4]]), F.array([[100], [1]])).ravel().tolist()
    [1, 1]
    >>> F.scalar(Fraction(1, 2))
    51
    >>> PrimeField(100)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid prime=100: expected a prime below 2097152
    """

    exact_rationals = False

    def __init__(self, p: int = DEFAULT_PRIME):
        if not isinstance(p, (int, np.integer)) or p >= MAX_PRIME or not is_prime(int(p)):
            raise InputError("prime", p, f"a prime below {MAX_PRIME}")
        self.p = int(p)
        self._chunk = max(1, (2**53 - 1) // ((self.p - 1) ** 2))

    def __repr__(self) -> str:
        return f"PrimeField({self.p})"

    @property
    def name(self) -> str:
        return f"GF({self.p})"

    def scalar(self, c) -> int:
        c = Fraction(c)
        if c.denominator % self.p == 0:
            raise InputError("coefficient", str(c), f"a rational whose denominator is invertible mod {self.p}")
        return c.numerator * pow(c.denominator, -1, self.p) % self.p

    def array(self, x) -> np.ndarray:
        """Residues in ``[0, p)`` as ``int64``; a float must be an integer (never truncated).

        Examples
        --------
        >>> PrimeField(7).array([[-1.0, 9.0], [2, 3]]).tolist()
        [[6, 2], [2, 3]]
        >>> PrimeField(7).array([0.5])
        Traceback (most recent call last):
        ...
        algebra.errors.InputError: invalid array='entry 0.5': expected integers or Fractions (a float with a fractional part is refused, not truncated)
        """
        a = np.asarray(x)
        if a.dtype == object:
            flat = [self.scalar(v) for v in a.ravel()]
            return np.array(flat, dtype=np.int64).reshape(a.shape)
        if a.dtype.kind == "f":
            bad = ~np.isfinite(a) | (a != np.floor(a))
            if bad.any():
                raise InputError("array", f"entry {a[bad].ravel()[0].item()!r}",
                                 "integers or Fractions (a float with a fractional part is refused, not truncated)")
            return np.fmod(a, self.p).astype(np.int64) % self.p  # exact for every float
        if a.dtype.kind not in "iub":
            raise InputError("array", f"dtype {a.dtype}", "integers, integral floats or Fractions")
        return np.mod(a.astype(np.int64), self.p)

    def zeros(self, shape) -> np.ndarray:
        return np.zeros(shape, dtype=np.int64)

    def ones(self, shape) -> np.ndarray:
        return np.ones(shape, dtype=np.int64)

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Exact ``a @ b mod p`` through chunked float64 BLAS."""
        k = a.shape[-1]
        out = None
        for start in range(0, max(k, 1), self._chunk):
            stop = min(k, start + self._chunk)
            part = np.matmul(a[..., start:stop].astype(np.float64), b[..., start:stop, :].astype(np.float64))
            part = np.mod(part.astype(np.int64), self.p)
            out = part if out is None else (out + part) % self.p
        if out is None:  # k == 0
            shape = a.shape[:-1] + b.shape[-1:]
            out = np.zeros(shape, dtype=np.int64)
        return out

    def polyval(self, coeffs, z):
        """Horner evaluation of ``sum coeffs[i] z^i`` (coefficients rational)."""
        cs = [self.scalar(c) for c in coeffs]
        out = np.full(np.shape(z), cs[-1], dtype=np.int64)
        for c in reversed(cs[:-1]):
            out = (out * z + c) % self.p
        return out


class NativeField(Field):
    """Shared arithmetic for fields whose array elements support ``+ - *`` natively.

    Subclasses define :meth:`scalar` (one element) and :meth:`array`; ``zeros``
    and ``ones`` are filled with ``scalar(0)`` / ``scalar(1)``.
    """

    exact_rationals = True
    p = None

    def full(self, shape, c) -> np.ndarray:
        out = np.empty(shape, dtype=object)
        out.fill(self.scalar(c))  # one reference per entry, never unpacked as a sequence (6x faster than a list)
        return out

    def zeros(self, shape) -> np.ndarray:
        return self.full(shape, 0)

    def ones(self, shape) -> np.ndarray:
        return self.full(shape, 1)

    def add(self, a, b):
        return a + b

    def sub(self, a, b):
        return a - b

    def neg(self, a):
        return -a

    def mul(self, a, b):
        return a * b


class RationalField(NativeField):
    """Exact arithmetic over Q on ``object`` arrays of Fractions (slow, for checks).

    Examples
    --------
    >>> Q = RationalField()
    >>> Q.matmul(Q.array([[1, 2]]), Q.array([[Fraction(1, 2)], [1]])).tolist()
    [[Fraction(5, 2)]]
    """

    exact_rationals = True
    p = None
    name = "QQ"

    def __repr__(self) -> str:
        return "RationalField()"

    def scalar(self, c) -> Fraction:
        return Fraction(c)

    def array(self, x) -> np.ndarray:
        a = np.asarray(x, dtype=object)
        flat = [Fraction(int(v)) if isinstance(v, (int, np.integer)) else Fraction(v) for v in a.ravel()]
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        return out.reshape(a.shape)

    def matmul(self, a, b):
        if a.shape[-1] == 0:
            return self.zeros(a.shape[:-1] + b.shape[-1:])
        return np.matmul(a, b)

    def polyval(self, coeffs, z):
        cs = [Fraction(c) for c in coeffs]
        out = self.zeros(np.shape(z))
        out = out + cs[-1]
        for c in reversed(cs[:-1]):
            out = out * z + c
        return out


class FloatField(NativeField):
    """Plain float64 arithmetic with the same interface (the proof-free peer route).

    Used only to compare against what numerical tools report; nothing it
    computes is a certificate.
    """

    exact_rationals = False
    p = None
    name = "float64"

    def __repr__(self) -> str:
        return "FloatField()"

    def scalar(self, c) -> float:
        return float(Fraction(c))

    def array(self, x) -> np.ndarray:
        return np.asarray(x, dtype=np.float64)

    def zeros(self, shape) -> np.ndarray:
        return np.zeros(shape)

    def ones(self, shape) -> np.ndarray:
        return np.ones(shape)

    def matmul(self, a, b):
        return np.matmul(a, b)

    def polyval(self, coeffs, z):
        cs = [float(Fraction(c)) for c in coeffs]
        out = np.full(np.shape(z), cs[-1])
        for c in reversed(cs[:-1]):
            out = out * z + c
        return out
