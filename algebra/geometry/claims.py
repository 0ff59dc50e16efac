"""Paper claims about dimensions, as data the certificate catalogue consumes.

A :class:`DimensionClaim` says "the neuromanifold of ``model`` has dimension
``claimed``" (or "at least"/"at most"), citing where a paper says so.  The
catalogue (:mod:`algebra.certify`) computes the certified dimension of the
model, compares, and writes a certificate: *confirmed* when the certified
value matches the claim, *refuted* (with a defect or dimension certificate)
when a certified value contradicts it, *out of reach* when the bounds do not
decide it.  Nothing here stores a computed result: only what the paper says.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from algebra.models.base import Model

__all__ = ["DimensionClaim"]


@dataclass(frozen=True)
class DimensionClaim:
    """One checkable dimension statement of a paper.

    Parameters
    ----------
    id : str
        Stable identifier, used as the certificate file name (``[a-z0-9_-]+``).
    paper : str
        File name (stem) of the paper in ``../shared/papers/``.
    location : str
        Section/equation/theorem, e.g. ``"Appendix B.10"``, ``"Corollary 4.2"``.
    statement : str
        The claim in words.
    model : Model
        The parametrization map the claim is about.
    claimed : int
        The dimension the paper states (or implies).
    relation : str
        ``"=="`` (default), ``">="`` or ``"<="``.
    group : str
        Catalogue section (e.g. ``"secant"``, ``"proximity"``, ``"attention"``).
    """

    id: str
    paper: str
    location: str
    statement: str
    model: Model
    claimed: int
    relation: str = "=="
    group: str = "dimension"
    notes: dict = field(default_factory=dict)
