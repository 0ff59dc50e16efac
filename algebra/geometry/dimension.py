"""Certified dimensions of neuromanifolds.

``dim F`` is the generic rank of the Jacobian of the parametrization map.

* **Lower bound** (always proven): the rank of ``J(theta)`` at a random
  integer point, computed exactly modulo a prime ``p`` (or over Q).  Any
  nonzero minor modulo ``p`` is a nonzero integer, and the generic rank is at
  least the rank at any point.  The value in the ``dimension`` field is this
  bound.
* **Upper bound** (proven from witnesses): the minimum of

  - the ambient dimension (``n_outputs`` x number of monomials of the output
    degree): ``span F`` lives there;
  - ``P - rank(X_1(theta), ..., X_s(theta))`` for kernel witnesses: vector
    fields with ``J X_j = 0`` identically (symmetries).  Their rank at one
    point is at most their generic rank, so the generic kernel has at least
    that dimension;
  - ``ambient - rank(Dg_1(F(theta)), ...)`` for left-kernel witnesses:
    polynomials ``g_i`` vanishing on the image (so ``Dg_i J = 0``);
  - for deep MLPs, the bottleneck bound of
    :func:`algebra.geometry.proximity.bottleneck_upper_bound` (cut the
    network at a hidden layer: ``dim F <= dim F_low + P_up - s``).

* ``certified`` is true exactly when the bounds meet.

Modes.  *coefficient*: the outputs are identified with their coefficient
vectors.  Models with no inputs (``A B^T``, deep linear) are natively in
coefficient space; shallow networks have a direct multinomial Jacobian; any
other model is evaluated at ``N`` generic points where ``N`` is the number of
monomials, so that (for points off a proper Zariski-closed set, where the
Vandermonde matrix is invertible) the sample Jacobian is the coefficient
Jacobian times an invertible matrix and has the same rank.
*sample*: the restricted model ``F|_Omega`` on ``M`` generic inputs.  ``M``
is chosen automatically: start with ``M = ceil((upper + 4) / n_outputs)``
(just enough rows to reach the upper bound, plus slack), and if the rank
falls short of the upper bound double ``M`` until the rank is certified or
``M`` reaches ``N`` (beyond which more samples cannot raise the rank).
In either mode the lower bound is a lower bound of the coefficient-space
dimension, because ``rank(V C) <= rank(C)``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from math import ceil

import numpy as np

from algebra.errors import InputError, ResourceError
from algebra.exact.field import DEFAULT_PRIME, PrimeField, RationalField
from algebra.exact.rank import RankWitness, rank_mod_p, rank_over_q, rank_with_witness
from algebra.models.base import Model, monomial_count

__all__ = ["DimensionResult", "dimension", "upper_bound", "MAX_JACOBIAN_ENTRIES", "MODES"]

#: Refuse Jacobians with more entries than this (int64: 8 bytes each, plus
#: a Python-list copy for flint), before allocating anything.
MAX_JACOBIAN_ENTRIES = 60_000_000
MODES = ("auto", "coefficient", "sample")


@dataclass
class DimensionResult:
    """The outcome of :func:`dimension` (all counts are exact ints)."""

    spec: dict
    dimension: int
    lower_bound: int
    upper_bound: int
    certified: bool
    ambient_dimension: int
    parameter_count: int
    expected_dimension: int | None
    mode: str
    samples: int
    prime: int | None
    seed: int
    seconds: float
    upper_bound_reason: str
    symmetry_rank: int
    equation_rank: int
    witness: RankWitness | None = None
    theta: list = field(default_factory=list, repr=False)
    inputs: list = field(default_factory=list, repr=False)

    @property
    def defect(self) -> int | None:
        """``expected - dimension`` when both are known and the result is certified."""
        if self.expected_dimension is None or not self.certified:
            return None
        return self.expected_dimension - self.dimension

    def to_json(self) -> dict:
        out = {
            "model": self.spec,
            "dimension": self.dimension,
            "lower_bound": self.lower_bound,
            "upper_bound": self.upper_bound,
            "certified": self.certified,
            "ambient_dimension": self.ambient_dimension,
            "parameter_count": self.parameter_count,
            "expected_dimension": self.expected_dimension,
            "mode": self.mode,
            "samples": self.samples,
            "prime": self.prime,
            "field": "QQ" if self.prime is None else f"GF({self.prime})",
            "seed": self.seed,
            "seconds": round(self.seconds, 4),
            "upper_bound_reason": self.upper_bound_reason,
            "symmetry_rank": self.symmetry_rank,
            "equation_rank": self.equation_rank,
        }
        if self.witness is not None:
            out["witness"] = {"rows": list(self.witness.rows), "cols": list(self.witness.cols)}
        return out


def _rank(J, F) -> int:
    if F.p is None:
        return rank_over_q(J)
    return rank_mod_p(J, F.p)


def _equation_rank(model: Model, theta, F) -> int:
    """Rank of the gradients of the image equations at ``F(theta)``."""
    eqs = model.image_equations()
    if not eqs:
        return 0
    y = model.forward(theta, np.zeros((1, 0), dtype=np.int64), F)[0]
    names = eqs[0].variables
    G = F.zeros((len(eqs), len(names)))
    yv = [int(v) for v in y] if F.p is not None else list(y)
    for i, g in enumerate(eqs):
        for j, v in enumerate(names):
            dg = g.derivative(v)
            if dg.is_zero:
                continue
            if F.p is not None:
                G[i, j] = dg.evaluate_mod(yv, F.p)
            else:
                G[i, j] = dg.evaluate(dict(zip(names, yv)))
    return _rank(G, F)


def upper_bound(model: Model, theta, F) -> tuple:
    """``(upper, reason, symmetry_rank, equation_rank)`` from ambient, kernel and left-kernel witnesses."""
    ambient = model.ambient_dimension()
    P = model.parameter_count
    S = model.symmetry_fields(theta, F)
    if S.shape[0]:
        S = S[:, np.flatnonzero((S != 0).any(axis=0))]  # fields touch few columns; rank only those
    srank = _rank(S, F) if S.shape[0] and S.shape[1] else 0
    erank = _equation_rank(model, theta, F) if model.n_inputs == 0 else 0
    candidates = [(ambient, "ambient dimension"), (P - srank, f"parameters - rank of {S.shape[0]} symmetry fields")]
    if erank:
        candidates.append((ambient - erank, f"ambient - rank of {len(model.image_equations())} image equations"))
    best = min(c for c, _ in candidates)
    reasons = [r for c, r in candidates if c == best]
    return best, "; ".join(reasons), srank, erank


def _is_deep_mlp(model: Model) -> bool:
    from algebra.models.mlp import MLP

    return isinstance(model, MLP) and len(model.effective_widths) >= 4


def _check_size(rows: int, P: int, limit: int) -> None:
    if rows * P > limit:
        raise ResourceError(
            f"the Jacobian would have {rows} x {P} = {rows * P:,} entries, above the limit of {limit:,} "
            "(use a smaller model, --mode sample, or raise max_entries)"
        )


def dimension(
    model: Model,
    *,
    mode: str = "auto",
    seed: int = 0,
    prime: int | None = DEFAULT_PRIME,
    witness: bool = False,
    samples: int | None = None,
    max_entries: int = MAX_JACOBIAN_ENTRIES,
) -> DimensionResult:
    """Certified bounds on the dimension of the neuromanifold of ``model``.

    Parameters
    ----------
    model : Model
    mode : {"auto", "coefficient", "sample"}
        ``auto`` is coefficient mode for maps without inputs and shallow
        networks (direct Jacobian), sample mode otherwise.
    seed : int
        Seeds the integer point and inputs (``numpy.random.SeedSequence``).
    prime : int or None
        Work modulo this prime (``< 2**21``); ``None`` works exactly over Q
        (slow; for cross-checks).
    witness : bool
        Also locate a nonsingular ``r x r`` submatrix (rows, cols) of the
        Jacobian, as needed for a certificate.
    samples : int, optional
        Fix the number of sample inputs ``M`` (sample mode) instead of
        choosing it automatically.
    max_entries : int
        Refuse Jacobians larger than this before allocating.

    Examples
    --------
    >>> from algebra.models import QueryKey, shallow_network
    >>> r = dimension(QueryKey(5, 3))
    >>> r.dimension, r.upper_bound, r.certified
    (21, 21, True)
    >>> r = dimension(shallow_network(3, 4, 5))     # an Alexander-Hirschowitz exception
    >>> r.lower_bound, r.upper_bound, r.certified, r.expected_dimension
    (14, 15, False, 15)
    >>> dimension(QueryKey(2, 1), mode="fast")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid mode='fast': expected one of auto, coefficient, sample
    """
    if mode not in MODES:
        raise InputError("mode", mode, "one of " + ", ".join(MODES))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError("seed", seed, "a non-negative integer")
    if samples is not None and (isinstance(samples, bool) or not isinstance(samples, int) or samples < 1):
        raise InputError("samples", samples, "a positive integer")
    t0 = time.perf_counter()
    F = RationalField() if prime is None else PrimeField(prime)
    seed = int(seed)
    ss_theta, ss_x = np.random.SeedSequence(seed).spawn(2)
    rng_theta, rng_x = np.random.default_rng(ss_theta), np.random.default_rng(ss_x)
    P = model.parameter_count
    ambient = model.ambient_dimension()
    n_out = model.n_outputs
    # Refuse before allocating: the Jacobian needs about min(ambient, P) rows
    # (plus slack) of P columns, the symmetry fields s rows of P columns.
    _check_size(min(ambient, P + 4 * n_out), P, max_entries)
    _check_size(model.symmetry_count(), P, max_entries)
    theta = model.random_point(rng_theta)

    upper, reason, srank, erank = upper_bound(model, theta, F)

    def measure(J):
        """Rank of J (with a witness minor when asked): one elimination per matrix."""
        if witness and F.p is not None:
            w = rank_with_witness(J, F.p)
            return w.rank, w
        return _rank(J, F), None

    has_direct = model.n_inputs == 0 or model.has_coefficient_jacobian
    if mode == "auto":
        mode = "coefficient" if has_direct else "sample"
    n_monomials = monomial_count(model.n_inputs, model.degree, homogeneous=model.homogeneous)

    X = np.zeros((1, 0), dtype=np.int64)
    if model.n_inputs == 0:
        _check_size(n_out, P, max_entries)
        J = model.jacobian(theta, X, F)
        used_mode, M = "coefficient", 1
        lower, wit = measure(J)
    elif mode == "coefficient" and model.has_coefficient_jacobian:
        _check_size(n_out * n_monomials, P, max_entries)
        J = model.coefficient_jacobian(theta, F)
        used_mode, M = "coefficient", 0
        lower, wit = measure(J)
    else:
        if mode == "coefficient":
            M = n_monomials
        elif samples is not None:
            M = samples
        else:
            M = min(n_monomials, max(1, ceil((upper + 4) / n_out)))
        used_mode = mode
        while True:
            _check_size(M * n_out, P, max_entries)
            extra = M - (X.shape[0] if X.shape[1] else 0)
            fresh = model.random_inputs(rng_x, extra)
            X = fresh if not X.shape[1] else np.concatenate([X, fresh])
            J = model.jacobian(theta, X, F)
            lower, wit = measure(J)
            if lower >= upper or samples is not None or mode == "coefficient" or M >= n_monomials:
                break
            if min(n_monomials, 2 * M) * n_out * P > max_entries:
                break  # more samples would not fit: report the (uncertified) bounds we have
            M = min(n_monomials, 2 * M)

    if lower < upper and F.p is not None and _is_deep_mlp(model):
        # cutting a deep MLP at a hidden layer (geometry.proximity) can beat
        # the symmetry bound, e.g. Example B.10 of the proximity-bias paper;
        # it can only lower the upper bound, so it is skipped once certified
        from algebra.geometry.proximity import bottleneck_upper_bound

        cut, why = bottleneck_upper_bound(model, seed=seed, prime=F.p)
        if cut < upper:
            upper, reason = cut, why
    return DimensionResult(
        spec=model.spec(),
        dimension=lower,
        lower_bound=lower,
        upper_bound=upper,
        certified=lower == upper,
        ambient_dimension=ambient,
        parameter_count=P,
        expected_dimension=model.expected_dimension(),
        mode=used_mode,
        samples=M,
        prime=F.p,
        seed=seed,
        seconds=time.perf_counter() - t0,
        upper_bound_reason=reason,
        symmetry_rank=srank,
        equation_rank=erank,
        witness=wit,
        theta=[int(v) for v in theta],
        inputs=X.tolist() if X.shape[1] else [],
    )
