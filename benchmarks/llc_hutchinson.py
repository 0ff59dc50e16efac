"""Hutchinson Hessian trace (grokking paper, Appendix I) beside the LLC on the suite models.

    .venv/bin/python benchmarks/llc_hutchinson.py [benchmarks/llc_results/llc_suite.json]

Reads the LLC estimates of a finished `neuroalgebra llc suite` run and prints a
markdown table: parameters P, exact lambda, sampled LLC, Hutchinson tr H
(100 Rademacher probes, +- standard error) and the exact trace.
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from algebra.numeric.diagnostics import hutchinson_trace  # noqa: E402
from algebra.claims.llc_suites import build_model  # noqa: E402


def main(path: str) -> int:
    with open(path) as fh:
        rows = json.load(fh)["rows"]
    print("| model | P | exact lambda | sampled LLC | Hutchinson tr H | exact tr H | 2 lambda / P |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        args = r["args"]
        args = (tuple(args[0]), args[1]) if r["family"] == "dln" else tuple(args)
        model = build_model(r["family"], args, seed=r["seed"], n=10**6 if r["family"] == "qk" else None)
        h = hutchinson_trace(model, num_vectors=100, seed=0)
        from fractions import Fraction

        lam = Fraction(r["exact_lambda"])
        print(f"| {r['model']} | {r['num_params']} | {r['exact_lambda']} | {r['estimate']:.3f} | "
              f"{h['estimate']:.3f} +- {h['stderr']:.3f} | {h['exact']:.3f} | {float(2 * lam) / r['num_params']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/llc_results/llc_suite.json"))
