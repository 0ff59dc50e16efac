"""The rank kinds ``rank_lower_bound``, ``rank_upper_bound``, ``dimension`` and ``defect`` (a checker plug-in).

Imports :mod:`algebra.checker.core` and :mod:`algebra.checker.model` (the model the rank is of).  Replays the
hints, never searches (docs/certificate-format.md):

* rank lower bound: ``det J[rows, cols] != 0 mod p`` at the integer point -> generic rank >= r;
* rank upper bound: polynomial kernel fields ``X_j`` and the Cramer fields of an ``r x r`` block
  satisfy ``J X = 0`` identically, image equations ``g(F(theta)) = 0`` identically; tested at a
  random point modulo a fresh random 200-bit prime (Schwartz--Zippel), failure probability printed
  (``< 2^-60``); bound ``min(ambient, P - rank X(theta), ambient - rank Dg)``;
* dimension = both meeting; defect = a dimension below the expected count the checker derives
  from the spec (``min(ambient, P - rescaling/gauge symmetries)``, :func:`algebra.checker.model.expected_count`);
* the claim (relation, value, the object it is about, its text) is derived here and rendered by
  :func:`rank_claim`; the core compares it with the file's.
"""

from __future__ import annotations

import math
import secrets
from fractions import Fraction

from algebra.checker.core import (MAX_MATRIX, MAX_SIDE, MAX_TERMS, SZ_BITS, big_int, det_mod, digest, fields, get,
                                  index_set, is_prime, need, poly, poly_degree, poly_mod, poly_value_grad,
                                  random_prime, rank_mod, register_kind, small_int, solve_mod)
from algebra.checker.model import FAMILIES, Model, ambient_text, describe, expected_count, symmetry_count

SZ_TARGET_BITS = 60
MAX_IDENTITY_DEGREE = 2**20
LOOP_WEIGHT = 20  # a multiply-add of the identity checks, in charged steps (algebra.checker.model.MAX_EVAL)

RANK_RELATION = {"rank_lower_bound": ">=", "rank_upper_bound": "<=", "dimension": "==", "defect": "=="}
_WORDS = {">=": "at least", "<=": "at most", "==": "exactly"}


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


for _kind in RANK_RELATION:
    register_kind(_kind, lambda cert, notes, k=_kind: check_rank(cert, k, notes),
                  ("model", "point") + {"rank_lower_bound": ("lower", "subnetwork"), "rank_upper_bound": ("upper",)}.get(
                      _kind, ("lower", "upper")), quantity="rank")
