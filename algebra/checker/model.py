"""The checker's own reading and evaluation of a model spec (plug-in for the rank kinds; part of the checker).

Imports only :mod:`algebra.checker.core`.  :class:`Model` reads a spec of the families ``mlp``, ``linear``,
``qk``, ``attention`` and ``polynomial`` in its one canonical form (``cnn`` and ``differential`` register
themselves from :mod:`algebra.checker.cnn` in :data:`FAMILIES`) and evaluates it by forward-mode
differentiation modulo a prime (a dual number is ``(value, {parameter: derivative})``), not by the models'
Jacobians; it counts the ambient dimension and the rescaling/gauge symmetries a defect is measured against
(:func:`expected_count`) and describes the model in words for the claim's text (:func:`describe`).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

from algebra.checker.core import (MAX_DEGREE, MAX_MATRIX, MAX_PARAMS, MAX_SIDE, MAX_TERMS, _NAME, Reject, _shown,
                                  canonical_or_refuse, digest, fields, fraction, get, index_set, int_list, key_int,
                                  need, poly, poly_degree, poly_json, poly_value_grad, residue, small_int)

MAX_EVAL = 5 * 10**8  # charged steps of one certificate (Model.charge): about 7 s at the measured 7 10^7 per second
# MAX_EVAL is counted in gradient-entry updates of dual products (~2 10^8 per second); pure-Python loops over file
# data (a polynomial factor, a multiply-add of the identity checks) weigh more, by these measured factors
POLY_FACTOR_WEIGHT = 1000
DEGREE_CAP = 10_000  # output degrees up to this are counted exactly; beyond it the ambient is "more than P" (>= 2 inputs)
MAX_SUPPORT_WORK = 10**7  # monomial products of the ambient count (cnn, attention)
FAMILIES = {}  # family -> module with read, forward, support, describe, symmetry_count (cnn, differential)


def register_family(name: str, module) -> None:
    """Make ``module`` the reader and evaluator of the model family ``name`` (:mod:`algebra.checker.cnn`)."""
    FAMILIES[name] = module


# -- forward-mode differentiation: a dual number is (value, {parameter: derivative}) -----
def d_lin(terms, m, const=0):
    """``const + sum c * dual`` for ``(c, dual)`` pairs."""
    v, g = const, {}
    for c, (av, ag) in terms:
        v += c * av
        for k, x in ag.items():
            g[k] = (g.get(k, 0) + c * x) % m
    return v % m, g


def d_dot(pairs, m):
    v, g = 0, {}
    for (av, ag), (bv, bg) in pairs:
        v += av * bv
        for k, x in ag.items():
            g[k] = (g.get(k, 0) + x * bv) % m
        for k, x in bg.items():
            g[k] = (g.get(k, 0) + x * av) % m
    return v % m, g


def d_poly(coeffs, a, m):
    """``sigma(a)`` for a univariate polynomial with residues ``coeffs`` (chain rule)."""
    v, dv = 0, 0
    for c in reversed(coeffs):
        dv = (dv * a[0] + v) % m
        v = (v * a[0] + c) % m
    return v, {k: x * dv % m for k, x in a[1].items()}



_SPEC_FIELDS = {"mlp": ("family", "widths", "activations", "bias", "inactive"), "linear": ("family", "widths"),
                "qk": ("family", "d", "k"), "attention": ("family", "d", "dout", "tokens", "rank"),
                "polynomial": ("family", "parameters", "inputs", "polynomials", "names")}


def read_inactive(v, layers, sizes, what) -> dict:
    """``{"layer": [units]}`` -> ``{layer: [units]}``: canonical keys in ``[1, layers]``, each list a non-empty
    strictly increasing set of units in range, at least one unit left in the layer."""
    need(isinstance(v, dict), f"{what} must be an object")
    out = {}
    for key, units in v.items():
        layer = key_int(key, 1, layers, f"{what} layer")
        units = index_set(units, 0, sizes[layer] - 1, f"{what} units of layer {layer}")
        need(0 < len(units) < sizes[layer], f"{what}: layer {layer} lists no unit or all {sizes[layer]} (one must be left)")
        out[layer] = units
    return out


def inactive_json(inactive) -> dict:
    return {str(layer): list(units) for layer, units in sorted(inactive.items())}


def activation_json(acts) -> list:
    return [[str(c) for c in a] for a in acts]


class Model:
    """The checker's own reading of a model spec (see docs/certificate-format.md).

    The spec must be spelled in its one canonical form (:func:`canonical_or_refuse`): ``self.spec`` is that
    form, rebuilt from the parsed values, and everything the checker renders or hashes is taken from it.
    """

    def __init__(self, spec):
        self.family = fam = get(spec, "family", str, "model")
        self.n_in, self.deg_x, self.homogeneous, budget = 0, 0, True, [MAX_TERMS]
        if fam in _SPEC_FIELDS:
            fields(spec, _SPEC_FIELDS[fam], f"the {fam} spec", _SPEC_FIELDS[fam])
        if fam in ("mlp", "linear"):
            w = self.widths = int_list(get(spec, "widths", list), 1, MAX_SIDE, "widths")
            need(2 <= len(w) <= 64, "widths must have 2..64 entries")
        if fam == "mlp":
            acts = get(spec, "activations", list)
            need(len(acts) == len(w) - 2 and all(isinstance(a, list) and 2 <= len(a) <= MAX_DEGREE + 1 for a in acts),
                 "activations must be one coefficient list per hidden layer")
            self.acts = [[fraction(c, "activation coefficient") for c in a] for a in acts]
            need(all(a[-1] != 0 for a in self.acts), "an activation has a zero leading coefficient")
            self.bias, eff = get(spec, "bias", bool), list(w)
            self.inactive = read_inactive(get(spec, "inactive", dict), len(w) - 2, w, "inactive")
            for layer, units in self.inactive.items():
                eff[layer] -= len(units)
            self.eff, self.n_in, self.n_out = eff, w[0], w[-1]
            self.blocks = [b for l in range(1, len(eff)) for b in [(eff[l], eff[l - 1])] + [(eff[l], 1)] * self.bias]
            self.deg_x = math.prod(len(a) - 1 for a in self.acts)
            self.homogeneous = not self.bias and all(not any(a[:-1]) for a in self.acts)
            self.degree = 2  # joint degree of the outputs in (theta, x)
            for a in self.acts:
                self.degree = (len(a) - 1) * self.degree + 1
            self.work = sum(r * c for r, c in self.blocks) + sum(eff[1:-1])  # dual products and activations
            self.flat = sum(w * len(a) for w, a in zip(eff[1:-1], self.acts))  # Horner steps on values
            self.spec = {"family": fam, "widths": list(w), "activations": activation_json(self.acts), "bias": self.bias,
                         "inactive": inactive_json(self.inactive)}
        elif fam == "linear":
            self.blocks, self.n_out, self.degree = [(w[l], w[l - 1]) for l in range(1, len(w))], w[0] * w[-1], len(w) - 1
            self.work = sum(w[0] * w[l] * w[l - 1] for l in range(1, len(w)))
            self.spec = {"family": fam, "widths": list(w)}
        elif fam == "qk":
            d, k = (small_int(get(spec, key, int), 1, MAX_SIDE, key) for key in ("d", "k"))
            self.blocks, self.n_out, self.degree, self.work = [(d, k), (d, k)], d * d, 2, d * d * k
            self.spec = {"family": fam, "d": d, "k": k}
        elif fam == "attention":
            d, do, t = (small_int(get(spec, k, int), 1, 256, k) for k in ("d", "dout", "tokens"))
            a = small_int(get(spec, "rank", int), 1, d, "rank")
            self.d, self.dout, self.t, self.rank = d, do, t, a
            self.blocks = [(d, d), (do, d)] if a == d else [(a, d), (a, d), (do, d)]
            self.n_in, self.n_out, self.deg_x, self.degree = d * t, do * t, 3, 5 if a == d else 6
            self.work = d * d * a + 2 * t * d * d + do * d * d + do * t * d  # dual products of one forward pass
            self.spec = {"family": fam, "d": d, "dout": do, "tokens": t, "rank": a}
        elif fam == "polynomial":
            npar = small_int(get(spec, "parameters", int), 1, MAX_PARAMS, "parameters")
            self.n_in = small_int(get(spec, "inputs", int), 0, MAX_SIDE, "inputs")
            polys = get(spec, "polynomials", list)
            need(1 <= len(polys) <= MAX_SIDE, "polynomials must be a non-empty list")
            self.polys = [poly(p, npar + self.n_in, "model polynomial", budget) for p in polys]
            names = get(spec, "names", list)
            need(len(names) == npar + self.n_in and all(isinstance(x, str) and _NAME.fullmatch(x) for x in names)
                 and len(set(names)) == len(names), f"names must be {npar + self.n_in} distinct ASCII identifiers "
                 "(letters, digits, '_'; at most 64 characters)")
            self.blocks, self.n_out = [(npar, 1)], len(polys)
            xdeg = {sum(e for i, e in mo if i >= npar) for p in self.polys for mo, _ in p}
            self.deg_x, self.homogeneous = max(xdeg, default=0), len(xdeg) <= 1
            self.degree = max(poly_degree(p) for p in self.polys)
            self.work = sum(len(mo) + 1 for p in self.polys for mo, _ in p)  # no dual products: one pass per term
            self.spec = {"family": fam, "parameters": npar, "inputs": self.n_in,
                         "polynomials": [poly_json(p) for p in self.polys], "names": list(names)}
        elif fam in FAMILIES:  # registered by its module (algebra.checker.cnn: cnn, differential)
            FAMILIES[fam].read(self, spec)
        else:
            raise Reject(f"unknown model family {_shown(fam)}")
        canonical_or_refuse(spec, self.spec, f"the {fam} spec")
        self.P = sum(r * c for r, c in self.blocks)
        # steps of one forward pass with gradients: every dual product touches at most P gradient entries;
        # the polynomial family has no dual products (one pass over its terms, prefix/suffix products)
        # one polynomial factor (a modular power and the prefix/suffix products) weighs as much as ~1000 gradient
        # entries of a dual product: measured, both run at about 2 10^8 charged steps per second
        self.cost = (self.work * max(self.P, 1) if fam != "polynomial" else self.work * POLY_FACTOR_WEIGHT) \
            + getattr(self, "flat", 0)
        self.spent = 0  # steps of forward passes charged so far (MAX_EVAL per certificate, :meth:`charge`)
        need(self.P <= MAX_PARAMS and self.n_out <= MAX_SIDE and self.n_in <= MAX_SIDE, "too many parameters, inputs or outputs")
        need(self.n_out * self.P <= MAX_MATRIX, f"a Jacobian block would exceed {MAX_MATRIX} entries")
        need(self.cost <= MAX_EVAL, f"one forward pass with gradients would take {self.cost} steps, more than {MAX_EVAL}")

    def charge(self, passes: int = 0, steps: int = 0) -> None:
        """Charge ``passes`` forward passes with gradients and ``steps`` other steps to this certificate's
        budget (``MAX_EVAL`` in all), before running them."""
        self.spent += passes * self.cost + steps
        need(self.spent <= MAX_EVAL, f"checking this certificate would take more than {MAX_EVAL} steps "
             f"({self.cost} per forward pass with gradients)")

    def ambient_count(self) -> tuple:
        """``(count, status)``: the number of output coordinates times monomials the outputs can contain.

        ``status`` is ``"exact"`` (``count`` is that number), ``"above P"`` (it exceeds ``P``; ``count`` is a
        lower bound above ``P``) or ``"unknown"`` (``count`` is an upper bound above ``P``).  Counted from the
        model, never from its shape: the MLP's output degrees propagate through the activations' nonzero
        coefficients (:func:`degree_set`); attention counts the monomials ``x_ps x_is x_jc`` its outputs are
        sums of; a polynomial map the input monomials its terms carry; a CNN (:func:`algebra.checker.cnn.support`)
        the monomials of the inputs each output actually reads.  The MLP and CNN counts assume the generic
        coefficient of each such monomial is nonzero (a test compares them with brute-force expansions).
        """
        fam, n = self.family, self.n_in
        if n == 0:
            return self.n_out, "exact"
        if fam == "polynomial":
            npar = self.P
            per = [len({tuple(f for f in mono if f[0] >= npar) for mono, _ in p}) for p in self.polys]
            return sum(per), "exact"
        if fam == "attention":
            d, t = self.d, self.t
            # output (a, c) = sum V_ap X_ps X_is A_ij X_jc carries the monomials of token multisets {c, c, c} and
            # {s, s, c}, s != c; swapping tokens 0 and c maps output (a, 0) to (a, c), so the image lies in
            # dout x (those monomials) coordinates
            return self.dout * (math.comb(d + 2, 3) + (t - 1) * d * math.comb(d + 1, 2)), "exact"
        if fam in FAMILIES:
            return FAMILIES[fam].support(self)
        degrees = degree_set(self.acts, self.bias)
        if degrees is None:  # an output degree above DEGREE_CAP
            return (self.P + 1, "above P") if n >= 2 else (self.n_out * (self.deg_x + 1), "unknown")
        per = sum(math.comb(n + d - 1, d) for d in range(degrees.bit_length()) if degrees >> d & 1)
        return self.n_out * per, "exact"

    def _mats(self, theta):
        """Parameter blocks as matrices of duals ``(theta_i, {i: 1})``."""
        out, k = [], 0
        for r, c in self.blocks:
            out.append([[(theta[k + i * c + j], {k + i * c + j: 1}) for j in range(c)] for i in range(r)])
            k += r * c
        return out

    def forward(self, theta, x, m):
        """Outputs at one input ``x`` as duals (value, gradient in theta) modulo ``m``."""
        if self.family in FAMILIES:
            return FAMILIES[self.family].forward(self, theta, x, m)
        mats, fam = self._mats(theta), self.family
        if fam == "mlp":
            a = [(v % m, {}) for v in x]
            step = 2 if self.bias else 1
            L = len(self.eff) - 1
            for l in range(L):
                W = mats[step * l]
                z = [d_dot(zip(row, a), m) for row in W]
                if self.bias:
                    z = [d_lin([(1, zi), (1, bi[0])], m) for zi, bi in zip(z, mats[step * l + 1])]
                if l < L - 1:
                    cs = [residue(c, m) for c in self.acts[l]]
                    z = [d_poly(cs, zi, m) for zi in z]
                a = z
            return a
        if fam == "attention":
            d, t = self.d, self.t
            X = [[x[b * t + s] % m for s in range(t)] for b in range(d)]
            G = [[sum(X[i][s] * X[j][s] for s in range(t)) % m for j in range(d)] for i in range(d)]
            if self.rank == d:
                A, V = mats
            else:
                K, Q, V = mats
                A = [[d_dot([(K[r][i], Q[r][j]) for r in range(self.rank)], m) for j in range(d)] for i in range(d)]
            u = [[d_lin([(X[j][c], A[i][j]) for j in range(d)], m) for i in range(d)] for c in range(t)]
            w = [[d_lin([(G[p][i], V[a][p]) for p in range(d)], m) for i in range(d)] for a in range(self.dout)]
            return [d_dot(zip(w[a], u[c]), m) for a in range(self.dout) for c in range(t)]
        if fam == "qk":
            A, B = mats
            return [d_dot(zip(A[a], B[c]), m) for a in range(len(A)) for c in range(len(B))]
        if fam == "linear":
            prod = mats[0]
            for W in mats[1:]:
                prod = [[d_dot([(W[i][k], prod[k][j]) for k in range(len(prod))], m) for j in range(len(prod[0]))] for i in range(len(W))]
            return [e for row in prod for e in row]
        values = [v % m for v in theta] + [v % m for v in x]
        return [poly_value_grad(p, values, m, self.P) for p in self.polys]

    def rows(self, theta, inputs, wanted, m):
        """``{row: [J[row, c] for all c]}`` for the wanted Jacobian rows (sample-major)."""
        out, samples = {}, sorted({r // self.n_out for r in wanted})
        self.charge(len(samples))
        for s in samples:
            duals = self.forward(theta, inputs[s] if inputs else [], m)
            for o, (_, g) in enumerate(duals):
                if s * self.n_out + o in wanted:
                    out[s * self.n_out + o] = [g.get(c, 0) for c in range(self.P)]
        return out


def degree_set(acts, bias):
    """The degrees (a bitmask) of the monomials an MLP's outputs contain: ``{1}`` (and ``0`` with biases) after
    the first layer; through ``sigma = sum c_j t^j`` the union over ``c_j != 0`` of the ``j``-fold sumsets; each
    layer's biases add ``0``.  ``None`` when a degree above ``DEGREE_CAP`` occurs."""
    top = 1
    for a in acts:
        top *= len(a) - 1
    if top > DEGREE_CAP:
        return None
    D = 0b10 | bias
    for a in acts:
        power, out = 1, 0  # power: the degrees of z^j, j = 0, 1, ...
        for j, c in enumerate(a):
            if j:
                power = _sumset(power, D)
            if c != 0:
                out |= power
        D = out | bias
    return D


def _sumset(A: int, B: int) -> int:
    out, b = 0, 0
    while B:
        if B & 1:
            out |= A << b
        B, b = B >> 1, b + 1
    return out


def poly_text(coeffs) -> str:
    """``[c0, c1, ...]`` -> ``"t^2/2 + t - 1"`` (highest degree first)."""
    terms = []
    for k in range(len(coeffs) - 1, -1, -1):
        c = Fraction(coeffs[k])
        if c == 0:
            continue
        mono = "" if k == 0 else "t" if k == 1 else f"t^{k}"
        if not mono:
            terms.append(str(c))
        else:
            num = "" if abs(c.numerator) == 1 else f"{abs(c.numerator)}*"
            den = f"/{c.denominator}" if c.denominator > 1 else ""
            terms.append(("-" if c < 0 else "") + num + mono + den)
    return " + ".join(terms).replace("+ -", "- ") or "0"


def describe(model, spec) -> str:
    """The object a claim is about, in words, ending with the model's sha256 (which pins it)."""
    fam = model.family
    if fam == "mlp":
        acts = ", ".join(poly_text(a) for a in model.acts)
        words = f"the MLP with widths {tuple(model.widths)}, activation {acts or 'none'}, " \
                f"{'with' if model.bias else 'without'} biases"
        inactive = {k: v for k, v in spec["inactive"].items() if v}
        words += f", inactive neurons {json.dumps(inactive, sort_keys=True)}" if inactive else ""
    elif fam == "linear":
        words = f"the deep linear network with widths {tuple(model.widths)}"
    elif fam == "qk":
        words = f"the query-key map (A, B) -> A B^T with d = {spec['d']}, k = {spec['k']}"
    elif fam == "attention":
        words = f"lightning attention X -> V X X^T A X with d = {model.d}, d' = {model.dout}, {model.t} token(s), " \
                f"rank(A) <= {model.rank}"
    elif fam in FAMILIES:
        words = FAMILIES[fam].describe(model, spec)
    else:
        words = f"the polynomial map with {model.P} parameters, {model.n_in} inputs and {model.n_out} outputs"
    return f"{words} (model sha256 {digest(spec)[:16]})"


def symmetry_count(model) -> int:
    """Rescaling and gauge symmetries every point of the family has (the paper's naive count):
    one per hidden neuron with a monomial activation ``c t^k`` (``k >= 2``), ``w^2`` per hidden layer
    with a linear one (GL gauge), ``k^2`` for ``A B^T``, ``1 + a^2`` (``1`` at full rank) for attention."""
    fam = model.family
    if fam == "mlp":
        return layer_symmetries(model.eff[1:-1], model.acts, model.bias)
    if fam == "linear":
        return sum(w * w for w in model.widths[1:-1])
    if fam == "qk":
        return model.blocks[0][1] ** 2
    if fam == "attention":
        return 1 + (model.rank**2 if model.rank < model.d else 0)
    if fam in FAMILIES:
        return FAMILIES[fam].symmetry_count(model)
    return 0


def layer_symmetries(widths, acts, bias) -> int:
    """Per hidden layer of ``w`` units: ``w`` rescalings for a monomial activation ``c t^k`` (``k >= 2``),
    the gauge ``GL(w)`` (``w^2``) for ``c t`` and, with biases, the affine gauge (``w^2 + w``) for ``c t + c0``;
    nothing for other activations.  An affine activation ``c t + c0`` (``c0 != 0``) without biases is refused."""
    total = 0
    for w, a in zip(widths, acts):
        if len(a) == 2:
            need(bias or a[0] == 0, "no symmetry count for an affine activation c t + c0 (c0 != 0) without biases")
            total += w * w + w * bias
        elif sum(1 for c in a if c) == 1:
            total += w
    return total


def expected_count(model) -> int:
    """The expected dimension ``min(ambient, P - symmetry_count)``: a dimension below it is a defect.
    Refused when the ambient count is not known to be exact or above ``P``."""
    ambient, status = model.ambient_count()
    need(status != "unknown", "the ambient dimension of this model cannot be counted within the checker's limits "
         f"(an output degree above {DEGREE_CAP} with one input): no defect can be derived")
    return min(ambient, model.P - symmetry_count(model))


def ambient_text(model) -> str:
    ambient, status = model.ambient_count()
    return f"ambient {ambient}" if status == "exact" else f"ambient > {model.P}"
