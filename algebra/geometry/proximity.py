"""Proximity-bias dimension counts for polynomial MLPs with inactive neurons.

Proximity-bias paper (Alexandr et al.), Sections 2-3 and Appendix B.  For the
neuromanifold ``F`` of a polynomial MLP and the submodel ``F'`` in which some
hidden neurons are inactive:

* Proposition 2.4: ``dim F' = dim F`` gives proximity bias toward ``F'``.
* Theorem 3.4: for shallow networks (one hidden layer) there is never
  proximity bias toward the subnetwork with one neuron fewer.
* Proposition 3.13 (first hidden layer, biases): no bias when
  ``dim F' < binom(d_0 + r_1, d_0)``; Proposition B.9 (no biases, monomial
  activations): no bias when ``dim F' < binom(d_0 + r_1 - 1, r_1)``.
* Proposition 3.14 (hidden layer ``k``): no bias when ``deg rho_k >= dim F'``.
* Lemma B.8, the count behind all three: a reinserted neuron of layer ``k``
  puts the normal cone at ``f = Psi(z)`` orthogonal to the directions
  ``J e_l g(eta)`` (``J = DPsi o z``, ``g`` in the span of the functions the
  neuron can compute from its features ``eta``); if they span ``m > dim F'``
  dimensions at every point, there is no bias.  :func:`reinsertion_rank`
  computes ``m`` exactly (mod p) at a random point of ``F'``: the directions
  are the Jacobian columns of the outgoing weights of the reinserted neuron,
  taken at ``N_G`` random incoming weights.
* Conjecture 3.16: ``dim F' < dim F`` suffices for no bias.  The sweep
  :func:`conjecture_sweep` records where the dimension count settles it.

Dimensions come from the dimension engine (:func:`algebra.engine.dimension`),
whose ladder includes the bottleneck cut of Example B.10
(:mod:`algebra.engine.bottleneck`): ``dim F <= 4`` where symmetries alone give 6.

Examples
--------
>>> r = proximity(MLP((2, 3, 1, 1), "t^3"), {1: [0]})        # Example B.10
>>> r.dim_full["upper_bound"], r.dim_sub["upper_bound"], r.verdict
(4, 4, 'proximity bias')
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from math import ceil, comb

import numpy as np

from algebra.engine import MAX_JACOBIAN_ENTRIES, dimension
from algebra.errors import InputError, ResourceError
from algebra.exact.field import DEFAULT_PRIME, PrimeField
from algebra.exact.rank import rank_mod_p
from algebra.models.base import monomial_count
from algebra.models.mlp import MLP, _monomial

__all__ = [
    "certified_dimension",
    "reinsertion_rank",
    "ProximityResult",
    "proximity",
    "conjecture_sweep",
    "sweep_rows",
    "write_sweep_table",
]


def _rng(seed: int, n: int):
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]


def certified_dimension(model: MLP, *, seed: int = 0, prime: int = DEFAULT_PRIME) -> dict:
    """The engine's dimension of an MLP as a JSON-ready dict (bounds, rung, reason).

    Examples
    --------
    >>> d = certified_dimension(MLP((2, 3, 1, 1), "t^3"))       # Example B.10
    >>> d["lower_bound"], d["upper_bound"], d["rung"]
    (4, 4, 'bottleneck')
    """
    return dimension(model, seed=seed, prime=prime).to_json()


def _span_dimension(model: MLP, layer: int) -> int:
    """``N_G``: dimension of the span of the functions one neuron of ``layer`` computes from its features."""
    d_in = model.effective_widths[layer - 1] if layer == 1 else model.widths[layer - 1] - len(model.inactive.get(layer - 1, ()))
    cs = model.activations[layer - 1]
    R = len(cs) - 1
    if model.bias:
        return comb(d_in + R, R)
    return sum(comb(d_in + j - 1, j) for j, c in enumerate(cs) if c)


def reinsertion_rank(sub: MLP, *, seed: int = 0, prime: int = DEFAULT_PRIME) -> dict:
    """``m``: the span of the normal-cone constraints of one reinserted neuron, at a random point of ``F'``.

    ``sub`` has exactly one inactive neuron.  The directions ``J e_l g(eta)``
    are the Jacobian columns of the reinserted neuron's outgoing weights,
    evaluated with ``N_G`` random incoming weights (and biases), at ``M``
    random inputs; their rank modulo ``p`` is a lower bound on ``m`` at that
    point of ``F'``.

    Examples
    --------
    >>> reinsertion_rank(MLP((2, 2, 1), "t^2", inactive={1: [0]}))["m"]      # all binary quadrics
    3
    """
    if sum(len(v) for v in sub.inactive.values()) != 1:
        raise InputError("inactive", sub.inactive, "exactly one inactive neuron")
    (layer, (neuron,)), = sub.inactive.items()
    full = MLP(sub.widths, sub.activations, bias=sub.bias)
    F = PrimeField(prime)
    rng_theta, rng_in, rng_x = _rng(seed, 3)
    theta_sub = sub.random_point(rng_theta)
    blocks_sub = sub.unpack(theta_sub)
    NG = _span_dimension(sub, layer)
    w = full.widths
    n_dirs = NG * w[layer + 1]
    n_mon = monomial_count(full.n_inputs, full.degree, homogeneous=full.homogeneous)
    M = min(n_mon, max(1, ceil((n_dirs + 8) / full.n_outputs)))
    if M * full.n_outputs * full.parameter_count * NG > MAX_JACOBIAN_ENTRIES:
        raise ResourceError(f"{NG} Jacobians of {M * full.n_outputs} x {full.parameter_count} exceed the limit of "
                            f"{MAX_JACOBIAN_ENTRIES:,} entries")
    X = full.random_inputs(rng_x, M)
    cols = []
    offs = full.offsets()
    for _ in range(NG):
        parts = []
        for name, shape in full.param_blocks():
            blk = np.array(blocks_sub[name]) if name in blocks_sub else None
            lnum = int(name[1:])
            arr = np.zeros(shape, dtype=np.int64)
            if name.startswith("W") and lnum == layer:
                keep = [i for i in range(shape[0]) if i != neuron]
                arr[keep, :] = blk
                arr[neuron, :] = rng_in.integers(-2**15, 2**15 + 1, size=shape[1])
            elif name.startswith("b") and lnum == layer:
                keep = [i for i in range(shape[0]) if i != neuron]
                arr[keep] = blk
                arr[neuron] = rng_in.integers(-2**15, 2**15 + 1)
            elif name.startswith("W") and lnum == layer + 1:
                keep = [j for j in range(shape[1]) if j != neuron]
                arr[:, keep] = blk  # outgoing weights of the reinserted neuron stay 0
            else:
                arr = blk
            parts.append(np.asarray(arr).ravel())
        theta = np.concatenate(parts)
        J = full.jacobian(theta, X, F)
        start, shape = offs[f"W{layer + 1}"]
        idx = start + np.arange(shape[0]) * shape[1] + neuron
        cols.append(J[:, idx])
    D = np.concatenate(cols, axis=1)
    m = rank_mod_p(D, prime)
    return {"m": m, "layer": layer, "neuron": neuron, "span_dimension": NG, "directions": int(D.shape[1]),
            "samples": int(M), "seed": seed, "prime": prime}


#: The keys of a certified dimension interval that the proximity results print (MLP and CNN alike).
DIMENSION_KEYS = ("lower_bound", "upper_bound", "certified", "upper_bound_reason", "expected_dimension",
                  "ambient_dimension")


@dataclass
class ProximityResult:
    """Dimension counts and the verdicts of the proximity-bias paper's propositions."""

    spec: dict
    inactive: dict
    dim_full: dict
    dim_sub: dict
    m: dict | None
    propositions: list
    verdict: str
    conjecture_3_16: str
    seed: int
    seconds: float = 0.0
    notes: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        keep = DIMENSION_KEYS
        return {
            "model": self.spec,
            "inactive": {str(k): list(v) for k, v in self.inactive.items()},
            "dim_F": {k: self.dim_full[k] for k in keep},
            "dim_F_sub": {k: self.dim_sub[k] for k in keep},
            "m": self.m,
            "propositions": self.propositions,
            "verdict": self.verdict,
            "conjecture_3_16": self.conjecture_3_16,
            "seed": self.seed,
            "seconds": round(self.seconds, 4),
        }


def check_submodel(model, inactive, cls, kind: str, unit: str) -> None:
    """A proximity question needs the full model (``kind``, of class ``cls``) and at least one inactive ``unit``."""
    if not isinstance(model, cls):
        raise InputError("model", model, kind)
    if model.inactive:
        raise InputError("model", model.spec(), f"the full model (give the inactive {unit}s separately)")
    if not inactive:
        raise InputError("inactive", inactive, f"at least one inactive {unit}")


def proximity(model: MLP, inactive: dict, *, seed: int = 0, prime: int = DEFAULT_PRIME) -> ProximityResult:
    """Decide proximity bias toward the submodel of ``model`` with ``inactive`` neurons, where the paper can.

    ``verdict`` is one of ``"proximity bias"`` (Proposition 2.4, certified
    equal dimensions), ``"no proximity bias"`` (a proposition whose
    hypotheses are certified applies), ``"no proximity bias (dimension count
    at a random point)"`` (``m > dim F'`` at a random point of ``F'``, the
    count of Lemma B.8 -- evidence, not a proof for every point), or
    ``"undecided"``.

    Parameters
    ----------
    model : algebra.models.MLP
        The full network ``F``.
    inactive : dict
        ``{hidden layer (from 1): [neuron indices (from 0)]}``: the neurons switched off in the submodel ``F'``.
    seed : int
        Seed of the random points (``SeedSequence(seed)``).
    prime : int
        Modulus of the certified ranks.

    Returns
    -------
    ProximityResult
        The certified ``dim F`` and ``dim F'``, the rank at a random point of ``F'``, the ``verdict`` and the
        proposition it rests on.

    Raises
    ------
    InputError
        No inactive neuron, or a layer or neuron out of range.

    Examples
    --------
    >>> proximity(MLP((3, 3, 1), "t^2"), {1: [2]}).verdict          # Theorem 3.4
    'no proximity bias'
    >>> proximity(MLP((2, 3, 1), "t^2"), {1: [2]}).verdict          # F' = F: all binary quadrics
    'proximity bias'
    >>> proximity(MLP((2, 3, 1), "t^2"), {})
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid inactive={}: expected at least one inactive neuron

    References
    ----------
    .. [1] The proximity-bias paper (seed of this toolkit), Proposition 2.4, Theorem 3.4, Lemma B.8 and Appendix C (Figure 6).
    """
    check_submodel(model, inactive, MLP, "an MLP", "neuron")
    t0 = time.perf_counter()
    sub = MLP(model.widths, model.activations, bias=model.bias, inactive=inactive)
    dF = certified_dimension(model, seed=seed, prime=prime)
    dS = certified_dimension(sub, seed=seed, prime=prime)
    single = sum(len(v) for v in sub.inactive.values()) == 1
    m = reinsertion_rank(sub, seed=seed, prime=prime) if single else None
    props = []
    w = model.widths
    L = len(w) - 1
    sub_up = dS["upper_bound"]
    equal = dF["certified"] and dS["certified"] and dF["lower_bound"] == dS["lower_bound"]
    smaller = dS["upper_bound"] < dF["lower_bound"]
    props.append({"id": "Proposition 2.4", "applies": equal,
                  "conclusion": "proximity bias" if equal else None,
                  "detail": f"dim F' in [{dS['lower_bound']}, {dS['upper_bound']}], dim F in [{dF['lower_bound']}, {dF['upper_bound']}]"})
    if single:
        (layer, _), = sub.inactive.items()
        # Theorem 3.4 gives Vor_F(F') = F': no bias exactly when F' has empty interior in H = span F,
        # which dim F' < dim F (<= dim H) certifies.
        shallow = L == 2 and smaller
        props.append({"id": "Theorem 3.4", "applies": shallow, "conclusion": "no proximity bias" if shallow else None,
                      "detail": ("shallow network: Vor_F(F') = F', and F' has empty interior (dim F' < dim F)" if shallow
                                 else "not shallow" if L != 2 else "shallow, but F' is not shown to have empty interior")})
        r1 = len(model.activations[0]) - 1
        if layer == 1 and model.bias:
            thr = comb(w[0] + r1, w[0])
            ok = sub_up < thr
            props.append({"id": "Proposition 3.13", "applies": ok, "conclusion": "no proximity bias" if ok else None,
                          "detail": f"dim F' <= {sub_up} vs binom(d0 + r1, d0) = {thr}"})
        if layer == 1 and not model.bias and all(_monomial(a) is not None for a in model.activations):
            thr = comb(w[0] + r1 - 1, r1)
            ok = sub_up < thr
            props.append({"id": "Proposition B.9", "applies": ok, "conclusion": "no proximity bias" if ok else None,
                          "detail": f"dim F' <= {sub_up} vs binom(d0 + r1 - 1, r1) = {thr}"})
        R = len(model.activations[layer - 1]) - 1
        ok = R >= sub_up
        props.append({"id": "Proposition 3.14", "applies": ok, "conclusion": "no proximity bias" if ok else None,
                      "detail": f"deg rho_{layer} = {R} vs dim F' <= {sub_up}"})
        ok = m["m"] > sub_up
        props.append({"id": "Lemma B.8 count", "applies": ok,
                      "conclusion": "no proximity bias (dimension count at a random point)" if ok else None,
                      "detail": f"m = {m['m']} at a random point of F' vs dim F' <= {sub_up}"})
    proven = [p for p in props if p["applies"] and p["conclusion"] == "no proximity bias"]
    if equal and proven:  # two of the paper's statements disagree: report it, do not pick one
        verdict = "contradiction: " + ", ".join(p["id"] for p in proven) + " vs Proposition 2.4"
    elif equal:
        verdict = "proximity bias"
    elif proven:
        verdict = "no proximity bias"
    elif any(p["applies"] for p in props):
        verdict = "no proximity bias (dimension count at a random point)"
    else:
        verdict = "undecided"
    if equal:
        conj = "not applicable (dim F' = dim F)"
    elif not smaller:
        conj = "not decided (dimensions not separated by the certified bounds)"
    elif verdict.startswith("no proximity bias"):
        conj = "consistent (no bias shown)" if verdict == "no proximity bias" else "supported (dimension count at a random point)"
    else:
        conj = "open (dim F' < dim F but the count m <= dim F')"
    return ProximityResult(spec=model.spec(), inactive=sub.inactive, dim_full=dF, dim_sub=dS, m=m, propositions=props,
                           verdict=verdict, conjecture_3_16=conj, seed=seed, seconds=time.perf_counter() - t0)


def conjecture_sweep(*, d0_values=(2, 3), hidden=((2, 2), (2, 3), (3, 2), (3, 3)), activations=("t^2", "t^3", "t^2+t"),
                     biases=(False, True), seed: int = 0, prime: int = DEFAULT_PRIME, progress: bool = False) -> list:
    """Conjecture 3.16 evidence: ``(d0, h1, h2, 1)`` networks with one inactive neuron in layer 1 or 2.

    Returns a list of :class:`ProximityResult`.
    """
    cases = []
    for d0 in d0_values:
        for h in hidden:
            for act in activations:
                for bias in biases:
                    for layer in (1, 2):
                        cases.append((d0, h, act, bias, layer))
    it = cases
    if progress:
        try:
            from tqdm import tqdm

            it = tqdm(cases, desc="Conjecture 3.16 sweep")
        except ImportError:  # pragma: no cover
            pass
    out = []
    for d0, h, act, bias, layer in it:
        model = MLP((d0,) + tuple(h) + (1,), act, bias=bias)
        out.append(proximity(model, {layer: [0]}, seed=seed, prime=prime))
    return out


SWEEP_COLUMNS = ("widths", "activation", "bias", "inactive", "dim_F", "dim_F_sub", "m", "verdict", "conjecture_3_16")


def sweep_rows(results) -> list:
    """Flat rows (``SWEEP_COLUMNS``) of a list of :class:`ProximityResult`."""
    def rng(d):
        lo, up = d["lower_bound"], d["upper_bound"]
        return str(lo) if lo == up else f"{lo}..{up}"

    rows = []
    for r in results:
        rows.append({
            "widths": ",".join(map(str, r.spec["widths"])), "activation": ";".join(r.spec["activations"]),
            "bias": r.spec["bias"], "inactive": ",".join(f"{k}:{n}" for k, v in r.inactive.items() for n in v),
            "dim_F": rng(r.dim_full), "dim_F_sub": rng(r.dim_sub), "m": r.m["m"] if r.m else "",
            "verdict": r.verdict, "conjecture_3_16": r.conjecture_3_16,
        })
    return rows


def write_sweep_table(results, csv_path, md_path, *, command: str = "") -> dict:
    """Write the Conjecture 3.16 sweep as CSV and Markdown; returns the verdict counts."""
    import csv
    import io

    from algebra.files import write_atomic
    from collections import Counter

    rows = sweep_rows(results)
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=SWEEP_COLUMNS)
    w.writeheader()
    w.writerows(rows)
    write_atomic(csv_path, buf.getvalue().encode())  # a full disk leaves the old file or none, never 0 bytes
    counts = Counter(r["conjecture_3_16"].split(" (")[0] for r in rows)
    lines = ["# Conjecture 3.16 sweep (proximity-bias paper)", ""]
    if command:
        lines += [f"Produced by `{command}`.", ""]
    lines += ["Dimensions are certified intervals; `m` is the constraint count of the reinserted neuron at a random "
              "point of F' (Lemma B.8).", "", "Conjecture 3.16: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())), "",
              "| " + " | ".join(SWEEP_COLUMNS) + " |", "|" + "---|" * len(SWEEP_COLUMNS)]
    lines += ["| " + " | ".join(str(r[c]) for c in SWEEP_COLUMNS) + " |" for r in rows]
    write_atomic(md_path, ("\n".join(lines) + "\n").encode())
    return dict(counts)
