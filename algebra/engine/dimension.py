"""Certified dimensions of neuromanifolds: one proven lower bound, one ladder of proven upper bounds.

``dim F`` is the generic rank of the Jacobian of the parametrization map.

**Lower bound** (always proven): the rank of ``J(theta)`` at a random integer
point, exactly modulo a prime ``p`` (or over Q).  A nonzero minor modulo
``p`` is a nonzero integer, and the generic rank is at least the rank at any
point.  ``dimension`` in the result is this bound; ``certified`` says
whether it is the dimension.

**Upper bounds**: one ordered ladder, cheapest first, stopping at the first
rung that meets the lower bound (:data:`RUNGS`):

1. ``ambient``: ``span F`` lies in the coefficient space (``n_outputs`` times
   the number of monomials of the output degree), and ``J`` has ``P`` columns:
   ``min(ambient, P)``.
2. ``symmetry``: the model's built-in kernel fields ``X_j`` (``J X_j = 0``)
   give ``P - rank X(theta)`` (rank at a point <= generic rank).  The fields
   are not trusted from their derivation: ``J X_j = 0`` is tested as a
   polynomial identity by Schwartz–Zippel (:mod:`algebra.engine.identities`).
3. ``equations``: polynomials vanishing on the image (maps without inputs)
   give ``ambient - rank Dg(F(theta))``; the gradients are numbers computed at
   the point (cofactors for bordered minors), the equations are tested on the
   image by Schwartz–Zippel.
4. ``bottleneck``: for deep MLPs, the memoized cut bound of
   :mod:`algebra.engine.bottleneck` (Example B.10 of the proximity-bias paper).
5. ``cramer``: the general fallback for any polynomial model.  If ``J[R, B]``
   is the ``r x r`` nonsingular block of the lower bound, the ``P - r`` Cramer
   fields ``det J[R,B] e_c - adj(J[R,B]) J[R,c]`` (``c`` not in ``B``) are in
   the kernel of ``J`` identically exactly when the generic rank is ``r``;
   that identity is tested by Schwartz–Zippel.  The same route the
   certificate catalogue writes and the independent checker replays.

Ranks of fields and gradients are taken modulo the ladder prime (``prime``,
or :data:`~algebra.exact.field.DEFAULT_PRIME` when the lower bound is over
Q): a rank modulo ``p`` is at most the rank over Q at that point, so every
bound stays sound.  Probabilistic rungs record their failure probability
(always below ``2^-60``).

**Modes.** *coefficient*: the outputs are identified with their coefficient
vectors (maps without inputs; shallow networks through a direct multinomial
Jacobian).  *sample*: the restricted model on ``M`` generic inputs;
``M = ceil((upper + 4) / n_outputs)`` from the cheap rungs, and when the
lower bound falls short the rest of the ladder runs *before* ``M`` doubles
(the Cramer identity fails exactly when the samples miss rank).  Either way
the lower bound is a lower bound of the coefficient-space dimension
(``rank(V C) <= rank(C)``).

**Cost guards.** Sizes are refused before anything is allocated
(:class:`~algebra.errors.ResourceError`, which the CLI reports against the
model's size arguments): the Jacobian's entries, the monomials a coefficient
Jacobian enumerates (auto mode then samples instead), the bits of exact
rationals over Q, and the Cramer system.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from math import ceil

import numpy as np

from algebra.engine.bottleneck import bottleneck_bounds
from algebra.engine.fields import symmetry_rank
from algebra.engine.identities import IdentityCheck, cramer_fields_hold, image_equations_hold, kernel_fields_hold
from algebra.errors import AlgebraError, InputError, NotFinishedError, ResourceError
from algebra.exact.field import DEFAULT_PRIME, PrimeField, RationalField
from algebra.exact.rank import RankWitness, rank_mod_p, rank_over_q, rank_with_witness
from algebra.models.base import Model, monomial_count
from algebra.models.mlp import MLP

__all__ = ["DimensionResult", "Bound", "dimension", "upper_bound", "RUNGS", "MODES", "MAX_JACOBIAN_ENTRIES", "MAX_MONOMIALS",
           "MAX_RATIONAL_BITS", "MAX_CRAMER_RANK", "MAX_CRAMER_ENTRIES"]

RUNGS = ("ambient", "symmetry", "equations", "bottleneck", "cramer")
MODES = ("auto", "coefficient", "sample")

#: Refuse Jacobians with more entries than this (int64: 8 bytes each, plus a Python-list copy for flint).
MAX_JACOBIAN_ENTRIES = 60_000_000
#: A coefficient Jacobian enumerates its monomials in Python; above this, auto mode samples instead.
MAX_MONOMIALS = 200_000
#: Over Q, refuse when the entries' predicted total size (entries x bits per entry) exceeds this many bits.
MAX_RATIONAL_BITS = 2 * 10**8
#: The Cramer rung evaluates ``r`` Jacobian rows modulo a 200-bit prime (Python ints) and solves one
#: ``r x r`` system there (``fmpz_mod_mat``).  Measured on the shared 2-core machine: ``r = 400`` takes
#: 0.5 s to convert and 0.9 s to solve, ``r = 816`` (``shallow --n 16 --degree 3 --width 51``) 8 s in
#: all; above these sizes the rung is skipped with a note and the result stays honestly uncertified.
MAX_CRAMER_RANK = 400
MAX_CRAMER_ENTRIES = 1_000_000


@dataclass(frozen=True)
class Bound:
    """One rung's upper bound: its value, the rung, why, and the identity test behind it (if any)."""

    value: int
    rung: str
    reason: str
    check: IdentityCheck | None = None


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
    rung: str
    symmetry_rank: int
    equation_rank: int
    check: IdentityCheck | None = None
    witness: RankWitness | None = None
    theta: list = field(default_factory=list, repr=False)
    inputs: list = field(default_factory=list, repr=False)
    notes: list = field(default_factory=list)

    @property
    def defect(self) -> int | None:
        """``expected - dimension`` when both are known and the result is certified."""
        if self.expected_dimension is None or not self.certified:
            return None
        return self.expected_dimension - self.dimension

    @property
    def failure_probability(self) -> str | None:
        """``"<= 2^-k"`` for a probabilistic rung, ``None`` for a deterministic one."""
        return None if self.check is None else f"<= 2^-{self.check.failure_log2}"

    def to_json(self) -> dict:
        out = {
            "model": self.spec,
            "dimension": self.dimension,
            "dimension_status": "certified" if self.certified else "lower bound only",
            "lower_bound": self.lower_bound,
            "upper_bound": self.upper_bound,
            "certified": self.certified,
            "rung": self.rung,
            "upper_bound_reason": self.upper_bound_reason,
            "failure_probability": self.failure_probability,
            "ambient_dimension": self.ambient_dimension,
            "parameter_count": self.parameter_count,
            "expected_dimension": self.expected_dimension,
            "mode": self.mode,
            "samples": self.samples,
            "prime": self.prime,
            "field": "QQ" if self.prime is None else f"GF({self.prime})",
            "seed": self.seed,
            "seconds": round(self.seconds, 4),
            "symmetry_rank": self.symmetry_rank,
            "equation_rank": self.equation_rank,
        }
        if self.check is not None:
            out["identity"] = self.check.to_json()
        if self.notes:
            out["notes"] = list(self.notes)
        if self.witness is not None:
            # everything needed to recheck the minor from the output alone
            out["witness"] = {"rows": list(self.witness.rows), "cols": list(self.witness.cols),
                              "prime": self.witness.prime, "mode": self.mode,
                              "theta": [str(v) for v in self.theta],
                              "inputs": [[str(v) for v in row] for row in self.inputs]}
        return out


def _check_size(rows: int, P: int, limit: int) -> None:
    if rows * P > limit:
        raise ResourceError(
            f"the Jacobian would have {rows:,} x {P:,} = {rows * P:,} entries, above the limit of {limit:,} "
            "(use a smaller model, --mode sample, or raise max_entries)"
        )


def _joint_degree(model: Model) -> int | None:
    try:
        return int(model.joint_degree())
    except NotFinishedError:
        return None


class _Ladder:
    """The rungs above the lower bound, each computed at most once and verified when adopted."""

    def __init__(self, model: Model, theta, L: PrimeField, rng_sz, rng_cut):
        self.model, self.theta, self.L = model, theta, L
        self.rng_sz, self.rng_cut = rng_sz, rng_cut
        self.P = model.parameter_count
        self.ambient = model.ambient_dimension()
        self.symmetry_rank = symmetry_rank(model, theta, L)
        self.equation_rank = 0
        self.notes: list = []
        self._cache: dict = {}
        self.can_test = _joint_degree(model) is not None
        if not self.can_test:
            self.notes.append(f"{type(model).__name__} has no joint degree: no identity-tested rung")

    # -- the candidates -------------------------------------------------------------
    def cheap_bound(self) -> int:
        return min(self.ambient, self.P - self.symmetry_rank)

    def _symmetry(self):
        if not self.model.symmetry_count() or not self.can_test:
            return None
        value = self.P - self.symmetry_rank
        return value, (f"parameters {self.P} - rank {self.symmetry_rank} of {self.model.symmetry_count()} symmetry fields "
                       f"({'; '.join(self.model.symmetry_names())})"), lambda: kernel_fields_hold(self.model, self.rng_sz)

    def _equations(self):
        m = self.model
        if m.n_inputs or not self.can_test or not m.image_equation_count():
            return None
        self.equation_rank = rank_mod_p(m.image_equation_gradients(self.theta, self.L), self.L.p)
        if not self.equation_rank:
            return None
        return (self.ambient - self.equation_rank,
                f"ambient {self.ambient} - rank {self.equation_rank} of the gradients of {m.image_equation_count()} image equations",
                lambda: image_equations_hold(m, self.rng_sz))

    def _bottleneck(self):
        m = self.model
        if not isinstance(m, MLP) or len(m.effective_widths) < 4:
            return None
        prefixes = bottleneck_bounds(m, self.theta, self.L, self.rng_cut)
        if prefixes[-1].how != "cut":
            return None
        # the derivation: consecutive cuts back to the prefix whose own bound started the chain
        k = len(prefixes) - 1
        while prefixes[k].how == "cut":
            k -= 1
        base, cuts = prefixes[k], len(prefixes) - 1 - k

        def verify():  # the base's symmetry fields are the only identity the chain rests on
            return kernel_fields_hold(base.model, self.rng_sz) if base.how == "symmetry" else None

        return (prefixes[-1].value, f"bottleneck: {cuts} cut(s) from the first {base.layer} layer(s) ({base.how} bound "
                f"{base.value}); prefix bounds {[u.value for u in prefixes]} (proximity-bias paper, Example B.10)", verify)

    def candidate(self, rung: str) -> Bound | None:
        """The rung's bound, computed once; probabilistic rungs are verified here (a failed test drops the rung)."""
        if rung in self._cache:
            return self._cache[rung]
        bound = None
        if rung == "ambient":
            if self.P < self.ambient:
                bound = Bound(self.P, "ambient", f"parameter count {self.P} (below the ambient dimension {self.ambient})")
            else:
                bound = Bound(self.ambient, "ambient", f"ambient dimension {self.ambient}")
        else:
            found = {"symmetry": self._symmetry, "equations": self._equations, "bottleneck": self._bottleneck}[rung]()
            if found is not None:
                value, reason, verify = found
                check = verify()
                if check is None or check.holds:
                    bound = Bound(value, rung, reason, check)
                else:
                    self.notes.append(f"{rung} rung dropped: the identity '{check.what}' fails at a random point")
        self._cache[rung] = bound
        return bound

    def cramer(self, lower: int, witness: RankWitness, jacobians) -> Bound | None:
        """Cramer fields of the lower bound's block (not cached: the block changes with the samples)."""
        if not self.can_test or witness is None or witness.rank != lower:
            return None
        if lower > MAX_CRAMER_RANK or lower * self.P > MAX_CRAMER_ENTRIES:
            self.notes.append(f"cramer rung skipped: a {lower} x {lower} block with {self.P} columns modulo a 200-bit "
                              f"prime is above the limits ({MAX_CRAMER_RANK} rows, {MAX_CRAMER_ENTRIES:,} entries)")
            return None
        check = cramer_fields_hold(self.model, jacobians, witness.rows, witness.cols, self.rng_sz)
        if not check.holds:
            return None
        return Bound(lower, "cramer", f"{self.P - lower} Cramer kernel fields of the {lower}x{lower} block of the lower "
                     "bound lie in ker J identically", check)


def upper_bound(model: Model, theta, field: PrimeField) -> tuple:
    """``(bound, reason)`` from the first two rungs at ``theta``: ambient and the symmetry fields' rank.

    No identity is tested here (the fields' rank at a point only); :func:`dimension`
    tests the fields before it reports a bound that rests on them.

    Examples
    --------
    >>> from algebra.models import QueryKey
    >>> upper_bound(QueryKey(5, 3), QueryKey(5, 3).random_point(np.random.default_rng(0)), PrimeField(101))
    (21, 'parameters 30 - rank 9 of the symmetry fields')
    """
    P, srank = model.parameter_count, symmetry_rank(model, theta, field)
    if P - srank < model.ambient_dimension():
        return P - srank, f"parameters {P} - rank {srank} of the symmetry fields"
    return model.ambient_dimension(), "ambient dimension"


def _mode_for(model: Model, mode: str, n_monomials: int) -> str:
    if model.n_inputs == 0:
        return "coefficient"
    fits = model.has_coefficient_jacobian and n_monomials <= MAX_MONOMIALS
    if mode == "auto":
        return "coefficient" if fits else "sample"
    if mode == "coefficient" and n_monomials > MAX_MONOMIALS:  # direct or at N unisolvent sample points
        raise ResourceError(f"the coefficient Jacobian would enumerate {n_monomials:,} monomials, above the limit of "
                            f"{MAX_MONOMIALS:,} (use --mode sample)")
    return mode


def _check_rationals(model: Model, rows: int, P: int) -> None:
    deg = _joint_degree(model) or model.degree + 2
    bits = rows * P * 16 * deg  # entries are values of degree-deg polynomials at points of size 2^15
    if bits > MAX_RATIONAL_BITS:
        exc = ResourceError(f"exact rationals over Q would take about {bits:,} bits (joint degree {deg}), above the "
                            f"limit of {MAX_RATIONAL_BITS:,}; drop --over-q (the mod-p route is exact too)")
        exc.argument = "--over-q"
        raise exc


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
        networks (direct Jacobian, when its monomials fit), sample mode otherwise.
    seed : int
        Seeds the integer point, the inputs and the identity tests
        (``numpy.random.SeedSequence(seed)``, one child each).
    prime : int or None
        Lower bound modulo this prime (``< 2**21``); ``None`` takes it exactly
        over Q (slow; for cross-checks).  The ladder always works modulo a prime.
    witness : bool
        Also report a nonsingular ``r x r`` submatrix (rows, cols) of the Jacobian.
    samples : int, optional
        Fix the number of sample inputs ``M`` (sample mode).
    max_entries : int
        Refuse Jacobians larger than this before allocating.

    Examples
    --------
    >>> from algebra.models import QueryKey, shallow_network
    >>> r = dimension(QueryKey(5, 3))
    >>> r.dimension, r.upper_bound, r.certified, r.rung
    (21, 21, True, 'symmetry')
    >>> r = dimension(shallow_network(3, 4, 5))     # an Alexander-Hirschowitz exception
    >>> r.lower_bound, r.upper_bound, r.certified, r.rung, r.expected_dimension
    (14, 14, True, 'cramer', 15)
    >>> r.failure_probability
    '<= 2^-119'
    >>> dimension(QueryKey(2, 1), mode="fast")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid mode='fast': expected one of auto, coefficient, sample
    """
    if not isinstance(model, Model):
        raise InputError("model", type(model).__name__, "a Model from algebra.models")
    if mode not in MODES:
        raise InputError("mode", mode, "one of " + ", ".join(MODES))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError("seed", seed, "a non-negative integer")
    if samples is not None and (isinstance(samples, bool) or not isinstance(samples, int) or samples < 1):
        raise InputError("samples", samples, "a positive integer")
    t0 = time.perf_counter()
    F = RationalField() if prime is None else PrimeField(prime)
    L = F if prime is not None else PrimeField(DEFAULT_PRIME)
    seed = int(seed)
    ss_theta, ss_x, ss_sz, ss_cut = np.random.SeedSequence(seed).spawn(4)
    rng_theta, rng_x = np.random.default_rng(ss_theta), np.random.default_rng(ss_x)
    P = model.parameter_count
    ambient = model.ambient_dimension()
    n_out = model.n_outputs
    n_monomials = monomial_count(model.n_inputs, model.degree, homogeneous=model.homogeneous)
    # Refuse before allocating: the Jacobian needs about min(ambient, P) rows
    # (plus slack) of P columns, the symmetry fields s rows of P columns.
    _check_size(min(ambient, P + 4 * n_out), P, max_entries)
    _check_size(model.symmetry_count(), P, max_entries)
    used_mode = _mode_for(model, mode, n_monomials)
    if used_mode == "coefficient" and model.n_inputs:
        _check_size(n_out * n_monomials, P, max_entries)
    if prime is None:
        _check_rationals(model, min(ambient, P + 4 * n_out), P)

    theta = model.random_point(rng_theta)
    ladder = _Ladder(model, theta, L, np.random.default_rng(ss_sz), np.random.default_rng(ss_cut))
    cheap = ladder.cheap_bound()
    X = np.zeros((1, 0), dtype=np.int64)

    # coefficient mode without a direct Jacobian evaluates at N = #monomials generic points: for
    # points off a proper Zariski-closed set the Vandermonde matrix is invertible, so the sample
    # Jacobian is the coefficient Jacobian times an invertible matrix (same rank)
    direct = used_mode == "coefficient" and (model.n_inputs == 0 or model.has_coefficient_jacobian)
    if direct:
        M = 1 if model.n_inputs == 0 else 0
    elif used_mode == "coefficient":
        M = n_monomials
    elif samples is not None:
        M = samples
    else:
        M = min(n_monomials, max(1, ceil((cheap + 4) / n_out)))

    while True:
        if direct:
            J = model.jacobian(theta, X, F) if model.n_inputs == 0 else model.coefficient_jacobian(theta, F)
        else:
            _check_size(M * n_out, P, max_entries)
            extra = M - (X.shape[0] if X.shape[1] else 0)
            fresh = model.random_inputs(rng_x, extra)
            X = fresh if not X.shape[1] else np.concatenate([X, fresh])
            J = model.jacobian(theta, X, F)
        wit = None
        if F.p is not None:
            wit = rank_with_witness(J, F.p) if witness else None
            lower = wit.rank if wit is not None else rank_mod_p(J, F.p)
        else:
            lower = rank_over_q(J)
        best = None
        for rung in RUNGS[:-1]:
            b = ladder.candidate(rung)
            if b is not None and (best is None or b.value < best.value):
                best = b
            if best is not None and best.value <= lower:
                break
        if best.value > lower:
            if wit is None:
                wit = rank_with_witness(L.array(J) if F.p is None else J, L.p)
            b = ladder.cramer(lower, wit, _jacobian_routes(model, direct, X, wit.rows))
            if b is not None:
                best = b
        if best.value < lower:
            raise AlgebraError(f"inconsistent bounds for {model!r}: lower {lower} > upper {best.value} ({best.reason})")
        grow = used_mode == "sample" and samples is None and M < n_monomials
        if best.value == lower or not grow or min(n_monomials, 2 * M) * n_out * P > max_entries:
            break
        M = min(n_monomials, 2 * M)

    if not witness:
        wit = None
    elif wit is not None and wit.prime != F.p:
        wit = None  # over Q the lower bound has no modular witness to report
        ladder.notes.append("no witness over Q: rerun modulo a prime for one")
    return DimensionResult(
        spec=model.spec(),
        dimension=lower,
        lower_bound=lower,
        upper_bound=best.value,
        certified=lower == best.value,
        ambient_dimension=ambient,
        parameter_count=P,
        expected_dimension=model.expected_dimension(),
        mode=used_mode,
        samples=M,
        prime=F.p,
        seed=seed,
        seconds=time.perf_counter() - t0,
        upper_bound_reason=best.reason,
        rung=best.rung,
        symmetry_rank=ladder.symmetry_rank,
        equation_rank=ladder.equation_rank,
        check=best.check,
        witness=wit,
        theta=[int(v) for v in theta],
        inputs=X.tolist() if X.shape[1] else [],
        notes=ladder.notes,
    )


def _jacobian_routes(model: Model, direct: bool, X, rows: tuple):
    """``jacobians(theta, x, G) -> (J[rows], J at x)`` over a residue field, for the Cramer identity."""
    rows = list(rows)
    if model.n_inputs == 0 or direct:  # one Jacobian holds every row: compute it once
        X0 = np.zeros((1, 0), dtype=np.int64)

        def whole(th, x, G):
            J = model.jacobian(th, X0, G) if model.n_inputs == 0 else model.coefficient_jacobian(th, G)
            return J[rows], J

        return whole
    n_out = model.n_outputs
    samples = sorted({r // n_out for r in rows})
    pos = {s: i for i, s in enumerate(samples)}
    local = [pos[r // n_out] * n_out + r % n_out for r in rows]

    def sampled(th, x, G):
        return model.jacobian(th, X[samples], G)[local], model.jacobian(th, x, G)

    return sampled
