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

**Row sketch.** When the Jacobian has at least :data:`SKETCH_RATIO` times
as many rows as ``s = min(cheap upper bound, P) +`` :data:`SKETCH_OVERSAMPLE`
(data-restricted maps, sample mode after doubling), the lower bound is the
rank of ``R J`` for a uniform random ``s x rows`` matrix ``R`` modulo ``p``
(:func:`~algebra.exact.rank.sketched_rank_mod_p`, or the model's own
``jacobian_sketch`` that never forms ``J``).  ``rank(R J) <= rank(J)`` for
every ``R``, so the bound stays proven whatever ``R`` is; a sketch that
misses rank (probability ``<= p^(rank - s) / (p - 1)``) only costs the
certificate, and the engine then retries without it.  No sketch with
``witness=True``: the witness minor must be one of ``J`` itself.

**Cost guards.** Sizes are refused before anything is allocated
(:class:`~algebra.errors.ResourceError`): the predicted peak memory of the
Jacobian and its rank against ``max_memory`` (``--max-memory``, default
:data:`DEFAULT_MAX_MEMORY`), the monomials a coefficient Jacobian
enumerates (auto mode then samples instead), the bits of exact rationals
over Q, and the Cramer system.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from math import ceil, floor, log2

import numpy as np

from algebra.engine.bottleneck import bottleneck_bounds
from algebra.engine.fields import symmetry_pivots, symmetry_rank
from algebra.engine.identities import IdentityCheck, cramer_fields_hold, image_equations_hold, kernel_fields_hold
import algebra.inputs as inputs
from algebra.errors import AlgebraError, InputError, NotFinishedError, ResourceError
from algebra.exact.field import DEFAULT_PRIME, PrimeField, RationalField
from algebra.exact.elimination import blas_supports, predicted_peak_bytes
from algebra.exact.rank import (FLINT_MAX_ENTRIES, RankWitness, rank_mod_p, rank_over_q, rank_with_witness,
                                sketched_rank_mod_p)
from algebra.models.base import Model, monomial_count
from algebra.models.mlp import MLP

__all__ = ["DimensionResult", "Bound", "dimension", "upper_bound", "RUNGS", "MODES", "MAX_JACOBIAN_ENTRIES", "MAX_MONOMIALS",
           "MAX_RATIONAL_BITS", "MAX_CRAMER_RANK", "MAX_CRAMER_ENTRIES", "DEFAULT_MAX_MEMORY", "SKETCH_RATIO",
           "SKETCH_OVERSAMPLE", "parse_memory", "MAX_IDENTITY_DEGREE"]

RUNGS = ("ambient", "symmetry", "equations", "bottleneck", "cramer")
MODES = ("auto", "coefficient", "sample")

#: The old cap on Jacobian entries (``max_entries``); the engine now refuses by predicted memory
#: (``max_memory``) and applies an entry cap only when the caller passes one.
MAX_JACOBIAN_ENTRIES = 60_000_000
#: Default ``max_memory`` (bytes): 16 GiB leaves a third of a 24 GiB machine to everything else.
DEFAULT_MAX_MEMORY = 16 * 2**30
#: Bytes per Jacobian entry while a model builds it: the int64 array and one temporary of its size
#: (an estimate; the models' numpy code holds at most one full-size temporary at a time).
JACOBIAN_BYTES_PER_ENTRY = 16
#: Bytes per entry of a Jacobian over the 200-bit identity field (a Python int and its pointer).
RESIDUE_BYTES_PER_ENTRY = 64
#: Sketch a Jacobian with at least this many times the rows the rank can use.
SKETCH_RATIO = 2
#: Rows of the sketch beyond the cheap upper bound (a rank-deficient sketch has probability <= p^-8 / (p - 1)).
SKETCH_OVERSAMPLE = 8
#: A coefficient Jacobian enumerates its monomials in Python; above this, auto mode samples instead.
MAX_MONOMIALS = 200_000
#: Over Q, refuse when the entries' predicted total size (entries x bits per entry) exceeds this many bits.
MAX_RATIONAL_BITS = 2 * 10**8
#: The Cramer rung evaluates ``r`` Jacobian rows modulo a 200-bit prime (Python ints) and solves one
#: ``r x r`` system there (``fmpz_mod_mat``).  Measured on the shared 2-core machine: ``r = 400`` takes
#: 0.5 s to convert and 0.9 s to solve, ``r = 486`` (the data-restricted grokking map at p = 11, K = 16,
#: f = 0.4) 1.1 s for the whole ``dimension()``, ``r = 816`` (``shallow --n 16 --degree 3 --width 51``)
#: 8 s in all; above these sizes the rung is skipped with a note and the result stays honestly uncertified.
MAX_CRAMER_RANK = 600
MAX_CRAMER_ENTRIES = 1_000_000
#: Identity-tested rungs need a joint degree well below the 200-bit Schwartz–Zippel primes: a Cramer
#: identity has degree (r + 1) x joint degree, at most 2^109 here (one point then fails with
#: probability below 2^-90).  Deeper maps (e.g. 36 layers of t^64) keep the deterministic rungs.
MAX_IDENTITY_DEGREE = 2**100


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
    sketch: dict | None = None
    predicted_peak_bytes: int = 0
    max_memory: int | None = None
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
            "predicted_peak_bytes": self.predicted_peak_bytes,
            "max_memory": self.max_memory,
        }
        if self.sketch is not None:
            out["sketch"] = dict(self.sketch)
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


def parse_memory(value, argument: str = "--max-memory") -> int:
    """Bytes from an int or a string with an optional binary suffix (``K``, ``M``, ``G``, ``T``; ``B`` allowed):
    :func:`algebra.inputs.memory`, kept under this name for ``algebra.engine``'s public API (the CLI's
    ``--max-memory`` goes through :func:`algebra.cli.args.memory_arg`).

    Examples
    --------
    >>> parse_memory("8G"), parse_memory("512MiB"), parse_memory(1000), parse_memory("1.5k")
    (8589934592, 536870912, 1000, 1536)
    >>> parse_memory("٨G")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --max-memory='٨G': expected bytes, e.g. 8G, 512M or 1000000
    """
    return inputs.memory(value, argument)


def _gb(n: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} bytes"


def _check_memory(need: int, what: str, max_memory: int | None) -> None:
    """Refuse before allocating when the predicted peak ``need`` (bytes) is above ``max_memory``."""
    if max_memory is not None and need > max_memory:
        exc = ResourceError(f"{what} needs about {_gb(need)} (predicted peak), above max_memory = {_gb(max_memory)}; "
                            "raise --max-memory or use a smaller model")
        exc.argument, exc.value = "--max-memory", max_memory
        raise exc


def _rank_need(rows: int, P: int, F, *, sketch_rows: int | None, witness: bool) -> int:
    """Predicted peak (bytes) of the materialised Jacobian plus its exact rank (or row sketch)."""
    need = JACOBIAN_BYTES_PER_ENTRY * rows * P
    if F.p is None:  # over Q the size is guarded by _check_rationals
        return need
    if sketch_rows is not None:  # sketched_rank_mod_p: the sketch, R and J chunks of 1024 rows, the elimination
        s = sketch_rows
        return need + 8 * (s * P + 2 * s * 1024 + 2 * 1024 * P) + predicted_peak_bytes(s, P, overwrite=True)
    method = "blas" if blas_supports(F.p) and rows * P >= FLINT_MAX_ENTRIES else "flint"
    # the blocked route works in place on the int64 Jacobian (overwrite=True in _lower_bound)
    return need + predicted_peak_bytes(rows, P, method=method, witness=witness, overwrite=method == "blas")


def _shortfall(p: int) -> str:
    """Bound on ``P(rank(R J) < rank(J))`` when ``rank(J) <= rows - SKETCH_OVERSAMPLE``: ``p^-8 / (p - 1)``.

    Only the certificate is at stake (``rank(R J) <= rank(J)`` always); the engine retries unsketched.
    """
    return f"<= 2^-{floor((SKETCH_OVERSAMPLE + 1) * log2(p - 1))} (p^-{SKETCH_OVERSAMPLE} / (p - 1); costs only the certificate)"


def _take_columns(J: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``J[:, cols]`` (``cols`` increasing) in ``J``'s own memory when ``J`` is C-contiguous, else a copy.

    Row chunks are gathered and written back from the start of the buffer: chunk ``i`` lands before row
    ``i + step`` begins (``len(cols) <= P``), so no row is overwritten before it is read.
    """
    m, P = J.shape
    if not (J.flags.c_contiguous and J.flags.writeable):
        return J[:, cols]
    k = len(cols)
    flat = J.reshape(-1)
    step = max(1, (1 << 20) // max(1, P))
    for i in range(0, m, step):
        part = J[i : i + step][:, cols]
        flat[i * k : i * k + part.size] = part.ravel()
    return flat[: m * k].reshape(m, k)


def _lower_bound(model: Model, theta, X, F, direct: bool, rows: int, *, sketch_rows: int | None, sketch_seed: int,
                 witness: bool, max_memory: int | None, max_entries: int | None, columns=None) -> tuple:
    """``(lower, witness, sketch record, predicted peak, J)``: the exact rank of J or of a row sketch of it.

    ``columns`` (increasing parameter indices, or None for all): rank ``J[:, columns]`` instead, a lower
    bound on ``rank J`` as any column submatrix is (the engine passes the columns left once the symmetry
    fields' pivot columns are removed: :mod:`algebra.engine.fields`).  The witness columns are ``J``'s.
    ``witness``, ``record`` and ``J`` are ``None`` where not computed (``J`` is ``None`` once the rank
    has reused its memory or kept only some columns: only the rank over Q of all columns leaves it intact).
    """
    P = model.parameter_count
    if sketch_rows is not None and model.n_inputs == 0 and hasattr(model, "jacobian_sketch"):
        s = sketch_rows
        need = model.jacobian_sketch_bytes(s) + predicted_peak_bytes(s, P, overwrite=True)
        _check_memory(need, f"a {s:,}-row sketch of the {rows:,} x {P:,} Jacobian", max_memory)
        S = model.jacobian_sketch(theta, F, s, np.random.default_rng(np.random.SeedSequence(sketch_seed)))
        record = {"rows": s, "jacobian_rows": rows, "seed": sketch_seed, "route": f"{type(model).__name__}.jacobian_sketch",
                  "shortfall_probability": _shortfall(F.p)}
        return rank_mod_p(S, F.p, overwrite=True, columns=columns), None, record, need, None
    if max_entries is not None:
        _check_size(rows, P, max_entries)
    need = _rank_need(rows, P, F, sketch_rows=sketch_rows, witness=witness)
    _check_memory(need, f"the {rows:,} x {P:,} Jacobian ({rows * P:,} entries) and its exact rank", max_memory)
    J = _jacobian(model, theta, X, F, direct)
    if columns is not None and (sketch_rows is not None or F.p is None):
        J = _take_columns(J, columns)  # the exact ranks below gather the columns while reducing
    if sketch_rows is not None:
        sk = sketched_rank_mod_p(J, F.p, expected_rank=sketch_rows, oversample=0, seed=sketch_seed)
        record = {"rows": sk.rows, "jacobian_rows": rows, "seed": sketch_seed, "route": "sketched_rank_mod_p",
                  "shortfall_probability": _shortfall(F.p)}
        return sk.rank, None, record, need, None
    if F.p is None:
        return rank_over_q(J), None, None, need, J if columns is None else None
    # the rank reuses J's memory (no float64 copy); the rare caller that needs J again rebuilds it
    if witness:
        wit = rank_with_witness(J, F.p, overwrite=True, columns=columns)
        return wit.rank, wit, None, need, None
    return rank_mod_p(J, F.p, overwrite=True, columns=columns), None, None, need, None


def _jacobian(model: Model, theta, X, F, direct: bool):
    if direct and model.n_inputs:
        return model.coefficient_jacobian(theta, F)
    return model.jacobian(theta, X, F)


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
        self.symmetry_rank, self.symmetry_columns = symmetry_pivots(model, theta, L)
        self.equation_rank = 0
        self.notes: list = []
        self._cache: dict = {}
        degree = _joint_degree(model)
        self.can_test = degree is not None and degree <= MAX_IDENTITY_DEGREE
        if degree is None:
            self.notes.append(f"{type(model).__name__} has no joint degree: no identity-tested rung")
        elif not self.can_test:
            self.notes.append(f"joint degree {degree} is above 2^100: no identity-tested rung")

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

    def cramer(self, lower: int, witness: RankWitness, jacobians, whole_rows: int = 0,
               max_memory: int | None = None) -> Bound | None:
        """Cramer fields of the lower bound's block (not cached: the block changes with the samples).

        ``whole_rows``: rows of the Jacobian the test forms over the 200-bit field at each point (all of
        them for maps without inputs), about :data:`RESIDUE_BYTES_PER_ENTRY` bytes per entry there.
        """
        if not self.can_test or witness is None or witness.rank != lower:
            return None
        need = RESIDUE_BYTES_PER_ENTRY * whole_rows * self.P
        if max_memory is not None and need > max_memory:
            self.notes.append(f"cramer rung skipped: its {whole_rows:,} x {self.P:,} Jacobian over a 200-bit field "
                              f"needs about {_gb(need)}, above max_memory = {_gb(max_memory)} (--max-memory)")
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


def _mode_for(model: Model, mode: str, n_monomials: int, max_memory: int | None = None) -> str:
    if model.n_inputs == 0:
        return "coefficient"
    # auto samples when the coefficient Jacobian would not fit in max_memory (the sample Jacobian has ~P rows)
    fits = model.has_coefficient_jacobian and n_monomials <= MAX_MONOMIALS and (
        max_memory is None or JACOBIAN_BYTES_PER_ENTRY * model.n_outputs * n_monomials * model.parameter_count <= max_memory)
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


# -- the pieces of dimension() ------------------------------------------------------------------
# dimension() refuses bad arguments and sizes (_check_arguments, _refuse_sizes), draws the point and
# builds the ladder, chooses the first samples (_first_samples), then repeats _search_step (one
# lower bound at the current samples, the ladder above it, and whether to double the samples)
# until it says stop, and reports the last step's bounds (_result).


def _check_arguments(model, mode, seed, samples, max_memory, max_entries=None) -> tuple:
    """``(seed, max_memory)`` as ints (``max_memory`` may stay None); :class:`InputError` naming a bad one
    (``max_entries``, when given, an integer >= 1: ``0`` or ``'3'`` was compared with the sizes)."""
    if not isinstance(model, Model):
        raise InputError("model", type(model).__name__, "a Model from algebra.models")
    inputs.choice(mode, "mode", MODES)
    if max_entries is not None:
        inputs.integer(max_entries, "max_entries", minimum=1)
    seed = inputs.seed(seed, "seed")
    if max_memory is not None:
        max_memory = inputs.memory(max_memory, "max_memory")
    if samples is not None:
        inputs.integer(samples, "samples", minimum=1)
        # the sample Jacobian (samples x outputs rows, P columns) and the inputs are sized before either is drawn
        rows = samples * max(model.n_outputs, 1)
        need = JACOBIAN_BYTES_PER_ENTRY * rows * max(model.parameter_count, model.n_inputs, 1)
        if max_memory is not None and need > max_memory:
            raise InputError("samples", samples,
                             f"fewer samples: a {rows:,} x {model.parameter_count:,} sample Jacobian needs about "
                             f"{need / 2**30:.3g} GiB, above the memory limit (max_memory, --max-memory) = {max_memory / 2**30:.3g} GiB")
    return seed, max_memory


def _refuse_sizes(model: Model, mode: str, n_monomials: int, *, prime, witness: bool, max_entries: int | None,
                  max_memory: int | None) -> str:
    """The mode to use, after refusing (:class:`ResourceError`) every size that is too large before allocating."""
    P, ambient, n_out = model.parameter_count, model.ambient_dimension(), model.n_outputs
    # Refuse before allocating: the Jacobian needs at least min(ambient, P) rows
    # of P columns unless the model sketches it itself; the symmetry fields s rows of P columns.
    own_sketch = model.n_inputs == 0 and hasattr(model, "jacobian_sketch") and prime is not None and not witness
    least = SKETCH_OVERSAMPLE + min(ambient, P) if own_sketch else min(ambient, P + 4 * n_out)
    if max_entries is not None:
        _check_size(least, P, max_entries)
        _check_size(model.symmetry_count(), P, max_entries)
    if not own_sketch:
        _check_memory(JACOBIAN_BYTES_PER_ENTRY * least * P,
                      f"the Jacobian ({least:,} x {P:,} = {least * P:,} entries or more)", max_memory)
    _check_memory(JACOBIAN_BYTES_PER_ENTRY * model.symmetry_count() * P, "the symmetry fields", max_memory)
    used_mode = _mode_for(model, mode, n_monomials, max_memory)
    if used_mode == "coefficient" and model.n_inputs:
        if max_entries is not None:
            _check_size(n_out * n_monomials, P, max_entries)
        _check_memory(JACOBIAN_BYTES_PER_ENTRY * n_out * n_monomials * P,
                      f"the coefficient Jacobian ({n_out * n_monomials:,} x {P:,} entries)", max_memory)
    if prime is None:
        _check_rationals(model, min(ambient, P + 4 * n_out), P)
    return used_mode


def _first_samples(model: Model, used_mode: str, n_monomials: int, samples: int | None, cheap: int) -> tuple:
    """``(direct, M)``: whether the coefficient Jacobian is formed directly, and the first number of samples.

    Sample mode starts at ``M = ceil((cheap + 4) / n_outputs)`` (enough rows for the cheap upper bound).
    Coefficient mode without a direct Jacobian evaluates at ``N = #monomials`` generic points: for points
    off a proper Zariski-closed set the Vandermonde matrix is invertible, so the sample Jacobian is the
    coefficient Jacobian times an invertible matrix (same rank).
    """
    direct = used_mode == "coefficient" and (model.n_inputs == 0 or model.has_coefficient_jacobian)
    if direct:
        return True, 1 if model.n_inputs == 0 else 0
    if used_mode == "coefficient":
        return False, n_monomials
    if samples is not None:
        return False, samples
    return False, min(n_monomials, max(1, ceil((cheap + 4) / model.n_outputs)))


@dataclass(frozen=True)
class _Setup:
    """What stays fixed while the samples double: the model at its point, the fields, the ladder, the options.

    ``F`` is the lower bound's field (GF(p) or Q), ``L`` the ladder's prime field; ``s_rows`` the rows a
    sketch keeps; ``samples`` the caller's fixed number of samples (or None).
    """

    model: Model
    theta: np.ndarray
    F: object
    L: PrimeField
    ladder: _Ladder
    mode: str
    direct: bool
    n_monomials: int
    samples: int | None
    rng_x: np.random.Generator
    sketch_seed: int
    s_rows: int
    witness: bool
    max_memory: int | None
    max_entries: int | None


@dataclass
class _Search:
    """The state the steps of the sample-doubling search pass on: the samples ``M`` and inputs ``X``,
    whether to sketch and which columns to rank, and the last step's lower bound, witness, sketch and best bound.

    ``previous`` is the rank before the last doubling; ``cramer_skipped`` says the Cramer skip was noted.
    """

    M: int
    X: np.ndarray
    sketching: bool
    columns: np.ndarray | None
    previous: int | None = None
    cramer_skipped: bool = False
    peak: int = 0
    lower: int = 0
    witness: RankWitness | None = None
    sketch: dict | None = None
    best: Bound | None = None


def _rank_samples(run: _Setup, st: _Search) -> tuple:
    """Draw the inputs ``M`` samples need and take the lower bound there; returns ``(rows, J or None)``."""
    model, n_out = run.model, run.model.n_outputs
    if run.direct:
        rows = n_out if model.n_inputs == 0 else n_out * run.n_monomials
    else:
        rows = st.M * n_out
        extra = st.M - (st.X.shape[0] if st.X.shape[1] else 0)
        if extra > 0:  # none after an unsketched retry
            fresh = model.random_inputs(run.rng_x, extra)
            st.X = fresh if not st.X.shape[1] else np.concatenate([st.X, fresh])
    use = run.s_rows if st.sketching and rows >= SKETCH_RATIO * run.s_rows else None
    st.lower, st.witness, st.sketch, need, J = _lower_bound(
        model, run.theta, st.X, run.F, run.direct, rows, sketch_rows=use, sketch_seed=run.sketch_seed,
        witness=run.witness, max_memory=run.max_memory, max_entries=run.max_entries, columns=st.columns)
    st.peak = max(st.peak, need)
    return rows, J


def _cheapest(ladder: _Ladder, lower: int) -> Bound:
    """The best bound of the rungs below Cramer, climbing only until one meets ``lower``."""
    best = None
    for rung in RUNGS[:-1]:
        b = ladder.candidate(rung)
        if b is not None and (best is None or b.value < best.value):
            best = b
        if best is not None and best.value <= lower:
            break
    return best


def _retry(run: _Setup, st: _Search, best: Bound) -> bool:
    """Whether the lower bound must be retaken at the same samples: unsketched, or on all columns (noted)."""
    ladder, P = run.ladder, run.model.parameter_count
    if best.value > st.lower and st.sketch is not None:
        # a sketch that falls short proves nothing more: retry unsketched (the Cramer rung needs J's own minor)
        ladder.notes.append(f"the {st.sketch['rows']}-row sketch gave rank {st.lower} < upper bound {best.value}: "
                            "recomputed without a sketch")
        st.sketching = False
        return True
    if best.value > st.lower and st.columns is not None and ladder.candidate("symmetry") is None:
        # the fields' pivot columns are dependent when J X = 0; that identity failed or was not tested
        ladder.notes.append(f"the {P - ladder.symmetry_rank} columns outside the symmetry fields' pivots gave rank "
                            f"{st.lower} < upper bound {best.value}: recomputed with all {P} columns")
        st.columns = None
        return True
    return False


def _with_cramer(run: _Setup, st: _Search, best: Bound, rows: int, J) -> Bound:
    """``best``, or the Cramer rung's bound when ``best`` misses the lower bound and the block fits the limits."""
    model, ladder, lower, P = run.model, run.ladder, st.lower, run.model.parameter_count
    cramer_fits = lower <= MAX_CRAMER_RANK and lower * P <= MAX_CRAMER_ENTRIES
    if best.value > lower and not cramer_fits and not st.cramer_skipped:
        st.cramer_skipped = True  # say it once, and do not pay for a witness the rung cannot use
        ladder.notes.append(f"cramer rung skipped: a {lower} x {lower} block with {P} columns modulo a 200-bit "
                            f"prime is above the limits ({MAX_CRAMER_RANK} rows, {MAX_CRAMER_ENTRIES:,} entries)")
    if best.value > lower and cramer_fits:
        if st.witness is None:
            J = _jacobian(model, run.theta, st.X, run.F, run.direct) if J is None else J  # the rank consumed it
            st.witness = rank_with_witness(run.L.array(J) if run.F.p is None else J, run.L.p)
        b = ladder.cramer(lower, st.witness, _jacobian_routes(model, run.direct, st.X, st.witness.rows),
                          rows if model.n_inputs == 0 or run.direct else model.n_outputs, run.max_memory)
        if b is not None:
            best = b
    return best


def _double_samples(run: _Setup, st: _Search) -> bool:
    """Double ``M`` and return True when the search should go on; False when it stops (met, fixed, too big, stable)."""
    model, lower, best, M = run.model, st.lower, st.best, st.M
    P = model.parameter_count
    grow = run.mode == "sample" and run.samples is None and M < run.n_monomials
    nxt = min(run.n_monomials, 2 * M) * model.n_outputs
    too_big = (run.max_entries is not None and nxt * P > run.max_entries) or (
        run.max_memory is not None and _rank_need(nxt, P, run.F, sketch_rows=None, witness=run.witness) > run.max_memory)
    # Doubling the samples raises the rank only while it is below the generic
    # rank; once a doubling left it unchanged, more samples are not expected
    # to help (the rank of generic samples stabilises), so stop and report the
    # proven lower bound and the best proven upper bound, uncertified.
    stable = st.previous is not None and lower == st.previous
    if stable and best.value > lower:
        run.ladder.notes.append(f"the rank stayed {lower} when the samples doubled to {M}: not growing further")
    if best.value == lower or not grow or too_big or stable:
        return False
    st.previous = lower
    st.M = min(run.n_monomials, 2 * M)
    return True


def _search_step(run: _Setup, st: _Search) -> bool:
    """One iteration: the lower bound at the current samples, the ladder above it, then retry, double or stop.

    Returns
    -------
    bool
        True while the search goes on (a retry at the same samples, or doubled samples).

    Raises
    ------
    AlgebraError
        When a proven upper bound is below the proven lower bound (a bug, never a result).
    """
    rows, J = _rank_samples(run, st)
    best = _cheapest(run.ladder, st.lower)
    if _retry(run, st, best):
        return True
    best = _with_cramer(run, st, best, rows, J)
    if best.value < st.lower:
        raise AlgebraError(f"inconsistent bounds for {run.model!r}: lower {st.lower} > upper {best.value} ({best.reason})")
    st.best = best
    return _double_samples(run, st)


def _result(run: _Setup, st: _Search, seed: int, t0: float) -> DimensionResult:
    """The :class:`DimensionResult` of the search's last step (notes on a small prime and a witness over Q)."""
    model, F, ladder, lower, best, wit = run.model, run.F, run.ladder, st.lower, st.best, st.witness
    if F.p is not None and lower < best.value:
        # A proven lower bound still (rank mod p at an integer point <= rank over Q <= dimension), but a
        # small p need not reach the dimension: a nonzero r x r minor of degree <= r * D in theta (and the
        # inputs) may vanish at every point modulo p (x^p - x does), and vanishes at a random one with
        # probability up to r * D / p (Schwartz-Zippel), so the bound says nothing when p <= r * D.
        degree = (_joint_degree(model) or model.degree + 2) * best.value
        if F.p <= degree:
            ladder.notes.append(f"the prime {F.p} is not above {degree}, the degree bound of a {best.value} x {best.value} "
                                f"minor: the rank modulo {F.p} is a proven lower bound but can fall short of the "
                                f"dimension; rerun with a prime above it (--prime, default {DEFAULT_PRIME})")
    if not run.witness:
        wit = None
    elif wit is not None and wit.prime != F.p:
        wit = None  # over Q the lower bound has no modular witness to report
        ladder.notes.append("no witness over Q: rerun modulo a prime for one")
    return DimensionResult(
        spec=model.spec(), dimension=lower, lower_bound=lower, upper_bound=best.value, certified=lower == best.value,
        ambient_dimension=ladder.ambient, parameter_count=ladder.P, expected_dimension=model.expected_dimension(),
        mode=run.mode, samples=st.M, prime=F.p, seed=seed, seconds=time.perf_counter() - t0,
        upper_bound_reason=best.reason, rung=best.rung, symmetry_rank=ladder.symmetry_rank,
        equation_rank=ladder.equation_rank, check=best.check, witness=wit, sketch=st.sketch,
        predicted_peak_bytes=st.peak, max_memory=run.max_memory, theta=[int(v) for v in run.theta],
        inputs=st.X.tolist() if st.X.shape[1] else [], notes=ladder.notes,
    )


def dimension(
    model: Model,
    *,
    mode: str = "auto",
    seed: int = 0,
    prime: int | None = DEFAULT_PRIME,
    witness: bool = False,
    samples: int | None = None,
    max_entries: int | None = None,
    max_memory: int | None = DEFAULT_MAX_MEMORY,
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
    max_entries : int, optional
        Also refuse Jacobians with more entries than this before allocating.
    max_memory : int or None
        Refuse (:class:`~algebra.errors.ResourceError` naming ``--max-memory``)
        before allocating when the predicted peak of the Jacobian and its rank
        is above this many bytes; ``None``: no limit.

    Returns
    -------
    DimensionResult
        ``dimension`` (the proven lower bound: the rank modulo ``prime`` of the Jacobian at a random integer point),
        ``upper_bound`` and the rung that proved it (``upper_bound_reason``), ``certified`` (lower = upper),
        ``failure_probability`` of the identity tests, and the seed and settings that reproduce the run.

    Raises
    ------
    InputError
        An unknown ``mode``, a ``prime`` out of range, or sizes the model refuses.
    ResourceError
        The predicted peak memory is above ``max_memory`` (before anything is allocated).

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
    >>> from algebra.models import MLP
    >>> dimension(MLP((30, 60, 60, 1), "t^2"), max_memory="64M")  # refused before anything is allocated
    Traceback (most recent call last):
    ...
    algebra.errors.ResourceError: the Jacobian (5,464 x 5,460 = 29,833,440 entries or more) needs about 455 MiB (predicted peak), above max_memory = 64 MiB; raise --max-memory or use a smaller model
    >>> dimension(QueryKey(2, 1), mode="fast")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid mode='fast': expected one of auto, coefficient, sample

    References
    ----------
    .. [1] Kileel, Trager, Bruna, "On the expressive power of deep polynomial neural networks", NeurIPS 2019 (the neurovariety and its dimension).
    .. [2] Schwartz (1980), Zippel (1979): a nonzero polynomial of degree d vanishes at a random point of ``S^n`` with probability ``<= d / |S|`` (the identity tests of the upper-bound ladder).
    """
    seed, max_memory = _check_arguments(model, mode, seed, samples, max_memory, max_entries)
    t0 = time.perf_counter()
    F = RationalField() if prime is None else PrimeField(prime)
    L = F if prime is not None else PrimeField(DEFAULT_PRIME)
    ss_theta, ss_x, ss_sz, ss_cut, ss_sketch = np.random.SeedSequence(seed).spawn(5)
    n_monomials = monomial_count(model.n_inputs, model.degree, homogeneous=model.homogeneous)
    used_mode = _refuse_sizes(model, mode, n_monomials, prime=prime, witness=witness, max_entries=max_entries,
                              max_memory=max_memory)

    theta = model.random_point(np.random.default_rng(ss_theta))
    ladder = _Ladder(model, theta, L, np.random.default_rng(ss_sz), np.random.default_rng(ss_cut))
    cheap = ladder.cheap_bound()
    direct, M = _first_samples(model, used_mode, n_monomials, samples, cheap)
    run = _Setup(model, theta, F, L, ladder, used_mode, direct, n_monomials, samples, np.random.default_rng(ss_x),
                 int(ss_sketch.generate_state(1)[0]), min(cheap, model.parameter_count) + SKETCH_OVERSAMPLE,
                 witness, max_memory, max_entries)
    # witness=True never sketches: the witness minor must be one of J itself; rank only the columns the
    # symmetry fields do not prove dependent (fields.py): the same rank when J X = 0
    columns = (np.setdiff1d(np.arange(model.parameter_count), ladder.symmetry_columns)
               if ladder.symmetry_rank else None)
    st = _Search(M, np.zeros((1, 0), dtype=np.int64), F.p is not None and blas_supports(F.p) and not witness, columns)
    while _search_step(run, st):
        pass
    return _result(run, st, seed, t0)


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
        if not samples:  # a rank-0 lower bound has an empty block: evaluate no Jacobian at no inputs
            return np.zeros((0, model.parameter_count), dtype=object), model.jacobian(th, x, G)
        return model.jacobian(th, X[samples], G)[local], model.jacobian(th, x, G)

    return sampled
