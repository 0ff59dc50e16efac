"""Claims of the softmax-attention approximation-rank paper (``softmax-attention-approximation-rank``).

:func:`approximation_rank_claims`: ``r_eps`` of ``softmax(6 I_n)`` at
``eps = 1/4`` (Section 2.1; the selection/decoder lower certificate of
Appendix E, (E.17)) and the zero-query-radius edge case of Proposition A.2.
"""

from __future__ import annotations

from algebra.claims import SOFTMAX
from algebra.claims.records import AttentionRankClaim

__all__ = ["approximation_rank_claims"]


def _eye(n: int) -> tuple:
    return tuple(tuple(float(i == j) for j in range(n)) for i in range(n))


def approximation_rank_claims(fast: bool) -> list:
    """``r_eps(softmax(6 I_n)) = n`` for each ``n`` (fast: ``n = 5``) and ``r_eps = 1`` at zero query radius.

    Examples
    --------
    >>> [(c.id, c.claimed) for c in approximation_rank_claims(fast=True)]
    [('softmax-identity-n5', 5), ('softmax-zero-query-radius', 1)]
    """
    out = []
    for n in (5,) if fast else (3, 5, 8):
        out.append(AttentionRankClaim(
            f"softmax-identity-n{n}", SOFTMAX, "Section 2.1 (r_eps); Appendix E (selection/decoder lower certificate, (E.17))",
            f"softmax(6 I_{n}) at eps = 1/4: a row selection S and one-hot decoder D with ||S A D - I|| < 1 - eps "
            f"force every eps-approximant to have rank >= {n}, and A itself has rank {n}: r_eps = {n}",
            _eye(n), _eye(n), 6.0, 0.25, n))
    keys = tuple(tuple(float((3 * i + 5 * j) % 7 - 3) / 4 for j in range(3)) for i in range(6))
    zero = tuple((0.0, 0.0, 0.0) for _ in range(4))
    out.append(AttentionRankClaim(
        "softmax-zero-query-radius", SOFTMAX, "Proposition A.2 (edge case: zero query radius)",
        "queries of radius zero: every row of softmax(beta Q K^T) is the same, so r_eps = 1 at eps = 1/4 "
        "(one representative row is exact; the zero matrix misses every row by 1 > eps)", zero, keys, 3.0, 0.25, 1))
    return out
