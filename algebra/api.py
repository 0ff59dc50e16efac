"""The public API: the functions a user calls, one per command of the CLI.

``import algebra`` resolves every name below on first use (the root package's ``__getattr__`` imports this
module), so ``algebra.dimension(algebra.models.MLP((3, 3, 3, 2), "t^2;t^3"))`` works after a bare
``import algebra`` while the import itself stays light.  This module sits at the top of the layer table, beside
:mod:`algebra.cli`: it combines the packages and nothing below imports it.

===================================  =====================================================
API                                  command
===================================  =====================================================
:func:`dimension`                    ``neuroalgebra dim FAMILY ...``
:func:`certify_model`                ``neuroalgebra dim ... --certificate FILE``
:func:`certify_secant`               ``neuroalgebra secant ... --certificate FILE``
:func:`certify_formula`              ``neuroalgebra rlct ... --certificate FILE``
:func:`secant_dimension`             ``neuroalgebra secant --variety ...``
:func:`proximity`                    ``neuroalgebra proximity mlp ...``
:func:`cnn_proximity`                ``neuroalgebra proximity cnn ...``
:func:`singular_locus`               (sympy equations: the Jacobian criterion)
:func:`ideal_singular_locus`         ``neuroalgebra singular --ideal POLY ...``
:func:`reduced_rank_regression`      ``neuroalgebra rlct rrr ...``
:func:`deep_linear_network`          ``neuroalgebra rlct deep-linear ...``
:func:`query_key`                    ``neuroalgebra rlct qk ...``
:func:`newton_rlct`                  ``neuroalgebra rlct ideal ...``
:func:`calibrated_llc`               ``neuroalgebra llc ...``
:class:`TorchModel`                  (a user's ``torch.nn.Module`` for :func:`calibrated_llc`)
:func:`llc`                          (a user's ``torch.nn.Module``: self-tuning minibatch SGLD)
:func:`check_settings`               (someone's SGLD settings run on exact deep-linear twins)
:func:`train`, :class:`TrainConfig`  ``neuroalgebra grok train ...``
:func:`data_dimension`               ``neuroalgebra grok dim ...``
:func:`parse_group`                  ``neuroalgebra graph ... --group ...``
:func:`character_table`              ``neuroalgebra graph irreps ...``
:func:`graph_llc`                    ``neuroalgebra llc graph ...``
===================================  =====================================================

The model families are in :mod:`algebra.models` (``algebra.models`` after ``import algebra``), the errors in
:mod:`algebra.errors`.
"""

from __future__ import annotations

import algebra.models as models
from algebra.certify.questions import certify_formula, certify_model, certify_secant
from algebra.engine.dimension import dimension
from algebra.errors import AlgebraError, CertificateError, DomainError, InputError, NotFinishedError, ResourceError
from algebra.geometry.cnn_proximity import cnn_proximity, pruned_proximity
from algebra.geometry.proximity import proximity
from algebra.geometry.secant import secant_dimension
from algebra.geometry.singular import ideal_singular_locus, singular_locus
from algebra.graph.characters import character_table
from algebra.graph.groups import parse_graph, parse_group
from algebra.graph.llc import graph_llc
from algebra.grokking.references import data_dimension
from algebra.grokking.runs import TrainConfig, train
from algebra.numeric.calibration import calibrated_llc
from algebra.numeric.own_network import check_settings, llc
from algebra.numeric.torch_backend import TorchModel
from algebra.slt.formulas import deep_linear_network, query_key, reduced_rank_regression, regular_model_coefficient
from algebra.slt.newton import newton_rlct
from algebra.slt.regular import quadratic_network_coefficient
from algebra.version import __version__

#: the entry points, in the order of the table above (the errors and ``__version__`` come from layer 0)
ENTRY_POINTS = (
    "dimension", "certify_model", "certify_secant", "certify_formula", "secant_dimension", "proximity",
    "cnn_proximity", "pruned_proximity", "singular_locus", "ideal_singular_locus", "reduced_rank_regression", "deep_linear_network",
    "query_key", "regular_model_coefficient", "quadratic_network_coefficient", "newton_rlct", "calibrated_llc",
    "TorchModel", "llc", "check_settings", "train", "TrainConfig", "data_dimension", "parse_group", "parse_graph", "character_table",
    "graph_llc",
)

__all__ = ["__version__", "AlgebraError", "CertificateError", "DomainError", "InputError", "NotFinishedError",
           "ResourceError", "models", *ENTRY_POINTS]
