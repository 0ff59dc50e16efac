"""The envelope every certificate kind shares: header, claimed member, self-check, verdicts, the write.

A kind module of :mod:`algebra.certify` (``rank``, ``formula``, ``interval``,
``attention``, ``subnetwork``, ``representation``, ``local_rank``) builds its
own blocks and asks the independent checker to derive its claim; what is the
same for all of them lives here:

* :func:`header` -- schema version, kind, tool and provenance (``source``);
* :func:`claimed_member` -- the user's claim as data (the file never holds a verdict);
* :func:`self_check` / :func:`self_check_verdict` -- the independent checker
  (:func:`algebra.checker.check_verdict`) re-checks every sealed file before it
  is returned, so the emitter never hands out a file that does not verify;
* :func:`verdict_for` -- ``dim RELATION claimed`` judged against proven bounds;
* :class:`Emitted` -- a sealed certificate and what it shows; :func:`write` puts it on disk atomically.

Verdicts (:data:`VERDICTS`): ``confirmed`` (the claim holds as stated),
``refuted`` (false under its own hypotheses), ``hypothesis fails`` (a stated
hypothesis is false for this instance, so the claim does not apply),
``out of reach`` (the proven bounds do not decide it).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from algebra.certify.canonical import exact, render, write_atomic
from algebra.checker import Reject, check_verdict
from algebra.errors import CertificateError, InputError
from algebra.version import __version__

__all__ = ["SCHEMA_VERSION", "VERDICTS", "RELATIONS", "MAX_CLAIMED", "Emitted", "header", "claimed_member",
           "self_check", "self_check_verdict", "verdict_for", "write"]

VERDICTS = ("confirmed", "refuted", "hypothesis fails", "out of reach")

SCHEMA_VERSION = 1
RELATIONS = ("==", ">=", "<=")


@dataclass(frozen=True)
class Emitted:
    """A sealed certificate and what it shows."""

    certificate: dict
    kind: str
    lower: int | None
    upper: int | None
    verdict: str
    reason: str
    note: str = ""


def header(kind: str, source: dict | None) -> dict:
    """The unsealed file's envelope: schema version, ``kind``, tool, an empty claim and ``source`` when given.

    Examples
    --------
    >>> sorted(header("formula", {"paper": "x"}))
    ['claim', 'kind', 'schema_version', 'source', 'tool']
    """
    cert = {
        "schema_version": SCHEMA_VERSION,
        "kind": kind,
        "tool": {"name": "neuroalgebra", "version": __version__},
        "claim": {},
    }
    if source:
        cert["source"] = dict(source)
    return cert


def verdict_for(relation: str, claimed: int | None, lower: int, upper: int | None) -> str:
    """``confirmed`` / ``refuted`` / ``out of reach`` for ``dim RELATION claimed`` given proven bounds.

    ``hypothesis fails`` is decided by the caller, who knows the claim's hypotheses
    (see ``assumes_nondefective`` of :func:`dimension_certificate`).

    Examples
    --------
    >>> verdict_for("==", 30, 29, 29), verdict_for("==", 4, 4, 4), verdict_for("==", 6, 5, None)
    ('refuted', 'confirmed', 'out of reach')
    >>> verdict_for("==", None, 5, 5), verdict_for(">=", None, 5, None)
    ('confirmed', 'out of reach')
    """
    if claimed is None:
        return "confirmed" if upper == lower else "out of reach"
    hi = upper if upper is not None else float("inf")
    if relation == "==":
        if lower == hi == claimed:
            return "confirmed"
        return "refuted" if claimed < lower or claimed > hi else "out of reach"
    if relation == ">=":
        return "confirmed" if lower >= claimed else ("refuted" if hi < claimed else "out of reach")
    return "confirmed" if hi <= claimed else ("refuted" if lower > claimed else "out of reach")


def self_check(cert: dict) -> str:
    """The independent checker's reason for a sealed ``cert`` (:class:`CertificateError` when it does not verify)."""
    return self_check_verdict(cert)[0]


def self_check_verdict(cert: dict) -> tuple:
    """``(reason, judgement)`` of the independent checker (:func:`algebra.checker.check_verdict`): the
    judgement of the file's recorded ``claimed`` member (``None`` without one)."""
    try:
        return check_verdict(cert)
    except Reject as exc:
        raise CertificateError(f"the emitted certificate does not verify: {exc}") from None


MAX_CLAIMED = 2**63 - 1  # the checker's bound on a recorded claimed rank (algebra.checker.core.MAX_CLAIMED)


def claimed_member(claimed, relation: str, *, quantity: str = "dimension") -> dict:
    """The certificate's ``claimed`` member ``{"relation", "value"}``: the user's claim as data, in the checker's
    spelling (an integer rank; lambda as an exact fraction string), after refusing a bad one (:class:`InputError`).

    The file never holds a verdict: the checker derives it from this member and the proven bounds.

    Examples
    --------
    >>> claimed_member(20, "=="), claimed_member("5/2", "<=", quantity="lambda")
    ({'relation': '==', 'value': 20}, {'relation': '<=', 'value': '5/2'})
    >>> claimed_member(True, "==")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid claimed=True: expected an integer in [0, 2**63 - 1] (the claimed dimension)
    """
    if relation not in RELATIONS:
        raise InputError("relation", relation, "one of ==, >=, <=")
    if quantity == "lambda":
        if isinstance(claimed, (bool, float)) or not isinstance(claimed, (int, Fraction, str)):
            raise InputError("claimed", claimed, "an exact rational (an int, a fractions.Fraction or a string such as "
                             "'5/2'; a float is not exact) for the claimed lambda")
        try:
            value = Fraction(claimed)
        except (ValueError, ZeroDivisionError):
            raise InputError("claimed", claimed, "an exact rational such as '5/2' for the claimed lambda") from None
        return {"relation": relation, "value": exact(value)}
    if isinstance(claimed, bool) or not isinstance(claimed, (int, np.integer)) or not 0 <= claimed <= MAX_CLAIMED:
        raise InputError("claimed", claimed, "an integer in [0, 2**63 - 1] (the claimed dimension)")
    return {"relation": relation, "value": int(claimed)}


def write(emitted: Emitted, path) -> Emitted:
    """Write ``emitted``'s certificate to ``path`` (atomically: a temporary file, then ``os.replace``) and return it."""
    write_atomic(path, render(emitted.certificate))
    return emitted
