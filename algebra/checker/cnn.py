"""The checker's own polynomial CNN (family ``cnn``) and differential at a point (family ``differential``).

Part of the independent checker (plug-in of the rank kinds): imports :mod:`algebra.checker.core` and builds on
:mod:`algebra.checker.model` (it is a model family there: :class:`~algebra.checker.model.Model` reads and
evaluates a CNN through this module) and :mod:`algebra.checker.rank` (a subnetwork's upper-bound witnesses).
Written from docs/certificate-format.md, not from the models: "valid" 1-D / 2-D convolutions
``z[o, p] = sum_{i, u} W[o, i, u] a[i, s p + u] (+ b[o])``, an activation on every layer but the
last (on every layer when a dense layer follows), outputs channel-major.  Parameters: per layer
``W_l`` (``c_l x c_{l-1} x k_l``, row-major) then ``b_l``; then ``D`` (``dense x c_L positions``)
and ``bD``.  Inactive channels are removed from the parameters (channels are interchangeable).

``differential``: ``{"of": cnn spec, "at": [theta'], "inactive": {layer: [channels]}}`` is the
linear map ``theta_dot -> J(theta') theta_dot``, whose Jacobian is ``J`` at the fixed point; the
checker requires the inactive channels' outgoing weights to be zero at ``theta'`` (a point of the
subnetwork ``F'``).  A certificate's ``subnetwork`` block then proves ``dim F' <= b`` with the
upper-bound witnesses of the CNN without those channels (proximity-bias paper, Appendix C).
"""

from __future__ import annotations

import json
import math
from itertools import product

from algebra.checker.core import (MAX_DEGREE, MAX_SIDE, big_int, digest, fields, fraction, get, int_list, need,
                                  residue, small_int)
from algebra.checker.model import (MAX_SUPPORT_WORK, Model, activation_json, d_dot, d_lin, d_poly, inactive_json,
                                   layer_symmetries, poly_text, read_inactive, register_family)
from algebra.checker.rank import upper_bound

MAX_WORK = 10**6  # dual products of one forward pass


def read(model, spec) -> None:
    """Set what :class:`~algebra.checker.model.Model` needs from a ``cnn`` or ``differential`` spec."""
    if model.family == "differential":
        fields(spec, ("family", "of", "at", "inactive"), "the differential spec", ("family", "of", "at", "inactive"))
        of = get(spec, "of", dict, "model")
        need(of.get("family") == "cnn", "a differential is of a cnn spec")
        inner = model.inner = Model(of)
        need(not inner.inactive, "a differential is of a cnn spec without inactive channels")
        at = get(spec, "at", list)
        need(len(at) == inner.P, f"at must have {inner.P} entries")
        model.at = [big_int(v, "at entry") for v in at]
        model.inactive = read_inactive(get(spec, "inactive", dict), len(inner.acts), inner.channels, "inactive")
        need(model.inactive, "a differential names the subnetwork's inactive channels")
        for k in ("blocks", "n_in", "n_out", "deg_x", "homogeneous", "degree", "work"):
            setattr(model, k, getattr(inner, k))
        model.spec = {"family": "differential", "of": inner.spec, "at": [str(v) for v in model.at],
                      "inactive": inactive_json(model.inactive)}
        for layer, chans in model.inactive.items():
            need(all(model.at[j] == 0 for c in chans for j in outgoing(inner, layer, c)),
                 f"theta' is not on the subnetwork: channel {chans} of layer {layer} has a nonzero outgoing weight")
        return
    keys = ("family", "input", "channels", "filters", "strides", "activations", "bias", "dense", "inactive")
    fields(spec, keys, "the cnn spec", keys)
    shape = int_list(get(spec, "input", list), 1, MAX_SIDE, "input")
    need(1 <= len(shape) <= 2, "input must have 1 or 2 sizes")
    ch = model.channels = int_list(get(spec, "channels", list), 1, MAX_SIDE, "channels")
    L = len(ch) - 1
    need(1 <= L <= 64, "channels must have 2..65 entries")
    filters, strides = (get(spec, k, list) for k in ("filters", "strides"))
    need(len(filters) == len(strides) == L, "one filter size and one stride per layer")
    need("dense" in spec, "missing field 'dense'")
    model.dense = None if spec["dense"] is None else small_int(spec["dense"], 1, MAX_SIDE, "dense")
    model.bias = get(spec, "bias", bool)
    acts = get(spec, "activations", list)
    need(len(acts) == L - (not model.dense) and all(isinstance(a, list) and 2 <= len(a) <= MAX_DEGREE + 1 for a in acts),
         "activations must be one coefficient list per activated layer")
    model.acts = [[fraction(c, "activation coefficient") for c in a] for a in acts]
    need(all(a[-1] != 0 for a in model.acts), "an activation has a zero leading coefficient")
    model.inactive = read_inactive(get(spec, "inactive", dict), len(acts), ch, "inactive")
    eff = model.eff = [c - len(model.inactive.get(l, ())) for l, c in enumerate(ch)]
    need(ch[0] * math.prod(shape) <= MAX_SIDE, f"more than {MAX_SIDE} inputs")
    model.shapes, model.taps, model.blocks, model.work = [shape], [], [], 0
    model.filters, model.strides = [], []
    for l in range(L):
        k = int_list(filters[l], 1, MAX_SIDE, "filter size", len(shape))
        s = int_list(strides[l], 1, MAX_SIDE, "stride", len(shape))
        model.filters.append(k)
        model.strides.append(s)
        prev = model.shapes[-1]
        need(all(a <= n for a, n in zip(k, prev)), f"layer {l + 1}: a filter is larger than its input")
        out = [(n - a) // b + 1 for n, a, b in zip(prev, k, s)]
        model.work += eff[l + 1] * math.prod(out) * eff[l] * math.prod(k)
        need(model.work <= MAX_WORK, f"a forward pass would take more than {MAX_WORK} dual products")
        step = [math.prod(prev[d + 1:]) for d in range(len(prev))]  # row-major strides of the input
        model.taps.append([[sum((b * p + u) * t for b, p, u, t in zip(s, pos, tap, step)) for tap in product(*map(range, k))]
                           for pos in product(*map(range, out))])
        model.shapes.append(out)
        model.blocks += [(eff[l + 1], eff[l] * math.prod(k))] + [(eff[l + 1], 1)] * model.bias
    npos = math.prod(model.shapes[-1])
    if model.dense:
        model.blocks += [(model.dense, eff[L] * npos)] + [(model.dense, 1)] * model.bias
        model.work += model.dense * eff[L] * npos
    need(model.work <= MAX_WORK, f"a forward pass would take more than {MAX_WORK} dual products")
    model.n_in, model.n_out = ch[0] * math.prod(shape), model.dense or eff[L] * npos
    model.spec = {"family": "cnn", "input": list(shape), "channels": list(ch), "filters": model.filters,
                  "strides": model.strides, "activations": activation_json(model.acts), "bias": model.bias,
                  "dense": model.dense, "inactive": inactive_json(model.inactive)}
    model.deg_x = math.prod(len(a) - 1 for a in model.acts)
    model.homogeneous = not model.bias and all(not any(a[:-1]) for a in model.acts)
    model.degree = 2  # joint degree in (theta, x), as for the MLP
    for a in model.acts:
        model.degree = (len(a) - 1) * model.degree + 1


def outgoing(model, layer, channel) -> list:
    """Parameter indices of the weights reading ``channel`` of ``layer`` (next filters or dense columns)."""
    step = 1 + model.bias
    start = sum(r * c for r, c in model.blocks[: step * layer])
    rows, cols = model.blocks[step * layer]
    width = cols // model.eff[layer]  # taps per channel (next filter) or positions (dense)
    return [start + o * cols + channel * width + u for o in range(rows) for u in range(width)]


def forward(model, theta, x, m):
    """Outputs at one input ``x`` as duals (value, gradient in theta) modulo ``m``."""
    if model.family == "differential":
        return [(sum(v * theta[k] for k, v in g.items()) % m, g) for _, g in forward(model.inner, model.at, x, m)]
    mats, n0, step = model._mats(theta), math.prod(model.shapes[0]), 1 + model.bias
    a = [[(x[c * n0 + q] % m, {}) for q in range(n0)] for c in range(model.eff[0])]
    for l, taps in enumerate(model.taps):
        W, K = mats[step * l], len(taps[0])
        z = [[d_dot([(W[o][i * K + u], a[i][q]) for i in range(len(a)) for u, q in enumerate(tp)], m) for tp in taps]
             for o in range(len(W))]
        if model.bias:
            z = [[d_lin([(1, v), (1, b[0])], m) for v in row] for row, b in zip(z, mats[step * l + 1])]
        if l < len(model.acts):
            cs = [residue(c, m) for c in model.acts[l]]
            z = [[d_poly(cs, v, m) for v in row] for row in z]
        a = z
    flat = [v for row in a for v in row]
    if not model.dense:
        return flat
    out = [d_dot(zip(row, flat), m) for row in mats[step * len(model.taps)]]
    return [d_lin([(1, o), (1, b[0])], m) for o, b in zip(out, mats[-1])] if model.bias else out


def _times(A, B, cap, work):
    """The monomials ``a b`` (``a`` in ``A``, ``b`` in ``B``), or ``None`` when more than ``cap``; ``work[0]``
    counts the products (refused past ``MAX_SUPPORT_WORK``)."""
    if A is None or B is None:
        return None
    work[0] += len(A) * len(B)
    if work[0] > MAX_SUPPORT_WORK:
        raise _TooMuch
    out = set()
    for a in A:
        for b in B:
            m = dict(a)
            for v, e in b:
                m[v] = m.get(v, 0) + e
            out.add(tuple(sorted(m.items())))
            if len(out) > cap:
                return None
    return out


class _TooMuch(Exception):
    pass


def _union(sets, cap, work):
    out = set()
    for S in sets:
        if S is None:
            return None
        work[0] += len(S)
        if work[0] > MAX_SUPPORT_WORK:
            raise _TooMuch
        out |= S
        if len(out) > cap:
            return None
    return out


def support(model) -> tuple:
    """``(count, status)`` of :meth:`algebra.checker.model.Model.ambient_count` for a CNN: the monomials each
    output can contain, propagated position by position (every channel of a position reads the same inputs, so
    shares its monomials; without a dense layer the outputs at every position are translates of those at position
    0, with the same coefficients, so the image lies in ``c_L x |monomials at position 0|`` coordinates): a layer's
    pre-activation at position ``p`` has the union of the activated monomials at
    the positions its taps read (and ``1`` with biases), an activation ``sum c_j t^j`` the union of the ``j``-th
    powers with ``c_j != 0``.  A stride that skips inputs therefore skips their monomials, and products across
    positions appear only where a later layer multiplies them.  Sets are abandoned above ``P + 1`` monomials
    (then the count is above ``P``); past ``MAX_SUPPORT_WORK`` products, or for a differential (whose outputs'
    monomials are among its CNN's), the count is an upper bound (status ``"unknown"``)."""
    if model.family == "differential":
        count, status = support(model.inner)
        return (count if status != "above P" else model.n_out * math.comb(model.n_in + model.deg_x, model.deg_x)), "unknown"
    cap, work, one = model.P + 1, [0], {()}
    n0 = math.prod(model.shapes[0])
    try:
        # layer-0 values: channel c at position q is the variable c * n0 + q (all input channels are active)
        values = [[{((c * n0 + q, 1),)} for q in range(n0)] for c in range(model.channels[0])]
        first = True
        for l, taps in enumerate(model.taps):
            if first:
                pre = [_union([values[c][q] for c in range(len(values)) for q in tp] + ([one] if model.bias else []), cap, work)
                       for tp in taps]
                first = False
            else:
                pre = [_union([act[q] for q in tp] + ([one] if model.bias else []), cap, work) for tp in taps]
            if l < len(model.acts):
                act = [_activate(S, model.acts[l], cap, work) for S in pre]
        if model.dense:
            outs = [_union(act + ([one] if model.bias else []), cap, work)] * model.dense
        else:  # weight sharing: every position's outputs are translates of position 0's (the same coefficients)
            outs = [pre[0]] * model.eff[-1]
    except _TooMuch:
        return model.n_out * math.comb(model.n_in + model.deg_x, model.deg_x), "unknown"
    if any(S is None for S in outs) or sum(len(S) for S in outs) > model.P:
        return model.P + 1, "above P"
    return sum(len(S) for S in outs), "exact"


def _activate(S, coeffs, cap, work):
    if S is None:
        return None
    power, out = {()}, set()
    for j, c in enumerate(coeffs):
        if j:
            power = _times(power, S, cap, work)
            if power is None:
                return None
        if c != 0:
            out |= power
            if len(out) > cap:
                return None
    return out


def symmetry_count(model) -> int:
    """Per activated layer with a monomial activation: one rescaling per channel, ``c^2`` (GL gauge) when linear."""
    if model.family == "differential":
        return 0  # a linear map of theta_dot: no rescaling count is claimed for it
    return layer_symmetries(model.eff[1:], model.acts, model.bias)


def describe(model, spec) -> str:
    spec = model.spec
    if model.family == "differential":
        return f"theta_dot -> d phi(theta') theta_dot, the differential of {describe(model.inner, spec['of'])} at the " \
               f"integer point theta' (sha256 {digest(spec['at'])[:16]}), a point of the subnetwork F' with inactive " \
               f"channels {json.dumps(spec['inactive'], sort_keys=True)} (their outgoing weights are zero at theta')"
    spec = model.spec
    inactive = spec["inactive"]
    return f"the {len(model.shapes[0])}-D CNN with input {model.shapes[0]}, channels {model.channels}, filters " \
           f"{spec['filters']}, strides {spec['strides']}, activations [{', '.join(poly_text(a) for a in model.acts)}], " \
           f"{'with' if model.bias else 'without'} biases, dense layer {model.dense}" + \
           (f", inactive channels {json.dumps(inactive, sort_keys=True)}" if inactive else "")


def subnetwork_bound(cert, model, notes) -> tuple:
    """``(sha256 of F''s spec, b)``: ``dim F' <= b`` by the upper-bound witnesses of ``cert["subnetwork"]``."""
    block = get(cert, "subnetwork", dict)
    spec, of = get(block, "model", dict, "subnetwork"), get(cert["model"], "of", dict)
    need(digest(spec) == digest(dict(of, inactive=cert["model"]["inactive"])), "subnetwork.model must be the CNN of "
         "the differential with its inactive channels")
    mine = []
    b = upper_bound(block, Model(spec), mine)
    notes.append(f"subnetwork F': dim F' <= {b} ({', '.join(mine)})")
    return digest(spec), b


def subnetwork_claim(claim, value, sub) -> None:
    """Add the comparison of ``rank d phi >= value`` with ``dim F' <= b`` to a rank claim (Appendix C)."""
    sha, b = sub
    claim["subnetwork"] = {"model_sha256": sha, "dimension_at_most": b, "rank_exceeds": value > b}
    claim["text"] += f"; the subnetwork F' (model sha256 {sha[:16]}) has dim F' <= {b} (its upper-bound witnesses), " + (
        f"so rank d phi > dim F': the normal spaces N_F over F' span fewer than dim H dimensions and there is no "
        f"proximity bias toward F' (proximity-bias paper, Appendix C)" if value > b else
        f"which the rank {value} does not exceed: this count does not decide proximity bias toward F'")


def _register() -> None:
    import sys

    for family in ("cnn", "differential"):
        register_family(family, sys.modules[__name__])


_register()
