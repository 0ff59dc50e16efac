"""neuroalgebra: exact, certified geometry of neural-network models.

The import package is :mod:`algebra`; the distribution and the command are
``neuroalgebra``.  The public API (:mod:`algebra.api`) is resolved on first use:

>>> import algebra
>>> algebra.dimension(algebra.models.MLP((3, 3, 3, 2), "t^2;t^3")).dimension
18

``import algebra`` itself loads only the errors and the version (layer 0 of the import table in
``tests/test_layers.py``); the first access to any other public name imports :mod:`algebra.api`.
"""

from algebra.errors import (
    AlgebraError,
    CertificateError,
    DomainError,
    InputError,
    NotFinishedError,
    ResourceError,
)
from algebra.version import __version__

#: names resolved from :mod:`algebra.api` on first access (PEP 562); ``algebra.api.ENTRY_POINTS`` is the same
#: tuple (a test holds them equal)
_LAZY = (
    "dimension", "certify_model", "certify_secant", "certify_formula", "secant_dimension", "proximity",
    "cnn_proximity", "pruned_proximity", "singular_locus", "ideal_singular_locus", "reduced_rank_regression", "deep_linear_network",
    "query_key", "regular_model_coefficient", "quadratic_network_coefficient", "newton_rlct", "calibrated_llc",
    "TorchModel", "llc", "check_settings", "train", "TrainConfig", "data_dimension", "parse_group", "parse_graph", "character_table",
    "graph_llc",
)

__all__ = [
    "__version__",
    "AlgebraError",
    "CertificateError",
    "DomainError",
    "InputError",
    "NotFinishedError",
    "ResourceError",
    *_LAZY,
]


def __getattr__(name: str):
    if name not in _LAZY and name != "models":
        raise AttributeError(f"module 'algebra' has no attribute {name!r}")
    from algebra import api

    value = getattr(api, name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | {"models"})
