"""neuroalgebra: exact, certified geometry of neural-network models.

The import package is :mod:`algebra`; the distribution and the command are
``neuroalgebra``.
"""

from algebra.errors import (
    AlgebraError,
    CertificateError,
    DomainError,
    InputError,
    NotFinishedError,
    ResourceError,
)

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "AlgebraError",
    "CertificateError",
    "DomainError",
    "InputError",
    "NotFinishedError",
    "ResourceError",
]
