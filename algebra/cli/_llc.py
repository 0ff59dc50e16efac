"""What every ``neuroalgebra llc ...`` command shares: its options, its settings and its report.

``llc MODEL`` (:mod:`algebra.cli.numeric`) and ``llc graph`` (:mod:`algebra.cli.graph`) print one
row of :func:`algebra.claims.llc_suites.run_entry` or :func:`algebra.graph.llc.graph_llc` the same way:
:func:`llc_summary` is the data of that report (the ``--json`` object), :func:`print_llc` prints it.
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager

from algebra.cli.args import add_progress_options, seed_arg, positive_arg
from algebra.errors import InputError, ResourceError

__all__ = ["EXIT_STATUS", "add_llc_options", "llc_settings", "llc_summary", "print_llc", "flag_names", "LLC_FLAGS",
           "SUMMARY_KEYS"]

#: Library parameter -> option of the ``llc`` commands (:func:`flag_names`).
LLC_FLAGS = {"num_chains": "--chains", "n": "--n", "seed": "--seed", "M": "--M", "N": "--N", "H": "--H", "r": "--r",
             "widths": "--widths", "d": "--d", "k": "--k", "outputs": "--outputs", "width": "--width",
             "in_dim": "--in-dim", "out_dim": "--out-dim", "polynomials": "generators", "num_draws": "--draws",
             "radius": "--radius", "features": "--features", "point": "--point"}
_NAMED = re.compile(r"(\w+)=(\S+) (.*)", re.S)  # a ResourceError of check_memory: "num_chains=1000 needs ..."


@contextmanager
def flag_names(table: dict):
    """Re-raise a refusal naming a library parameter of ``table`` as an :class:`InputError` naming its option.

    An :class:`InputError` keeps its value and what is allowed; a :class:`ResourceError` whose message starts
    with ``name=value`` (:func:`algebra.numeric.models.check_memory`) becomes "expected a smaller value".

    Examples
    --------
    >>> with flag_names({"num_chains": "--chains"}):
    ...     raise InputError("num_chains", 1, "an integer >= 2")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --chains=1: expected an integer >= 2
    """
    try:
        yield
    except InputError as exc:
        if exc.argument not in table:
            raise
        raise InputError(table[exc.argument], exc.value, exc.allowed) from None
    except ResourceError as exc:
        m = _NAMED.match(str(exc))
        if not m or m.group(1) not in table:
            raise
        value = int(m.group(2)) if m.group(2).isascii() and m.group(2).isdigit() else m.group(2)
        raise InputError(table[m.group(1)], value, f"a smaller value ({m.group(3)})") from None

#: The keys every ``llc`` report has (``--json``), in this order.
SUMMARY_KEYS = ("estimate", "stderr", "ci95", "exact_lambda", "multiplicity", "relative_error", "verdict", "seed",
                "settings")
_OPTIONAL_KEYS = ("model", "chosen", "reasons", "theorem", "num_params", "n", "target", "bias_allowance", "laplace")
_PER_TEMPERATURE_KEYS = ("nbeta", "estimate", "stderr", "ess", "rhat", "burnin", "accept_rate", "divergent")


#: every estimating subcommand's --help ends with this
EXIT_STATUS = ("exit status: 0 when the verdict is ok, 1 when it is suspect (the reasons are printed; the "
               "estimate is then a rough value, not an error-barred one), 2 on bad input")


def add_llc_options(p, *, sample_size: bool = True) -> None:
    """``--seed``, ``--json``, ``--fast``, ``--chains``, ``--quiet`` (and ``--n`` when the loss is sampled) of an
    ``llc`` command."""
    p.add_argument("--seed", type=seed_arg(), default=0)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--fast", action="store_true", help="short chains (for tests and demos)")
    p.add_argument("--chains", type=positive_arg("--chains"), default=None)
    from algebra.numeric.calibration import STARTS

    p.add_argument("--start", choices=STARTS, default=None,
                   help="where each colder temperature's chains start (a design option, recorded in the "
                        "settings): mixed = half at w*, half where the hotter temperature's chains ended (the "
                        "procedure's, version 4), hotter = all where those ended (version 3), w_star = all at w* "
                        "(version 2)")
    add_progress_options(p)  # a tqdm bar per temperature on stderr unless --quiet
    if sample_size:
        p.add_argument("--n", type=positive_arg("--n"), default=None,
                       help="sample size n of the simulated data (default: the model's, 10^12 for most: exact "
                            "sufficient statistics); the population target caps nbeta at n/1000")


def llc_settings(args):
    """The :class:`~algebra.numeric.calibration.CalibrationSettings` of ``--fast``, ``--chains`` and ``--start``."""
    from dataclasses import replace

    from algebra.numeric.calibration import FAST, CalibrationSettings

    s = FAST if args.fast else CalibrationSettings()
    if args.chains is not None:
        if args.chains < 2:
            raise InputError("--chains", args.chains, "an integer >= 2 (R-hat compares chains)")
        s = replace(s, num_chains=args.chains)
    if getattr(args, "start", None) is not None:
        s = replace(s, start=args.start)
    return s


def llc_summary(row: dict) -> dict:
    """The report of one estimate (the ``--json`` object): :data:`SUMMARY_KEYS`, the optional keys the row has,
    and the multi-temperature fit with its per-temperature diagnostics."""
    out = {k: row.get(k) for k in SUMMARY_KEYS}
    out.update({k: row[k] for k in _OPTIONAL_KEYS if k in row})
    det = row["details"]
    out.setdefault("target", det.get("target"))
    out.setdefault("bias_allowance", det.get("bias_allowance"))
    out["finite_temperature"] = {"laplace": det.get("laplace"), "nbetas": det["settings"].get("nbetas"),
                                 "gamma": det.get("gamma"), "hessian": det.get("spectrum")}
    out["two_sides"] = det.get("sides")
    out["supports"] = _supports(row)
    out["multi_temperature"] = det["multi_temperature"]
    out["per_temperature"] = [{k: e[k] for k in _PER_TEMPERATURE_KEYS} for e in row["details"]["per_temperature"]]
    return out


def _supports(row: dict) -> str:
    """One sentence: what the printed numbers support, by the verdict (never by the exact value).

    Examples
    --------
    >>> _supports({"verdict": "ok", "details": {"target": "population"}})
    'the estimate and its 95% interval, for the population learning coefficient'
    >>> _supports({"verdict": "suspect", "details": {"target": "empirical"}})[:60]
    'nothing beyond a rough value: a diagnostic failed (reasons),'
    """
    target = (row.get("details") or {}).get("target") or row.get("target") or "population"
    if row["verdict"] == "ok":
        return f"the estimate and its 95% interval, for the {target} learning coefficient"
    return ("nothing beyond a rough value: a diagnostic failed (reasons), so neither the +- nor the interval "
            f"is supported as an error bar for the {target} learning coefficient")


def _sides_text(det: dict) -> str:
    """The reported temperature's two start groups (``start="mixed"``), or why there are none.

    >>> _sides_text({"sides": [None, {"w_star": 9.1, "w_star_se": 0.05, "hotter": 9.6, "hotter_se": 0.05,
    ...                                "difference": 0.5, "z": 7.1, "chains": [8, 8]}]}).endswith(
    ...     "(z = +7.1: the slow directions have not relaxed; not in the verdict)")
    True
    >>> _sides_text({"sides": [None, None]})
    'none (the chains did not start on both sides)'
    """
    sides = det.get("sides") or []
    top = sides[-1] if sides else None
    if not top:
        return "none (the chains did not start on both sides)"
    z = top["z"]
    if z is None:
        tail = "no spread within either group: every chain stayed where it started"
    else:
        tail = f"z = {z:+.1f}" + (": the slow directions have not relaxed; not in the verdict" if abs(z) > 3 else "")
    return (f"from w* {top['w_star']:.4f} +- {top['w_star_se']:.2g}, from the hotter chains "
            f"{top['hotter']:.4f} +- {top['hotter_se']:.2g} at the largest nbeta ({tail})")


def print_llc(row: dict, as_json: bool, extra: dict | None = None) -> int:
    """Print the report of one estimate (``extra`` keys appended to the JSON object); exit status 0 when ``ok``."""
    if as_json:
        print(json.dumps({**llc_summary(row), **(extra or {})}, indent=2, default=float))
    else:
        rel = row["relative_error"]
        det = row.get("details") or {}
        allow = det.get("bias_allowance")
        lap = det.get("laplace") or []
        nbs = (det.get("settings") or {}).get("nbetas") or []
        caveat = "" if row["verdict"] == "ok" else "  [not supported: verdict suspect]"
        lines = [
            ("model", row["model"]),
            ("target", f"{det.get('target', 'population')} learning coefficient at w*"),
            ("estimate", f"{row['estimate']:.4f} +- {row['stderr']:.4f} (Monte Carlo, {row['chosen']}){caveat}"),
            ("finite-nbeta allowance", "none (one temperature)" if allow is None else
             f"+{allow:.4f} (from the ladder's rise; only the interval's upper end carries it)"),
            ("95% interval", f"[{row['ci95'][0]:.4f}, {row['ci95'][1]:.4f}]{caveat}"),
            ("Laplace prediction", ", ".join(f"{v:.4g} at nbeta={b:.4g}" for v, b in zip(lap, nbs) if v is not None)
             + f" (Gaussian, gamma={det.get('gamma')})" if any(v is not None for v in lap) else "unavailable"),
            ("two sides", _sides_text(det)),
            ("exact lambda", f"{row['exact_lambda']} (m = {row['multiplicity']})"
             if row["exact_lambda"] is not None else "unknown"),
            ("relative error", "-" if rel is None else f"{100 * rel:+.2f}%"),
            ("verdict", row["verdict"] + ("" if not row["reasons"] else ": " + "; ".join(row["reasons"]))
             + ("" if row["verdict"] == "ok" else " (exit status 1)")),
            ("supports", _supports(row)),
            ("seed", str(row["seed"])),
        ]
        width = max(len(k) for k, _ in lines)
        for k, v in lines:
            print(f"{k.ljust(width)}  {v}")
    return 0 if row["verdict"] == "ok" else 1
