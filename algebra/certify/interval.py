"""``interval_inequality`` certificates: a ball-arithmetic program and the inequality it proves.

The payload format is ``docs/interval-inequality.md``; the independent
checker (:mod:`algebra.checker.attention`, its one ball-arithmetic evaluator)
derives the claim, and the envelope (:mod:`algebra.certify.envelope`) seals
and re-checks it.
"""

from __future__ import annotations

from algebra.certify.canonical import seal
from algebra.certify.envelope import Emitted, header, self_check
from algebra.checker import Reject, derive_claim
from algebra.errors import CertificateError

__all__ = ["interval_certificate"]


def interval_certificate(payload: dict, *, statement: str | None = None, source: dict | None = None) -> Emitted:
    """Wrap an ``interval_inequality`` payload (``docs/interval-inequality.md``) into a checked certificate.

    The claim -- the program (sha256 of the payload), its target, the relation
    and the bound -- is the one the checker derives, its text the checker's
    rendering; ``statement`` (what the inequality means, e.g. "the uniform
    cell lemma for d = 2") is recorded in ``source`` (informational, not
    checked).

    Raises
    ------
    CertificateError
        When the ball enclosure of the target does not satisfy the relation.

    Examples
    --------
    >>> p = {"arrays": {}, "scalars": {"x": "1/3"}, "program": [{"out": "y", "op": "exp", "args": ["x"]}],
    ...      "target": "y", "relation": "<", "bound": "1.4"}
    >>> e = interval_certificate(p, statement="exp(1/3) < 1.4")
    >>> e.certificate["claim"]["relation"], e.certificate["claim"]["value"], e.certificate["source"]["statement"]
    ('<', '1.4', 'exp(1/3) < 1.4')
    >>> interval_certificate(dict(p, bound="1.3"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    algebra.errors.CertificateError: the interval inequality does not hold in ball arithmetic: ...
    """
    if statement is not None:
        source = {**(source or {}), "statement": statement}
    cert = header("interval_inequality", source)
    cert["payload"] = payload
    try:
        cert["claim"] = derive_claim(cert)
    except Reject as exc:
        raise CertificateError(f"the interval inequality does not hold in ball arithmetic: {exc}") from None
    cert = seal(cert)
    return Emitted(cert, "interval_inequality", None, None, "confirmed", self_check(cert))
