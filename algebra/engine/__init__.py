"""The dimension engine: one proven lower bound and one ladder of proven upper bounds.

Every route that needs the dimension of a neuromanifold -- ``neuroalgebra dim``,
``secant``, ``rlct quadratic``, ``certify``, ``--over-q``, the proximity and
singular-locus analyses -- calls :func:`dimension`.  The engine depends on
``models`` and ``exact`` only; ``geometry`` depends on it, never the reverse
(a test parses the imports).

* :mod:`algebra.engine.dimension`: :func:`dimension` and its result.
* :mod:`algebra.engine.identities`: Schwartz–Zippel tests of polynomial identities
  modulo a fresh 200-bit prime (kernel fields, image equations, Cramer fields).
* :mod:`algebra.engine.fields`: the rank of kernel fields at a point (the symmetry rung).
* :mod:`algebra.engine.bottleneck`: the memoized cut bound for deep MLPs.
"""

from algebra.engine.dimension import (
    DEFAULT_MAX_MEMORY,
    MAX_JACOBIAN_ENTRIES,
    MODES,
    RUNGS,
    Bound,
    DimensionResult,
    dimension,
    parse_memory,
    upper_bound,
)

__all__ = ["dimension", "upper_bound", "DimensionResult", "Bound", "MODES", "RUNGS", "MAX_JACOBIAN_ENTRIES",
           "DEFAULT_MAX_MEMORY", "parse_memory"]
