"""Exact tempered ladders of the Newton toys, and the finite-temperature allowance checked on them.

For ``K(w) = 1/2 sum_i g_i(w)^2`` with two parameters, the localized tempered
expectation ``F(nbeta) = E[nbeta K]`` under ``exp(-nbeta K - gamma/2 ||w||^2)``
(gamma = 1, the calibration's) is computed by quadrature
(:func:`algebra.numeric.estimators.tempered_expectation`, sinh-spaced nodes)
at ``nbeta = 10^3 ... 10^12``: no sampling, so these ladders are what a
perfect sampler would return.  Against the exact lambda (Newton polyhedron)
they show how the finite-temperature value approaches lambda, and they
check the calibration's allowance (:func:`algebra.numeric.calibration.combine_temperatures`):
the ratio of the bias left at ``10^6`` to the ladder's rise from ``10^4`` (version 3's ladder) and
from ``10^3`` (version 4's, whose leading-term factor is 1.0: the column is the safety it needs).

Higher multiplicity: the products ``K = 1/2 (x_1 ... x_k)^2`` (lambda = 1/2,
m = k, k = 2 ... 8) under the same N(0, I) localization reduce exactly to one
variable, ``s = -sum log|x_i|``, whose density is the k-fold convolution of
``p(t) = 2 phi(e^-t) e^-t`` (computed on a grid of step 10^-3 by FFT; k = 2
reproduces the quadrature ladder of ``x*y`` to four digits).  They show where
the allowance stops covering (m >= 5) and that there the ladder's rise is
itself far above what an ``ok`` verdict allows.

    .venv/bin/python benchmarks/llc_exact_ladders.py --write     # table into BENCHMARKS.md
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from algebra.numeric.estimators import tempered_expectation  # noqa: E402

# (name, K's generators as a function of the (points, 2) array, lambda, m) -- lambda and m from
# algebra.slt.newton on the same generators (checked below), never typed from a paper
TOYS = (
    ("x*y", lambda W: (W[:, 0] * W[:, 1]) ** 2),
    ("x^2*y^2", lambda W: (W[:, 0] * W[:, 1]) ** 4),
    ("x^2; y^3", lambda W: W[:, 0] ** 4 + W[:, 1] ** 6),
    ("x^2*y; y^2", lambda W: (W[:, 0] ** 2 * W[:, 1]) ** 2 + W[:, 1] ** 4),
    ("x*y^2", lambda W: (W[:, 0] * W[:, 1] ** 2) ** 2),
    ("x; y", lambda W: W[:, 0] ** 2 + W[:, 1] ** 2),
)
DECADES = tuple(range(3, 13))
GAMMA = 1.0


class _Toy:
    def __init__(self, f):
        self.f, self.w_star = f, np.zeros(2)

    def loss(self, W):
        return 0.5 * self.f(np.atleast_2d(W))


def exact_lambda(name: str):
    """``(lambda, m)`` of ``sum g_i^2`` by the Newton polyhedron (:func:`algebra.slt.newton.newton_rlct`)."""
    from algebra.claims.llc_suites import exact_coefficient

    lc = exact_coefficient("poly", tuple(name.split("; ")))
    return Fraction(lc.lam), int(lc.multiplicity)


def ladders() -> dict:
    out = {}
    for name, f in TOYS:
        toy = _Toy(f)
        out[name] = {k: tempered_expectation(toy, 10.0**k, GAMMA, points=2001, core=0.05 / (10.0**k) ** 0.25)
                     for k in DECADES}
    return out


PRODUCT_K = (2, 3, 4, 5, 6, 8)
PRODUCT_DECADES = (3, 4, 5, 6, 8, 12)


def product_ladder(k: int, nbetas, *, dt: float = 1e-3, lo: float = -4.0, hi: float = 40.0) -> dict:
    """``F(nbeta) = E[nbeta K]`` for ``K = 1/2 (x_1 ... x_k)^2`` under ``N(0, I)`` (gamma = 1), exact up to the grid.

    >>> round(product_ladder(2, [1e4])[1e4], 4)   # the quadrature value of x*y in the table above
    0.4067
    """
    t = np.arange(lo, hi, dt)
    p = 2 * np.exp(-0.5 * np.exp(-2 * t)) / math.sqrt(2 * math.pi) * np.exp(-t)
    p /= p.sum() * dt
    dens, start = p.copy(), lo
    for _ in range(k - 1):
        n = dens.size + p.size - 1
        N = 1 << (n - 1).bit_length()
        dens = np.clip(np.fft.irfft(np.fft.rfft(dens, N) * np.fft.rfft(p, N), N)[:n] * dt, 0, None)
        start += lo
    K = 0.5 * np.exp(-2 * (start + dt * np.arange(dens.size)))
    out = {}
    for nb in nbetas:
        w = dens * np.exp(-nb * K)
        out[nb] = float(np.sum(nb * K * w) / np.sum(w))
    return out


def product_table() -> str:
    lines = ["| toy | lambda (m) | F at nbeta = 10^4, 10^6, 10^8, 10^12 | (lambda - F) / lambda at 10^6 "
             "| rise D / F, 10^4 -> 10^6 | (lambda - F) / D at 10^6 (the allowance from 10^4 uses 3.0) "
             "| (lambda - F) / D', D' from 10^3 (the allowance from 10^3 uses 1.7) "
             "| allowance for D alone, % of F (ok needs <= 5%) |",
             "|---|---|---|---|---|---|---|---|"]
    for k in PRODUCT_K:
        F = product_ladder(k, [10.0**d for d in PRODUCT_DECADES])
        f3, f4, f6, f8, f12 = (F[10.0**d] for d in (3, 4, 6, 8, 12))
        rise, bias = f6 - f4, 0.5 - f6
        name = "*".join(f"x{i}" for i in range(1, k + 1))
        lines.append(f"| `{name}` | 1/2 ({k}) | {f4:.4f}, {f6:.4f}, {f8:.4f}, {f12:.4f} | {100 * bias / 0.5:.1f}% | "
                     f"{100 * rise / f6:.1f}% | {bias / rise:.2f} | {bias / (f6 - f3):.2f} | {300 * rise / f6:.0f}% |")
    return "\n".join(lines)


def table(lad: dict) -> str:
    lines = ["| toy | lambda (m) | F at nbeta = 10^4, 10^6, 10^8, 10^12 | (lambda - F) / lambda at 10^6 "
             "| rise D, 10^4 -> 10^6 | (lambda - F) / D at 10^6 (the allowance from 10^4 uses 3.0) "
             "| (lambda - F) / D', D' from 10^3 (the allowance from 10^3 uses 1.7) "
             "| fit a + b/u + c/u^2 on 10^4..10^6: intercept error (b) |",
             "|---|---|---|---|---|---|---|---|"]
    for name, _ in TOYS:
        lam, m = exact_lambda(name)
        F = lad[name]
        bias = float(lam) - F[6]
        rise = F[6] - F[4]
        u = np.array([k * math.log(10) for k in (4, 5, 6)])
        A = np.stack([np.ones(3), 1 / u, 1 / u**2], axis=1)
        c = np.linalg.solve(A, np.array([F[4], F[5], F[6]]))
        ratio = bias / rise if rise > 0 else float("nan")
        ratio3 = bias / (F[6] - F[3]) if F[6] > F[3] else float("nan")
        lines.append(f"| `{name}` | {lam} ({m}) | {F[4]:.4f}, {F[6]:.4f}, {F[8]:.4f}, {F[12]:.4f} | "
                     f"{100 * bias / float(lam):.1f}% | {rise:.4f} | {ratio:.2f} | {ratio3:.2f} | "
                     f"{100 * (c[0] - float(lam)) / float(lam):+.1f}% ({c[1]:+.2f}) |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--write", action="store_true", help="replace the table in BENCHMARKS.md")
    p.add_argument("--json", default=None, help="also write the ladders to this file")
    a = p.parse_args(argv)
    lad = ladders()
    body = table(lad) + "\n\nProducts (exact one-variable reduction):\n\n" + product_table()
    print(body)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({k: {str(d): v for d, v in r.items()} for k, r in lad.items()}, fh, indent=1)
    if a.write:
        sys.path.insert(0, os.path.dirname(__file__))
        from llc_devinterp import replace_between_markers

        replace_between_markers(os.path.join(os.path.dirname(__file__), "..", "BENCHMARKS.md"), "llc_exact_ladders",
                                body, "python benchmarks/llc_exact_ladders.py --write")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
