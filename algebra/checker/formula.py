"""The ``formula`` kind: closed-form learning coefficients, a regular model's rank / 2, a Newton distance (plug-in).

Part of the checker.  Imports :mod:`algebra.checker.core`, and builds on the rank kinds for ``regular_model``
(:mod:`algebra.checker.rank`: the certified Jacobian rank whose half is lambda; :mod:`algebra.checker.model`:
the model it is of).  Derives ``(lambda, m)`` by a route independent of the stated formula where one exists
(Aoyagi & Watanabe 2005 for Aoyagi 2024 at depth 2 and for the query-key formula), re-evaluates the printed
formula for the stated value, and proves a Newton distance by primal weights and a dual normal.
"""

from __future__ import annotations

import re
from fractions import Fraction
from itertools import combinations

from algebra.checker.core import (MAX_DEGREE, MAX_TERMS, Reject, _shown, digest, fields, fraction, get, int_list, need,
                                  poly, register_kind, small_int)
from algebra.checker.model import Model, describe
from algebra.checker.rank import lower_bound, upper_bound

MAX_FRACTION_DIGITS = 4000  # total denominator digits of one list of fractions summed exactly (Newton weights)


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


register_kind("formula", lambda cert, notes: check_formula(cert, notes), ("formula",), quantity="lambda")
