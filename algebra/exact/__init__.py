"""The exact engine: the field protocol and its fields, sparse polynomials, ranks with witnesses, linear algebra over Q."""

from algebra.exact.elimination import Elimination, check_memory, eliminate_mod_p, predicted_peak_bytes, residues_mod_p
from algebra.exact.field import DEFAULT_PRIME, Field, FloatField, PrimeField, RationalField, is_prime
from algebra.exact.polynomial import Polynomial, PolynomialField, multiply_terms, symbolic_forward
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
from algebra.exact.rational import fraction_matrix, inverse_q, nullspace_q, rank_q, rref_q, solve_q

__all__ = [
    "DEFAULT_PRIME",
    "Elimination",
    "Field",
    "FloatField",
    "Polynomial",
    "PolynomialField",
    "PrimeField",
    "RationalField",
    "RankWitness",
    "SketchedRank",
    "check_memory",
    "det_mod_p",
    "eliminate_mod_p",
    "fraction_matrix",
    "inverse_q",
    "is_prime",
    "multiply_terms",
    "nullspace_q",
    "predicted_peak_bytes",
    "rank_float",
    "rank_mod_p",
    "rank_over_q",
    "rank_q",
    "rank_with_witness",
    "residues_mod_p",
    "rref_q",
    "sketched_rank_mod_p",
    "solve_q",
    "symbolic_forward",
]
