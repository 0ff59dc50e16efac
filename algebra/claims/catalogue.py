"""Every paper claim of the certificate catalogue, in the order the index lists them.

:func:`claims` joins the lists of the paper modules.  First the claims each
paper module states (:data:`STATED`), then those the geometry sweeps find
(:data:`FOUND`: defective quadratic networks, the Alexander-Hirschowitz
exceptions, the exceptional strata of the attention lemmas); a found claim
whose id a stated list already has is that same claim and is not repeated.
A list that fails to build fails :func:`claims` with a
:class:`~algebra.errors.ClaimError` naming it: nothing is skipped quietly.
"""

from __future__ import annotations

from algebra.claims import alexander_hirschowitz, graph_attention, grokking, proximity, softmax_attention
from algebra.errors import ClaimError

__all__ = ["STATED", "FOUND", "claims"]

#: The claim lists the papers state, in index order.
STATED = (proximity.submodel_claims, proximity.cnn_claims, grokking.quadratic_claims, grokking.lambda_claims,
          grokking.paper_size_claims,
          grokking.basin_claims, grokking.sgld_premise_claims, graph_attention.query_key_claims,
          graph_attention.design_claims, graph_attention.lemma1_claims, softmax_attention.approximation_rank_claims)
#: The claim lists the geometry sweeps find (secant, singular locus), after the stated ones.
FOUND = (grokking.defect_claims, alexander_hirschowitz.exception_claims, proximity.stratum_claims)


def _build(builder, fast: bool) -> list:
    name = f"{builder.__module__}.{builder.__name__}(fast={fast})"
    try:
        return list(builder(fast))
    except Exception as exc:  # noqa: BLE001 -- re-raised, naming the list, never swallowed
        raise ClaimError(name, f"building the list failed: {type(exc).__name__}: {exc}") from exc


def claims(fast: bool = False) -> list:
    """All catalogue claims (``fast``: the CI subset).

    Raises
    ------
    ClaimError
        A list failed to build (the error names it), or two stated claims share an id.

    Examples
    --------
    >>> ids = [c.id for c in claims(fast=True)]
    >>> "grokking-cor42-d4-p3-K5" in ids and "ah-exception-n3-d4-k5" in ids and len(ids) == len(set(ids))
    True
    """
    out, seen = [], set()
    for builder in STATED:
        for c in _build(builder, fast):
            if c.id in seen:
                raise ClaimError(c.id, f"built twice (again by {builder.__module__}.{builder.__name__})")
            out.append(c)
            seen.add(c.id)
    for builder in FOUND:
        for c in _build(builder, fast):
            if c.id not in seen:
                out.append(c)
                seen.add(c.id)
    return out
