"""Certificates for the CNN subnetwork claims (proximity-bias paper, Appendix C): the certificate, then the sweep's word.

The analysis (:mod:`algebra.geometry.cnn_proximity`) returns plain data: the
claim's model, subnetwork and point, and the sweep's uncertified verdict
(:func:`~algebra.geometry.cnn_proximity.subnetwork_evidence`).  Here the
certificate is made and sealed (:func:`algebra.certify.emit.subnetwork_certificate`)
and the index fields are put together.
"""

from __future__ import annotations

from algebra.certify.emit import Emitted, subnetwork_certificate
from algebra.geometry.cnn_proximity import subnetwork_evidence

__all__ = ["judge_subnetwork"]


def judge_subnetwork(claim, *, seed: int = 0, source: dict | None = None) -> tuple:
    """``(Emitted, index fields)`` of a :class:`~algebra.claims.records.SubnetworkClaim`.

    The verdict is the certificate's: ``confirmed`` when the checker derives
    ``rank d phi >= r > b >= dim F'``, ``out of reach`` otherwise.  The sweep's
    own verdict for the case (:func:`~algebra.geometry.cnn_proximity.subnetwork_evidence`,
    at another random point of ``F'``) is recorded next to it
    (``engine_verdict``, uncertified) and repeated in the note when the
    certificate does not confirm the claim.

    Examples
    --------
    >>> from algebra.claims.proximity import cnn_claims
    >>> from algebra.claims.records import SubnetworkClaim
    >>> from algebra.geometry.cnn_proximity import NO_BIAS
    >>> c = [c for c in cnn_claims(fast=True) if isinstance(c, SubnetworkClaim)][0]
    >>> e, fields = judge_subnetwork(c)
    >>> e.verdict, fields["proven"], fields["engine_verdict"] == NO_BIAS
    ('confirmed', "rank d phi >= 7 at theta' > 4 >= dim F'", True)
    """
    e = subnetwork_certificate(claim.model, claim.theta, claim.inactive, seed=seed, source=source)
    b = e.certificate["claim"]["subnetwork"]["dimension_at_most"]
    engine = subnetwork_evidence(claim.model, claim.inactive, seed=seed)
    fields = {"says": "rank d phi > dim F' at a generic point of F' (no proximity bias)", "proven_lower": e.lower,
              "proven": f"rank d phi >= {e.lower} at theta' {'>' if e.lower > b else '<='} {b} >= dim F'",
              "engine_verdict": engine["verdict"]}
    if e.verdict != "confirmed":
        note = f"{e.note}; the sweep's verdict (not certified here): {engine['text']}"
        e = Emitted(e.certificate, e.kind, e.lower, e.upper, e.verdict, e.reason, note)
    return e, fields
