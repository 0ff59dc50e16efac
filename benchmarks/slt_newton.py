"""Benchmark: exact Newton distance (rational simplex) vs a float LP (scipy HiGHS),
and the width of the volume-scaling confidence interval vs the number of samples.

Run:  .venv/bin/python benchmarks/slt_newton.py  (prints a markdown section for BENCHMARKS.md)
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np
from scipy.optimize import linprog

from algebra.models.polynomial import parse_polynomial
from algebra.slt.formulas import reduced_rank_regression
from algebra.slt.lp import solve_standard_form
from algebra.slt.volume import volume_scaling

POLYS = ["x^2*y^2", "x^2*y^4 + z^6", "x^4 + x^2*y^2 + y^6", "x^2 + y^2 + z^2 + w^2", "a^6*b^2 + b^8 + a^2*c^4 + c^10"]


def _lp(points, n):
    A = [[1] + [-p[i] for p in points] + [-int(k == i) for k in range(n)] for i in range(n)]
    A.append([0] + [1] * len(points) + [0] * n)
    b = [0] * n + [1]
    c = [1] + [0] * (len(points) + n)
    return c, A, b


def newton_table() -> list[str]:
    rows = ["| K | exact t (ours) | float t (HiGHS) | ours / HiGHS time |", "|---|---|---|---|"]
    for text in POLYS:
        K = parse_polynomial(text)
        points, n = sorted(K.terms), len(K.variables)
        c, A, b = _lp(points, n)
        t0 = time.perf_counter()
        for _ in range(20):
            exact = solve_standard_form(c, A, b).value
        t_ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        for _ in range(20):
            ref = linprog(c, A_eq=np.array(A, float), b_eq=b, bounds=[(0, None)] * len(c), method="highs").fun
        t_ref = time.perf_counter() - t0
        assert abs(float(exact) - ref) < 1e-9
        rows.append(f"| `{text}` | {exact} | {ref:.12g} | {t_ours / t_ref:.2f} |")
    return rows


def volume_table() -> list[str]:
    exact = reduced_rank_regression(1, 1, 1, 0)
    rows = ["| Sobol points / replicate | fitted lambda | 95% CI | contains 1/2 |", "|---|---|---|---|"]
    for k in (10, 13, 16):
        fit = volume_scaling({(2, 2): 1}, multiplicity=exact.multiplicity, n_samples=2**k, replicates=8, seed=0)
        rows.append(f"| 2^{k} | {fit.lam:.4f} | [{fit.ci[0]:.4f}, {fit.ci[1]:.4f}] | {fit.contains(Fraction(1, 2))} |")
    return rows


if __name__ == "__main__":
    print("## slt\n")
    print("Command: `.venv/bin/python benchmarks/slt_newton.py`\n")
    print("Newton distance: exact rational simplex vs scipy HiGHS (float), 20 solves each.\n")
    print("\n".join(newton_table()))
    print("\nVolume scaling for K = a^2 b^2 (RRR M=N=H=1, r=0; lambda = 1/2, m = 2), 8 replicates.\n")
    print("\n".join(volume_table()))
