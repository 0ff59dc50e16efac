"""Build certificates from the engines' results (the heavy side: search, then write hints).

* :func:`dimension_with_certificate` runs the engine once and writes the certificate of that run
  (atomically), returning both: the route of ``dim --certificate``.
* :func:`dimension_certificate` runs :func:`algebra.engine.dimension`
  with a witness and turns its result into a ``dimension`` (or ``defect``)
  certificate: the nonzero minor is the lower bound; the upper bound is the
  tightest of the ambient dimension, the model's symmetry fields (written out
  as explicit polynomials by :mod:`algebra.certify.symbolic`), its image
  equations, and -- when none of those meets the lower bound -- the *Cramer
  fields* of the witness block, which prove ``generic rank <= r`` for any
  model whose rank at the point equals its generic rank.
* :func:`formula_certificate` records a closed-form learning coefficient: the
  printed formula (the paper's stated value) next to the value of an
  independent route (Aoyagi 2024 for reduced rank regression and vice versa,
  Aoyagi & Watanabe 2005 for the query-key composite (44)).
* :func:`rlct_certificate` certifies ``lambda = rank / 2`` of a regular model
  from a certified Jacobian rank (grokking paper Theorems 4.1, 5.1).
* :func:`certify_model` / :func:`certify_secant` / :func:`certify_formula`:
  the entry points for the user's own questions; they write one file atomically.
* :func:`subnetwork_certificate` certifies the rank of a CNN's differential
  at a point of a subnetwork against a proven bound of the subnetwork's
  dimension (proximity-bias paper, Appendix C; ``differential`` model spec).
* :func:`interval_certificate` wraps an ``interval_inequality`` payload
  (``docs/interval-inequality.md``); :func:`attention_certificate` certifies
  the approximation rank of ``softmax(beta Q K^T)`` (``attention_rank`` kind).

The claim of every certificate is structured (relation, value, the object it
is about) and its text is the checker's canonical rendering; every
certificate is checked by the independent checker before it is returned, so
the emitter never hands out a file that does not verify.

Verdicts (:data:`VERDICTS`): ``confirmed`` (the claim holds as stated),
``refuted`` (false under its own hypotheses), ``hypothesis fails`` (a stated
hypothesis is false for this instance, so the claim does not apply),
``out of reach`` (the proven bounds do not decide it).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from algebra.version import __version__
from algebra.certify.canonical import exact, seal
from algebra.certify.symbolic import sparse_polynomial, symbolic_symmetry_fields
import algebra.inputs as inputs
from algebra.errors import CertificateError, InputError
from algebra.models.base import Model
from algebra.engine.dimension import DEFAULT_MAX_MEMORY
from algebra.exact.field import DEFAULT_PRIME

__all__ = [
    "SCHEMA_VERSION",
    "Emitted",
    "checker_spec",
    "dimension_certificate",
    "dimension_with_certificate",
    "certificate_mode",
    "formula_certificate",
    "interval_certificate",
    "attention_certificate",
    "verdict_for",
    "claimed_member",
    "model_from_spec",
    "rlct_certificate",
    "subnetwork_certificate",
    "newton_certificate",
    "certify_model",
    "certify_secant",
    "certify_formula",
    "as_polynomial_map",
    "VERDICTS",
]

VERDICTS = ("confirmed", "refuted", "hypothesis fails", "out of reach")

SCHEMA_VERSION = 1
RELATIONS = ("==", ">=", "<=")
CHECKER_FAMILIES = ("mlp", "attention", "qk", "linear", "polynomial", "cnn")  # the checker evaluates these itself


@dataclass(frozen=True)
class Emitted:
    """A sealed certificate and what it shows."""

    certificate: dict
    kind: str
    lower: int | None
    upper: int | None
    verdict: str
    reason: str
    note: str = ""


def _header(kind: str, source: dict | None) -> dict:
    cert = {
        "schema_version": SCHEMA_VERSION,
        "kind": kind,
        "tool": {"name": "neuroalgebra", "version": __version__},
        "claim": {},
    }
    if source:
        cert["source"] = dict(source)
    return cert


def checker_spec(model) -> dict:
    """The model in the checker's self-contained form (activations as coefficient lists).

    Examples
    --------
    >>> from algebra.models import quadratic_network
    >>> checker_spec(quadratic_network(2, 1, 3))["activations"]
    [['0', '0', '1']]
    """
    fam = model.family
    if fam == "mlp":
        return {
            "family": "mlp",
            "widths": list(model.widths),
            "activations": [[exact(c) for c in a] for a in model.activations],
            "bias": model.bias,
            "inactive": {str(k): list(v) for k, v in model.inactive.items()},
        }
    if fam == "polynomial":
        return {
            "family": "polynomial",
            "parameters": len(model.parameters),
            "inputs": len(model.inputs),
            "polynomials": [sparse_polynomial(p) for p in model.polynomials],
            "names": list(model.parameters) + list(model.inputs),
        }
    if fam in ("attention", "qk", "linear"):
        return dict(model.spec())
    if fam == "cnn":
        return dict(model.spec(), activations=[[exact(c) for c in a] for a in model.activations])
    raise InputError("model", model, "a model of family mlp, attention, qk, linear, polynomial or cnn")


def verdict_for(relation: str, claimed: int | None, lower: int, upper: int | None) -> str:
    """``confirmed`` / ``refuted`` / ``out of reach`` for ``dim RELATION claimed`` given proven bounds.

    ``hypothesis fails`` is decided by the caller, who knows the claim's hypotheses
    (see ``assumes_nondefective`` of :func:`dimension_certificate`).

    Examples
    --------
    >>> verdict_for("==", 30, 29, 29), verdict_for("==", 4, 4, 4), verdict_for("==", 6, 5, None)
    ('refuted', 'confirmed', 'out of reach')
    >>> verdict_for("==", None, 5, 5), verdict_for(">=", None, 5, None)
    ('confirmed', 'out of reach')
    """
    if claimed is None:
        return "confirmed" if upper == lower else "out of reach"
    hi = upper if upper is not None else float("inf")
    if relation == "==":
        if lower == hi == claimed:
            return "confirmed"
        return "refuted" if claimed < lower or claimed > hi else "out of reach"
    if relation == ">=":
        return "confirmed" if lower >= claimed else ("refuted" if hi < claimed else "out of reach")
    return "confirmed" if hi <= claimed else ("refuted" if lower > claimed else "out of reach")


def _self_check(cert: dict) -> str:
    return _self_check_verdict(cert)[0]


def _self_check_verdict(cert: dict) -> tuple:
    """``(reason, judgement)`` of the independent checker (:func:`algebra.checker.check_verdict`): the
    judgement of the file's recorded ``claimed`` member (``None`` without one)."""
    from algebra.checker import Reject, check_verdict

    try:
        return check_verdict(cert)
    except Reject as exc:
        raise CertificateError(f"the emitted certificate does not verify: {exc}") from None


MAX_CLAIMED = 2**63 - 1  # the checker's bound on a recorded claimed rank (algebra.checker.core.MAX_CLAIMED)


def claimed_member(claimed, relation: str, *, quantity: str = "dimension") -> dict:
    """The certificate's ``claimed`` member ``{"relation", "value"}``: the user's claim as data, in the checker's
    spelling (an integer rank; lambda as an exact fraction string), after refusing a bad one (:class:`InputError`).

    The file never holds a verdict: the checker derives it from this member and the proven bounds.

    Examples
    --------
    >>> claimed_member(20, "=="), claimed_member("5/2", "<=", quantity="lambda")
    ({'relation': '==', 'value': 20}, {'relation': '<=', 'value': '5/2'})
    >>> claimed_member(True, "==")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid claimed=True: expected an integer in [0, 2**63 - 1] (the claimed dimension)
    """
    if relation not in RELATIONS:
        raise InputError("relation", relation, "one of ==, >=, <=")
    if quantity == "lambda":
        if isinstance(claimed, (bool, float)) or not isinstance(claimed, (int, Fraction, str)):
            raise InputError("claimed", claimed, "an exact rational (an int, a fractions.Fraction or a string such as "
                             "'5/2'; a float is not exact) for the claimed lambda")
        try:
            value = Fraction(claimed)
        except (ValueError, ZeroDivisionError):
            raise InputError("claimed", claimed, "an exact rational such as '5/2' for the claimed lambda") from None
        return {"relation": relation, "value": exact(value)}
    import numpy as np

    if isinstance(claimed, bool) or not isinstance(claimed, (int, np.integer)) or not 0 <= claimed <= MAX_CLAIMED:
        raise InputError("claimed", claimed, "an integer in [0, 2**63 - 1] (the claimed dimension)")
    return {"relation": relation, "value": int(claimed)}


# -- dimension certificates ---------------------------------------------------------------------
# dimension_certificate refuses bad options (_certified_model, _check_reuse), then tries seeds
# seed, seed + 1, ...: _sealed makes one file (the engine run, the witness blocks of _witness_blocks
# and _upper_block, the kind and the checker's claim of _claim_kind, the seal); the loop self-checks
# it, moves to the next seed when it does not verify, and judges the claim (_judge) when it does.


@dataclass(frozen=True)
class _DimensionRequest:
    """What every attempt of :func:`dimension_certificate` shares: the model, its checker spec, the
    engine mode, the prime, and the caller's claim and options."""

    model: object
    spec: dict
    mode: str
    prime: int
    source: dict | None
    upper: bool
    witnesses: str
    claimed: int | None
    relation: str
    assumes_nondefective: bool
    record_claim: bool = False


def _certified_model(model, *, witnesses: str, relation: str, prime):
    """The model the certificate is about (its polynomial map when the checker has no evaluator of the
    family, e.g. secant maps), after refusing bad options (:class:`InputError`)."""
    if witnesses not in ("auto", "fields", "equations", "cramer"):
        raise InputError("witnesses", witnesses, "auto, fields, equations or cramer")
    if relation not in RELATIONS:
        raise InputError("relation", relation, "one of ==, >=, <=")
    if prime is None:
        raise InputError("prime", prime, "a prime (certificates are checked modulo a prime)")
    if model.family not in CHECKER_FAMILIES:  # e.g. secant maps: certify their polynomial map
        model = as_polynomial_map(model)
    return model


def _check_reuse(result, model, mode: str, seed: int, prime: int) -> None:
    """Refuse an engine run the first attempt cannot reuse: another model, seed, prime or mode, or no witness."""
    if result is not None and (result.spec != model.spec() or result.seed != seed or result.prime != prime
                               or result.witness is None or (mode == "sample" and result.mode != "sample")):
        raise InputError("result", f"a run with mode={result.mode}, seed={result.seed}, prime={result.prime}",
                         f"a run of this model with mode={mode}, seed={seed}, prime={prime} and witness=True")


def _engine_run(req: _DimensionRequest, seed: int, result=None):
    """The engine run a certificate rests on: ``result`` when given (already checked), else a fresh one
    in the certificate's mode with its witness minor."""
    from algebra.engine import dimension

    if result is not None:
        return result
    return dimension(req.model, mode=req.mode, seed=seed, prime=req.prime, witness=True)


def _witness_blocks(req: _DimensionRequest, res, seed: int) -> tuple:
    """``(certificate, upper value)``: the unsealed file of run ``res`` -- the point, the lower bound's minor
    and (``req.upper``) the upper-bound witnesses; the upper value is ``None`` without them."""
    w = res.witness
    cert = _header("rank_lower_bound", req.source)
    cert.update(
        model=req.spec,
        seed=seed,
        point={"prime": str(req.prime), "theta": [str(v) for v in res.theta],
               "inputs": [[str(v) for v in r] for r in res.inputs]},
        lower={"rows": list(w.rows), "cols": list(w.cols)},
    )
    up_value = None
    if req.upper:
        up, up_value = _upper_block(req.model, res, req.witnesses, req.prime)
        cert["upper"] = up
    return cert, up_value


def _claim_kind(req: _DimensionRequest, cert: dict, lower: int, up_value: int | None) -> tuple:
    """Set the certificate's ``kind`` and its claim (the checker's rendering); returns ``(kind, expected)``.

    ``rank_lower_bound`` without an upper block; ``rank_upper_bound`` when the upper bound misses the
    lower one (the minor is then dropped: it is not part of such a file); else ``defect`` when the
    caller claims more than the proven dimension and the checker derives a larger expected count
    (``min(ambient, P - symmetries)``), or ``dimension``.
    """
    from algebra.checker import Reject, derive_claim, expected_count

    try:
        expected = expected_count(req.spec)
    except Reject:  # no expected count the checker can derive (e.g. c t + c0 without biases): no defect
        expected = None
    kind = "rank_lower_bound"
    if up_value is not None and up_value > lower:
        kind = "rank_upper_bound"  # proves only the bound: the witness minor is not part of such a file
        del cert["lower"]
    elif up_value is not None:
        # a defect certificate proves "below the expected count", which the checker derives from the spec
        claimed = req.claimed
        defect = claimed is not None and claimed > lower and req.relation != "<=" and expected is not None and lower < expected
        kind = "defect" if defect else "dimension"
    cert["kind"] = kind
    value = up_value if kind == "rank_upper_bound" else lower
    try:  # the checker derives the claim from the witnesses (its rendering); a non-generic point: the next seed
        cert["claim"] = derive_claim(cert)
    except Reject as exc:
        raise CertificateError(f"the emitted certificate does not verify: {exc}") from None
    if cert["claim"]["value"] != value:
        raise CertificateError(f"the checker derives rank {cert['claim']['value']}, the run {value}")
    return kind, expected


def _judge(req: _DimensionRequest, kind: str, lower: int, up_value: int | None, expected) -> tuple:
    """``(verdict, note)`` of ``dim RELATION claimed``; a proven defect is ``hypothesis fails`` when the
    claim assumes a non-defective architecture."""
    verdict, note = verdict_for(req.relation, req.claimed, lower, up_value), ""
    if verdict == "refuted" and req.assumes_nondefective and kind == "defect":
        verdict = "hypothesis fails"
        note = f"hypothesis 'non-defective architecture' is false: dimension {lower} < expected count {expected}"
    return verdict, note


def _sealed(req: _DimensionRequest, seed: int, result=None) -> tuple:
    """One unchecked certificate at ``seed``: engine run, witness blocks, kind and claim, then the seal.

    Returns
    -------
    (certificate, kind, lower, upper, expected) : tuple
        The sealed file, its kind, the proven bounds (``upper`` None without an upper block) and the
        checker's expected count (None when it derives none).
    """
    res = _engine_run(req, seed, result)
    cert, up_value = _witness_blocks(req, res, seed)
    kind, expected = _claim_kind(req, cert, res.lower_bound, up_value)
    if req.record_claim and req.claimed is not None:  # the claim as data: the checker derives its verdict
        cert["claimed"] = claimed_member(req.claimed, req.relation)
    return seal(cert), kind, res.lower_bound, up_value, expected


def dimension_certificate(
    model,
    *,
    claimed: int | None = None,
    relation: str = "==",
    assumes_nondefective: bool = False,
    seed: int = 0,
    prime: int = DEFAULT_PRIME,
    source: dict | None = None,
    upper: bool = True,
    witnesses: str = "auto",
    attempts: int = 3,
    result=None,
    record_claim: bool = False,
) -> Emitted:
    """Certify the generic Jacobian rank (the neuromanifold's dimension) of ``model``.

    Parameters
    ----------
    model : algebra.models.Model
    claimed, relation : int, str
        The paper's statement ``dim RELATION claimed``, used for the verdict;
        a ``defect`` certificate is written when the proven dimension is
        below ``claimed`` and below the expected count the checker derives
        (``min(ambient, P - rescaling/gauge symmetries)``).
    assumes_nondefective : bool
        The paper states ``claimed`` only for non-defective architectures: a
        proven defect then gives the verdict ``hypothesis fails`` (with the
        proven dimension in :attr:`Emitted.note`), not ``refuted``.
    seed, prime : int
        The integer point and inputs come from ``seed``; ranks are taken mod ``prime``.
    upper : bool
        Prove the upper bound too (``False`` writes a ``rank_lower_bound``).
    witnesses : {"auto", "fields", "equations", "cramer"}
        Kind of upper-bound witness; ``auto`` takes the first of ambient,
        symmetry fields, image equations that meets the lower bound, else the
        Cramer fields.  The others force one kind (the bound may then be weaker).
    attempts : int
        Seeds ``seed, seed + 1, ...`` tried when the point is not generic.
    result : algebra.engine.DimensionResult, optional
        A run of :func:`algebra.engine.dimension` on ``model`` that the first
        attempt reuses instead of running the engine again
        (:func:`dimension_with_certificate` passes its one run).  It must be the run
        this function would make: the certificate's mode (:func:`certificate_mode`),
        ``seed``, ``prime`` and ``witness=True``; otherwise :class:`InputError`.
    record_claim : bool
        Write ``claimed`` and ``relation`` into the file as its ``claimed`` member
        (:func:`claimed_member`), so that the checker re-derives the verdict from the
        file alone (:func:`certify_model` does; the catalogue keeps its claims in
        ``source`` and its verdicts in the index).  The verdict returned is then the
        checker's.

    Examples
    --------
    >>> from algebra.models import QueryKey
    >>> e = dimension_certificate(QueryKey(3, 2), claimed=8)
    >>> e.kind, e.lower, e.upper, e.verdict
    ('dimension', 8, 8, 'confirmed')
    >>> from algebra.models import quadratic_network
    >>> e = dimension_certificate(quadratic_network(3, 1, 2), claimed=6, assumes_nondefective=True)
    >>> e.kind, e.verdict, e.note
    ('defect', 'hypothesis fails', "hypothesis 'non-defective architecture' is false: dimension 5 < expected count 6")
    """
    model = _certified_model(model, witnesses=witnesses, relation=relation, prime=prime)
    spec = checker_spec(model)
    mode = certificate_mode(model)
    _check_reuse(result, model, mode, seed, prime)
    if claimed is not None:
        claimed_member(claimed, relation)  # refuse a bad claim before any engine run
    req = _DimensionRequest(model, spec, mode, prime, source, upper, witnesses, claimed, relation, assumes_nondefective,
                            record_claim)
    last_error = None
    for attempt in range(attempts):
        try:
            cert, kind, lower, up_value, expected = _sealed(req, seed + attempt, result if attempt == 0 else None)
            reason, judgement = _self_check_verdict(cert)
        except CertificateError as exc:  # a non-generic point: the Cramer identity fails
            last_error = exc
            continue
        verdict, note = _judge(req, kind, lower, up_value, expected)
        if judgement is not None and judgement["verdict"] != verdict:
            # the file proves less than the run (a rank_upper_bound drops the minor): report what verify will say
            note = (f"the run's bounds give {verdict!r}; this file proves only what the checker derives, so the "
                    f"recorded claim is {judgement['verdict']!r}")
            verdict = judgement["verdict"]
        return Emitted(cert, kind, lower, up_value, verdict, reason, note)
    raise CertificateError(f"no verifying certificate after {attempts} seeds: {last_error}")


def certificate_mode(model) -> str:
    """The engine mode a dimension certificate is made in: ``sample`` for maps with inputs (the
    checker replays Jacobian rows at sample inputs), else ``auto``.

    Examples
    --------
    >>> from algebra.models import QueryKey, MLP
    >>> certificate_mode(QueryKey(3, 2)), certificate_mode(MLP((2, 2, 1), "t^2"))
    ('auto', 'sample')
    """
    return "sample" if model.n_inputs else "auto"


def _upper_block(model, res, witnesses: str, prime: int) -> tuple:
    """``(upper block, bound)``: the cheapest witnesses that meet the lower bound."""
    from algebra.checker import ambient_count

    lower, P, auto = res.lower_bound, res.parameter_count, witnesses == "auto"
    block = {"fields": [], "equations": []}
    ambient, status = ambient_count(checker_spec(model))  # the checker's own count
    if auto and status != "above P" and ambient <= lower:
        return block, ambient
    if witnesses == "fields" or (auto and model.symmetry_count() and P - res.symmetry_rank <= lower):
        fields = symbolic_symmetry_fields(model)
        block["fields"] = [[[j, sparse_polynomial(p)] for j, p in enumerate(f) if not p.is_zero] for f in fields]
        return block, min(P - res.symmetry_rank, ambient)
    if witnesses == "equations" or (
        auto and model.n_inputs == 0 and res.equation_rank and res.ambient_dimension - res.equation_rank <= lower
    ):
        from algebra.exact.field import PrimeField
        from algebra.exact.rank import rank_mod_p

        block["equations"] = [sparse_polynomial(g) for g in model.image_equations()]
        F = PrimeField(prime)  # the engine computes this rank only when it needs it: recompute it here
        e = rank_mod_p(model.image_equation_gradients(res.theta, F), prime) if block["equations"] else 0
        return block, ambient - e
    w = res.witness
    block["cramer"] = {"rows": list(w.rows), "cols": list(w.cols)}
    return block, lower


def _formula_routes(name: str, args: tuple) -> tuple:
    """``(stated, computed)``: the printed formula and an independent route (the same when none exists)."""
    from algebra.slt import formulas

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
    from algebra.checker import Reject, derive_claim

    try:
        cert["claim"] = derive_claim(cert)
    except Reject as exc:
        raise CertificateError(f"the emitted formula certificate does not verify: {exc}") from None
    if claimed is not None:
        cert["claimed"] = claimed
    cert = seal(cert)
    return (cert, *_self_check_verdict(cert))


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
    from algebra.checker import FORMULA_SOURCES

    stated, computed = _formula_routes(name, args)
    cert = _header("formula", source)
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
    from algebra.checker import CITATION

    if CITATION.fullmatch(stated["where"]) is None:  # a label, never a statement (the checker's rule)
        raise InputError("stated.where", stated["where"], "a citation of at most 120 characters: letters, digits, "
                         "spaces and . , & ( ) ' - (no '=', ':' or '<': it is a label, not a statement)")
    return {k: (v if k in ("where", "multiplicity") else exact(v)) for k, v in stated.items()}


def subnetwork_certificate(model, theta, inactive: dict, *, seed: int = 0, prime: int = DEFAULT_PRIME,
                           source: dict | None = None) -> Emitted:
    """Certify ``rank d phi(theta') >= r`` at a point ``theta'`` of a CNN subnetwork ``F'``, against a proven ``dim F' <= b``.

    Proximity-bias paper, Appendix C: ``N_F(phi(theta')) ⊆ im(d phi_theta')^perp``, so
    when ``r > dim F'`` the normal spaces over ``F'`` near ``phi(theta')`` cannot fill
    ``H``: no proximity bias toward ``F'``.  The certificate (kind
    ``rank_lower_bound``) is about the ``differential`` of the full CNN at
    ``theta'`` (the checker verifies that the ``inactive`` channels' outgoing
    weights are zero there) on ``ceil((P + 4) / outputs)`` random inputs; its
    ``subnetwork`` block holds the upper-bound witnesses of the CNN without those
    channels (:func:`dimension_certificate` of it), from which the checker
    derives ``b``.  The verdict is ``confirmed`` when the derived claim says
    ``r > b``, ``out of reach`` otherwise (the count does not decide).

    Examples
    --------
    >>> from algebra.models.cnn import CNN
    >>> m = CNN(4, [2], channels=(1, 2), activations="t^2", dense=1)
    >>> e = subnetwork_certificate(m, [1, 2, 3, 4, 0, 0, 0, 5, 6, 7], {1: [0]})
    >>> e.lower, e.certificate["claim"]["subnetwork"]["dimension_at_most"], e.verdict
    (7, 4, 'confirmed')
    """
    from math import ceil

    import numpy as np

    from algebra.checker import Reject, derive_claim
    from algebra.exact.field import PrimeField
    from algebra.exact.rank import rank_with_witness
    from algebra.models.base import monomial_count

    if model.family != "cnn" or model.inactive:
        raise InputError("model", model, "a CNN without inactive channels (the full model)")
    spec = checker_spec(model)
    sub = dimension_certificate(model_from_spec(dict(spec, inactive={str(k): list(v) for k, v in inactive.items()})),
                                seed=seed, prime=prime)
    if sub.upper is None:
        raise CertificateError(f"no upper bound of dim F' is certified (only dim F' >= {sub.lower})")
    P, theta = model.parameter_count, np.asarray(theta, dtype=np.int64)
    M = min(monomial_count(model.n_inputs, model.degree, homogeneous=model.homogeneous), ceil((P + 4) / model.n_outputs))
    X = model.random_inputs(np.random.default_rng(np.random.SeedSequence(seed)), M)
    w = rank_with_witness(model.jacobian(theta, X, PrimeField(prime)), prime)
    cert = _header("rank_lower_bound", source)
    diff = {"family": "differential", "of": spec, "at": [str(int(v)) for v in theta],
            "inactive": sub.certificate["model"]["inactive"]}
    cert.update(model=diff, seed=seed, lower={"rows": list(w.rows), "cols": list(w.cols)},
                point={"prime": str(prime), "theta": ["0"] * P, "inputs": [[str(int(v)) for v in r] for r in X]},
                subnetwork={k: sub.certificate[k] for k in ("model", "point", "upper")})
    try:  # the checker derives rank d phi >= r from the minor and dim F' <= b from the subnetwork block
        cert["claim"] = derive_claim(cert)
    except Reject as exc:
        raise CertificateError(f"the subnetwork certificate does not verify: {exc}") from None
    cert = seal(cert)
    reason = _self_check(cert)
    b = cert["claim"]["subnetwork"]["dimension_at_most"]
    if w.rank > b:
        return Emitted(cert, "rank_lower_bound", w.rank, None, "confirmed", reason)
    note = f"rank d phi >= {w.rank} does not exceed the proven dim F' <= {b}: this count does not decide the case"
    return Emitted(cert, "rank_lower_bound", w.rank, None, "out of reach", reason, note)


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
    from algebra.certify.canonical import content_hash
    from algebra.errors import DomainError

    member = None if claimed is None else claimed_member(claimed, relation, quantity="lambda")
    dim = dimension_certificate(model, seed=seed, prime=prime)
    if dim.upper != dim.lower:
        raise DomainError(f"lambda = rank/2 needs a certified rank; only rank >= {dim.lower} is proven")
    c = dim.certificate
    cert = _header("formula", source)
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
    from algebra.slt.newton import THEOREM, as_terms, newton_rlct

    r = newton_rlct(K, prior_exponents=prior_exponents, variables=variables)
    names, terms = as_terms(K, variables)
    poly = sorted([[[i, int(k)] for i, k in enumerate(e) if k], exact(c)] for e, c in terms.items() if c)
    cert = _header("formula", source)
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


def interval_certificate(payload: dict, *, statement: str | None = None, source: dict | None = None) -> Emitted:
    """Wrap an ``interval_inequality`` payload (``docs/interval-inequality.md``) into a checked certificate.

    The claim -- the program (sha256 of the payload), its target, the relation
    and the bound -- is the one the checker derives, its text the checker's
    rendering; ``statement`` (what the inequality means, e.g. "the uniform
    cell lemma for d = 2") is recorded in ``source`` (informational, not
    checked).

    Raises
    ------
    CertificateError
        When the ball enclosure of the target does not satisfy the relation.

    Examples
    --------
    >>> p = {"arrays": {}, "scalars": {"x": "1/3"}, "program": [{"out": "y", "op": "exp", "args": ["x"]}],
    ...      "target": "y", "relation": "<", "bound": "1.4"}
    >>> e = interval_certificate(p, statement="exp(1/3) < 1.4")
    >>> e.certificate["claim"]["relation"], e.certificate["claim"]["value"], e.certificate["source"]["statement"]
    ('<', '1.4', 'exp(1/3) < 1.4')
    >>> interval_certificate(dict(p, bound="1.3"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    algebra.errors.CertificateError: the interval inequality does not hold in ball arithmetic: ...
    """
    from algebra.checker import Reject, derive_claim

    if statement is not None:
        source = {**(source or {}), "statement": statement}
    cert = _header("interval_inequality", source)
    cert["payload"] = payload
    try:
        cert["claim"] = derive_claim(cert)
    except Reject as exc:
        raise CertificateError(f"the interval inequality does not hold in ball arithmetic: {exc}") from None
    cert = seal(cert)
    return Emitted(cert, "interval_inequality", None, None, "confirmed", _self_check(cert))


def attention_certificate(Q, K, beta, eps, *, claimed: int | None = None, relation: str = "==",
                          source: dict | None = None) -> Emitted:
    """Certify ``r_eps(softmax_rows(beta Q K^T))`` (both bounds) and judge ``r_eps RELATION claimed``.

    The certificate is :func:`algebra.certify.attention.attention_rank_certificate`
    (Q, K, beta stored exactly; the checker rebuilds the matrix in ball
    arithmetic and derives the claim).  ``lower`` / ``upper`` of the result are
    the certified bounds (``lower`` is 0 when no lower bound was found); the
    verdict is :func:`verdict_for` of the claimed value against them.

    Examples
    --------
    >>> import numpy as np
    >>> e = attention_certificate(np.eye(3), np.eye(3), 6.0, 0.25, claimed=3)
    >>> e.kind, e.lower, e.upper, e.verdict
    ('attention_rank', 3, 3, 'confirmed')
    >>> attention_certificate(np.eye(3), np.eye(3), 6.0, 0.25, claimed=2).verdict
    'refuted'
    """
    from algebra.attention_rank.certificates import certified_range
    from algebra.certify.attention import attention_rank_certificate

    if relation not in RELATIONS:
        raise InputError("relation", relation, "one of ==, >=, <=")
    cert = attention_rank_certificate(Q, K, beta, eps, bounds="both", source=source)
    lo, hi = certified_range(cert)
    lo = 0 if lo is None else lo
    return Emitted(cert, "attention_rank", lo, hi, verdict_for(relation, claimed, lo, hi), _self_check(cert))


# -- entry points for the user's own questions -------------------------------------------
def as_polynomial_map(model):
    """Any :class:`~algebra.models.Model` as a :class:`~algebra.models.PolynomialMap` (its outputs
    computed symbolically by running the model's own ``forward`` over polynomials).

    Used for families the checker has no evaluator of (secant maps, Segre–Veronese cones).

    Examples
    --------
    >>> from algebra.models import QueryKey
    >>> m = as_polynomial_map(QueryKey(2, 1))
    >>> m.parameter_count, [p.to_text() for p in m.polynomials][:2]
    (4, ['t0*t2', 't0*t3'])
    """
    import numpy as np

    from algebra.certify.symbolic import PolynomialField
    from algebra.models import PolynomialMap

    P, n = model.parameter_count, model.n_inputs
    F = PolynomialField(P + n)
    v = F.variables()
    X = v[P:].reshape(1, n) if n else np.zeros((1, 0), dtype=object)
    out = np.asarray(model.forward(v[:P], X, F)).ravel()
    names = F.names
    return PolynomialMap([F.lift(y) for y in out], parameters=names[:P], inputs=names[P:])


def _write(emitted: Emitted, path) -> Emitted:
    from algebra.certify.canonical import render, write_atomic

    write_atomic(path, render(emitted.certificate))
    return emitted


def certify_model(model, path, *, seed: int = 0, claimed: int | None = None, relation: str = "==",
                  quantity: str = "dimension", prime: int = DEFAULT_PRIME, result=None) -> Emitted:
    """Write one certificate about ``model`` to ``path`` (atomically) and return what it shows.

    Parameters
    ----------
    model : algebra.models.Model
        Any model object: the families the checker evaluates (mlp, attention,
        qk, linear, cnn, polynomial maps -- user polynomial maps included) are written
        as they are; any other model (e.g. a secant map) is first turned into its
        polynomial map (:func:`as_polynomial_map`).
    path : str or pathlib.Path
        The certificate file; written through a temporary file and ``os.replace``,
        so an error leaves no half-written file.
    seed : int
        Seed of the integer point and inputs (recorded in the file).
    claimed, relation : int (or rational for ``lambda``), str, optional
        The user's claim ``dim RELATION claimed`` (``lambda RELATION claimed`` for
        ``quantity="lambda"``; ``relation`` one of ``==``, ``>=``, ``<=``).  It is
        written into the file as data, its ``claimed`` member
        ``{"relation": "==", "value": 20}`` (lambda: an exact string such as
        ``"5/2"``), and the independent checker derives the verdict from that
        member and the bounds it proves (``neuroalgebra verify FILE`` prints it
        and exits 1 unless it is ``confirmed``).  No verdict is stored in the file.
        Without ``claimed`` the file has no such member (byte-identical to a
        file written before the member existed).
    prime : int
        The prime (``< 2**21``) the lower bound's minor is taken modulo.
    quantity : {"dimension", "lambda"}
        ``dimension``: a ``dimension`` / ``defect`` certificate of the generic
        Jacobian rank.  ``lambda``: a ``formula`` certificate of
        ``lambda = rank / 2`` (regular model).
    result : algebra.engine.DimensionResult, optional
        An engine run to reuse (``quantity="dimension"``; see :func:`dimension_certificate`).

    Returns
    -------
    Emitted
        ``kind`` is ``rank_lower_bound`` when only a lower bound could be
        proven; ``note`` then says so (an uncertified result certifies what was
        proven, never more).  ``verdict`` is the checker's judgement of
        ``claimed`` against the proven bounds: ``confirmed`` (every value the
        bounds allow satisfies it), ``refuted`` (none does) or ``out of reach``
        (the bounds do not decide it); without ``claimed``, ``confirmed`` when the
        bounds meet.

    Raises
    ------
    InputError
        A ``relation``, ``quantity`` or ``claimed`` outside the allowed ones, or a model the engine refuses.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from algebra.models import MLP
    >>> from algebra.checker import check_file
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "c.json"
    >>> e = certify_model(MLP((3, 4, 1), "t^2", bias=True), path)
    >>> e.kind, e.lower, e.upper, check_file(str(path))[0]
    ('dimension', 10, 10, True)
    >>> e = certify_model(MLP((3, 4, 1), "t^2", bias=True), path, claimed=12)
    >>> e.certificate["claimed"], e.verdict
    ({'relation': '==', 'value': 12}, 'refuted')
    >>> from algebra.checker import check_file_verdict
    >>> check_file_verdict(str(path))[2]["verdict"]   # re-derived from the file alone
    'refuted'

    References
    ----------
    .. [1] ``docs/certificate-format.md`` (the certificate kinds and what the checker re-derives).
    .. [2] Wetzler, Heule, Hunt, "DRAT-trim: efficient checking and trimming using expressive clausal proofs",
       SAT 2014 (the emit/check split: the heavy side writes hints, a small checker replays them).
    """
    if not isinstance(model, Model):
        raise InputError("model", model, "a Model from algebra.models")
    inputs.output_file(path, "path")  # before the work: a missing directory is refused, not found at the end
    if quantity not in ("dimension", "lambda"):
        raise InputError("quantity", quantity, "dimension or lambda")
    seed = inputs.seed(seed, "seed")
    if quantity == "lambda":
        return _write(rlct_certificate(model, claimed=claimed, relation=relation, seed=seed, prime=prime), path)
    try:
        return _write(dimension_certificate(model, claimed=claimed, relation=relation, seed=seed, prime=prime,
                                            result=result, record_claim=True), path)
    except CertificateError as exc:  # the upper-bound witnesses did not verify: certify what is proven
        e = dimension_certificate(model, claimed=claimed, relation=relation, seed=seed, prime=prime, upper=False,
                                  record_claim=True)
        note = f"only the lower bound rank >= {e.lower} is certified (the upper bound did not verify: {exc})"
        return _write(Emitted(e.certificate, e.kind, e.lower, e.upper, e.verdict, e.reason, note), path)


def dimension_with_certificate(model, path, *, seed: int = 0, prime: int = DEFAULT_PRIME, claimed: int | None = None,
                               relation: str = "==", mode: str = "auto", over_q: bool = False, witness: bool = False,
                               max_memory=DEFAULT_MAX_MEMORY) -> tuple:
    """Run :func:`algebra.engine.dimension` once and certify that run: ``(result, emitted)``.

    The certificate is written to ``path`` atomically by :func:`certify_model` (a lower-bound-only file
    when the upper-bound witnesses do not verify).  The engine runs in the certificate's own mode
    (:func:`certificate_mode`) with its witness minor, so the result printed and the file proved come
    from one run.  When the caller asks for a run the certificate cannot use -- another ``mode``, or
    ``over_q`` (the checker replays minors modulo ``prime``) -- the result is that run, and the
    certificate makes its own at the same seed (two runs).

    Parameters
    ----------
    model : algebra.models.Model
    path : str or pathlib.Path
        The certificate file.
    seed, prime : int
        Seed of the point and inputs; the prime of the certificate (and of the run unless ``over_q``).
    claimed, relation : int, str, optional
        ``dim RELATION claimed``, for the verdict.
    mode : {"auto", "coefficient", "sample"}
        The engine mode asked for; ``auto`` or the certificate's mode share the run.
    over_q : bool
        Take the reported lower bound over Q (a second run; the certificate stays modulo ``prime``).
    witness : bool
        Ask for the witness minor in a run that is not shared (a shared run always has it).
    max_memory : int, str or None
        The engine's memory limit for the reported run (:func:`algebra.engine.dimension`).

    Returns
    -------
    (DimensionResult, Emitted) : tuple

    Raises
    ------
    ResourceError
        When the engine refuses a size (before anything is written).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from algebra.models import MLP
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "d.json"
    >>> res, e = dimension_with_certificate(MLP((3, 4, 1), "t^2", bias=True), path)
    >>> res.dimension, res.mode, e.kind, e.lower, path.exists()
    (10, 'sample', 'dimension', 10, True)
    """
    from algebra.engine import dimension

    own = certificate_mode(model)
    shared = not over_q and mode in ("auto", own)
    if shared:
        res = dimension(model, mode=own, seed=seed, prime=prime, witness=True, max_memory=max_memory)
    else:
        res = dimension(model, mode=mode, seed=seed, prime=None if over_q else prime, witness=witness,
                        max_memory=max_memory)
    emitted = certify_model(model, path, seed=seed, claimed=claimed, relation=relation, prime=prime,
                            result=res if shared else None)
    return res, emitted


def certify_secant(atom, k: int, path, *, seed: int = 0, claimed: int | None = None, relation: str = "==") -> Emitted:
    """Certify the dimension of the ``k``-th secant variety of the cone parametrized by ``atom``.

    The secant variety is the closure of the image of the sum of ``k`` copies
    of ``atom`` (Terracini); its certificate is that of
    ``SecantMap(atom, k)`` written as a polynomial map (:func:`certify_model`).

    Parameters
    ----------
    atom : algebra.models.Model
        The atom map (e.g. :func:`algebra.models.veronese`).
    k : int
        The number of atoms (``k >= 1``).
    path : str or pathlib.Path
        The certificate file, written atomically.
    seed : int
        Seed of the integer point (recorded in the file).
    claimed, relation : int, str, optional
        The user's claim ``dim sigma_k RELATION claimed`` (the affine cone's
        dimension), recorded in the file as its ``claimed`` member; the checker
        derives the verdict from it (see :func:`certify_model`).

    Returns
    -------
    Emitted
        The certificate, its ``kind``, proven ``lower`` and ``upper`` bounds and the verdict.

    Raises
    ------
    InputError
        ``k < 1``, a bad ``claimed`` or ``relation``, or an atom the engine refuses.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from algebra.models.segre_veronese import veronese
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "s.json"
    >>> e = certify_secant(veronese(3, 4), 5, path)   # Alexander-Hirschowitz: 14, not 15
    >>> e.kind, e.lower
    ('dimension', 14)
    >>> certify_secant(veronese(3, 4), 5, path, claimed=15).verdict   # the expected count is refuted
    'refuted'

    References
    ----------
    .. [1] Terracini, "Sulle V_k per cui la varieta degli S_h (h+1)-seganti ha dimensione minore dell'ordinario",
       1911 (the tangent space of the secant variety at a generic point).
    .. [2] Alexander, Hirschowitz, "Polynomial interpolation in several variables", J. Algebraic Geom. 4 (1995)
       (the defective Veronese secants, e.g. sigma_5 of v_4(P^2)).
    """
    from algebra.models.segre_veronese import SecantMap

    return certify_model(SecantMap(atom, k), path, seed=seed, claimed=claimed, relation=relation)


def certify_formula(name: str, args: tuple, path) -> Emitted:
    """Write the :func:`formula_certificate` of ``name(*args)`` to ``path`` (atomically).

    Parameters
    ----------
    name : str
        A closed form of :mod:`algebra.slt.formulas`: ``"reduced_rank_regression"``, ``"deep_linear_network"``,
        ``"query_key"`` or ``"regular_model"``.
    args : tuple
        Its arguments, as the formula takes them (``(d, k, r)`` for ``query_key``).
    path : str or pathlib.Path
        The certificate file, written atomically.

    Returns
    -------
    Emitted
        The ``formula`` certificate (claim value as an exact fraction) and its verdict.

    Raises
    ------
    InputError
        An unknown ``name`` or arguments the formula refuses.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> e = certify_formula("query_key", (6, 4, 2), pathlib.Path(tempfile.mkdtemp()) / "f.json")
    >>> e.certificate["claim"]["value"], e.verdict
    ('27/2', 'confirmed')

    References
    ----------
    .. [1] Aoyagi, Watanabe, "Stochastic complexities of reduced rank regression in Bayesian estimation",
       Neural Networks 18 (2005), Main Theorem.
    .. [2] The graph-attention paper (*Symmetries and Singularities*), Theorem 2, eqs. (44)-(46).
    """
    return _write(formula_certificate(name, *args), path)


def model_from_spec(spec: dict):
    """Inverse of :func:`checker_spec`: rebuild the :class:`~algebra.models.Model` (raises InputError).

    Examples
    --------
    >>> from algebra.models import MLP
    >>> m = MLP((2, 3, 1), "t^2 + t", bias=True, inactive={1: [2]})
    >>> model_from_spec(checker_spec(m)).spec() == m.spec()
    True
    """
    from algebra.models import MLP, DeepLinear, LightningAttention, Polynomial, PolynomialMap, QueryKey

    try:
        fam = spec["family"]
        if fam == "mlp":
            acts = [tuple(Fraction(c) for c in a) for a in spec["activations"]]
            inactive = {int(k): list(v) for k, v in spec["inactive"].items()}
            return MLP(tuple(spec["widths"]), acts if acts else "t", bias=spec["bias"], inactive=inactive)
        if fam == "attention":
            return LightningAttention(spec["d"], spec["dout"], spec["tokens"], rank=spec["rank"])
        if fam == "qk":
            return QueryKey(spec["d"], spec["k"])
        if fam == "linear":
            return DeepLinear(spec["widths"])
        if fam == "cnn":
            from algebra.models.cnn import CNN

            acts = [tuple(Fraction(c) for c in a) for a in spec["activations"]]
            return CNN(tuple(spec["input"]), [tuple(k) for k in spec["filters"]], channels=spec["channels"],
                       strides=[tuple(s) for s in spec["strides"]], activations=acts or "t", bias=spec["bias"],
                       dense=spec["dense"], inactive={int(k): list(v) for k, v in spec["inactive"].items()})
        if fam == "polynomial":
            n, k = spec["parameters"], spec["inputs"]
            names = spec.get("names")
            ok = isinstance(names, list) and len(names) == n + k and len(set(map(str, names))) == n + k
            names = tuple(map(str, names)) if ok else tuple(f"p{i}" for i in range(n)) + tuple(f"x{i}" for i in range(k))
            polys = []
            for p in spec["polynomials"]:
                terms = {}
                for mono, c in p:
                    e = [0] * len(names)
                    for i, k in mono:
                        e[i] = k
                    terms[tuple(e)] = Fraction(c)
                polys.append(Polynomial(names, terms))
            return PolynomialMap(polys, parameters=names[:n], inputs=names[n:])
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise InputError("spec", spec, f"a model spec in the checker's form ({type(exc).__name__})") from None
    raise InputError("spec", spec, "a model of family mlp, attention, qk, linear, polynomial or cnn")
