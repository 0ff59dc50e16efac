"""Build certificates from the engines' results (the heavy side: search, then write hints).

* :func:`dimension_certificate` runs :func:`algebra.geometry.dimension.dimension`
  with a witness and turns its result into a ``dimension`` (or ``defect``)
  certificate: the nonzero minor is the lower bound; the upper bound is the
  tightest of the ambient dimension, the model's symmetry fields (written out
  as explicit polynomials by :mod:`algebra.certify.symbolic`), its image
  equations, and -- when none of those meets the lower bound -- the *Cramer
  fields* of the witness block, which prove ``generic rank <= r`` for any
  model whose rank at the point equals its generic rank.
* :func:`formula_certificate` records a closed-form learning coefficient.
* :func:`interval_certificate` wraps an ``interval_inequality`` payload
  (``docs/interval-inequality.md``).

Every certificate is checked by the independent checker before it is
returned, so the emitter never hands out a file that does not verify.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from algebra import __version__
from algebra.certify.canonical import exact, seal
from algebra.certify.symbolic import sparse_polynomial, symbolic_symmetry_fields
from algebra.errors import CertificateError, InputError
from algebra.exact.field import DEFAULT_PRIME

__all__ = [
    "SCHEMA_VERSION",
    "Emitted",
    "checker_spec",
    "dimension_certificate",
    "formula_certificate",
    "interval_certificate",
    "verdict_for",
    "model_from_spec",
]

SCHEMA_VERSION = 1
RELATIONS = ("==", ">=", "<=")


@dataclass(frozen=True)
class Emitted:
    """A sealed certificate and what it shows."""

    certificate: dict
    kind: str
    lower: int | None
    upper: int | None
    verdict: str
    reason: str


def _header(kind: str, text: str, source: dict | None) -> dict:
    cert = {
        "schema_version": SCHEMA_VERSION,
        "kind": kind,
        "tool": {"name": "neuroalgebra", "version": __version__},
        "claim": {"text": text},
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
    raise InputError("model", model, "a model of family mlp, attention, qk, linear or polynomial")


def verdict_for(value: int, relation: str, claimed: int | None, lower: int, upper: int | None) -> str:
    """``confirmed`` / ``refuted`` / ``out of reach`` for ``dim RELATION claimed`` given proven bounds.

    Examples
    --------
    >>> verdict_for(29, "==", 30, 29, 29), verdict_for(4, "==", 4, 4, 4), verdict_for(5, "==", 6, 5, None)
    ('refuted', 'confirmed', 'out of reach')
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
    from algebra.checker import Reject, check

    try:
        return check(cert)
    except Reject as exc:
        raise CertificateError(f"the emitted certificate does not verify: {exc}") from None


def dimension_certificate(
    model,
    *,
    text: str | None = None,
    claimed: int | None = None,
    relation: str = "==",
    seed: int = 0,
    prime: int = DEFAULT_PRIME,
    source: dict | None = None,
    upper: bool = True,
    witnesses: str = "auto",
    attempts: int = 3,
) -> Emitted:
    """Certify the generic Jacobian rank (the neuromanifold's dimension) of ``model``.

    Parameters
    ----------
    model : algebra.models.Model
    text : str, optional
        What the model is, in words (default: its ``repr``); the claim's text
        is built from it and from what is proven.
    claimed, relation : int, str
        The paper's statement ``dim RELATION claimed``, used for the verdict;
        a ``defect`` certificate is written when the proven dimension is
        below ``claimed``.
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

    Examples
    --------
    >>> from algebra.models import QueryKey
    >>> e = dimension_certificate(QueryKey(3, 2), claimed=8)
    >>> e.kind, e.lower, e.upper, e.verdict
    ('dimension', 8, 8, 'confirmed')
    """
    from algebra.geometry.dimension import dimension

    if witnesses not in ("auto", "fields", "equations", "cramer"):
        raise InputError("witnesses", witnesses, "auto, fields, equations or cramer")
    if relation not in RELATIONS:
        raise InputError("relation", relation, "one of ==, >=, <=")
    if prime is None:
        raise InputError("prime", prime, "a prime (certificates are checked modulo a prime)")
    spec = checker_spec(model)
    last_error = None
    for attempt in range(attempts):
        s = seed + attempt
        mode = "sample" if model.n_inputs else "auto"
        res = dimension(model, mode=mode, seed=s, prime=prime, witness=True)
        lower = res.lower_bound
        w = res.witness
        cert = _header("rank_lower_bound", "", source)
        cert.update(
            model=spec,
            seed=s,
            point={"prime": str(prime), "theta": [str(v) for v in res.theta], "inputs": [[str(v) for v in r] for r in res.inputs]},
            lower={"rows": list(w.rows), "cols": list(w.cols)},
        )
        up_value = None
        if upper:
            up, up_value = _upper_block(model, res, witnesses)
            cert["upper"] = up
        kind = "rank_lower_bound"
        if up_value is not None and up_value > lower:
            kind = "rank_upper_bound"
        elif up_value is not None:
            kind = "defect" if claimed is not None and claimed > lower and relation != "<=" else "dimension"
        cert["kind"] = kind
        value = up_value if kind == "rank_upper_bound" else lower
        rel = {"rank_lower_bound": ">=", "rank_upper_bound": "<="}.get(kind, "==")
        words = f"the neuromanifold of {text or repr(model)} (the generic rank of its Jacobian) has dimension {rel} {value}"
        if kind == "defect":
            words += f", below the expected {claimed}"
        cert["claim"].update(text=words.replace("has dimension == ", "has dimension "), relation=rel, value=value)
        if kind == "defect":
            cert["claim"].update(expected=claimed)
        cert = seal(cert)
        try:
            reason = _self_check(cert)
        except CertificateError as exc:  # a non-generic point: the Cramer identity fails
            last_error = exc
            continue
        verdict = verdict_for(lower, relation, claimed, lower, up_value)
        return Emitted(cert, kind, lower, up_value, verdict, reason)
    raise CertificateError(f"no verifying certificate after {attempts} seeds: {last_error}")


def _upper_block(model, res, witnesses: str = "auto") -> tuple:
    """``(upper block, bound)``: the cheapest witnesses that meet the lower bound."""
    lower, P, auto = res.lower_bound, res.parameter_count, witnesses == "auto"
    block = {"fields": [], "equations": []}
    if auto and res.ambient_dimension <= lower:
        return block, res.ambient_dimension
    if witnesses == "fields" or (auto and model.symmetry_count() and P - res.symmetry_rank <= lower):
        fields = symbolic_symmetry_fields(model)
        block["fields"] = [[[j, sparse_polynomial(p)] for j, p in enumerate(f) if not p.is_zero] for f in fields]
        return block, min(P - res.symmetry_rank, res.ambient_dimension)
    if witnesses == "equations" or (
        auto and model.n_inputs == 0 and res.equation_rank and res.ambient_dimension - res.equation_rank <= lower
    ):
        block["equations"] = [sparse_polynomial(g) for g in model.image_equations()]
        return block, res.ambient_dimension - res.equation_rank
    w = res.witness
    block["cramer"] = {"rows": list(w.rows), "cols": list(w.cols)}
    return block, lower


def formula_certificate(name: str, *args, text: str | None = None, source: dict | None = None) -> Emitted:
    """Certificate of a closed-form learning coefficient from :mod:`algebra.slt.formulas`.

    ``name`` is ``reduced_rank_regression`` (M, N, H, r), ``deep_linear_network``
    (widths, r) or ``query_key`` (d, k, r).

    Examples
    --------
    >>> e = formula_certificate("reduced_rank_regression", 5, 4, 3, 1)
    >>> e.certificate["formula"]["lambda"], e.certificate["formula"]["multiplicity"]
    ('7', 2)
    """
    from algebra.slt import formulas

    if name not in ("reduced_rank_regression", "deep_linear_network", "query_key"):
        raise InputError("name", name, "reduced_rank_regression, deep_linear_network or query_key")
    lc = getattr(formulas, name)(*args)
    lam = Fraction(lc.lam)
    cert = _header("formula", text or f"{name}{tuple(args)}: lambda = {lam}, m = {lc.multiplicity} ({lc.theorem})", source)
    cert["claim"].update(value=exact(lam), multiplicity=lc.multiplicity)
    cert["formula"] = {
        "name": name,
        "inputs": dict(lc.inputs),
        "lambda": exact(lam),
        "multiplicity": int(lc.multiplicity),
        "theorem": lc.theorem,
        "case": lc.case,
    }
    cert = seal(cert)
    return Emitted(cert, "formula", None, None, "confirmed", _self_check(cert))


def interval_certificate(payload: dict, *, text: str, source: dict | None = None) -> Emitted:
    """Wrap an ``interval_inequality`` payload (shared contract) into a certificate."""
    cert = _header("interval_inequality", text, source)
    cert["claim"].update(relation=payload.get("relation"), bound=payload.get("bound"))
    cert["payload"] = payload
    cert = seal(cert)
    return Emitted(cert, "interval_inequality", None, None, "confirmed", _self_check(cert))


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
    raise InputError("spec", spec, "a model of family mlp, attention, qk, linear or polynomial")
