"""The seed-claims catalogue: one certificate per checkable claim of the papers.

The claims are data (:mod:`algebra.claims`: what a paper says and where, one
module per paper, all of them in :func:`algebra.claims.catalogue.claims`).
Here each claim is judged -- :data:`JUDGES` maps a claim's type to the
function that turns it into a certificate and a verdict -- and
:func:`run_catalogue` writes one certificate per claim plus ``INDEX.md`` and
``index.json`` (which also list the head certificates of ``attention/`` as
facts, ``certified`` when the checker verifies them: no paper claim is at
stake there).  Verdicts: ``confirmed`` (the claim holds as stated),
``refuted`` (false under its own hypotheses), ``hypothesis fails`` (a stated
hypothesis is certified false for the instance, so the claim does not apply;
the entry says which and the true value), ``out of reach``.

================================================  ==================================================
claim type (:mod:`algebra.claims.records`)         judged by
================================================  ==================================================
:class:`~algebra.claims.records.DimensionClaim`    a ``dimension`` certificate (``assumes_nondefective``:
                                                   a certified defect is ``hypothesis fails``)
:class:`~algebra.claims.records.LambdaClaim`       an ``rlct`` certificate; hypotheses decided first
:class:`~algebra.claims.records.FormulaClaim`      a ``formula`` certificate; hypotheses decided first
:class:`~algebra.claims.records.RepresentationClaim`  a ``score_representation`` certificate of the design
:class:`~algebra.claims.records.AttentionRankClaim`   an ``attention_rank`` certificate
:class:`~algebra.claims.records.SubnetworkClaim`   a native ``differential`` certificate
                                                   (:func:`algebra.certify.subnetwork.judge_subnetwork`)
:class:`~algebra.claims.records.BasinClaim`        two ``local_rank`` certificates of a trained run
                                                   (:func:`algebra.certify.local_rank.judge_basin`)
:class:`~algebra.claims.records.EstimatePremiseClaim`  the same certificates; the estimator's premise
                                                   (:func:`algebra.certify.local_rank.judge_estimate_premise`)
:class:`~algebra.claims.records.DataDimensionClaim`  a ``block_rank`` certificate of the data map
                                                   (:func:`algebra.certify.block_rank.judge_data_dimension`)
================================================  ==================================================

A claim whose Jacobian exceeds :data:`MAX_WORK`, or whose certificate raises
an :class:`~algebra.errors.AlgebraError`, is ``out of reach`` with the reason;
a claim that cannot be *built* fails the run (:class:`~algebra.errors.ClaimError`).
"""

from __future__ import annotations

import json
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

from algebra.certify.canonical import render, write_atomic
from algebra.certify.attention import attention_certificate
from algebra.certify.envelope import VERDICTS
from algebra.certify.formula import formula_certificate, rlct_certificate
from algebra.certify.rank import dimension_certificate
from algebra.claims import PAPERS
from algebra.claims.catalogue import claims
from algebra.claims.graph_attention import graph_design
from algebra.claims.records import (
    AttentionRankClaim,
    BasinClaim,
    DataDimensionClaim,
    DimensionClaim,
    EstimatePremiseClaim,
    FormulaClaim,
    LambdaClaim,
    RepresentationClaim,
    SubnetworkClaim,
)
from algebra.errors import AlgebraError, ClaimError, ResourceError
from algebra.models.registry import to_spec

__all__ = ["JUDGES", "claims", "run_catalogue", "write_index", "PAPERS", "MAX_WORK"]

#: Claims whose Jacobian would have more entries than this are *out of reach*
#: for the catalogue's time budget (the checker replays each in pure Python).
MAX_WORK = 250_000


# -- running -----------------------------------------------------------------------
def _work(model) -> int:
    """Rough size of the Jacobian the certificate needs (rows x parameters)."""
    from algebra.models.base import monomial_count

    rows = min(model.ambient_dimension(), model.parameter_count + 4 * model.n_outputs)
    if model.n_inputs:
        rows = min(rows, model.n_outputs * monomial_count(model.n_inputs, model.degree, homogeneous=model.homogeneous))
    return rows * model.parameter_count


def _judge_hypotheses(hypotheses) -> tuple:
    """``(checked, failed)``: each hypothesis decided (arithmetic, or a certified rank)."""
    from algebra.checker import expected_count

    checked, failed = [], []
    for h in hypotheses:
        holds, detail = h.holds, ""
        if h.nondefective is not None:
            e = dimension_certificate(h.nondefective)
            expected = expected_count(to_spec(h.nondefective))
            holds = e.lower == e.upper == expected
            detail = f"certified dimension {e.lower}" + ("" if e.lower == e.upper else f"..{e.upper}") + \
                f", expected count {expected}"
        if h.injective is not None:
            e = dimension_certificate(h.injective)
            P = h.injective.parameter_count
            holds = e.lower == P
            detail = f"certified rank {e.lower}" + ("" if e.lower == e.upper else f"..{e.upper}") + f" of {P} columns"
        checked.append({"hypothesis": h.text, "holds": holds, **({"detail": detail} if detail else {})})
        if not holds:
            failed.append(h.text + (f" ({detail})" if detail else ""))
    return checked, failed


def _judge_lambda(claim, emitted) -> tuple:
    """``(verdict, note, hypotheses)`` of a :class:`LambdaClaim`: hypotheses first, then the value."""
    checked, failed = _judge_hypotheses(claim.hypotheses)
    lam = emitted.certificate["claim"]["value"]
    if failed:
        return "hypothesis fails", f"false hypothesis: {'; '.join(failed)}; the true lambda is {lam}", checked
    if emitted.certificate["claim"]["agrees"]:
        return "confirmed", "", checked
    return "refuted", f"the hypotheses hold and the certified lambda is {lam}", checked


def _stated_text(stated: dict) -> str:
    if "lambda" in stated:
        return f"lambda = {stated['lambda']}" + (f", m = {stated['multiplicity']}" if "multiplicity" in stated else "")
    return f"{stated['lower']} <= lambda <= {stated['upper']}"


def _out_of_budget(model):
    """The reason a model's Jacobian is beyond :data:`MAX_WORK`, or ``None``."""
    if _work(model) > MAX_WORK:
        return f"Jacobian of about {_work(model):,} entries exceeds the catalogue budget of {MAX_WORK:,}"
    return None


# -- the judges: claim -> (emitted or None, reason when None, index fields) --------------------------
def _judge_formula(claim: FormulaClaim, seed: int, src: dict) -> tuple:
    e = formula_certificate(claim.formula, *claim.args, source=src)
    f = e.certificate["formula"]
    fields = {"says": _stated_text(f["stated"]) + f" ({f['stated']['where']})",
              "proven": f"lambda = {f['lambda']}, m = {f['multiplicity']} ({e.certificate['claim']['route']})"}
    if claim.hypotheses:
        checked, failed = _judge_hypotheses(claim.hypotheses)
        fields["hypotheses"] = checked
        if failed:
            note = f"false hypothesis: {'; '.join(failed)}; the formula's value {f['lambda']} does not apply"
            e = type(e)(e.certificate, e.kind, e.lower, e.upper, "hypothesis fails", e.reason, note)
    return e, None, fields


def _judge_lambda_claim(claim: LambdaClaim, seed: int, src: dict) -> tuple:
    too_big = _out_of_budget(claim.model)
    if too_big:
        return None, too_big, {}
    e = rlct_certificate(claim.model, stated=claim.stated, seed=seed, source=src)
    verdict, note, hyps = _judge_lambda(claim, e)
    e = type(e)(e.certificate, e.kind, e.lower, e.upper, verdict, e.reason, note)
    fields = {"says": _stated_text(e.certificate["formula"]["stated"]), "hypotheses": hyps,
              "proven": f"lambda = {e.certificate['claim']['value']} (certified rank {e.lower} / 2)"}
    return e, None, fields


def _judge_subnetwork(claim: SubnetworkClaim, seed: int, src: dict) -> tuple:
    """CNN subnetworks (Appendix C), certified natively."""
    from algebra.certify.subnetwork import judge_subnetwork

    e, fields = judge_subnetwork(claim, seed=seed, source=src)
    return e, None, fields


def _judge_representation(claim: RepresentationClaim, seed: int, src: dict) -> tuple:
    from algebra.certify.representation import representation_certificate

    e = representation_certificate(graph_design(claim.graph, claim.d, claim.k, claim.r, claim.options), source=src)
    c = e.certificate["claim"]
    names = [x["name"] for x in e.certificate["representation"]["characters"]["irreps"]]  # labels, not claims
    fields = {"says": "rho_score is a representation (13); F_score commutes with it (14); the projectors (15) are "
                      "orthogonal idempotents summing to the identity",
              "proven": f"(13), {'(14), ' if c['invariant'] else ''}(15) on {e.lower} score coordinates; rank Pi_rho: "
                        + ", ".join(f"Pi_{x['irrep']} ({names[x['irrep']]}) {x['rank']}" for x in c["components"])}
    return e, None, fields


def _judge_attention_rank(claim: AttentionRankClaim, seed: int, src: dict) -> tuple:
    e = attention_certificate(np.array(claim.Q), np.array(claim.K), claim.beta, claim.eps, claimed=claim.claimed,
                              relation=claim.relation, source=src)
    proven = f"r_eps = {e.lower}" if e.lower == e.upper else f"{e.lower} <= r_eps <= {e.upper}"
    fields = {"says": f"r_eps {claim.relation} {claim.claimed}", "proven": proven, "claimed": claim.claimed,
              "relation": claim.relation, "proven_lower": e.lower, "proven_upper": e.upper}
    return e, None, fields


def _judge_dimension(claim: DimensionClaim, seed: int, src: dict) -> tuple:
    too_big = _out_of_budget(claim.model)
    if too_big:
        return None, too_big, {}
    e = dimension_certificate(claim.model, claimed=claim.claimed, relation=claim.relation, seed=seed, source=src,
                              assumes_nondefective=claim.assumes_nondefective)
    proven = f"dim = {e.lower}" if e.lower == e.upper else f"dim >= {e.lower}"
    fields = {"says": f"dim {claim.relation} {claim.claimed}", "proven": proven, "claimed": claim.claimed,
              "relation": claim.relation, "proven_lower": e.lower, "proven_upper": e.upper}
    return e, None, fields


def _judge_basin(claim: BasinClaim, seed: int, src: dict) -> tuple:
    """The basin-selection thesis (:func:`algebra.certify.local_rank.judge_basin`)."""
    from algebra.certify.local_rank import judge_basin

    return judge_basin(claim, seed, src)


def _judge_estimate_premise(claim: EstimatePremiseClaim, seed: int, src: dict) -> tuple:
    """A sampled estimate's premise at a run's checkpoints (:func:`algebra.certify.local_rank.judge_estimate_premise`)."""
    from algebra.certify.local_rank import judge_estimate_premise

    return judge_estimate_premise(claim, seed, src)


def _judge_data_dimension(claim: DataDimensionClaim, seed: int, src: dict) -> tuple:
    """A data dimension at the paper's sizes (:func:`algebra.certify.block_rank.judge_data_dimension`)."""
    from algebra.certify.block_rank import judge_data_dimension

    return judge_data_dimension(claim, seed, src)


#: The judge of each claim type: ``judge(claim, seed, source) -> (emitted or None, reason when None, fields)``.
JUDGES = {
    DimensionClaim: _judge_dimension,
    LambdaClaim: _judge_lambda_claim,
    FormulaClaim: _judge_formula,
    RepresentationClaim: _judge_representation,
    AttentionRankClaim: _judge_attention_rank,
    SubnetworkClaim: _judge_subnetwork,
    BasinClaim: _judge_basin,
    EstimatePremiseClaim: _judge_estimate_premise,
    DataDimensionClaim: _judge_data_dimension,
}



def _judge_of(claim):
    """The judge of ``claim``'s type (:data:`JUDGES`).

    Examples
    --------
    >>> _judge_of(object())
    Traceback (most recent call last):
    ...
    algebra.errors.ClaimError: claim <object>: no judge for object (one of DimensionClaim, LambdaClaim, FormulaClaim, RepresentationClaim, AttentionRankClaim, SubnetworkClaim, BasinClaim, EstimatePremiseClaim, DataDimensionClaim)
    """
    judge = JUDGES.get(type(claim))
    if judge is None:
        raise ClaimError(getattr(claim, "id", f"<{type(claim).__name__}>"), f"no judge for {type(claim).__name__} "
                         f"(one of {', '.join(t.__name__ for t in JUDGES)})")
    return judge


def _certify_one(claim, seed: int) -> tuple:
    """``(emitted or None, reason when None, index fields)`` for one claim, by the judge of its type."""
    return _judge_of(claim)(claim, seed, claim.source)


@lru_cache(maxsize=2)
def _claims_by_id(fast: bool) -> dict:
    """``{id: claim}`` of :func:`claims` (built once per process: a sweep worker builds it for its tasks)."""
    return {c.id: c for c in claims(fast)}


def _certify_item(item: dict) -> dict:
    """One sweep task: certify claim ``item["id"]`` of the catalogue ``item["fast"]`` with ``item["seed"]``.

    Returns ``{"entry": index entry, "certificate": the certificate or None}``; nothing is
    written here, so any worker can run it and the result does not depend on which one did.
    """
    by_id = _claims_by_id(item["fast"])
    if item["id"] not in by_id:
        raise ClaimError(item["id"], f"not a claim of the {'fast' if item['fast'] else 'full'} catalogue")
    claim = by_id[item["id"]]
    t0 = time.perf_counter()
    entry = {**claim.source, "group": claim.group}
    if claim.notes:
        entry["notes"] = json.loads(json.dumps(claim.notes, default=str))
    judge = _judge_of(claim)  # a claim no judge knows fails the run; a failed certificate is out of reach
    try:
        emitted, why, fields = judge(claim, item["seed"], claim.source)
    except (AlgebraError, ResourceError) as exc:
        emitted, why, fields = None, f"{type(exc).__name__}: {exc}", {}
    cert = None
    if emitted is None:
        entry.update(verdict="out of reach", reason=why, file=None, **fields)
    else:
        cert = emitted.certificate
        entry.update(verdict=emitted.verdict, kind=emitted.kind, file=f"{claim.id}.json", sha256=cert["sha256"], **fields)
        if emitted.note:
            entry["note"] = emitted.note
    entry["seconds"] = round(time.perf_counter() - t0, 3)
    return {"entry": entry, "certificate": cert}


#: The resume table of an unfinished :func:`run_catalogue` in its ``out_dir`` (one JSON line per finished
#: claim: its index entry and certificate); deleted once the index is written.
RESUME_TABLE = ".certify-resume.jsonl"


def _resume_key(item: dict) -> str:
    """A claim's row in the resume table: its id, subset, seed and this tool's version must all match."""
    from algebra.version import __version__

    return f"{item['id']} {'fast' if item['fast'] else 'full'} seed {item['seed']} neuroalgebra {__version__}"


def _write_claim(out_dir: Path, row: dict) -> None:
    """Write one finished claim's certificate atomically (or remove a stale one when it is out of reach).

    A file already holding the same bytes is left alone, so a resumed run touches only what changed.
    """
    entry, cert = row["entry"], row["certificate"]
    path = out_dir / f"{entry['id']}.json"
    if cert is None:
        if path.exists():
            path.unlink()
        return
    data = render(cert)
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    write_atomic(path, data)


def run_catalogue(out_dir="certificates", *, fast: bool = False, seed: int = 0, progress: bool = True,
                  scheduler: str | None = "serial", workers: int | None = None,
                  no_worker_timeout: float | None = None) -> list:
    """Certify every claim, write ``<id>.json``, ``index.json`` and ``INDEX.md`` into ``out_dir``.

    Returns the index entries.  Files are written atomically; a claim that
    cannot be certified within the budget is listed as ``out of reach``.
    Claims run as tasks of :func:`algebra.sweep.run_sweep`: ``scheduler``
    ``"serial"`` (the default) runs them in this process, ``None`` on a
    ``LocalCluster`` of ``workers`` processes, an address on that Dask
    scheduler (``no_worker_timeout`` as in :func:`~algebra.sweep.run_sweep`);
    every route writes byte-identical files (each claim carries its seed).

    Each claim's certificate is written the moment its task finishes, and
    its row (index entry and certificate) is appended to the resume table
    :data:`RESUME_TABLE` in ``out_dir``.  A run that stops early -- killed,
    or a :class:`~algebra.sweep.ClusterError` when the cluster goes away --
    keeps every finished claim on disk; the next run with the same subset,
    seed and tool version certifies only the claims missing from the table
    and rewrites any file that differs from its row.  The index and
    ``INDEX.md`` are written (atomically) once every claim is done, in
    catalogue order, and the table is then deleted: the result is
    byte-identical to one uninterrupted serial run.
    Certificates in subdirectories (the committed ``attention/`` head
    certificates) are neither rewritten nor deleted; they are re-checked and
    listed in the index (:func:`algebra.attention_rank.head_certificates.index_entries`).
    """
    from algebra.sweep import run_sweep

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    items = [{"id": c_id, "fast": bool(fast), "seed": int(seed)} for c_id in _claims_by_id(bool(fast))]
    table = out_dir / RESUME_TABLE
    rows = run_sweep(_certify_item, items, key=_resume_key, scheduler=scheduler, workers=workers, table=table,
                     on_result=lambda key, row: _write_claim(out_dir, row), no_worker_timeout=no_worker_timeout,
                     progress=progress, desc="certify")
    entries = []
    for row in rows:  # claims resumed from the table: their files may predate a kill or be missing
        _write_claim(out_dir, row)
        entries.append(row["entry"])
    if not fast:
        _remove_stale(out_dir, {e["file"] for e in entries if e.get("file")})
    write_index(out_dir, entries, fast=fast, facts=_fact_entries(out_dir))
    table.unlink(missing_ok=True)
    return entries


def _fact_entries(out_dir: Path) -> list:
    """Index rows of the certificates in ``out_dir/attention`` (re-checked now): facts, no paper claim."""
    from algebra.attention_rank.head_certificates import index_entries

    heads = out_dir / "attention"
    if not heads.is_dir():
        return []
    out = []
    for e in index_entries(heads):
        ok = e["verdict"] == "VERIFIED"
        row = {"id": e["id"], "file": f"attention/{e['file']}", "sha256": e["sha256"], "kind": e["kind"],
               "layer": e["layer"], "head": e["head"], "proven": e["proven"], "eps": e["claim"].get("eps"),
               "verdict": "certified" if ok else "not verified"}
        if not ok:
            row["reason"] = e["verdict"]
        out.append(row)
    return out


def _remove_stale(out_dir: Path, keep: set) -> None:
    """Delete certificates this tool wrote earlier for claims no longer in the catalogue.

    Only ``out_dir/*.json``: subdirectories (``attention/``) hold certificates the
    catalogue does not emit, and are never touched.
    """
    for path in out_dir.glob("*.json"):
        if path.name in keep or path.name == "index.json":
            continue
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("tool"), dict) and data["tool"].get("name") == "neuroalgebra":
            path.unlink()


def _table_row(cells) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"


def write_index(out_dir, entries: list, *, fast: bool = False, facts: list = ()) -> None:
    """``index.json`` (machine) and ``INDEX.md`` (human) next to the certificates.

    ``entries`` are the paper claims (verdicts from :data:`VERDICTS`); ``facts``
    are certificates with no paper claim at stake (the MiniLM head
    certificates), listed as ``certified`` when the checker verifies them.
    """
    from algebra.version import __version__

    out_dir = Path(out_dir)
    stable = [{k: v for k, v in e.items() if k != "seconds"} for e in entries]  # byte-identical re-runs
    index = {"tool": {"name": "neuroalgebra", "version": __version__}, "subset": "fast" if fast else "full",
             "claims": stable, "facts": list(facts)}
    write_atomic(out_dir / "index.json", (json.dumps(index, sort_keys=True, indent=1) + "\n").encode())
    counts = {v: sum(e["verdict"] == v for e in entries) for v in VERDICTS}
    certified = sum(f["verdict"] == "certified" for f in facts)
    lines = [
        "# Certificate index",
        "",
        "Generated by `neuroalgebra certify`" + (" --fast" if fast else "") + "; re-check every file with "
        "`neuroalgebra verify certificates/` (or `python -m algebra.checker certificates/`; both include "
        "`attention/`).",
        "",
        f"{len(entries)} claims: " + ", ".join(f"{counts[v]} {v}" for v in VERDICTS) + "."
        + (f" {len(facts)} certificates with no paper claim at stake: {certified} certified." if facts else ""),
        "",
        "Verdicts: **confirmed** -- the claim holds as stated; **refuted** -- false under its own hypotheses; "
        "**hypothesis fails** -- a hypothesis the paper states is certified false for this instance, so the claim "
        "does not apply (the row says which, and the true value); **out of reach** -- not decided within the budget. "
        "Each certificate proves the *proven* column; the *paper says* column and the source are what the paper "
        "states (informational, not checked).",
        "",
    ]
    for paper in PAPERS + tuple(sorted({e["paper"] for e in entries} - set(PAPERS))):
        rows = [e for e in entries if e["paper"] == paper]
        if not rows:
            continue
        lines += [f"## {paper}", "", "| claim | location | paper says | proven | verdict | certificate |",
                  "|---|---|---|---|---|---|"]
        for e in rows:
            says, proven = e.get("says", ""), e.get("proven") or e.get("reason", "")
            verdict = f"**{e['verdict']}**" + (f" ({e['note']})" if e.get("note") else "")
            link = f"[{e['file']}]({e['file']})" if e.get("file") else "-"
            cells = [e["statement"], e["location"], says, proven, verdict, link]
            lines.append(_table_row(cells))
        lines.append("")
    if facts:
        lines += [
            "## Facts: all-MiniLM-L6-v2 attention heads (`attention/`)",
            "",
            "One `attention_rank` certificate per head: bounds on the max-row-l1 approximation rank r_eps of the "
            "head's exact attention matrix A = softmax_rows(beta * Q @ K^T) on a fixed text (multiplier 1; "
            "Q, K, beta stored as exact binary64). No paper claim is at stake -- the softmax-attention paper's "
            "calibration (Section 4.2) is on BERT-base heads and reports aggregate medians only -- so a row is "
            "**certified** (the independent checker re-derived its claim when this index was written) or "
            "**not verified**. Details: [attention/INDEX.md](attention/INDEX.md).",
            "",
            "| layer | head | proven | eps | verdict | certificate |",
            "|---|---|---|---|---|---|",
        ]
        for f in sorted(facts, key=lambda f: (f["layer"] if f["layer"] is not None else -1, f["head"] or 0, f["id"])):
            verdict = f"**{f['verdict']}**" + (f" ({f['reason']})" if f.get("reason") else "")
            cells = [f["layer"], f["head"], f["proven"], f["eps"], verdict, f"[{f['file']}]({f['file']})"]
            lines.append(_table_row(cells))
        lines.append("")
    write_atomic(out_dir / "INDEX.md", "\n".join(lines).encode())
