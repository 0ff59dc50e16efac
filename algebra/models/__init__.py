"""Parametrization maps of neural models (one module per family)."""

from algebra.models.attention import LightningAttention
from algebra.models.base import Model, monomial_count
from algebra.models.cnn import CNN
from algebra.models.factorization import DeepLinear, QueryKey
from algebra.models.mlp import MLP, quadratic_network, shallow_network
from algebra.models.polymap import PolynomialMap
from algebra.models.polynomial import Polynomial, parse_polynomial, parse_univariate
from algebra.models.segre_veronese import SecantMap, SegreVeroneseCone, segre, segre_veronese, veronese


def QuadraticNetwork(d: int, outputs: int, width: int, *, bias: bool = False) -> MLP:
    """Alias of :func:`quadratic_network` (grokking paper's ``(d, p, K)`` architecture)."""
    return quadratic_network(d, outputs, width, bias=bias)


__all__ = [
    "CNN",
    "DeepLinear",
    "LightningAttention",
    "MLP",
    "Model",
    "Polynomial",
    "PolynomialMap",
    "QuadraticNetwork",
    "QueryKey",
    "SecantMap",
    "SegreVeroneseCone",
    "monomial_count",
    "parse_polynomial",
    "parse_univariate",
    "quadratic_network",
    "segre",
    "segre_veronese",
    "shallow_network",
    "veronese",
]
