"""Correct rounding to binary64: the one rule every byte-reproducible value goes through.

A real number is enclosed in an arb ball (python-flint: integer arithmetic, so the enclosure depends only on
the exact value) at the working precisions :data:`PRECISIONS` in turn, until both ends of the ball round to
the same double; rounding is monotone, so that double is the correctly rounded value, the same on every
machine.  :func:`binary64` rounds one value, :func:`correctly_rounded` an array through one function.
"""

from __future__ import annotations

import math  # noqa: F401 - used by the doctests

import numpy as np

from algebra.errors import CertificateError

__all__ = ["PRECISIONS", "binary64", "correctly_rounded"]

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
