"""Certificates for the CNN subnetwork claims (proximity-bias paper, Appendix C): the certificate, then the sweep's word.

The analysis (:mod:`algebra.geometry.cnn_proximity`) returns plain data: the
claim's model, subnetwork and point, and the sweep's uncertified verdict
(:func:`~algebra.geometry.cnn_proximity.subnetwork_evidence`).  Here the
certificate is made and sealed (:func:`subnetwork_certificate`, a ``rank_lower_bound`` about the
CNN family's ``differential`` form, :meth:`algebra.models.cnn.CNN.differential_spec`) and the index
fields are put together.
"""

from __future__ import annotations

from math import ceil

import numpy as np

from algebra.certify.canonical import seal
from algebra.certify.envelope import Emitted, header, self_check
from algebra.certify.rank import dimension_certificate
from algebra.checker import Reject, derive_claim
from algebra.errors import CertificateError, InputError
from algebra.exact.field import DEFAULT_PRIME, PrimeField
from algebra.exact.rank import rank_with_witness
from algebra.geometry.cnn_proximity import subnetwork_evidence
from algebra.models.base import monomial_count
from algebra.models.cnn import CNN
from algebra.models.registry import from_spec, to_spec

__all__ = ["judge_subnetwork", "subnetwork_certificate"]


def subnetwork_certificate(model, theta, inactive: dict, *, seed: int = 0, prime: int = DEFAULT_PRIME,
                           source: dict | None = None) -> Emitted:
    """Certify ``rank d phi(theta') >= r`` at a point ``theta'`` of a CNN subnetwork ``F'``, against a proven ``dim F' <= b``.

    Proximity-bias paper, Appendix C: ``N_F(phi(theta')) ⊆ im(d phi_theta')^perp``, so
    when ``r > dim F'`` the normal spaces over ``F'`` near ``phi(theta')`` cannot fill
    ``H``: no proximity bias toward ``F'``.  The certificate (kind
    ``rank_lower_bound``) is about the ``differential`` of the full CNN at
    ``theta'`` (the checker verifies that the ``inactive`` channels' outgoing
    weights are zero there) on ``ceil((P + 4) / outputs)`` random inputs; its
    ``subnetwork`` block holds the upper-bound witnesses of the CNN without those
    channels (:func:`dimension_certificate` of it), from which the checker
    derives ``b``.  The verdict is ``confirmed`` when the derived claim says
    ``r > b``, ``out of reach`` otherwise (the count does not decide).

    Examples
    --------
    >>> from algebra.models.cnn import CNN
    >>> m = CNN(4, [2], channels=(1, 2), activations="t^2", dense=1)
    >>> e = subnetwork_certificate(m, [1, 2, 3, 4, 0, 0, 0, 5, 6, 7], {1: [0]})
    >>> e.lower, e.certificate["claim"]["subnetwork"]["dimension_at_most"], e.verdict
    (7, 4, 'confirmed')
    """
    if not isinstance(model, CNN) or model.inactive:
        raise InputError("model", model, "a CNN without inactive channels (the full model)")
    subnetwork = from_spec(dict(to_spec(model), inactive={str(k): list(v) for k, v in inactive.items()}))
    sub = dimension_certificate(subnetwork, seed=seed, prime=prime)
    if sub.upper is None:
        raise CertificateError(f"no upper bound of dim F' is certified (only dim F' >= {sub.lower})")
    P, theta = model.parameter_count, np.asarray(theta, dtype=np.int64)
    M = min(monomial_count(model.n_inputs, model.degree, homogeneous=model.homogeneous), ceil((P + 4) / model.n_outputs))
    X = model.random_inputs(np.random.default_rng(np.random.SeedSequence(seed)), M)
    w = rank_with_witness(model.jacobian(theta, X, PrimeField(prime)), prime)
    cert = header("rank_lower_bound", source)
    diff = model.differential_spec(theta, subnetwork)  # the CNN family's form of d phi at theta'
    cert.update(model=diff, seed=seed, lower={"rows": list(w.rows), "cols": list(w.cols)},
                point={"prime": str(prime), "theta": ["0"] * P, "inputs": [[str(int(v)) for v in r] for r in X]},
                subnetwork={k: sub.certificate[k] for k in ("model", "point", "upper")})
    try:  # the checker derives rank d phi >= r from the minor and dim F' <= b from the subnetwork block
        cert["claim"] = derive_claim(cert)
    except Reject as exc:
        raise CertificateError(f"the subnetwork certificate does not verify: {exc}") from None
    cert = seal(cert)
    reason = self_check(cert)
    b = cert["claim"]["subnetwork"]["dimension_at_most"]
    if w.rank > b:
        return Emitted(cert, "rank_lower_bound", w.rank, None, "confirmed", reason)
    note = f"rank d phi >= {w.rank} does not exceed the proven dim F' <= {b}: this count does not decide the case"
    return Emitted(cert, "rank_lower_bound", w.rank, None, "out of reach", reason, note)


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
