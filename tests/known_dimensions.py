"""The table of known neuromanifold dimensions every route must agree on.

Values come from theorems, computed here from their formulas:

* Alexander–Hirschowitz: the affine cone over sigma_h(v_k(P^{n-1})) has
  dimension min(h n, binom(n+k-1, k)), except k = 2 (rank <= h symmetric
  matrices: h n - binom(h, 2) for h <= n) and the four exceptions
  (n, k, h) = (3, 4, 5), (4, 4, 9), (5, 4, 14), (5, 3, 7), one less.
* multi-token lightning attention: d^2 + d d' - 1 (t >= 2);
  single-token: d d' + binom(d+1, 2) - 1 (proximity-bias paper, Sec. 4).
* query-key composite A B^T: 2 d k - k^2 (k <= d); deep linear networks:
  r (d_0 + d_L - r) with r the smallest width.
* Example B.10 of the proximity-bias paper: dim F = dim F' = 4.
"""

from math import comb

from algebra.models import MLP, DeepLinear, LightningAttention, QueryKey, shallow_network

AH_EXCEPTIONS = {(3, 4, 5), (4, 4, 9), (5, 4, 14), (5, 3, 7)}


def alexander_hirschowitz(n: int, k: int, h: int) -> int:
    ambient = comb(n + k - 1, k)
    if k == 1:
        return min(n, ambient) if h >= 1 else 0
    if k == 2:
        return ambient if h >= n else h * n - comb(h, 2)
    generic = min(h * n, ambient)
    return generic - 1 if (n, k, h) in AH_EXCEPTIONS else generic


def _ah(n, k, h):
    return (f"shallow n={n} k={k} h={h}", lambda: shallow_network(n, k, h), alexander_hirschowitz(n, k, h), (n, k, h) not in AH_EXCEPTIONS)


KNOWN = [
    _ah(2, 3, 1),
    _ah(2, 3, 2),
    _ah(3, 3, 3),
    _ah(3, 3, 4),
    _ah(4, 3, 5),
    _ah(3, 4, 4),
    _ah(3, 4, 5),  # AH exception
    _ah(3, 4, 6),
    _ah(4, 2, 2),  # quadric case
    _ah(4, 2, 5),
    _ah(2, 5, 3),
    ("attention d=2 d'=1 t=2", lambda: LightningAttention(2, 1, 2), 2 * 2 + 2 * 1 - 1, True),
    ("attention d=3 d'=2 t=2", lambda: LightningAttention(3, 2, 2), 9 + 6 - 1, True),
    ("attention d=2 d'=3 t=3", lambda: LightningAttention(2, 3, 3), 4 + 6 - 1, True),
    ("attention d=2 d'=1 t=1", lambda: LightningAttention(2, 1, 1), 2 + comb(3, 2) - 1, True),
    ("attention d=3 d'=2 t=1", lambda: LightningAttention(3, 2, 1), 6 + comb(4, 2) - 1, True),
    ("attention d=4 d'=1 t=1", lambda: LightningAttention(4, 1, 1), 4 + comb(5, 2) - 1, True),
    ("qk d=3 k=1", lambda: QueryKey(3, 1), 2 * 3 * 1 - 1, True),
    ("qk d=4 k=2", lambda: QueryKey(4, 2), 2 * 4 * 2 - 4, True),
    ("qk d=5 k=3", lambda: QueryKey(5, 3), 2 * 5 * 3 - 9, True),
    ("qk d=3 k=3", lambda: QueryKey(3, 3), 9, True),
    ("linear 4,3,5", lambda: DeepLinear((4, 3, 5)), 3 * (4 + 5 - 3), True),
    ("linear 4,3,2,5", lambda: DeepLinear((4, 3, 2, 5)), 2 * (4 + 5 - 2), True),
    ("linear 2,5,2", lambda: DeepLinear((2, 5, 2)), 4, True),
    ("B.10 F", lambda: MLP((2, 3, 1, 1), "t^3"), 4, True),  # certified by the bottleneck bound
    ("B.10 F'", lambda: MLP((2, 3, 1, 1), "t^3", inactive={1: [0]}), 4, True),
]
