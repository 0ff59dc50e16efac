"""Correct rounding to binary64: the one rule every byte-reproducible value goes through.

A real number is enclosed in an arb ball (python-flint: integer arithmetic, so the enclosure depends only on
the exact value) at the working precisions :data:`PRECISIONS` in turn, until both ends of the ball round to
the same double; rounding is monotone, so that double is the correctly rounded value, the same on every
machine.  :func:`binary64` rounds one value, :func:`correctly_rounded` an array through one function.

:func:`binary64_hex` is the one spelling every certificate producer writes a binary64 in: ``float.hex``
(``form="full"``) or ``float.hex`` with trailing zero digits dropped (``form="short"``), zero always unsigned.
It is the independent checker's canonical rule (:func:`algebra.checker.core.exact_number`), which reads
a hex float as the exact real it denotes and refuses every other spelling, ``-0x0p+0`` among them.
"""

from __future__ import annotations

import math
from fractions import Fraction  # noqa: F401 - used by the doctests

import numpy as np

from algebra.errors import CertificateError, InputError

__all__ = ["PRECISIONS", "binary64", "binary64_hex", "correctly_rounded"]

#: The spellings :func:`binary64_hex` writes.
HEX_FORMS = ("short", "full")

#: Working precisions (bits), tried in order.
PRECISIONS = (96, 192, 384, 1024)


def binary64(value) -> float:
    """The round-to-nearest binary64 of the real number that ``value()`` encloses in an arb ball.

    ``value`` is a callable that builds the ball at the current working
    precision; it is evaluated at :data:`PRECISIONS` bits in turn
    until both ends of the ball round to the same double, which is then the
    correctly rounded value (rounding is monotone).  python-flint's arb is
    integer arithmetic, so the result depends on nothing but the exact value.

    An exact ball (a dyadic value) rounds to nearest, ties to even.

    Raises
    ------
    CertificateError
        If the ball still straddles a rounding boundary at 1024 bits (the
        enclosure does not shrink with the precision).

    Examples
    --------
    >>> import flint
    >>> binary64(lambda: flint.arb(flint.fmpq(1, 3)).tanh()) == math.tanh(1 / 3)
    True
    >>> binary64(lambda: flint.arb(2).sqrt()) == math.sqrt(2)
    True
    >>> binary64(lambda: flint.arb(1) + flint.arb(2) ** -53)    # an exact tie: to even
    1.0
    >>> binary64(lambda: flint.arb(1, 0.5))                      # [0.5, 1.5] at every precision
    Traceback (most recent call last):
    ...
    algebra.errors.CertificateError: no correctly rounded binary64 value: the ball straddles a rounding boundary at 1024 bits
    """
    import flint

    for bits in PRECISIONS:
        with flint.ctx.workprec(bits):
            ball = value()
            lo, hi = float(ball.lower()), float(ball.upper())
        if lo == hi:
            return lo
    raise CertificateError(f"no correctly rounded binary64 value: the ball straddles a rounding boundary at {bits} bits")


def correctly_rounded(X, function) -> np.ndarray:
    """``function`` (arb -> arb) applied elementwise, each value rounded once to nearest binary64.

    Each entry is enclosed at :data:`PRECISIONS` bits in turn until both ends
    of its ball round to the same double (rounding is monotone, so that
    double is the correctly rounded value).  ``-inf`` entries map to
    ``function``'s limit only for the functions that define one: pass finite
    arrays.

    Raises
    ------
    CertificateError
        If some ball still straddles a rounding boundary at the last precision.

    Examples
    --------
    >>> y = correctly_rounded(np.array([0.0, 1.0, -745.5]), lambda t: t.exp())
    >>> y.tolist() == [1.0, math.e, 0.0]
    True
    >>> correctly_rounded(np.array([0.5]), lambda t: t.erf()).tolist() == [math.erf(0.5)]
    True
    """
    import flint

    X = np.asarray(X, dtype=np.float64)
    flat = X.ravel().tolist()
    out = [0.0] * len(flat)
    pending = range(len(flat))
    arb = flint.arb
    for bits in PRECISIONS:
        retry = []
        with flint.ctx.workprec(bits):
            for i in pending:
                y = function(arb(flat[i]))
                lo, hi = float(y.lower()), float(y.upper())
                if lo == hi:
                    out[i] = lo
                else:
                    retry.append(i)
        pending = retry
        if not pending:
            return np.array(out, dtype=np.float64).reshape(X.shape)
    raise CertificateError(f"{len(pending)} values straddle a binary64 rounding boundary at {PRECISIONS[-1]} bits")


def binary64_hex(x, *, form: str = "short") -> str:
    """The canonical certificate spelling of the binary64 number ``x``: ``float.hex``, zero unsigned.

    ``form="short"`` drops ``float.hex``'s trailing zero digits (``0x1.8p-1``, zero ``0x0p+0``);
    ``form="full"`` is ``float.hex`` as it stands (``0x1.8000000000000p-1``, zero ``0x0.0p+0``).  A
    certificate denotes exact reals, and ``-0.0`` and ``0.0`` are the same real, 0: the checker
    (:func:`algebra.checker.core.exact_number`) spells zero unsigned and refuses ``-0x0p+0``, so a
    negative zero (which a BLAS/LAPACK kernel may or may not produce, depending on the CPU) is written as
    ``+0``.  Nothing is rounded: ``x`` must already be a binary64 (a ``float``, a numpy float of at most
    64 bits, or an ``int``/``Fraction`` that one denotes exactly).

    Parameters
    ----------
    x : float, numpy floating, int or Fraction
        A finite real number that is exactly a binary64.
    form : {"short", "full"}
        Which of the checker's two hex spellings.

    Returns
    -------
    str
        The spelling; ``float.fromhex`` of it is ``x`` (``+0.0`` for either zero).

    Raises
    ------
    InputError
        If ``x`` is not a finite real number, is not exactly a binary64, or ``form`` is unknown.

    Examples
    --------
    >>> binary64_hex(0.75), binary64_hex(0.1), binary64_hex(1.0)
    ('0x1.8p-1', '0x1.999999999999ap-4', '0x1p+0')
    >>> binary64_hex(-0.0), binary64_hex(-0.0, form="full"), binary64_hex(np.float32(-0.0))
    ('0x0p+0', '0x0.0p+0', '0x0p+0')
    >>> binary64_hex(5e-324), binary64_hex(-math.ldexp(1.0, 1023), form="full")
    ('0x0.0000000000001p-1022', '-0x1.0000000000000p+1023')
    >>> binary64_hex(Fraction(3, 4)), binary64_hex(2 ** 60)
    ('0x1.8p-1', '0x1p+60')
    >>> binary64_hex(Fraction(1, 3))
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid x=Fraction(1, 3): expected a finite real number that is exactly a binary64
    >>> binary64_hex(float("nan"))
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid x=nan: expected a finite real number
    """
    if form not in HEX_FORMS:
        raise InputError("form", form, " or ".join(map(repr, HEX_FORMS)))
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, Fraction, np.integer, np.floating)):
        raise InputError("x", x, "a finite real number")
    try:
        v = float(x)
    except OverflowError:  # an int or Fraction beyond binary64's range
        v = math.inf
    if not math.isfinite(v):
        raise InputError("x", x, "a finite real number")
    if v != x:  # exact comparisons: float against int, Fraction or a numpy float
        raise InputError("x", x, "a finite real number that is exactly a binary64")
    if v == 0:
        v = 0.0  # one zero: the real 0, never -0.0
    text = v.hex()
    if form == "full":
        return text
    mantissa, _, exponent = text.partition("p")
    return mantissa.rstrip("0").rstrip(".") + "p" + exponent
