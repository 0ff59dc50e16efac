"""Kernel fields at a point: the rank behind the symmetry rung.

If vector fields ``X_1, ..., X_s`` satisfy ``J X_j = 0`` identically, the
generic kernel of ``J`` has dimension at least their generic rank, which is
at least their rank at any point; modulo ``p`` the rank is at most the rank
over Q.  So ``P - rank_p X(theta)`` bounds the generic rank of ``J`` from
above at any integer point ``theta``.
"""

from __future__ import annotations

import numpy as np

from algebra.exact.rank import rank_mod_p

__all__ = ["symmetry_rank"]


def symmetry_rank(model, theta, field) -> int:
    """Rank modulo ``field.p`` of ``model``'s symmetry fields at ``theta``.

    Examples
    --------
    >>> from algebra.exact.field import PrimeField
    >>> from algebra.models import QueryKey
    >>> m = QueryKey(5, 3)
    >>> symmetry_rank(m, m.random_point(np.random.default_rng(0)), PrimeField(1048573))
    9
    """
    S = model.symmetry_fields(theta, field)
    if not S.shape[0]:
        return 0
    S = S[:, np.flatnonzero((S != 0).any(axis=0))]  # fields touch few columns; rank only those
    return rank_mod_p(S, field.p) if S.shape[1] else 0
