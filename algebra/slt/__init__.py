"""Singular learning theory: exact learning coefficients and numerical checks.

* :mod:`algebra.slt.formulas` -- closed forms (Aoyagi & Watanabe 2005,
  Aoyagi 2024, the graph-attention paper's Theorem 2, regular models);
* :mod:`algebra.slt.regular` -- lambda = certified dimension / 2 (quadratic
  networks, random features, NTK);
* :mod:`algebra.slt.newton` -- Newton polyhedra with exact rational LP
  (:mod:`algebra.slt.lp`);
* :mod:`algebra.slt.volume` -- volume scaling and Z(n) fits with confidence
  intervals.
"""

from algebra.slt.formulas import (
    LearningCoefficient,
    deep_linear_network,
    query_key,
    query_key_closed_forms,
    reduced_rank_regression,
    regular_model_coefficient,
)
from algebra.slt.newton import NewtonResult, newton_rlct, sum_of_squares
from algebra.slt.regular import ntk_model, quadratic_network_coefficient, quadratic_network_paper_value, random_feature_model
from algebra.slt.volume import ScalingFit, partition_scaling, volume_scaling

__all__ = [
    "LearningCoefficient",
    "NewtonResult",
    "ScalingFit",
    "deep_linear_network",
    "newton_rlct",
    "ntk_model",
    "partition_scaling",
    "quadratic_network_coefficient",
    "quadratic_network_paper_value",
    "query_key",
    "query_key_closed_forms",
    "random_feature_model",
    "reduced_rank_regression",
    "regular_model_coefficient",
    "sum_of_squares",
    "volume_scaling",
]
