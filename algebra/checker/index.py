"""The certificate index ``index.json``: its shape, typed field by field, and each row's verdict and proven value
re-derived from the certificate the row names (part of the checker).

Imports nothing from :mod:`algebra` outside :mod:`algebra.checker`.  The catalogue
(:func:`algebra.certify.catalogue.write_index`) writes the index; this module trusts none of it: every field has
a type checked here (an unknown field is refused), and a row's ``verdict``, ``proven`` (and, where the certificate
holds what the paper says, ``says``, ``proven_lower`` and ``proven_upper``) must be what the checker derives from
the row's certificate.  What the certificate cannot decide is never accepted as a positive verdict: a basin claim
(``local_rank``) is at most ``out of reach`` from its one file, an estimate-premise row (``local_rank`` with
``hypotheses``) is ``hypothesis fails`` only where its file's own point is not critical (``grad L_n != 0``
exactly), and a ``hypothesis fails`` resting on the row's own ``hypotheses`` (decided by the catalogue, outside
the file) only ever replaces a ``confirmed``.
The shape is stated in ``docs/certificate-format.md`` (the index section).
"""

from __future__ import annotations

import re
from fractions import Fraction

from algebra.checker.core import Reject, _shown, need

__all__ = ["VERDICTS", "FACT_VERDICTS", "read_index", "summary", "row_mismatch"]

#: The verdicts of a paper claim (``claims`` rows) and of a fact (``facts`` rows).
VERDICTS = ("confirmed", "refuted", "hypothesis fails", "out of reach")
FACT_VERDICTS = ("certified", "not verified")
RELATIONS = ("==", ">=", "<=")

_SHA = re.compile(r"[0-9a-f]{64}")
_FILE = re.compile(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*")

# Field types: "str", "int" (a JSON integer, never a boolean), "bool", "object", "list", "sha256", "file",
# "verdict", "fact verdict", "relation", "hypotheses"; a tuple allows each, None allows null.
_TOP = {"claims": ("list",), "facts": ("list",), "subset": ("str",), "tool": ("object",)}
_TOP_REQUIRED = ("claims", "facts")
_CLAIM = {"id": ("str",), "verdict": ("verdict",), "file": ("file", None), "sha256": ("sha256",), "kind": ("str",),
          "proven": ("str",), "paper": ("str",), "location": ("str",), "statement": ("str",), "group": ("str",),
          "says": ("str",), "claimed": ("int",), "relation": ("relation",), "proven_lower": ("int",),
          "proven_upper": ("int", None), "note": ("str",), "reason": ("str",), "engine_verdict": ("str",),
          "notes": ("object",), "hypotheses": ("hypotheses",), "memorising_certificate_sha256": ("sha256",)}
_FACT = {"id": ("str",), "verdict": ("fact verdict",), "file": ("file",), "sha256": ("sha256",), "kind": ("str",),
         "proven": ("str",), "layer": ("int",), "head": ("int",), "eps": ("str", None), "reason": ("str",)}


def _is(value, kind) -> bool:
    if kind is None:
        return value is None
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    simple = {"str": str, "bool": bool, "object": dict, "list": list}
    if kind in simple:
        return isinstance(value, simple[kind])
    if kind == "sha256":
        return isinstance(value, str) and _SHA.fullmatch(value) is not None
    if kind == "file":
        return (isinstance(value, str) and _FILE.fullmatch(value) is not None and ".." not in value.split("/")
                and value.endswith(".json"))
    if kind == "verdict":
        return value in VERDICTS
    if kind == "fact verdict":
        return value in FACT_VERDICTS
    if kind == "relation":
        return value in RELATIONS
    if kind == "hypotheses":
        return isinstance(value, list) and all(
            isinstance(h, dict) and set(h) <= {"hypothesis", "holds", "detail"} and isinstance(h.get("hypothesis"), str)
            and isinstance(h.get("holds"), bool) and isinstance(h.get("detail", ""), str) for h in value)
    raise AssertionError(kind)  # pragma: no cover - the tables above name only these


_SPELLED = {"str": "a string", "int": "an integer", "bool": "a boolean", "object": "an object", "list": "a list",
            "sha256": "64 lower-case hex digits", "file": "a relative path to a *.json file inside the directory",
            "verdict": "one of " + ", ".join(VERDICTS), "fact verdict": "one of " + ", ".join(FACT_VERDICTS),
            "relation": "one of " + ", ".join(RELATIONS), None: "null",
            "hypotheses": "a list of {hypothesis: string, holds: boolean, detail: string}"}


def _typed(obj: dict, table: dict, where: str) -> dict:
    """``obj`` if every member is one ``table`` knows, with a type it allows; else :class:`Reject`."""
    need(isinstance(obj, dict), f"{where} is not an object")
    for key, value in obj.items():
        need(key in table, f"{where}: unknown field {_shown(key)}")
        need(any(_is(value, k) for k in table[key]),
             f"{where}: field {key!r} is {_shown(value)}, not " + " or ".join(_SPELLED[k] for k in table[key]))
    return obj


def read_index(index) -> dict:
    """``{file: row}`` of the rows of a parsed ``index.json`` that name a certificate, each typed; rows without a
    certificate (``file`` null: ``out of reach``) are checked here and not returned.

    Examples
    --------
    >>> read_index({"claims": [], "facts": 3})
    Traceback (most recent call last):
    ...
    algebra.checker.core.Reject: index: field 'facts' is 3, not a list
    >>> read_index({"claims": [{"id": "a", "file": None, "verdict": "confirmed"}], "facts": []})
    Traceback (most recent call last):
    ...
    algebra.checker.core.Reject: index row "a": no certificate, so its verdict can only be 'out of reach', not 'confirmed'
    """
    _typed(index, _TOP, "index")
    for key in _TOP_REQUIRED:
        need(key in index, f"not a certificate index (no {key!r})")
    if "tool" in index:
        _typed(index["tool"], {"name": ("str",), "version": ("str",)}, "index: field 'tool'")
    listed, ids = {}, set()
    for section, table in (("claims", _CLAIM), ("facts", _FACT)):
        for n, row in enumerate(index[section]):
            need(isinstance(row, dict), f"index {section}[{n}] is not an object")
            need(isinstance(row.get("id"), str), f"index {section}[{n}]: no string 'id'")
            name = f"index row {_shown(row['id'])}"
            _typed(row, table, name)
            need(row["id"] not in ids, f"{name}: id listed twice")
            ids.add(row["id"])
            need("verdict" in row and "file" in row, f"{name}: needs 'verdict' and 'file'")
            need(("claimed" in row) == ("relation" in row), f"{name}: 'claimed' and 'relation' go together")
            if row["file"] is None:
                need(not {"sha256", "kind", "proven"} & set(row), f"{name}: a sha256, kind or proven but no file")
                need(row["verdict"] == "out of reach", f"{name}: no certificate, so its verdict can only be 'out of "
                     f"reach', not {row['verdict']!r}")
                continue
            for key in ("sha256", "kind", "proven"):
                need(key in row, f"{name}: names a file but has no {key!r}")
            need(row["file"] not in listed, f"index lists {row['file']} twice")
            listed[row["file"]] = dict(row, section=section)
    return listed


def summary(cert: dict) -> dict:
    """What :func:`row_mismatch` needs of a certificate that verified: its kind, its claim (the checker derived
    it and compared it with the file's) and, for ``score_representation``, the irreducible characters' names
    (labels, not part of the claim)."""
    out = {"kind": cert["kind"], "claim": cert["claim"]}
    if cert["kind"] == "score_representation":
        irreps = cert["representation"]["characters"]["irreps"]
        out["names"] = [x.get("name") if isinstance(x, dict) else None for x in irreps]
    return out


def _judged(rel: str, v, lo, hi) -> str:
    """The verdict of ``quantity REL v`` given proven ``lo <= quantity <= hi`` (``None``: unbounded that side):
    the rule of :func:`algebra.checker.core.judge_claimed`, on a range."""
    below, above = lo is not None and v < lo, hi is not None and v > hi
    if rel == "==":
        return "confirmed" if lo == hi == v else "refuted" if below or above else "out of reach"
    if rel == ">=":
        return "confirmed" if lo is not None and lo >= v else "refuted" if above else "out of reach"
    return "confirmed" if hi is not None and hi <= v else "refuted" if below else "out of reach"


def _bounds(claim: dict) -> tuple:
    """``(lo, hi)`` a rank-valued claim proves (``None``: no bound that side)."""
    rel, v = claim["relation"], claim["value"]
    if rel == "in":
        return tuple(v)
    return (v if rel in ("==", ">=") else None), (v if rel in ("==", "<=") else None)


def _stated_text(stated: dict) -> str:
    if "lambda" in stated:
        return f"lambda = {stated['lambda']}" + (f", m = {stated['multiplicity']}" if "multiplicity" in stated else "")
    return f"{stated['lower']} <= lambda <= {stated['upper']}"


def _stated_claim(row: dict, kind: str, claim: dict) -> str | None:
    """The verdict of the row's ``claimed``/``relation`` against the certificate's proven range (``None`` without)."""
    if "claimed" not in row:
        return None
    return _judged(row["relation"], row["claimed"], *_bounds(claim))


def _derive_rank(row, kind, claim) -> dict:
    lo, hi = _bounds(claim)
    if "subnetwork" in claim:  # Appendix C: rank d phi at theta' against dim F' <= b
        b = claim["subnetwork"]["dimension_at_most"]
        return {"verdicts": {"confirmed" if claim["subnetwork"]["rank_exceeds"] else "out of reach"},
                "proven": {f"rank d phi >= {lo} at theta' {'>' if lo > b else '<='} {b} >= dim F'"},
                "numbers": {"proven_lower": lo}}
    need(lo is not None, f"a {kind} row: the checker renders 'proven' only for a rank proven from below")
    verdict = _stated_claim(row, kind, claim)
    if verdict is None:
        verdicts = {"confirmed" if lo == hi else "out of reach"}
    elif verdict == "refuted" and kind == "defect" and row["claimed"] == claim.get("expected"):
        verdicts = {"refuted", "hypothesis fails"}  # the paper's count assumed a non-defective architecture
    else:
        verdicts = {verdict}
    out = {"verdicts": verdicts, "proven": {f"dim = {lo}" if lo == hi else f"dim >= {lo}"},
           "numbers": {"proven_lower": lo, "proven_upper": hi}}
    if "claimed" in row:
        out["says"] = {f"dim {row['relation']} {row['claimed']}"}
    return out


def _derive_formula(row, kind, claim) -> dict:
    need(claim["relation"] == "==", "a formula row: the checker renders 'proven' only for an exact lambda")
    value, mult, stated = claim["value"], claim["multiplicity"], claim.get("stated")
    verdict = "confirmed" if claim.get("agrees") else "refuted"
    verdicts = {verdict}
    if verdict == "confirmed" and any(not h["holds"] for h in row.get("hypotheses", [])):
        verdicts = {"hypothesis fails"}  # the row's own hypotheses: never replaces a refutation
    pairs = [(f"lambda = {value}, m = {mult} ({claim['route']})",
              None if stated is None else f"{_stated_text(stated)} ({stated['where']})")]
    if claim["about"].get("formula") == "regular_model":  # a LambdaClaim: lambda = rank / 2
        pairs.append((f"lambda = {value} (certified rank {Fraction(value) * 2} / 2)",
                      None if stated is None else _stated_text(stated)))
    return {"verdicts": verdicts, "pairs": pairs}


def _derive_attention(row, kind, claim) -> dict:
    if row["section"] == "facts":
        return {"verdicts": {"certified"}, "proven": {claim["text"].split(" for ")[0]}}
    lo, hi = _bounds(claim)
    verdict = _stated_claim(row, kind, claim)
    out = {"verdicts": {verdict or ("confirmed" if lo == hi else "out of reach")},
           "proven": {f"r_eps = {lo}" if lo == hi else f"{lo} <= r_eps <= {hi}"},
           "numbers": {"proven_lower": lo, "proven_upper": hi}}
    if "claimed" in row:
        out["says"] = {f"r_eps {row['relation']} {row['claimed']}"}
    return out


def _derive_representation(row, kind, claim, names) -> dict:
    ranks = []
    for x in claim["components"]:
        i = x["irrep"]
        name = names[i] if isinstance(i, int) and 0 <= i < len(names) else None
        need(isinstance(name, str), f"irreducible character {i} has no name")
        ranks.append(f"Pi_{i} ({name}) {x['rank']}")
    return {"verdicts": {"confirmed" if claim["invariant"] else "hypothesis fails"},
            "proven": {f"(13), {'(14), ' if claim['invariant'] else ''}(15) on {claim['about']['score_dimension']} "
                       "score coordinates; rank Pi_rho: " + ", ".join(ranks)}}


def _derive_local_rank(row, kind, claim) -> dict:
    train = claim["maps"]["train"]
    rank = f"{train['lower']}" + ("" if train["lower"] == train["upper"] else f"..{train['upper']}")
    lam = f"lambda = {claim['lambda']}" if claim["lambda"] is not None else \
        "no lambda (" + "; ".join(claim["hypothesis_fails"]) + ")"
    tail = f"): rank {rank}, ||grad L_n|| <= {claim['gradient_norm_at_most']}, {lam}"
    if "hypotheses" in row:
        # an estimate-premise row (the estimator fixes "a local minimiser of L_n"): the file is the memorising
        # checkpoint's, and its exact grad L_n != 0 proves it no local minimiser (L_n is smooth); the other
        # checkpoint is named only by its sha256, so its half of 'proven' is not checked
        pattern = re.compile(r"memorising epoch [0-9]+ \(train [0-9.]+, val [0-9.]+" + re.escape(tail)
                             + r"; generalising .* \(certificate sha256 [0-9a-f]{64}\)", re.DOTALL)
        return {"verdicts": {"hypothesis fails" if claim["critical"] is False else "out of reach"},
                "pattern": pattern, "shape": "begin with the memorising checkpoint's derived claim"}
    # the basin row: the file is the generalising checkpoint's; the memorising one is named only by its sha256, so
    # neither its half of 'proven' nor a comparison of the two (a verdict other than out of reach) is derived here
    pattern = re.compile(r"memorising .*; generalising epoch [0-9]+ \(train [0-9.]+, val [0-9.]+" + re.escape(tail),
                         re.DOTALL)
    return {"verdicts": {"out of reach"}, "pattern": pattern,
            "shape": "end with the generalising checkpoint's derived claim"}


def _derive_block_rank(row, kind, claim) -> dict:
    """A ``block_rank`` row (the data map's generic rank): ``proven`` its derived range, the verdict the row's
    ``claimed`` judged against it (a failing row hypothesis only replaces a ``confirmed``)."""
    lo, hi = claim["lower"], claim["upper"]
    verdict = _judged(row["relation"], row["claimed"], lo, hi) if "claimed" in row else None
    verdict = verdict or ("confirmed" if lo == hi else "out of reach")
    if verdict == "confirmed" and any(not h["holds"] for h in row.get("hypotheses", [])):
        verdict = "hypothesis fails"
    out = {"verdicts": {verdict}, "numbers": {"proven_lower": lo, "proven_upper": hi},
           "proven": {f"dim {'=' if lo == hi else '>='} {lo} (data map, {claim['about']['train_pairs']} training pairs)"}}
    if "claimed" in row:
        out["says"] = {f"dim {row['relation']} {row['claimed']}"}
    return out


def row_mismatch(row: dict, facts: dict) -> str | None:
    """Why ``row`` (typed by :func:`read_index`) does not say what its certificate proves, or ``None``.

    ``facts`` is the certificate's :func:`summary`.  Compared: ``kind``, ``verdict``, ``proven`` (rendered here
    from the derived claim, as the catalogue renders it) and, where the certificate determines them, ``says``,
    ``proven_lower`` and ``proven_upper``.  Never raises: a certificate whose claim has a shape no rendering
    fits is a mismatch that says so.

    Examples
    --------
    >>> claim = {"relation": "==", "value": 4, "about": {}}
    >>> row = {"id": "x", "kind": "dimension", "verdict": "confirmed", "proven": "dim = 5", "section": "claims"}
    >>> row_mismatch(row, {"kind": "dimension", "claim": claim})
    'proven is "dim = 5"; the certificate proves "dim = 4"'
    >>> row_mismatch(dict(row, proven="dim = 4"), {"kind": "dimension", "claim": claim}) is None
    True
    """
    kind, claim = facts["kind"], facts["claim"]
    if row["kind"] != kind:
        return f"kind is {row['kind']!r}; the certificate is a {kind!r} certificate"
    try:
        if row["section"] == "facts":
            need(kind == "attention_rank", f"a fact of kind {kind!r}: the checker renders facts of attention_rank only")
            d = _derive_attention(row, kind, claim)
        elif kind in ("dimension", "defect", "rank_lower_bound", "rank_upper_bound"):
            d = _derive_rank(row, kind, claim)
        elif kind == "formula":
            d = _derive_formula(row, kind, claim)
        elif kind == "attention_rank":
            d = _derive_attention(row, kind, claim)
        elif kind == "score_representation":
            d = _derive_representation(row, kind, claim, facts.get("names", []))
        elif kind == "block_rank":
            d = _derive_block_rank(row, kind, claim)
        elif kind == "local_rank":
            d = _derive_local_rank(row, kind, claim)
        else:
            return f"the checker derives no index row for a {kind!r} certificate"
    except Reject as exc:
        return str(exc)
    except (KeyError, IndexError, TypeError, ValueError, ArithmeticError) as exc:
        return f"the certificate's claim does not fit a {kind} row ({type(exc).__name__})"
    if row["verdict"] not in d["verdicts"]:
        return f"verdict is {row['verdict']!r}; the certificate gives " + " or ".join(map(repr, sorted(d["verdicts"])))
    if "pairs" in d:
        if not any(row["proven"] == p and ("says" not in row or row["says"] == s) for p, s in d["pairs"]):
            p, s = d["pairs"][0]
            return (f"proven is {_shown(row['proven'])}" + (f", says {_shown(row.get('says'))}" if "says" in row else "")
                    + f"; the certificate proves {_shown(p)}" + (f", stated {_shown(s)}" if s is not None else ""))
    elif "pattern" in d:
        if d["pattern"].fullmatch(row["proven"]) is None:
            return f"proven {_shown(row['proven'])} does not {d['shape']}"
    elif row["proven"] not in d["proven"]:
        return f"proven is {_shown(row['proven'])}; the certificate proves {_shown(min(d['proven']))}"
    if "says" in row and "says" in d and row["says"] not in d["says"]:
        return f"says is {_shown(row['says'])}; its claimed and relation say {_shown(min(d['says']))}"
    for key, value in d.get("numbers", {}).items():
        if key in row and row[key] != value:
            return f"{key} is {row[key]}; the certificate proves {value}"
    return None
