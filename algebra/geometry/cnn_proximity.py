"""Proximity bias toward subnetworks of polynomial CNNs, by the rank of the differential.

Proximity-bias paper, Section 3.1 (last remark), Appendix C and Figure 6.
For a parametrization ``phi: Theta -> F`` and any ``theta``,
``N_F(phi(theta)) ⊆ im(d phi_theta)^perp``.  If at a generic parameter
``theta'`` of a subnetwork ``F'`` (inactive channels, or pruned weights) the
differential has rank ``r``, the normal cones at the points of ``F'`` near
``phi(theta')`` have dimension at most ``dim H - r`` (``H = span F``), so
their union ``U = ∪ (f + N_F(f))`` has dimension at most
``dim F' + dim H - r``.  When ``r > dim F'`` this is below ``dim H``: ``U``,
hence ``Vor^loc_F(F')``, has empty interior, and there is no proximity bias
toward ``F'`` (Proposition 2.2).  At a generic point of ``F`` the rank is
``dim F``; the paper's CNN argument is that it stays ``dim F`` on subnetworks.

What is computed (all ranks exact modulo a prime, dimensions from the engine):

* ``dim F`` and ``dim F'`` with their certified intervals
  (:func:`algebra.geometry.proximity.certified_dimension`; for pruned weights
  ``dim F'`` is the rank of the Jacobian's free columns, bounded above by the
  free parameters minus the symmetry fields tangent to the pruned subspace);
* ``r``: the rank of ``J(theta')`` at a random point ``theta'`` of the
  subnetwork -- the inactive channels' outgoing weights (or the pruned
  weights) are zero, everything else random, incoming weights of inactive
  channels included -- on enough generic inputs.  A rank modulo ``p`` on
  samples is a lower bound of the rank of ``d phi_theta'`` in coefficient
  space, and that rank is at most ``dim F``.

Verdicts: ``proximity bias`` (Proposition 2.4: certified ``dim F' = dim F``);
``no proximity bias (rank of the differential at a random point of F')``
(``r > dim F'`` proven at one random ``theta'``; as with the MLP count of
Lemma B.8, evidence at a random point of ``F'``, not a proof at every point,
since the points of ``F'`` where the rank drops are not examined);
``undecided`` otherwise.

Examples
--------
>>> r = cnn_proximity(CNN(4, [2], channels=(1, 2), activations="t^2", dense=1), {1: [0]})
>>> r.dim_full["upper_bound"], r.dim_sub["upper_bound"], r.rank, r.verdict
(7, 4, 7, "no proximity bias (rank of the differential at a random point of F')")
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from math import ceil, prod

import numpy as np

from algebra.engine import MAX_JACOBIAN_ENTRIES
from algebra.errors import InputError, ResourceError
from algebra.exact.field import DEFAULT_PRIME, PrimeField
from algebra.exact.polynomial import Polynomial, PolynomialField, symbolic_forward
from algebra.exact.rank import rank_mod_p
from algebra.geometry.proximity import DIMENSION_KEYS, _rng, certified_dimension, check_submodel
from algebra.models.base import monomial_count
from algebra.models.cnn import CNN, cnn_from_text

__all__ = [
    "CNNProximityResult",
    "render",
    "subnetwork_point",
    "differential_rank",
    "cnn_proximity",
    "pruned_proximity",
    "figure6_model",
    "FIGURE6_SUBNETWORKS",
    "figure6",
    "SWEEP_CASES",
    "cnn_sweep",
    "write_cnn_sweep",
    "LINEAR_TABLE",
    "linear_cnn_table",
    "polynomial_map",
    "differential_map",
    "subnetwork_evidence",
]

NO_BIAS = "no proximity bias (rank of the differential at a random point of F')"


@dataclass
class CNNProximityResult:
    """Dimensions, the rank of the differential on the subnetwork, and the verdict."""

    spec: dict
    subnetwork: dict
    dim_full: dict
    dim_sub: dict
    rank: int
    samples: int
    propositions: list
    verdict: str
    seed: int
    prime: int
    seconds: float = 0.0
    notes: dict = field(default_factory=dict)

    @property
    def rank_is_dim_f(self) -> bool:
        """``True`` when the rank at the subnetwork point is proven equal to ``dim F`` (the generic rank)."""
        return self.rank >= self.dim_full["upper_bound"]

    def to_json(self) -> dict:
        keep = DIMENSION_KEYS
        return {
            "model": self.spec,
            "subnetwork": self.subnetwork,
            "dim_F": {k: self.dim_full[k] for k in keep},
            "dim_F_sub": {k: self.dim_sub[k] for k in keep},
            "rank_at_subnetwork": self.rank,
            "rank_equals_dim_F": self.rank_is_dim_f,
            "samples": self.samples,
            "propositions": self.propositions,
            "verdict": self.verdict,
            "seed": self.seed,
            "prime": self.prime,
            "seconds": round(self.seconds, 4),
        }


def _reader(model: CNN, layer: int, channel: int) -> tuple:
    """``(block, index)`` of the weights that read ``channel`` of ``layer`` (the next filters or the dense columns)."""
    if layer < model.n_layers:
        return f"W{layer + 1}", (slice(None), channel)
    npos = prod(model.output_shape)
    return "D", (slice(None), slice(channel * npos, (channel + 1) * npos))


def _pruned_indices(model: CNN, pruned: dict) -> np.ndarray:
    """Flat parameter indices of ``{block: [flat indices within the block]}``."""
    offsets = model.offsets()
    out = []
    for name, idx in pruned.items():
        if name not in offsets:
            raise InputError("pruned", pruned, f"blocks among {list(offsets)}")
        start, shape = offsets[name]
        for i in idx:
            if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < prod(shape):
                raise InputError("pruned", pruned, f"indices of block {name} in 0..{prod(shape) - 1}")
            out.append(start + int(i))
    if not out:
        raise InputError("pruned", pruned, "at least one pruned weight")
    return np.array(sorted(set(out)), dtype=np.int64)


def subnetwork_point(model: CNN, inactive: dict, rng: np.random.Generator, *, bound: int = 2**15) -> np.ndarray:
    """A random parameter of ``model`` whose ``inactive`` channels are inactive (outgoing weights zero).

    The incoming filters and biases of the inactive channels stay random:
    they do not change the function, but they enter ``d phi`` through the
    outgoing weights' columns.

    Examples
    --------
    >>> m = CNN(4, [2], channels=(1, 2), activations="t^2", dense=1)
    >>> th = subnetwork_point(m, {1: [0]}, np.random.default_rng(0))
    >>> m.unpack(th)["D"][0, :3].tolist()
    [0, 0, 0]
    """
    theta = model.random_point(rng, bound=bound)
    blocks = model.unpack(theta)  # views: writing them writes theta
    for layer, channels in inactive.items():
        for c in channels:
            name, index = _reader(model, layer, c)
            blocks[name][index] = 0
    return theta


def _refuse_jacobian(model: CNN) -> None:
    """Refuse (``InputError`` naming ``model``), before the subnetwork or any Jacobian is built, a network whose
    certified dimension needs a Jacobian above :data:`~algebra.engine.MAX_JACOBIAN_ENTRIES`: at least
    ``min(ambient, P + 4 outputs)`` rows of ``P`` columns (the engine's own least size).  The ambient count is
    bracketed first from the shapes (:meth:`~algebra.models.cnn.CNN.ambient_bounds`), so a network refused (or
    accepted) by its bounds never builds its receptive fields (one per input position)."""
    P = model.parameter_count
    cap = P + 4 * model.n_outputs
    low, high = model.ambient_bounds()
    if min(high, cap) * P <= MAX_JACOBIAN_ENTRIES:
        return
    rows = min(low, cap) if min(low, cap) * P > MAX_JACOBIAN_ENTRIES else min(model.ambient_dimension(), cap)
    if rows * P > MAX_JACOBIAN_ENTRIES:
        raise InputError("model", f"a CNN with {P:,} parameters",
                         f"a smaller network: its dimension needs a Jacobian of {rows:,} x {P:,} = {rows * P:,} "
                         f"entries or more, above MAX_JACOBIAN_ENTRIES = {MAX_JACOBIAN_ENTRIES:,}")


def differential_rank(model: CNN, theta, *, target: int, seed: int = 0, prime: int = DEFAULT_PRIME,
                      columns=None) -> tuple:
    """``(rank, samples)``: rank modulo ``prime`` of ``J(theta)`` (or of its ``columns``) on generic inputs.

    Starts with enough samples to reach ``target`` and doubles them while the
    rank falls short, up to the number of monomials (where more samples
    cannot raise it).  The rank on samples is a lower bound of the rank of
    ``d phi_theta`` on coefficient space.
    """
    F = PrimeField(prime)
    (rng_x,) = _rng(seed + 1, 1)
    n_out = model.n_outputs
    cap = monomial_count(model.n_inputs, model.degree, homogeneous=model.homogeneous)
    M = min(cap, max(1, ceil((target + 4) / n_out)))
    X = model.random_inputs(rng_x, M)
    while True:
        if M * n_out * model.parameter_count > MAX_JACOBIAN_ENTRIES:
            raise ResourceError(f"a Jacobian of {M * n_out} x {model.parameter_count} exceeds {MAX_JACOBIAN_ENTRIES:,} entries")
        J = model.jacobian(theta, X, F)
        if columns is not None:
            J = J[:, columns]
        r = rank_mod_p(J, prime)
        if r >= target or M >= cap:
            return r, M
        extra = min(cap, 2 * M) - M
        X = np.concatenate([X, model.random_inputs(rng_x, extra)])
        M += extra


def _bounds(d: dict) -> str:
    lo, up = d["lower_bound"], d["upper_bound"]
    return str(lo) if lo == up else f"{lo}..{up}"


def _decide(dF: dict, dS: dict, rank: int) -> tuple:
    """``(propositions, verdict)`` from the certified intervals and the rank at the subnetwork point."""
    equal = dF["certified"] and dS["certified"] and dF["lower_bound"] == dS["lower_bound"]
    count = rank > dS["upper_bound"]
    props = [
        {"id": "Proposition 2.4", "applies": equal, "conclusion": "proximity bias" if equal else None,
         "detail": f"dim F' = {_bounds(dS)}, dim F = {_bounds(dF)}"},
        {"id": "Appendix C (N_F ⊆ im(d phi)^perp)", "applies": count, "conclusion": NO_BIAS if count else None,
         "detail": (f"rank d phi = {rank} at a random point of F' "
                    f"({'= dim F' if rank >= dF['upper_bound'] else 'below dim F = ' + _bounds(dF)}) vs dim F' = {_bounds(dS)}: "
                    f"the normal spaces over F' span at most dim F' + dim H - {rank} dimensions")},
    ]
    if equal and count:  # cannot happen (rank <= dim F): report it rather than pick one
        verdict = "contradiction: Appendix C count vs Proposition 2.4"
    elif equal:
        verdict = "proximity bias"
    elif count:
        verdict = NO_BIAS
    else:
        verdict = "undecided"
    return props, verdict


def cnn_proximity(model: CNN, inactive: dict, *, seed: int = 0, prime: int = DEFAULT_PRIME) -> CNNProximityResult:
    """Proximity bias toward the subnetwork of ``model`` with ``inactive`` channels (``{layer: [channels]}``).

    Parameters
    ----------
    model : algebra.models.CNN
        The full network ``F``.
    inactive : dict
        ``{layer (from 1): [channels (from 0)]}``: channels whose outgoing weights are zero in ``F'`` (their
        incoming filters random).
    seed : int
        Seed of the random point of ``F'``.
    prime : int
        Modulus of the certified ranks.

    Returns
    -------
    CNNProximityResult
        Certified ``dim F`` and ``dim F'``, the exact ``rank`` of ``d phi`` at a random point of ``F'`` and the
        ``verdict`` (``no proximity bias`` when ``rank > dim F'``).

    Raises
    ------
    InputError
        No inactive channel, or a layer or channel out of range.

    Examples
    --------
    >>> r = cnn_proximity(CNN(4, [2], channels=(1, 2), activations="t^2", dense=1), {1: [0]})
    >>> r.rank > r.dim_sub["upper_bound"], r.verdict.startswith("no proximity bias")
    (True, True)
    >>> cnn_proximity(CNN(4, [2], channels=(1, 2), activations="t^2", dense=1), {})
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid inactive={}: expected at least one inactive channel

    References
    ----------
    .. [1] The proximity-bias paper (seed of this toolkit), Proposition 2.4, Theorem 3.4, Lemma B.8 and Appendix C (Figure 6).
    """
    check_submodel(model, inactive, CNN, "a CNN", "channel")
    _refuse_jacobian(model)
    t0 = time.perf_counter()
    spec = model.spec()
    sub = CNN(model.input_shape, model.filters, channels=model.channels, strides=model.strides,
              activations=model.activations, bias=model.bias, dense=model.dense, inactive=inactive)
    dF = certified_dimension(model, seed=seed, prime=prime)
    dS = certified_dimension(sub, seed=seed, prime=prime)
    (rng,) = _rng(seed, 1)
    theta = subnetwork_point(model, sub.inactive, rng)
    rank, M = differential_rank(model, theta, target=dF["upper_bound"], seed=seed, prime=prime)
    props, verdict = _decide(dF, dS, rank)
    return CNNProximityResult(spec=spec, subnetwork={"inactive": {str(k): list(v) for k, v in sub.inactive.items()}},
                              dim_full=dF, dim_sub=dS, rank=rank, samples=M, propositions=props, verdict=verdict,
                              seed=seed, prime=prime, seconds=time.perf_counter() - t0)


def pruned_proximity(model: CNN, pruned: dict, *, seed: int = 0, prime: int = DEFAULT_PRIME) -> CNNProximityResult:
    """Proximity bias toward the subnetwork with the weights ``pruned`` (``{block: [flat indices]}``) set to zero.

    ``dim F'`` is bounded below by the rank of the free columns of ``J`` at a
    random point of the pruned subspace, and above by the ambient dimension
    and by the free parameters minus the rank of the symmetry fields tangent
    to the subspace.  A field is tangent when its pruned components vanish
    at a point whose free coordinates are all nonzero: each component of a
    CNN field is a constant times one coordinate, so it then vanishes on the
    whole subspace.

    Parameters
    ----------
    model : algebra.models.CNN
        The full network ``F``.
    pruned : dict
        ``{parameter block: [flat indices]}``: the weights set to zero in ``F'``.
    seed : int
        Seed of the random point of the pruned subspace.
    prime : int
        Modulus of the certified ranks.

    Returns
    -------
    CNNProximityResult
        As :func:`cnn_proximity`.

    Raises
    ------
    InputError
        An unknown block or an index out of range.

    Examples
    --------
    >>> r = pruned_proximity(figure6_model(), FIGURE6_SUBNETWORKS["e = 0"])
    >>> r.dim_full["upper_bound"], r.dim_sub["upper_bound"], r.rank, r.rank_is_dim_f
    (3, 2, 3, True)

    References
    ----------
    .. [1] The proximity-bias paper (seed of this toolkit), Proposition 2.4, Theorem 3.4, Lemma B.8 and Appendix C (Figure 6).
    """
    if not isinstance(model, CNN):
        raise InputError("model", model, "a CNN")
    t0 = time.perf_counter()
    zero = _pruned_indices(model, pruned)
    free = np.setdiff1d(np.arange(model.parameter_count), zero)
    dF = certified_dimension(model, seed=seed, prime=prime)
    F = PrimeField(prime)
    (rng,) = _rng(seed, 1)
    theta = model.random_point(rng)
    theta[theta == 0] = 1  # free coordinates nonzero (see the docstring)
    theta[zero] = 0
    S = model.symmetry_fields(theta, F)
    tangent = S[~np.any(S[:, zero] != 0, axis=1)][:, free] if S.shape[0] else S[:, free]
    s = rank_mod_p(tangent, prime) if tangent.shape[0] else 0
    upper = min(model.ambient_dimension(), len(free) - s)
    lower, M = differential_rank(model, theta, target=upper, seed=seed, prime=prime, columns=free)
    dS = {"lower_bound": lower, "upper_bound": upper, "certified": lower == upper,
          "upper_bound_reason": f"{len(free)} free parameters - rank {s} of the tangent symmetry fields",
          "expected_dimension": min(model.ambient_dimension(), len(free) - int(tangent.shape[0])),
          "ambient_dimension": model.ambient_dimension()}
    rank, M2 = differential_rank(model, theta, target=dF["upper_bound"], seed=seed, prime=prime)
    props, verdict = _decide(dF, dS, rank)
    return CNNProximityResult(spec=model.spec(), subnetwork={"pruned": {k: list(v) for k, v in pruned.items()}},
                              dim_full=dF, dim_sub=dS, rank=rank, samples=max(M, M2), propositions=props,
                              verdict=verdict, seed=seed, prime=prime, seconds=time.perf_counter() - t0)


def render(result: CNNProximityResult) -> str:
    """A short human report of a :class:`CNNProximityResult` (what ``neuroalgebra proximity cnn`` prints).

    Examples
    --------
    >>> print(render(pruned_proximity(figure6_model(), FIGURE6_SUBNETWORKS["a = 0"])).splitlines()[2])
    rank d phi = 3 at a random point of F' (= dim F)
    """
    j = result.to_json()
    dF, dS = j["dim_F"], j["dim_F_sub"]
    lines = [f"dim F  in [{dF['lower_bound']}, {dF['upper_bound']}]  ({dF['upper_bound_reason']}); dim H <= {dF['ambient_dimension']}",
             f"dim F' in [{dS['lower_bound']}, {dS['upper_bound']}]  ({dS['upper_bound_reason']})",
             f"rank d phi = {result.rank} at a random point of F' "
             f"({'= dim F' if result.rank_is_dim_f else 'below dim F'})"]
    lines += [f"  {p['id']:<36} {'applies' if p['applies'] else '-':<8} {p['detail']}" for p in result.propositions]
    lines.append(f"verdict: {result.verdict}")
    return "\n".join(lines)


# -- Figure 6 ------------------------------------------------------------------------------------


def figure6_model() -> CNN:
    """``f(x) = c (a x1 + b x2)^2 + e (a x2 + b x3)^2`` (Appendix G.6): parameters ``(a, b, c, e)``.

    Examples
    --------
    >>> from algebra.exact.field import RationalField
    >>> figure6_model().forward([1, 2, 3, 5], [[1, 1, 1]], RationalField()).tolist()   # 3 * 9 + 5 * 9
    [[Fraction(72, 1)]]
    """
    return CNN(3, [2], activations="t^2", dense=1)


#: The subnetworks of Figure 6's CNN: one weight pruned.
FIGURE6_SUBNETWORKS = {"a = 0": {"W1": [0]}, "b = 0": {"W1": [1]}, "c = 0": {"D": [0]}, "e = 0": {"D": [1]}}


def figure6(*, seed: int = 0, prime: int = DEFAULT_PRIME) -> dict:
    """Figure 6's message as numbers: ``{subnetwork: CNNProximityResult}`` for its four pruned weights."""
    model = figure6_model()
    return {name: pruned_proximity(model, pruned, seed=seed, prime=prime) for name, pruned in FIGURE6_SUBNETWORKS.items()}


# -- linear CNNs -----------------------------------------------------------------------------------

#: ``(filters, strides)`` of one-channel linear CNNs: strides 1 (filling) and larger strides (not filling).
LINEAR_TABLE = (((2,), None), ((3, 2), None), ((3, 2, 4), None), ((2, 2, 2, 2), None), ((5, 3), None),
                ((3, 2, 4), (2, 2, 2)), ((2, 2, 2, 2), (2, 2, 2, 2)), ((5, 3), (3, 1)))


def linear_cnn_table(cases=LINEAR_TABLE, *, seed: int = 0) -> list:
    """Certified dimensions of one-channel linear CNNs next to ``1 + sum (k_l - 1)`` and the end-to-end filter size.

    Kohn, Merkh, Montúfar, Trager (2022): with strides 1 the function space
    fills the space of end-to-end filters (dimension = filter size); with
    larger strides the end-to-end filter is longer than the dimension.

    Examples
    --------
    >>> row = linear_cnn_table([((3, 2, 4), (2, 2, 2))])[0]
    >>> row["dimension"], row["formula"], row["end_to_end_filter"], row["filling"]
    (7, 7, 17, False)
    """
    from algebra.engine import dimension
    from algebra.models.cnn import end_to_end_filter_size

    rows = []
    for filters, strides in cases:
        e2e = end_to_end_filter_size(filters, strides)
        res = dimension(CNN(e2e + 2, filters, strides=strides, activations="t"), seed=seed)
        rows.append({"filters": list(filters), "strides": list(strides or [1] * len(filters)), "dimension": res.dimension,
                     "certified": res.certified, "formula": 1 + sum(k - 1 for k in filters), "end_to_end_filter": e2e,
                     "filling": res.dimension == e2e})
    return rows


# -- the sweep ------------------------------------------------------------------------------------


def _cases(fast: bool) -> list:
    """Small architectures, each with one inactive channel in each activated layer that has two or more."""
    archs = [  # (input, filters, channels, strides, dense)
        ("4", "2", "1,2", "1", 1), ("5", "2", "1,2", "1", 1), ("5", "3", "1,2", "1", 1), ("6", "2", "1,3", "2", 1),
        ("5", "2,2", "1,2,1", "1,1", None), ("6", "3,2", "1,2,1", "1,1", None), ("6", "2,2", "1,2,2", "1,1", 1),
        ("7", "2,2", "1,2,1", "2,1", None), ("4", "2", "2,2", "1", 1), ("6", "2,2,2", "1,2,2,1", "1,1,1", None),
        ("3x3", "2x2", "1,2", "1", 1), ("4x4", "2x2,2x2", "1,2,1", "1,1", None),
    ]
    acts = ("t^2", "t^3", "t^2+t") if not fast else ("t^2",)
    biases = (False, True) if not fast else (False,)
    if fast:
        archs = archs[:3]
    out = []
    for inp, filt, ch, st, dense in archs:
        counts = [int(c) for c in ch.split(",")]
        n_layers = len(counts) - 1
        activated = range(1, n_layers + 1) if dense else range(1, n_layers)
        for act in acts:
            for bias in biases:
                for layer in activated:
                    if counts[layer] >= 2:
                        out.append({"input": inp, "filters": filt, "channels": ch, "strides": st, "dense": dense,
                                    "activation": act, "bias": bias, "inactive": f"{layer}:0"})
    return out


#: The sweep's cases (full size); ``cnn_sweep(fast=True)`` runs a subset.
SWEEP_CASES = _cases(False)


def _sweep_case(item: dict) -> dict:
    """One sweep row (module level, so Dask can pickle it)."""
    sub = cnn_from_text(item["input"], item["filters"], channels=item["channels"], strides=item["strides"],
                        activation=item["activation"], bias=item["bias"], dense=item["dense"], inactive=item["inactive"])
    full = sub.full()
    r = cnn_proximity(full, sub.inactive, seed=item["seed"], prime=item["prime"])
    return {"P": full.parameter_count, "dim_F": _bounds(r.dim_full), "dim_F_sub": _bounds(r.dim_sub), "rank": r.rank,
            "rank_equals_dim_F": r.rank_is_dim_f, "verdict": r.verdict, "seconds": round(r.seconds, 3)}


def cnn_sweep(*, fast: bool = False, seed: int = 0, prime: int = DEFAULT_PRIME, scheduler: str | None = "serial",
              workers: int | None = None, progress: bool = False) -> list:
    """Proximity verdicts for one inactive channel in small 1-D and 2-D polynomial CNNs (rows of dicts).

    Like the MLP Conjecture-3.16 sweep (:func:`algebra.geometry.proximity.conjecture_sweep`),
    through the shared runner :func:`algebra.sweep.run_sweep` (``scheduler="serial"``
    runs in this process; ``None`` starts a local Dask cluster).
    """
    from algebra.sweep import run_sweep

    items = [dict(c, seed=seed, prime=prime) for c in _cases(fast)]
    return run_sweep(_sweep_case, items, scheduler=scheduler, workers=workers, progress=progress, desc="CNN proximity sweep")


SWEEP_COLUMNS = ("input", "filters", "channels", "strides", "dense", "activation", "bias", "inactive", "P", "dim_F",
                 "dim_F_sub", "rank", "rank_equals_dim_F", "verdict")


def write_cnn_sweep(rows: list, csv_path, md_path, *, command: str = "") -> dict:
    """Write the sweep as CSV (:func:`algebra.sweep.write_csv`) and Markdown; return the verdict counts."""
    from collections import Counter

    from algebra.files import write_atomic
    from algebra.sweep import write_csv

    write_csv([{c: r.get(c, "") for c in SWEEP_COLUMNS} for r in rows], csv_path)
    counts = Counter(r["verdict"] for r in rows)
    lines = ["# Proximity bias toward subnetworks of polynomial CNNs (proximity-bias paper, Appendix C)", ""]
    if command:
        lines += [f"Produced by `{command}`.", ""]
    lines += ["One channel inactive (outgoing weights zero). Dimensions are certified intervals; `rank` is the rank of "
              "d phi at a random point of F' (a proven lower bound), at most dim F.", "",
              "Verdicts: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())), "",
              "| " + " | ".join(SWEEP_COLUMNS) + " |", "|" + "---|" * len(SWEEP_COLUMNS)]
    lines += ["| " + " | ".join(str(r.get(c, "")) for c in SWEEP_COLUMNS) + " |" for r in rows]
    write_atomic(md_path, ("\n".join(lines) + "\n").encode())
    return dict(counts)


# -- polynomial maps for the certificate catalogue -------------------------------------------------


def polynomial_map(model: CNN):
    """The CNN's outputs as explicit polynomials in ``(theta, x)`` (a :class:`~algebra.models.PolynomialMap`).

    For certificates the independent checker can replay (it reads polynomial
    maps, not CNN specs).  Built by running the CNN's own forward pass over
    polynomial arrays; for small models only.

    Examples
    --------
    >>> polynomial_map(figure6_model()).polynomials[0].to_text()[:46]     # a, b, c, e = t0..t3; x = t4..t6
    't0^2*t2*t4^2 + t0^2*t3*t5^2 + 2*t0*t1*t2*t4*t5'
    """
    from algebra.models.polymap import PolynomialMap

    outputs, parameters, inputs = symbolic_forward(model)
    return PolynomialMap(outputs, parameters=parameters, inputs=inputs)


def differential_map(model: CNN, theta):
    """``theta_dot -> d phi_theta(theta_dot)`` as a :class:`~algebra.models.PolynomialMap` (linear in ``theta_dot``).

    Its neuromanifold is ``im(d phi_theta)``; its dimension is the rank of
    the differential at ``theta`` (as ``_stratum_tangent_map`` does for the
    attention lemmas in :mod:`algebra.claims.proximity`).

    Examples
    --------
    >>> m = differential_map(figure6_model(), [2, 3, 5, 0])       # e = 0: the de column is (2 x2 + 3 x3)^2
    >>> m.parameter_count, m.n_inputs, m.polynomials[0].to_text()[-35:]
    (4, 3, '4*t3*t5^2 + 12*t3*t5*t6 + 9*t3*t6^2')
    """
    from algebra.models.polymap import PolynomialMap

    P, N = model.parameter_count, model.n_inputs
    F = PolynomialField(N)
    J = model.jacobian(np.asarray(theta, dtype=np.int64), F.variables().reshape(1, N), F)  # (n_out, P) in x
    names = tuple(f"t{i}" for i in range(P + N))
    polys = []
    for row in J:
        terms = {}
        for j, g in enumerate(row):
            for e, c in g.terms.items():
                terms[tuple(int(k == j) for k in range(P)) + tuple(e)] = c
        polys.append(Polynomial(names, terms))
    return PolynomialMap(polys, parameters=names[:P], inputs=names[P:])


def subnetwork_evidence(model: CNN, inactive: dict, *, seed: int = 0) -> dict:
    """The sweep's own (uncertified) verdict on one subnetwork, as plain data for its certificate's index entry.

    :func:`cnn_proximity` at a random point of ``F'``: ``no proximity bias``,
    ``proximity bias`` by Proposition 2.4, or ``undecided``, with the
    intervals it rests on.  :func:`algebra.certify.subnetwork.judge_subnetwork`
    records it next to the certificate (``engine_verdict``) and repeats it in
    the note when the certificate does not confirm the claim.

    Examples
    --------
    >>> e = subnetwork_evidence(CNN(4, [2], channels=(1, 2), activations="t^2", dense=1), {1: [0]})
    >>> e["verdict"] == NO_BIAS, e["text"][-45:]
    (True, "dim F' = 4, rank at a random point of F' = 7)")
    """
    r = cnn_proximity(model, inactive, seed=seed)
    text = f"{r.verdict} (dim F = {_bounds(r.dim_full)}, dim F' = {_bounds(r.dim_sub)}, rank at a random point " \
           f"of F' = {r.rank})"
    return {"verdict": r.verdict, "text": text}
