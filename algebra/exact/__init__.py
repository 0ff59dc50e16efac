"""The exact engine: array arithmetic over GF(p) and Q, ranks with witnesses."""

from algebra.exact.field import DEFAULT_PRIME, FloatField, PrimeField, RationalField, is_prime
from algebra.exact.rank import RankWitness, det_mod_p, rank_float, rank_mod_p, rank_over_q, rank_with_witness

__all__ = [
    "DEFAULT_PRIME",
    "FloatField",
    "PrimeField",
    "RationalField",
    "RankWitness",
    "det_mod_p",
    "is_prime",
    "rank_float",
    "rank_mod_p",
    "rank_over_q",
    "rank_with_witness",
]
