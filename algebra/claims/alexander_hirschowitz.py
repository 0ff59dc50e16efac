"""The defective secants of Veronese varieties (Alexander & Hirschowitz, J. Algebraic Geom. 4, 1995).

Not one of the papers: the theorem the secant sweep is checked against.  The
shallow network ``sum_i v_i (w_i . x)^d`` of width ``k`` on ``n`` inputs
parametrizes ``sigma_k(v_d(P^{n-1}))``; for ``d >= 3`` it falls short of the
expected ``min(k n, binom(n+d-1, d))`` exactly at :data:`AH_EXCEPTIONS`, by one.
"""

from __future__ import annotations

from math import comb

from algebra.claims import AH
from algebra.claims.records import DimensionClaim
from algebra.models import shallow_network

__all__ = ["AH_EXCEPTIONS", "exception_claims"]

#: Alexander–Hirschowitz (J. Algebraic Geom. 4, 1995): the only defective secants of Veronese
#: varieties v_d(P^{n-1}) with d >= 3 are these (n, d, k); each has defect one.
AH_EXCEPTIONS = ((3, 4, 5), (4, 4, 9), (5, 4, 14), (5, 3, 7))


def exception_claims(fast: bool) -> list:
    """One dimension claim per exception (fast: the first and the last).

    Examples
    --------
    >>> [(c.id, c.claimed) for c in exception_claims(fast=True)]
    [('ah-exception-n3-d4-k5', 14), ('ah-exception-n5-d3-k7', 34)]
    """
    out = []
    exceptions = AH_EXCEPTIONS[:1] + AH_EXCEPTIONS[3:] if fast else AH_EXCEPTIONS
    for n, deg, k in exceptions:
        expected = min(k * n, comb(n + deg - 1, deg))
        out.append(DimensionClaim(
            f"ah-exception-n{n}-d{deg}-k{k}", AH, "Alexander–Hirschowitz theorem (1995)",
            f"sigma_{k} of v_{deg}(P^{n - 1}) is defective: the shallow network sum_i v_i (w_i.x)^{deg} "
            f"of width {k} on {n} inputs has dim = min(k n, binom(n+d-1, d)) - 1 = {expected - 1}",
            shallow_network(n, deg, k), expected - 1, group="secant",
            notes={"reproduce": f"neuroalgebra secant --variety veronese --n {n} --degree {deg} --k {k} --json"}))
    return out
