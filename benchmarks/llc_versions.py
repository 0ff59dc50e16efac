"""Two versions of the calibrated LLC side by side, on the suite runs each wrote.

Reads the ``llc_suite.json`` and ``llc_validation.json`` of two ``neuroalgebra llc suite --out DIR``
runs (an older version's folder and a newer one's) and renders, per suite, the summary against the
issue-22 targets and one row per model: estimate (relative error) and verdict in each version, the
newer version's ladder and its first reason.  For the Newton toys whose exact tempered values are
computable by quadrature (``x*y`` and the other two-parameter toys of ``llc_exact_ladders.py``) it
also sets each temperature's sampled value beside the exact one: what a perfect sampler returns.

    PY benchmarks/llc_versions.py --old benchmarks/llc_results/v3 --new benchmarks/llc_results --write
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

FILES = (("calibration suite", "llc_suite.json"), ("validation suite (frozen)", "llc_validation.json"))


def _rows(folder: str, name: str) -> tuple:
    """``({model: row}, summary)`` of one suite file."""
    with open(os.path.join(folder, name)) as fh:
        data = json.load(fh)
    return {r["model"]: r for r in data["rows"]}, data["summary"]


def _cell(r) -> str:
    if r is None:
        return "-"
    return f"{r['estimate']:.4g} ({100 * r['relative_error']:+.1f}%), {r['verdict']}"


def _summary(label: str, s_old: dict, s_new: dict, rows_old: dict, rows_new: dict) -> list:
    def cov(rows):
        return sum(bool(r["covered"]) for r in rows.values()), len(rows)

    co, cn = cov(rows_old), cov(rows_new)
    return [f"| {label} | old | new |", "|---|---|---|",
            f"| median \\|relative error\\| | {100 * s_old['median_abs_relative_error']:.2f}% | "
            f"{100 * s_new['median_abs_relative_error']:.2f}% |",
            f"| worst \\|relative error\\| | {100 * s_old['worst_abs_relative_error']:.1f}% | "
            f"{100 * s_new['worst_abs_relative_error']:.1f}% |",
            f"| verdict `ok` | {s_old['ok_models']} / {len(rows_old)} | {s_new['ok_models']} / {len(rows_new)} |",
            f"| worst `ok` \\|relative error\\| | {100 * (s_old['ok_worst_abs_relative_error'] or 0):.2f}% | "
            f"{100 * (s_new['ok_worst_abs_relative_error'] or 0):.2f}% |",
            f"| 95% interval contains lambda | {co[0]} / {co[1]} | {cn[0]} / {cn[1]} |",
            f"| `ok` but more than 5% off | {len(s_old['unflagged_large_errors'])} | "
            f"{len(s_new['unflagged_large_errors'])} |",
            f"| summed task seconds | {sum(r['seconds'] for r in rows_old.values()):.0f} | "
            f"{sum(r['seconds'] for r in rows_new.values()):.0f} |"]


def _models(rows_old: dict, rows_new: dict) -> list:
    out = ["| model | exact lambda (m) | old: estimate (rel. error), verdict | new: estimate (rel. error), verdict "
           "| new ladder (nbeta h: estimate) | new: first reason |", "|---|---|---|---|---|---|"]
    for name, r in rows_new.items():
        det = r["details"]
        ladder = ", ".join(f"{p['nbeta'] * det['curvature']:.0e}: {p['estimate']:.4g}" for p in det["per_temperature"])
        why = (r["reasons"][0][:110] + ("..." if len(r["reasons"][0]) > 110 else "")) if r["reasons"] else ""
        out.append(f"| {name} | {r['exact_lambda']} ({r['multiplicity']}) | {_cell(rows_old.get(name))} | "
                   f"{_cell(r)} | {ladder} | {why} |")
    return out


def _exact_toys(rows: dict) -> list:
    """Sampled against exact tempered values for the two-parameter Newton toys in the suite."""
    import llc_exact_ladders as X
    from algebra.numeric.estimators import tempered_expectation

    toys = dict(X.TOYS)
    out = ["| toy | nbeta h | sampled +- se | exact tempered (quadrature) | sampled - exact, in se |",
           "|---|---|---|---|---|"]
    for name, r in rows.items():
        key = name.removeprefix("poly ")
        if key not in toys:
            continue
        det = r["details"]
        toy = X._Toy(toys[key])
        for p in det["per_temperature"]:
            nb = p["nbeta"]
            F = tempered_expectation(toy, nb, det["gamma"], points=2001, core=0.05 / nb**0.25)
            out.append(f"| `{key}` | {nb * det['curvature']:.0e} | {p['estimate']:.4f} +- {p['stderr']:.4f} | "
                       f"{F:.4f} | {(p['estimate'] - F) / p['stderr']:+.1f} |")
    return out


def render(old: str, new: str) -> str:
    parts = [f"Old: `{old}`; new: `{new}`."]
    for label, name in FILES:
        try:
            ro, so = _rows(old, name)
            rn, sn = _rows(new, name)
        except FileNotFoundError:
            continue
        parts += ["", *_summary(label, so, sn, ro, rn), "", *_models(ro, rn)]
        toys = _exact_toys(rn)
        if len(toys) > 2:
            parts += ["", f"Sampled against exact ({label}, new version):", "", *toys]
    return "\n".join(parts)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--old", required=True, help="folder of the older version's suite run")
    p.add_argument("--new", required=True, help="folder of the newer version's suite run")
    p.add_argument("--write", action="store_true", help="replace the <!-- llc_versions --> block of BENCHMARKS.md")
    a = p.parse_args(argv)
    body = render(a.old, a.new)
    print(body)
    if a.write:
        from llc_devinterp import replace_between_markers

        replace_between_markers(os.path.join(os.path.dirname(__file__), "..", "BENCHMARKS.md"), "llc_versions", body,
                                f"PY benchmarks/llc_versions.py --old {a.old} --new {a.new} --write")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
