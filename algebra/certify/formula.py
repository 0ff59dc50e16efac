"""``formula`` certificates: closed-form learning coefficients, ``lambda = rank / 2``, Newton polyhedra.

* :func:`formula_certificate` records a closed-form learning coefficient: the
  printed formula (the paper's stated value) next to the value of an
  independent route (Aoyagi 2024 for reduced rank regression and vice versa,
  Aoyagi & Watanabe 2005 for the query-key composite (44)).
* :func:`rlct_certificate` certifies ``lambda = rank / 2`` of a regular model
  from a certified Jacobian rank (grokking paper Theorems 4.1, 5.1; the rank is
  a :func:`algebra.certify.rank.dimension_certificate` embedded in the file).
* :func:`newton_certificate` certifies ``lambda <= 1/t`` from the Newton polyhedron.

The claim is the independent checker's derivation from the ``formula`` block;
the envelope (:mod:`algebra.certify.envelope`) seals and re-checks it.
"""

from __future__ import annotations

from fractions import Fraction

from algebra.certify.canonical import content_hash, exact, seal
from algebra.certify.envelope import Emitted, claimed_member, header, self_check_verdict
from algebra.certify.rank import dimension_certificate
from algebra.checker import CITATION, FORMULA_SOURCES, Reject, derive_claim
from algebra.errors import CertificateError, DomainError, InputError
from algebra.exact.field import DEFAULT_PRIME
from algebra.slt import formulas
from algebra.slt.newton import THEOREM, as_terms, newton_rlct

__all__ = ["formula_certificate", "newton_certificate", "rlct_certificate"]


def _formula_routes(name: str, args: tuple) -> tuple:
    """``(stated, computed)``: the printed formula and an independent route (the same when none exists)."""
    if name == "query_key":
        d, k, r = args
        return formulas.query_key(d, k, r), formulas.reduced_rank_regression(d, d, k, r)
    if name == "reduced_rank_regression":
        M, N, H, r = args
        return formulas.reduced_rank_regression(M, N, H, r), formulas.deep_linear_network([M, H, N], r)
    if name == "deep_linear_network":
        widths, r = args
        stated = formulas.deep_linear_network(widths, r)
        ws = list(widths)
        return stated, formulas.reduced_rank_regression(ws[0], ws[2], ws[1], r) if len(ws) == 3 else stated
    raise InputError("name", name, "reduced_rank_regression, deep_linear_network or query_key")


def _finish_formula(cert: dict, claimed: dict | None = None) -> tuple:
    """Set the claim the checker derives from the formula block (and the ``claimed`` member when given), seal,
    self-check: ``(certificate, reason, judgement)``."""
    try:
        cert["claim"] = derive_claim(cert)
    except Reject as exc:
        raise CertificateError(f"the emitted formula certificate does not verify: {exc}") from None
    if claimed is not None:
        cert["claimed"] = claimed
    cert = seal(cert)
    return (cert, *self_check_verdict(cert))


def formula_certificate(name: str, *args, source: dict | None = None) -> Emitted:
    """Certificate of a closed-form learning coefficient, with the printed value and a second route.

    ``name`` is ``reduced_rank_regression`` (M, N, H, r), ``deep_linear_network``
    (widths, r) or ``query_key`` (d, k, r).  ``formula.stated`` is the printed
    formula (:mod:`algebra.slt.formulas`); ``formula.lambda`` comes from an
    independent route where one exists (``query_key``: Aoyagi & Watanabe 2005
    with ``(d, d, k, r)``; reduced rank regression: Aoyagi 2024 at depth 2;
    a depth-2 deep linear network: Aoyagi & Watanabe 2005).  The verdict is
    ``confirmed`` when they agree, ``refuted`` otherwise.

    Examples
    --------
    >>> e = formula_certificate("reduced_rank_regression", 5, 4, 3, 1)
    >>> e.certificate["formula"]["lambda"], e.certificate["formula"]["multiplicity"], e.verdict
    ('7', 2, 'confirmed')
    >>> e.certificate["claim"]["route"]
    'Aoyagi (2024), Theorem 1, at depth 2 (widths M, H, N)'
    """
    stated, computed = _formula_routes(name, args)
    cert = header("formula", source)
    cert["formula"] = {
        "name": name,
        "inputs": dict(stated.inputs),
        "lambda": exact(computed.lam),
        "multiplicity": int(computed.multiplicity),
        "theorem": computed.theorem,
        "case": computed.case,
        "stated": {"lambda": exact(stated.lam), "multiplicity": int(stated.multiplicity),
                   "where": FORMULA_SOURCES[name]},
    }
    cert, reason, _ = _finish_formula(cert)
    verdict = "confirmed" if cert["claim"]["agrees"] else "refuted"
    return Emitted(cert, "formula", None, None, verdict, reason)


def _stated(stated: dict | None) -> dict | None:
    """Normalise a stated value: ``{"lambda"[, "multiplicity"], "where"}`` or ``{"lower", "upper", "where"}``."""
    if stated is None:
        return None
    if not isinstance(stated, dict) or not isinstance(stated.get("where"), str):
        raise InputError("stated", stated, "a dict with 'where' and 'lambda' (optionally 'multiplicity') or 'lower' and 'upper'")
    keys = set(stated) - {"where"}
    if keys not in ({"lambda"}, {"lambda", "multiplicity"}, {"lower", "upper"}):
        raise InputError("stated", stated, "keys lambda[, multiplicity] or lower, upper (and where)")
    if CITATION.fullmatch(stated["where"]) is None:  # a label, never a statement (the checker's rule)
        raise InputError("stated.where", stated["where"], "a citation of at most 120 characters: letters, digits, "
                         "spaces and . , & ( ) ' - (no '=', ':' or '<': it is a label, not a statement)")
    return {k: (v if k in ("where", "multiplicity") else exact(v)) for k, v in stated.items()}


def rlct_certificate(model, *, stated: dict | None = None, claimed=None, relation: str = "==", seed: int = 0,
                     prime: int = DEFAULT_PRIME, source: dict | None = None) -> Emitted:
    """Certify ``lambda = rank / 2`` (m = 1) of a model regular in its identifiable coordinates.

    The rank is a certified generic Jacobian rank (:func:`dimension_certificate`,
    embedded as ``formula.rank``); lambda = rank / 2 is Watanabe (2009) for a
    regular model, the grokking paper's Theorem 4.1 (quadratic networks: the
    secant dimension / 2) and Theorem 5.1 (NTK: rank of the Fisher matrix / 2).
    ``stated`` is what a paper says (``{"lambda": ..., "where": ...}`` or
    ``{"lower": ..., "upper": ..., "where": ...}``); the verdict compares it
    with the certified value (``confirmed`` / ``refuted``; hypotheses are the
    caller's to judge).  ``claimed`` (an exact rational) and ``relation`` are the
    user's own ``lambda RELATION claimed``, recorded in the file as its ``claimed``
    member (:func:`claimed_member`); the verdict is then the checker's judgement of
    it (``stated`` keeps its ``agrees`` in the claim).

    Raises
    ------
    DomainError
        When the rank is not pinned down (only a lower bound is proven).

    Examples
    --------
    >>> from algebra.models import quadratic_network
    >>> e = rlct_certificate(quadratic_network(3, 1, 2), stated={"lambda": 3, "where": "Corollary 4.2"})
    >>> e.certificate["formula"]["lambda"], e.verdict
    ('5/2', 'refuted')
    >>> e = rlct_certificate(quadratic_network(3, 1, 2), claimed="5/2")
    >>> e.certificate["claimed"], e.verdict
    ({'relation': '==', 'value': '5/2'}, 'confirmed')
    """
    member = None if claimed is None else claimed_member(claimed, relation, quantity="lambda")
    dim = dimension_certificate(model, seed=seed, prime=prime)
    if dim.upper != dim.lower:
        raise DomainError(f"lambda = rank/2 needs a certified rank; only rank >= {dim.lower} is proven")
    c = dim.certificate
    cert = header("formula", source)
    cert["seed"] = c["seed"]
    cert["formula"] = {
        "name": "regular_model",
        "inputs": {"model_sha256": content_hash(c["model"])},  # the checker's digest: a spec has no sha256
        "lambda": exact(Fraction(dim.lower, 2)),
        "multiplicity": 1,
        "theorem": "Watanabe (2009): lambda = d/2, m = 1 for a model regular in its identifiable coordinates",
        "case": f"certified Jacobian rank {dim.lower}",
        "rank": {k: c[k] for k in ("model", "point", "lower", "upper")},
    }
    if stated is not None:
        cert["formula"]["stated"] = _stated(stated)
    cert, reason, judgement = _finish_formula(cert, member)
    agrees = cert["claim"]["agrees"]
    verdict = judgement["verdict"] if judgement else "confirmed" if agrees in (None, True) else "refuted"
    return Emitted(cert, "formula", dim.lower, dim.upper, verdict, reason)


def newton_certificate(K, *, prior_exponents=None, variables=None, stated: dict | None = None,
                       source: dict | None = None) -> Emitted:
    """Certificate of ``lambda <= 1/t`` from the Newton polyhedron of ``K`` (:func:`algebra.slt.newton.newton_rlct`).

    The Newton distance ``t`` is proven by the LP's primal weights and dual
    normal, which the checker replays; equality ``lambda = 1/t`` needs ``K``
    non-degenerate, which the checker does not decide, so the certified claim
    is the bound (the library's non-degeneracy verdict is in ``formula.case``).

    Examples
    --------
    >>> e = newton_certificate({(2, 4, 0): 1, (0, 0, 6): 1})   # x^2 y^4 + z^6
    >>> e.certificate["claim"]["relation"], e.certificate["claim"]["value"]
    ('<=', '5/12')
    """
    r = newton_rlct(K, prior_exponents=prior_exponents, variables=variables)
    names, terms = as_terms(K, variables)
    poly = sorted([[[i, int(k)] for i, k in enumerate(e) if k], exact(c)] for e, c in terms.items() if c)
    cert = header("formula", source)
    cert["formula"] = {
        "name": "newton_polyhedron",
        "inputs": {"K": poly, "variables": len(names), "prior_exponents": list(r.prior_exponents)},
        "lambda": exact(r.lam),
        "multiplicity": None,
        "theorem": THEOREM,
        "case": f"non-degenerate: {r.nondegenerate} ({r.reason}); multiplicity if so: {r.multiplicity}",
        "distance": exact(r.distance),
        "weights": [exact(m) for m in r.weights],
        "normal": [exact(a) for a in r.normal],
    }
    if stated is not None:
        cert["formula"]["stated"] = _stated(stated)
    cert, reason, _ = _finish_formula(cert)
    verdict = "refuted" if cert["claim"]["agrees"] is False else "confirmed"
    return Emitted(cert, "formula", None, None, verdict, reason)
