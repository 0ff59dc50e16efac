"""One exception hierarchy for the whole package.

Every error raised on bad user input is an :class:`InputError` that names the
argument, the value received and what is allowed, so that the CLI can print
it and exit with status 2 without a traceback.
"""

from __future__ import annotations

__all__ = [
    "AlgebraError",
    "InputError",
    "DomainError",
    "ResourceError",
    "CertificateError",
    "ClaimError",
    "NotFinishedError",
]


class AlgebraError(Exception):
    """Base class of every error raised by :mod:`algebra`.

    Catch it to handle any refusal of the toolkit; the CLI maps an :class:`InputError` or a
    :class:`ResourceError` to exit status 2 and any other :class:`AlgebraError` to 1.

    Examples
    --------
    >>> issubclass(InputError, AlgebraError), issubclass(CertificateError, AlgebraError)
    (True, True)
    """


class InputError(AlgebraError, ValueError):
    """A user-supplied argument is invalid.

    Parameters
    ----------
    argument : str
        Name of the offending argument (as the user spelled it, e.g. ``--widths``).
    value : object
        The value received.
    allowed : str
        What would have been accepted.

    Examples
    --------
    >>> str(InputError("--widths", "0,3", "positive integers separated by commas"))
    "invalid --widths='0,3': expected positive integers separated by commas"
    """

    def __init__(self, argument: str, value: object, allowed: str):
        self.argument = argument
        self.value = value
        self.allowed = allowed
        super().__init__(f"invalid {argument}={value!r}: expected {allowed}")


class DomainError(AlgebraError, ArithmeticError):
    """An operation is not defined over the requested domain, or a result it needs is not certified.

    ``lambda = rank / 2`` of :func:`algebra.certify.certify_model` with ``quantity="lambda"``, for instance, needs a
    certified rank and raises this when only a lower bound is proven.

    Examples
    --------
    >>> issubclass(DomainError, ArithmeticError)
    True
    """


class ResourceError(AlgebraError, MemoryError):
    """A computation was refused before allocating, because it would not fit.

    The message names the limit and the option that raises it (``--max-memory``, ``--max-order``, ...).

    Examples
    --------
    >>> issubclass(ResourceError, MemoryError)
    True
    """


class CertificateError(AlgebraError):
    """A certificate is malformed or does not prove its claim.

    Examples
    --------
    >>> str(CertificateError("claim.value: expected an integer"))
    'claim.value: expected an integer'
    """


class ClaimError(AlgebraError):
    """A paper claim (or a list of them) could not be built, or two claims share an id.

    Parameters
    ----------
    claim : str
        The claim's id, or the builder of a list that failed as a whole.
    reason : str
        What went wrong.

    Examples
    --------
    >>> str(ClaimError("grokking-cor42-d4-p3-K5", "built twice"))
    'claim grokking-cor42-d4-p3-K5: built twice'
    """

    def __init__(self, claim: str, reason: str):
        self.claim = claim
        self.reason = reason
        super().__init__(f"claim {claim}: {reason}")


class NotFinishedError(AlgebraError):
    """Raised by a capability that exists in the interface but is not implemented.

    Examples
    --------
    >>> issubclass(NotFinishedError, AlgebraError)
    True
    """
