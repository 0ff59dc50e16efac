"""The independent certificate checker: replays hints, never searches (docs/certificate-format.md).

Imports nothing from the rest of :mod:`algebra` (a test parses the imports): only the standard
library and ``python-flint`` (modular arithmetic falls back to pure Python when it is absent;
the ball arithmetic of :mod:`algebra.checker.attention` needs it).  It has its own
evaluator of every model family (forward-mode differentiation, not the models' Jacobians).

* rank lower bound: ``det J[rows, cols] != 0 mod p`` at the integer point -> generic rank >= r;
* rank upper bound: polynomial kernel fields ``X_j`` and the Cramer fields of an ``r x r`` block
  satisfy ``J X = 0`` identically, image equations ``g(F(theta)) = 0`` identically; tested at a
  random point modulo a fresh random 200-bit prime (Schwartz–Zippel), failure probability printed
  (``< 2^-60``); bound ``min(ambient, P - rank X(theta), ambient - rank Dg)``;
* dimension = both meeting; defect = a dimension below the expected count the checker derives
  from the spec (``min(ambient, P - rescaling/gauge symmetries)``);
* every claim (relation, value, the object it is about, its text) is derived from the data and
  re-rendered here; a file whose claim differs is refused; ``source`` is informational;
* ``claimed`` (optional): the user's claim as data; its verdict is derived from the proven range, never read;
* formula: the closed form re-evaluated; interval inequality and attention rank: ball arithmetic
  (python-flint ``arb``) in :mod:`algebra.checker.attention`, the checker's one real evaluator.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import secrets
from fractions import Fraction
from itertools import combinations

try:
    import flint
except ImportError:  # pragma: no cover - exercised by the fallback test
    flint = None

SCHEMA_VERSION = 1
KINDS = ("rank_lower_bound", "rank_upper_bound", "dimension", "defect", "formula", "interval_inequality",
         "attention_rank", "score_representation", "local_rank")
SZ_BITS = 200  # Schwartz-Zippel points live in GF(q) for a fresh random prime q in [2^200, 2^201)
SZ_TARGET_BITS = 60
MAX_IDENTITY_DEGREE = 2**20
MAX_FILE_BYTES = 32 * 2**20
MAX_PARAMS = 4096
MAX_SIDE = 4096  # widths, inputs, outputs, samples, rows
MAX_TERMS = 200_000
MAX_MATRIX = 4 * 10**6  # entries of any matrix the checker builds (Jacobian rows, fields, gradients)
MAX_EVAL = 5 * 10**8  # charged steps of one certificate (Model.charge): about 7 s at the measured 7 10^7 per second
MAX_DEGREE = 256
# MAX_EVAL is counted in gradient-entry updates of dual products (~2 10^8 per second); pure-Python loops over file
# data (a polynomial factor, a multiply-add of the identity checks) weigh more, by these measured factors
POLY_FACTOR_WEIGHT = 1000
LOOP_WEIGHT = 20
MAX_DIGITS = 400
MAX_FRACTION_DIGITS = 4000  # total denominator digits of one list of fractions summed exactly (Newton weights)
DEGREE_CAP = 10_000  # output degrees up to this are counted exactly; beyond it the ambient is "more than P" (>= 2 inputs)
MAX_SUPPORT_WORK = 10**7  # monomial products of the ambient count (cnn, attention)
# Canonical spellings (docs/certificate-format.md, "Canonical specs"): ASCII digits only (``[0-9]`` in a
# character class is ASCII; ``str.isdigit`` and ``int`` accept other scripts' digits and are never applied to
# file text unchecked), no sign on counts, no leading zero, no ``-0``; fractions in lowest terms.
_DEC = re.compile(r"0|[1-9][0-9]{0,%d}" % (MAX_DIGITS - 1))
_INT = re.compile(r"0|-?[1-9][0-9]{0,%d}" % (MAX_DIGITS - 1))
_FRAC = re.compile(r"(0|-?[1-9][0-9]{0,%d})(/[1-9][0-9]{0,%d})?" % (MAX_DIGITS - 1, MAX_DIGITS - 1))
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


class Reject(Exception):
    """The certificate does not prove its claim (the message says why)."""


def need(condition, message: str) -> None:
    if not condition:
        raise Reject(message)


# -- typed readers ----------------------------------------------------------------
def get(obj, key, kind, what=None):
    need(isinstance(obj, dict), f"{what or 'certificate'} is not an object")
    need(key in obj, f"missing field {key!r}")
    value = obj[key]
    ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
    need(ok, f"field {key!r} has the wrong type")
    return value


def small_int(v, lo, hi, what) -> int:
    need(isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi, f"{what} must be an integer in [{lo}, {hi}]")
    return v


def _shown(v) -> str:
    text = json.dumps(v, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


def big_int(s, what) -> int:
    need(isinstance(s, str) and _INT.fullmatch(s) is not None,
         f"{what} must be a canonical decimal integer string (ASCII digits, no leading zero, no '+' or '-0'), "
         f"not {_shown(s)}")
    return int(s)


def fraction(s, what) -> Fraction:
    need(isinstance(s, str) and _FRAC.fullmatch(s) is not None,
         f"{what} must be a canonical exact 'p' or 'p/q' string (ASCII digits, no leading zero), not {_shown(s)}")
    num, _, den = s.partition("/")
    value = Fraction(int(num), int(den or 1))
    need(str(value) == s, f"{what} must be in lowest terms with a denominator above 1 (write {value}), not {_shown(s)}")
    return value


def key_int(key, lo, hi, what) -> int:
    """An integer object key: canonical ASCII decimal (``"1"``, never ``"01"``, ``"+1"`` or ``"١"``) in ``[lo, hi]``."""
    need(isinstance(key, str) and _DEC.fullmatch(key) is not None and lo <= int(key) <= hi,
         f"{what} key must be a canonical ASCII decimal in [{lo}, {hi}], not {_shown(key)}")
    return int(key)


def fields(obj, allowed, what, required=()) -> dict:
    """``obj`` is an object with no field outside ``allowed`` and every field of ``required``."""
    need(isinstance(obj, dict), f"{what} is not an object")
    extra = sorted(set(obj) - set(allowed))
    need(not extra, f"{what} has unknown field(s) {_shown(extra)} (allowed: {', '.join(sorted(allowed))})")
    missing = sorted(set(required) - set(obj))
    need(not missing, f"{what} lacks field(s) {', '.join(missing)}")
    return obj


def int_list(v, lo, hi, what, length=None) -> list:
    need(isinstance(v, list) and len(v) <= MAX_PARAMS * 4, f"{what} must be a list")
    need(length is None or len(v) == length, f"{what} must have length {length}")
    return [small_int(x, lo, hi, what) for x in v]


def index_set(v, lo, hi, what, length=None) -> list:
    """A set of indices, spelled canonically: strictly increasing integers in ``[lo, hi]``."""
    out = int_list(v, lo, hi, what, length)
    need(all(a < b for a, b in zip(out, out[1:])), f"{what} must be strictly increasing (a sorted set, no repeats)")
    return out


def canonical_or_refuse(spec, canonical, what) -> None:
    """Refuse ``spec`` unless it is spelled exactly as its canonical form (compared as canonical JSON,
    so ``1`` and ``true`` differ)."""
    mine = json.dumps(canonical, sort_keys=True, ensure_ascii=True)
    theirs = json.dumps(spec, sort_keys=True, ensure_ascii=True)
    at = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
    need(mine == theirs, f"{what} is not in canonical form at character {at}: the file has "
         f"...{theirs[max(at - 30, 0):at + 40]}..., canonical is ...{mine[max(at - 30, 0):at + 40]}...")


def poly(v, nvars, what, budget) -> list:
    """Sparse polynomial ``[[[[var, exp], ...], "c"], ...]`` -> ``[(((var, exp), ...), Fraction)]``."""
    need(isinstance(v, list), f"{what} must be a list of terms")
    budget[0] -= len(v)
    need(budget[0] >= 0, f"more than {MAX_TERMS} polynomial terms")
    out = []
    for t in v:
        need(isinstance(t, list) and len(t) == 2 and isinstance(t[0], list), f"{what}: malformed term")
        budget[0] -= len(t[0])
        need(budget[0] >= 0, f"more than {MAX_TERMS} polynomial terms and factors")
        mono = []
        for pair in t[0]:
            need(isinstance(pair, list) and len(pair) == 2, f"{what}: malformed monomial")
            mono.append((small_int(pair[0], 0, nvars - 1, f"{what} variable"), small_int(pair[1], 1, MAX_DEGREE, f"{what} exponent")))
        need(all(a[0] < b[0] for a, b in zip(mono, mono[1:])) and sum(e for _, e in mono) <= MAX_DEGREE,
             f"{what}: a monomial's variables must be strictly increasing, of total degree <= {MAX_DEGREE}")
        c = fraction(t[1], f"{what} coefficient")
        need(c != 0, f"{what}: a term has coefficient 0 (canonical polynomials list nonzero terms only)")
        need(not out or out[-1][0] < tuple(mono), f"{what}: terms must be sorted by monomial, each monomial once")
        out.append((tuple(mono), c))
    return out


def poly_json(p) -> list:
    """The canonical JSON spelling of a parsed polynomial."""
    return [[[list(pair) for pair in mono], str(c)] for mono, c in p]


def poly_degree(p) -> int:
    return max((sum(e for _, e in m) for m, _ in p), default=0)


def poly_mod(p, values, m) -> int:
    total = 0
    for mono, c in p:
        need(c.denominator % m != 0, "a coefficient denominator vanishes modulo the prime")
        t = c.numerator * pow(c.denominator, -1, m)
        for i, e in mono:
            t = t * pow(values[i], e, m) % m
        total += t
    return total % m


def poly_value_grad(p, values, m, nvars) -> tuple:
    """``(p(values), {i: dp/dv_i(values)})`` modulo ``m`` for the variables ``i < nvars``, in one pass over the
    terms: each term's partial derivatives come from prefix and suffix products of its factors, so a term of
    ``k`` factors costs ``O(k)`` modular powers (not ``O(k^2)``)."""
    total, grad = 0, {}
    for mono, c in p:
        coef = residue(c, m)
        powers = [pow(values[i], e, m) for i, e in mono]
        prefix = [1]
        for x in powers:
            prefix.append(prefix[-1] * x % m)
        total += coef * prefix[-1]
        suffix = 1
        for k in range(len(mono) - 1, -1, -1):
            i, e = mono[k]
            if i < nvars:
                d = coef * e * pow(values[i], e - 1, m) * prefix[k] % m * suffix % m
                grad[i] = (grad.get(i, 0) + d) % m
            suffix = suffix * powers[k] % m
    return total % m, grad


# -- arithmetic modulo m ------------------------------------------------------------
def is_prime(n: int, rounds: int = 40) -> bool:
    """Miller–Rabin: deterministic (fixed bases) for ``n < 3.3e24``, else ``rounds`` random bases
    (a composite then passes with probability ``<= 4^-rounds``)."""
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    if n < 2 or any(n % b == 0 for b in small):
        return n in small
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    bases = small if n < 3 * 10**24 else [2 + secrets.randbelow(n - 3) for _ in range(rounds)]
    for a in bases:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


_PRIMORIAL = math.prod(n for n in range(3, 2000, 2) if all(n % d for d in range(3, int(n**0.5) + 1, 2)))


def random_prime(bits: int = SZ_BITS) -> int:
    """A random (probable) prime in ``[2^bits, 2^(bits+1))``, unpredictable to the certificate's author."""
    while True:
        n = secrets.randbits(bits) | (1 << bits) | 1
        if math.gcd(n, _PRIMORIAL) == 1 and is_prime(n):
            return n


def _eliminate(A, m, ncols):
    """Row-reduce a copy of ``A`` (lists of ints mod m) on its first ``ncols`` columns -> (rows, pivots, det)."""
    A = [[x % m for x in row] for row in A]
    pivots, det, r = [], 1, 0
    for c in range(ncols):
        k = next((i for i in range(r, len(A)) if A[i][c]), None)
        if k is None:
            det = 0
            continue
        if k != r:
            A[r], A[k], det = A[k], A[r], -det
        inv = pow(A[r][c], -1, m)
        det = det * A[r][c] % m
        A[r] = [x * inv % m for x in A[r]]
        for i in range(len(A)):
            if i != r and A[i][c]:
                f = A[i][c]
                A[i] = [(x - f * y) % m for x, y in zip(A[i], A[r])]
        pivots.append(c)
        r += 1
    return A, pivots, det % m


def _flint(A, m):
    if m < 2**64:
        return flint.nmod_mat(len(A), len(A[0]), [x % m for row in A for x in row], m)
    return flint.fmpz_mod_mat([[x % m for x in row] for row in A], flint.fmpz_mod_ctx(m))


def det_mod(A, m) -> int:
    if not A:
        return 1
    return int(_flint(A, m).det()) if flint is not None else _eliminate(A, m, len(A))[2]


def rank_mod(A, m) -> int:
    if not A or not A[0]:
        return 0
    return int(_flint(A, m).rank()) if flint is not None else len(_eliminate(A, m, len(A[0]))[1])


def solve_mod(A, B, m):
    """``A^-1 B`` for square ``A`` modulo the prime ``m``; ``None`` when ``A`` is singular."""
    n = len(A)
    if flint is not None:
        try:
            X = _flint(A, m).solve(_flint(B, m))
        except ZeroDivisionError:
            return None
        return [[int(X[i, j]) for j in range(len(B[0]))] for i in range(n)]
    R, pivots, _ = _eliminate([a + b for a, b in zip(A, B)], m, n)
    return [row[n:] for row in R] if len(pivots) == n else None


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


def residue(c: Fraction, m: int) -> int:
    need(c.denominator % m != 0, "a coefficient denominator vanishes modulo the prime")
    return c.numerator * pow(c.denominator, -1, m) % m


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


# -- claims: derived from the data, rendered canonically ---------------------------------
RANK_RELATION = {"rank_lower_bound": ">=", "rank_upper_bound": "<=", "dimension": "==", "defect": "=="}
_WORDS = {">=": "at least", "<=": "at most", "==": "exactly"}


def digest(obj) -> str:
    """sha256 of the canonical JSON bytes of ``obj`` (what the certificate's hash is taken over)."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()).hexdigest()


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


def rank_claim(kind, model, spec, value, expected=None, sub=None) -> dict:
    """The structured claim of a rank-kind certificate and its canonical text (``sub``: the proven bound of
    ``dim F'`` a ``differential`` is compared with, :func:`algebra.checker.cnn.subnetwork_claim`)."""
    rel = RANK_RELATION[kind]
    claim = {"about": {"model_sha256": digest(spec), "quantity": "generic rank of the Jacobian"},
             "relation": rel, "value": value}
    text = f"the generic rank of the Jacobian of {describe(model, spec)}, i.e. the dimension of its " \
           f"neuromanifold, is {_WORDS[rel]} {value}"
    if kind == "defect":
        claim["expected"] = expected
        text += f"; this is below the expected count {expected} = min({ambient_text(model)}, " \
                f"{model.P} parameters - {symmetry_count(model)} rescaling/gauge symmetries)"
    claim["text"] = text
    if sub is not None:
        FAMILIES["differential"].subnetwork_claim(claim, value, sub)
    return claim


def formula_claim(name, inputs, subject, lam, mult, route, stated, relation="==") -> dict:
    """The structured claim of a formula certificate: the derived (lambda, m) -- or the bound
    ``lambda <= value`` with ``m`` not certified (``None``) -- the route that derived it, and the stated
    value with whether it agrees (is consistent with a bound; ``None`` when nothing is stated)."""
    agrees = None
    words = f"lambda {'=' if relation == '==' else relation} {lam}" + (f", m = {mult}" if mult is not None else "") \
        + f" for {subject}, derived by {route}"
    if stated is not None:
        if "lambda" in stated:
            agrees = Fraction(stated["lambda"]) == lam and stated.get("multiplicity", mult) == mult
            said = f"lambda = {stated['lambda']}" + (f", m = {stated['multiplicity']}" if "multiplicity" in stated else "")
        else:
            agrees = Fraction(stated["lower"]) <= lam <= Fraction(stated["upper"])
            said = f"{stated['lower']} <= lambda <= {stated['upper']}"
        if relation == "<=":
            agrees = Fraction(stated.get("lambda", stated.get("lower", 0))) <= lam
        # a closed form's source is the checker's own (FORMULA_SOURCES); a recorded value's citation is the
        # file's label, so it stays out of the text (claim.stated.where carries it, quoted, never rendered)
        where = FORMULA_SOURCES[name] if name in FORMULA_SOURCES else "the cited source (the label stated.where)"
        words += f"; stated in {where}: {said}, which {'agrees' if agrees else 'disagrees'}"
    return {"about": {"formula": name, "inputs": inputs}, "relation": relation, "value": str(lam), "multiplicity": mult,
            "route": route, "stated": stated, "agrees": agrees, "text": words}


def compare_claim(claim, derived) -> None:
    """The file's claim must be exactly the derived one (text included)."""
    for key in sorted(set(claim) | set(derived)):
        mine, theirs = json.dumps(derived.get(key), sort_keys=True), json.dumps(claim.get(key), sort_keys=True)
        at = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
        need(mine == theirs, f"claim.{key} differs from what the data prove at character {at}: the file has "
             f"...{theirs[max(at - 40, 0):at + 60]}..., the checker derives ...{mine[max(at - 40, 0):at + 60]}...")


# -- the certificate kinds -----------------------------------------------------------
def read_point(cert, model):
    pt = get(cert, "point", dict)
    fields(pt, ("prime", "theta", "inputs"), "point", ("prime", "theta", "inputs"))
    p = big_int(get(pt, "prime", str), "prime")
    need(2 <= p < 2**64 and is_prime(p), "point.prime is not a prime in [2, 2^64)")
    theta = get(pt, "theta", list)
    need(len(theta) == model.P, f"theta must have {model.P} entries")
    theta = [big_int(v, "theta entry") for v in theta]
    inputs = get(pt, "inputs", list)
    if model.n_in == 0:
        need(inputs == [], "this model has no inputs: point.inputs must be []")
    else:
        need(1 <= len(inputs) <= MAX_SIDE, "point.inputs must list 1..4096 samples")
    need(all(isinstance(r, list) and len(r) == model.n_in for r in inputs), f"each input must list {model.n_in} entries")
    inputs = [[big_int(v, "input entry") for v in row] for row in inputs]
    return p, theta, inputs


def witness_rows_cols(block, model, inputs, what):
    fields(block, ("rows", "cols"), what, ("rows", "cols"))
    n_rows = model.n_out * max(len(inputs), 1)
    rows = index_set(get(block, "rows", list), 0, n_rows - 1, f"{what}.rows")
    cols = index_set(get(block, "cols", list), 0, model.P - 1, f"{what}.cols", len(rows))
    need(len(rows) * model.P <= MAX_MATRIX, f"{what}: more than {MAX_MATRIX} Jacobian entries")
    return rows, cols


def minor_mod(model, theta, inputs, rows, cols, m):
    J = model.rows(theta, inputs, set(rows), m)
    return det_mod([[J[r][c] for c in cols] for r in rows], m)


def lower_bound(cert, model, notes):
    p, theta, inputs = read_point(cert, model)
    rows, cols = witness_rows_cols(get(cert, "lower", dict), model, inputs, "lower")
    need(minor_mod(model, theta, inputs, rows, cols, p) != 0, f"the {len(rows)}x{len(rows)} minor vanishes modulo {p}")
    notes.append(f"rank >= {len(rows)}: nonzero {len(rows)}x{len(rows)} minor mod {p}")
    return len(rows)


def upper_bound(cert, model, notes):
    p, theta, inputs = read_point(cert, model)
    up, P, budget = get(cert, "upper", dict), model.P, [MAX_TERMS]
    fields(up, ("fields", "equations", "cramer"), "upper", ("fields", "equations"))
    ambient, exact = model.ambient_count()
    bound, reasons, identities = min(ambient, P), ["ambient" if ambient <= P else f"{P} parameters"], []
    kfields = []
    for f in get(up, "fields", list):
        need(isinstance(f, list) and len(kfields) < P and (len(kfields) + 1) * P <= MAX_MATRIX, "too many fields")
        entries = {}
        for e in f:
            need(isinstance(e, list) and len(e) == 2, "field entry must be [parameter, polynomial]")
            j = small_int(e[0], 0, P - 1, "field parameter")
            need(not entries or j > max(entries), "a field's parameters must be strictly increasing (each once)")
            entries[j] = poly(e[1], P, "field polynomial", budget)
        kfields.append(entries)
    if kfields:
        F0 = [[poly_mod(f[j], theta, p) if j in f else 0 for j in range(P)] for f in kfields]
        s = rank_mod(F0, p)
        if P - s < bound:
            bound, reasons = P - s, [f"{len(kfields)} polynomial kernel fields of rank {s} at theta"]
        identities.append(("fields", model.degree + max((poly_degree(x) for f in kfields for x in f.values()), default=0)))
    cramer = up.get("cramer")
    if cramer is not None:
        R, B = witness_rows_cols(cramer, model, inputs, "upper.cramer")
        need(minor_mod(model, theta, inputs, R, B, p) != 0, "the Cramer block J[rows, cols] is singular at theta")
        if len(R) < bound:
            bound, reasons = len(R), [f"{P - len(R)} Cramer kernel fields of a {len(R)}x{len(R)} block"]
        identities.append(("cramer", (len(R) + 1) * model.degree))
    eqs = [poly(g, model.n_out, "image equation", budget) for g in get(up, "equations", list)]
    if eqs:
        need(model.n_in == 0 and len(eqs) * model.n_out <= MAX_MATRIX, "image equations need a small model without inputs")
        model.charge(1)
        y = [v for v, _ in model.forward(theta, [], p)]
        D = []
        for g in eqs:  # one pass over each equation's terms gives its whole gradient
            grad = poly_value_grad(g, y, p, model.n_out)[1]
            D.append([grad.get(j, 0) for j in range(model.n_out)])
        e = rank_mod(D, p)
        if ambient - e < bound:
            bound, reasons = ambient - e, [f"{len(eqs)} image equations of gradient rank {e}"]
        identities.append(("equations", max(poly_degree(g) for g in eqs) * model.degree))
    if identities:
        deg = max(max(d for _, d in identities), 1)
        need(deg <= MAX_IDENTITY_DEGREE, f"identity degree {deg} above {MAX_IDENTITY_DEGREE}")
        entries = sum(len(f) for f in kfields)
        per = model.n_out * (entries + (len(R) * (P - len(R)) if cramer is not None else 0))  # J X and J_N - J_B Y
        # per point: the polynomial vanishes at the point (<= deg / q), the random q divides the
        # content of the nonzero integer polynomial (<= 2^-120, its coefficients have < 2^70 bits),
        # q is composite despite 40 Miller-Rabin rounds (<= 2^-80)
        per_point = Fraction(deg, 2**SZ_BITS) + Fraction(1, 2**120) + Fraction(1, 2**80)
        k = 1
        while per_point**k >= Fraction(1, 2**SZ_TARGET_BITS):
            k += 1
        model.charge(steps=k * per * LOOP_WEIGHT)
        for _ in range(k):
            sz_point(model, kfields, cramer and (R, B), eqs, inputs, random_prime())
        bits = math.floor(-k * math.log2(per_point))
        notes.append(f"identities ({', '.join(n for n, _ in identities)}) hold at {k} random point(s) modulo a random "
                     f"{SZ_BITS}-bit prime (degree <= {deg}; failure probability <= 2^-{bits})")
    notes.append(f"rank <= {bound}: " + "; ".join(reasons))
    return bound


def sz_point(model, fields, cramer, eqs, inputs, q):
    P = model.P
    th = [secrets.randbelow(q) for _ in range(P)]
    x = [secrets.randbelow(q) for _ in range(model.n_in)]
    model.charge(1)
    duals = model.forward(th, x, q)
    J = [[g.get(c, 0) for c in range(P)] for _, g in duals]
    for f in fields:
        X = {j: poly_mod(pj, th, q) for j, pj in f.items()}
        need(all(sum(row[j] * v for j, v in X.items()) % q == 0 for row in J), "a kernel field is not in the kernel of J")
    if cramer:
        R, B = cramer
        JR = model.rows(th, inputs, set(R), q)
        N = [c for c in range(P) if c not in set(B)]
        Y = solve_mod([[JR[r][c] for c in B] for r in R], [[JR[r][c] for c in N] for r in R], q) if N else []
        need(Y is not None, "the Cramer block is singular at a random point (retry)")
        for row in J:
            for t, c in enumerate(N):
                need((row[c] - sum(row[b] * Y[i][t] for i, b in enumerate(B))) % q == 0,
                     "a Cramer field is not in the kernel of J (the rank bound is false)")
    for g in eqs:
        need(poly_mod(g, [v for v, _ in duals], q) == 0, "an image equation does not vanish on the image")


# ``theorem`` and ``case``: informational (never read into the claim); ``stated``: derived or recorded data
FORMULA_FIELDS = {name: ("name", "inputs", "lambda", "multiplicity", "stated", "theorem", "case")
                  for name in ("reduced_rank_regression", "query_key", "deep_linear_network", "regular_model",
                               "newton_polyhedron")}
CITATION = re.compile(r"[A-Za-z][A-Za-z0-9 .,&()'-]{0,119}")
FORMULA_SOURCES = {"reduced_rank_regression": "Aoyagi & Watanabe (2005), Main Theorem",
                   "query_key": "graph-attention paper, Theorem 2 (44)-(45)",
                   "deep_linear_network": "Aoyagi (2024), Theorem 1"}


def check_formula(cert, notes):
    """Derive (lambda, m) by a route independent of the stated formula where one exists; the stated
    value is the printed formula re-evaluated (closed forms) or recorded data (``regular_model``)."""
    body = get(cert, "formula", dict)
    name, args = get(body, "name", str), get(body, "inputs", dict)
    need(name in FORMULA_FIELDS, f"unknown formula {_shown(name)}")
    extra = ("rank",) if name == "regular_model" else ("distance", "weights", "normal") if name == "newton_polyhedron" else ()
    fields(body, FORMULA_FIELDS[name] + extra, "formula", ("name", "inputs", "lambda", "multiplicity") + extra)
    val = lambda k, lo=0: small_int(get(args, k, int), lo, 10**6, k)  # noqa: E731
    printed = None
    if name == "reduced_rank_regression":
        M, N, H, r = val("M", 1), val("N", 1), val("H", 1), val("r")
        need(r <= min(M, N, H) and len(args) == 4, "need inputs M, N, H and r <= min(M, N, H)")
        printed, (lam, mult) = rrr(M, N, H, r), aoyagi([M, H, N], r)
        subject, route = f"reduced rank regression (M, N, H, r) = ({M}, {N}, {H}, {r})", \
            "Aoyagi (2024), Theorem 1, at depth 2 (widths M, H, N)"
    elif name == "query_key":
        d, k, r = val("d", 1), val("k", 1), val("r")
        need(k <= d and r <= k and len(args) == 3, "need inputs d, k, r with r <= k <= d")
        s = k - r
        printed = Fraction(r * (2 * d - r), 2) + Fraction((d - r) * s - s * s // 4, 2), 1 + s % 2  # (44), (45)
        (lam, mult), route = rrr(d, d, k, r), "Aoyagi & Watanabe (2005) with (M, N, H, r) = (d, d, k, r)"
        subject = f"the query-key composite A B^T with (d, k, r) = ({d}, {k}, {r})"
    elif name == "deep_linear_network":
        ws = int_list(get(args, "widths", list), 1, 10**4, "widths")
        r = val("r")
        need(2 <= len(ws) <= 16 and r <= min(ws) and len(args) == 2, "need 2..16 widths and r <= min(widths)")
        printed = aoyagi(ws, r)
        if len(ws) == 3:
            (lam, mult), route = rrr(ws[0], ws[2], ws[1], r), "Aoyagi & Watanabe (2005) (depth 2)"
        else:
            (lam, mult), route = printed, "Aoyagi (2024), Theorem 1, re-evaluated (no independent route at depth > 2)"
        subject = f"the deep linear network with widths {tuple(ws)} and teacher rank {r}"
    elif name == "regular_model":
        block = get(body, "rank", dict)
        fields(block, ("model", "point", "lower", "upper"), "formula.rank", ("model", "point", "lower", "upper"))
        spec = get(block, "model", dict, "formula.rank")
        model = Model(spec)
        lo, hi = lower_bound(block, model, notes), upper_bound(block, model, notes)
        need(lo == hi, f"the rank is not pinned down: {lo} <= rank <= {hi}")
        need(args == {"model_sha256": digest(spec)}, "formula.inputs must be {'model_sha256': <sha256 of formula.rank.model>}")
        lam, mult = Fraction(lo, 2), 1
        subject = f"{describe(model, spec)} at a generic point, a model regular in its identifiable coordinates"
        route = f"the certified Jacobian rank {lo} / 2 (Watanabe 2009: lambda = rank / 2 for a regular model)"
    elif name == "newton_polyhedron":
        (lam, subject, route), mult = newton_distance(body, args), None
    else:  # pragma: no cover - FORMULA_FIELDS lists exactly the names above
        raise Reject(f"unknown formula {_shown(name)}")
    relation = "<=" if name == "newton_polyhedron" else "=="
    m_file = body.get("multiplicity")
    need(fraction(get(body, "lambda", str), "lambda") == lam and m_file == mult and type(m_file) is type(mult),
         f"{name}{tuple(args)}: the checker derives lambda = {lam}, m = {mult}; the certificate says "
         f"{body['lambda']}, {m_file}")
    stated = read_stated(body.get("stated"), name, printed)
    notes.append(f"{name}: lambda {'<=' if mult is None else '='} {lam}" + (f", m = {mult}" if mult else "") + f" by {route}")
    return formula_claim(name, args, subject, lam, mult, route, stated, relation)


def newton_distance(body, args):
    """The Newton distance ``t`` of ``K`` along ``v = h + 1``, proven by primal weights (``t v`` lies in
    ``conv(supp K) + R^n_+``) and a dual normal ``a >= 0`` (``<a, p> >= t`` on the support, ``<a, v> <= 1``)."""
    need(set(args) == {"K", "variables", "prior_exponents"}, "newton_polyhedron inputs are K, variables, prior_exponents")
    n = small_int(get(args, "variables", int), 1, 64, "variables")
    h = int_list(get(args, "prior_exponents", list), 0, MAX_DEGREE, "prior_exponents", n)
    terms = {}
    for mono, c in poly(get(args, "K", list), n, "K", [MAX_TERMS]):
        e = tuple(dict(mono).get(i, 0) for i in range(n))
        terms[e] = terms.get(e, 0) + c
    points = sorted(e for e, c in terms.items() if c != 0)
    need(points and all(any(e) for e in points), "K must be a nonzero polynomial vanishing at the origin")
    v = [k + 1 for k in h]
    t = fraction(get(body, "distance", str), "distance")
    mu = [fraction(x, "weight") for x in get(body, "weights", list)]
    a = [fraction(x, "normal") for x in get(body, "normal", list)]
    # exact sums of these fractions cost about (number of terms) x (digits of the common denominator)^2
    digits = sum(len(str(x.denominator)) for x in mu + a) + sum(len(str(x.denominator)) for x in [t])
    need(digits <= MAX_FRACTION_DIGITS, f"the weights' and normal's denominators have {digits} digits in all, more "
         f"than {MAX_FRACTION_DIGITS}")
    need(len(mu) == len(points) and len(a) == n, "weights: one per support point (sorted); normal: one per variable")
    need(t > 0 and min(mu) >= 0 and sum(mu) == 1 and all(t * v[i] >= sum(m * p[i] for m, p in zip(mu, points))
                                                          for i in range(n)), "t v is not in the Newton polyhedron")
    need(min(a) >= 0 and 0 < sum(x * y for x, y in zip(a, v)) <= 1
         and all(sum(x * y for x, y in zip(a, p)) >= t for p in points), "the dual normal does not prove the distance")
    subject = f"K with {len(points)} support points in {n} variables (prior w^{tuple(h)}) at the origin"
    route = f"the Newton distance t = {t} (primal weights and LP dual normal): lambda <= 1/t (Watanabe 2009, " \
            "Sec. 7.2), with equality when K is non-degenerate (not checked)"
    return 1 / t, subject, route


def read_stated(st, name, printed):
    """The stated value: for a closed form it must be the printed formula re-evaluated (so derived too);
    for ``regular_model`` it is recorded data (``lambda`` [``multiplicity``] or ``lower``/``upper``; optional)."""
    if printed is not None:
        want = {"lambda": str(printed[0]), "multiplicity": printed[1], "where": FORMULA_SOURCES[name]}
        need(st == want, f"formula.stated must be the printed formula re-evaluated: {want}")
        return want
    if st is None:
        return None
    need(isinstance(st, dict) and isinstance(st.get("where"), str) and CITATION.fullmatch(st["where"]) is not None,
         "formula.stated.where must be a citation of at most 120 characters: letters, digits, spaces and . , & ( ) ' -")
    keys = set(st) - {"where"}
    need(keys in ({"lambda"}, {"lambda", "multiplicity"}, {"lower", "upper"}), "formula.stated has unknown fields")
    for k in keys - {"multiplicity"}:
        need(str(fraction(st[k], f"stated {k}")) == st[k], f"stated {k} must be in lowest terms")
    if "multiplicity" in st:
        small_int(st["multiplicity"], 1, 10**6, "stated multiplicity")
    need("lower" not in st or Fraction(st["lower"]) <= Fraction(st["upper"]), "stated lower > upper")
    return dict(st)


def check_rank(cert, kind, notes):
    """Rank, dimension and defect certificates: the value comes from the witnesses, the expected count
    of a defect from the model spec."""
    spec = get(cert, "model", dict)
    model = Model(spec)
    lo = lower_bound(cert, model, notes) if kind != "rank_upper_bound" else None
    hi = upper_bound(cert, model, notes) if kind != "rank_lower_bound" else None
    need(lo is None or hi is None or lo == hi, f"the witnesses give {lo} <= rank <= {hi}: no {kind}")
    value, expected = lo if lo is not None else hi, None
    if kind == "defect":
        expected = expected_count(model)
        need(value < expected, f"the dimension {value} is not below the expected count {expected}: no defect")
        notes.append(f"dimension {value} < expected count {expected}")
    sub = None
    need("subnetwork" not in cert or model.family == "differential", "only a differential has a subnetwork block")
    if "subnetwork" in cert:  # compared with the rank's proven lower bound

        need(lo is not None, "a subnetwork comparison needs a lower bound of the rank")
        sub = FAMILIES["differential"].subnetwork_bound(cert, model, notes)
    return rank_claim(kind, model, spec, value, expected, sub)


def rrr(M, N, H, r):
    """Aoyagi & Watanabe (2005), Main Theorem."""
    if N + r <= M + H and M + r <= N + H and H + r <= M + N:
        base = 2 * (H + r) * (M + N) - (M - N) ** 2 - (H + r) ** 2
        return (Fraction(base, 8), 1) if (M + N + H + r) % 2 == 0 else (Fraction(base + 1, 8), 2)
    if M + H < N + r:
        return Fraction(H * M - H * r + N * r, 2), 1
    if N + H < M + r:
        return Fraction(H * N - H * r + M * r, 2), 1
    return Fraction(M * N, 2), 1


def aoyagi(ws, r):
    """Aoyagi (2024), Theorem 1: every admissible index set Sigma must give the same value."""
    D = [w - r for w in ws]
    values = set()
    for size in range(2, len(D) + 1):
        for sigma in combinations(range(len(D)), size):
            inside, rest, ell = [D[i] for i in sigma], [D[i] for i in range(len(D)) if i not in sigma], size - 1
            S = sum(inside)
            if rest and not (max(inside) < min(rest) and S < ell * min(rest)):
                continue
            if S < ell * max(inside):
                continue
            a = S - (-(-S // ell) - 1) * ell
            pairs = sum(x * y for x, y in combinations(inside, 2))
            lam = (Fraction(-r * r + r * (ws[0] + ws[-1]), 2) + Fraction(a * (ell - a), 4 * ell)
                   - Fraction(ell * (ell - 1), 4) * Fraction(S, ell) ** 2 + Fraction(pairs, 2))
            values.add((lam, a * (ell - a) + 1))
    need(len(values) == 1, f"Aoyagi's theorem gives {len(values)} values for {ws}, r={r}")
    return values.pop()


# fields a certificate of each kind may have besides the informational ones (``source``, ``tool``, ``seed``: never
# read into a claim); the kinds' readers require the ones they need
_INFORMATIONAL = ("schema_version", "kind", "claim", "sha256", "source", "tool", "seed")
CERT_FIELDS = {"rank_lower_bound": ("model", "point", "lower", "subnetwork", "claimed"),
               "rank_upper_bound": ("model", "point", "upper", "claimed"),
               "dimension": ("model", "point", "lower", "upper", "claimed"),
               "defect": ("model", "point", "lower", "upper", "claimed"),
               "formula": ("formula", "claimed"), "interval_inequality": ("payload",),
               "attention_rank": ("matrix", "selection", "approximant"), "score_representation": ("representation",),
               "local_rank": ("network", "witnesses")}


# -- dispatch tables: each kind and model family names the function that reads it. The kinds of other modules
# register themselves when the package loads (algebra/checker/__init__.py imports them), so this module imports
# none of them back.
FAMILIES = {}  # family -> module with read, forward, support, describe, symmetry_count (cnn, differential)
KINDS_DERIVED = {"formula": lambda cert, notes: check_formula(cert, notes),
                 **{k: (lambda cert, notes, k=k: check_rank(cert, k, notes)) for k in RANK_RELATION}}


def register_kind(kind: str, derive) -> None:
    """Make ``derive(cert, notes) -> claim`` the reader of ``kind`` (one of :data:`KINDS`)."""
    assert kind in KINDS and kind not in KINDS_DERIVED, kind  # a programming error, never file data
    KINDS_DERIVED[kind] = derive


def register_family(name: str, module) -> None:
    FAMILIES[name] = module


# -- entry points ----------------------------------------------------------------------
def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    need(len(set(keys)) == len(keys), "duplicate key in a JSON object")
    return dict(pairs)


def check(cert) -> str:
    """Check a parsed certificate; return the reason it holds, raise :class:`Reject` otherwise."""
    return check_verdict(cert)[0]


def check_verdict(cert) -> tuple:
    """``(reason, judgement)``: :func:`check`, and the judgement of the user's claim the file records
    (:func:`read_claimed`), or ``None`` when it records none: ``{"quantity", "relation", "value", "lower",
    "upper", "verdict"}``, the verdict ``confirmed``, ``refuted`` or ``out of reach`` judged against the bounds
    ``lower <= quantity <= upper`` the checker derived (:func:`judge_claimed`)."""
    need(isinstance(cert, dict), "the file is not a JSON object")
    need(get(cert, "schema_version", int) == SCHEMA_VERSION, f"unsupported schema_version (this checker reads {SCHEMA_VERSION})")
    body = {k: v for k, v in cert.items() if k != "sha256"}
    need(get(cert, "sha256", str) == digest(body), "sha256 does not match the content")
    kind = get(cert, "kind", str)
    need(kind in KINDS, f"unknown kind {_shown(kind)}")
    fields(cert, _INFORMATIONAL + CERT_FIELDS[kind], f"a {kind} certificate", ("claim",))
    claim, notes = get(cert, "claim", dict), []
    get(claim, "text", str, "claim")
    derived = KINDS_DERIVED[kind](cert, notes)
    need(isinstance(derived, dict), f"internal: no claim derived for kind {kind!r}")  # every kind derives its claim
    compare_claim(claim, derived)
    notes.append("claim derived and re-rendered")
    judgement = judge_claimed(read_claimed(cert, kind), kind, derived)
    if judgement is not None:
        j, inf = judgement, lambda x, sign: sign + "inf" if x is None else x  # noqa: E731
        notes.append(f"claimed {j['quantity']} {j['relation']} {j['value']}: {j['verdict']} (proven: "
                     f"{inf(j['lower'], '-')} <= {j['quantity']} <= {inf(j['upper'], '')})")
    if "source" in cert:
        notes.append("source: informational, not checked")
    return "; ".join(notes), judgement


# -- the user's claim, recorded as data (``claimed``): the verdict is derived here, never read -------------
CLAIMED_RELATIONS = ("==", ">=", "<=")
MAX_CLAIMED = 2**63 - 1


def read_claimed(cert, kind):
    """``(relation, value)`` of the ``claimed`` member ``{"relation": "==" | ">=" | "<=", "value": v}`` (``None``
    without one): the user's claim about the generic rank (rank kinds: ``v`` a JSON integer in ``[0, 2^63)``) or
    lambda (``formula``: ``v`` a canonical fraction string).  Nothing else is read: a verdict or a text in it is
    refused as an unknown field."""
    if "claimed" not in cert:
        return None
    block = fields(get(cert, "claimed", dict), ("relation", "value"), "claimed", ("relation", "value"))
    rel = get(block, "relation", str, "claimed")
    need(rel in CLAIMED_RELATIONS, f"claimed.relation must be one of {', '.join(CLAIMED_RELATIONS)}, not {_shown(rel)}")
    if kind == "formula":
        return rel, fraction(get(block, "value", str, "claimed"), "claimed.value")
    return rel, small_int(block["value"], 0, MAX_CLAIMED, "claimed.value")


def judge_claimed(claimed, kind, derived):
    """``{"quantity", "relation", "value", "lower", "upper", "verdict"}`` for ``claimed = (relation, value)``
    (``None`` for ``None``): ``lower <= quantity <= upper`` is the range the derived claim proves (``None``: no
    bound that side; a rank is at least 0), the verdict ``confirmed`` when every value in it satisfies the
    claim, ``refuted`` when none does, ``out of reach`` otherwise."""
    if claimed is None:
        return None
    (rel, v), drel = claimed, derived["relation"]
    proven = fraction(derived["value"], "value") if kind == "formula" else derived["value"]
    lo = proven if drel in ("==", ">=") else (None if kind == "formula" else 0)
    hi = proven if drel in ("==", "<=") else None
    below, above = lo is not None and v < lo, hi is not None and v > hi  # v outside the proven range
    if rel == "==":
        verdict = "confirmed" if lo == hi == v else "refuted" if below or above else "out of reach"
    elif rel == ">=":
        verdict = "confirmed" if lo is not None and lo >= v else "refuted" if above else "out of reach"
    else:
        verdict = "confirmed" if hi is not None and hi <= v else "refuted" if below else "out of reach"
    spell = lambda x: str(x) if isinstance(x, Fraction) else x  # noqa: E731 - as the file spells it
    return {"quantity": "lambda" if kind == "formula" else "rank", "relation": rel, "value": spell(v),
            "lower": spell(lo), "upper": spell(hi), "verdict": verdict}


def _bad_constant(name):
    raise Reject(f"JSON constant {name} is not allowed")
