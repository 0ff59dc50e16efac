"""The exact engine: array arithmetic over GF(p) and Q, ranks with witnesses."""

from algebra.exact.elimination import Elimination, check_memory, eliminate_mod_p, predicted_peak_bytes, residues_mod_p
from algebra.exact.field import DEFAULT_PRIME, FloatField, PrimeField, RationalField, is_prime
from algebra.exact.rank import (
    RankWitness,
    SketchedRank,
    det_mod_p,
    rank_float,
    rank_mod_p,
    rank_over_q,
    rank_with_witness,
    sketched_rank_mod_p,
)

__all__ = [
    "DEFAULT_PRIME",
    "Elimination",
    "FloatField",
    "PrimeField",
    "RationalField",
    "RankWitness",
    "SketchedRank",
    "check_memory",
    "det_mod_p",
    "eliminate_mod_p",
    "is_prime",
    "predicted_peak_bytes",
    "rank_float",
    "rank_mod_p",
    "rank_over_q",
    "rank_with_witness",
    "residues_mod_p",
    "sketched_rank_mod_p",
]
