"""Benchmark: the checker's work budgets in seconds, and the refusals that must come before any work.

The tests state each budget as work (steps charged, bytes allocated, Python lines run) and assert no
time, so that a slower or loaded machine cannot fail them; the times those budgets stand for are
measured here, side by side with the budget's stated time (the comments at ``MAX_IV_WORK``,
``MAX_PRODUCT`` and ``representation.MAX_WORK``).  The files are the tests' own
(tests/checker/test_adversarial_ball_kinds.py), each case at its limit.

Run:  .venv/bin/python benchmarks/checker_budgets.py  (prints a markdown section for BENCHMARKS.md)
"""

from __future__ import annotations

import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' certificate builders

import algebra.checker.attention as att  # noqa: E402
import algebra.checker.representation as rep  # noqa: E402
from algebra.certify.canonical import seal  # noqa: E402
from algebra.checker import Reject, check  # noqa: E402
from tests.checker.test_adversarial_ball_kinds import _exp_program, _interval, derived, xor_cube  # noqa: E402


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _timed(cert) -> tuple:
    """``(verdict, wall seconds, CPU seconds)`` of one check of ``cert``."""
    c, t = _cpu(), time.perf_counter()
    try:
        check(cert)
        verdict = "accepted"
    except Reject as exc:
        verdict = "refused: " + str(exc)[:60]
    return verdict, time.perf_counter() - t, _cpu() - c


def interval_at_limit():
    rows = 100
    pairs = (att.MAX_IV_WORK // (rows * 1000) - 1) // 7
    p = _exp_program(rows, pairs)
    cert = {"schema_version": 1, "kind": "interval_inequality", "claim": {}, "payload": p}
    cert["claim"] = att.derive_interval_claim(cert, [])
    work = att.read_program(p)["work"]
    return "interval program, exp/softmax of 100 x 1000", f"{work:.2e} ball ops (MAX_IV_WORK {att.MAX_IV_WORK:.0e})", \
        30.0, seal(cert)


def attention_at_limit():
    from algebra.attention_rank.certificates import _array, encode_number

    m, d = 1000, 200
    rng = np.random.default_rng(0)
    Q, K, L, R = rng.normal(size=(m, d)), rng.normal(size=(m, d)), rng.normal(size=(m, d)), rng.normal(size=(d, m))
    cert = {"schema_version": 1, "kind": "attention_rank", "claim": {"eps": "1/4", "text": "x"},
            "matrix": {"Q": _array(Q), "K": _array(K), "beta": encode_number(0.01)},
            "selection": {"rows": [0], "decoder": [0] * m},
            "approximant": {"method": "factors", "L": _array(L), "R": _array(R)}}
    return "attention_rank, m = 1000, d = k = 200", f"{m * m * d:.1e} ball multiply-adds (MAX_PRODUCT {att.MAX_PRODUCT:.0e})", \
        30.0, seal(cert)


def representation_near_limit():
    used = [0]
    charge = rep.charge

    def counting(work, cost, what, limit):
        used[0] += cost
        charge(work, cost, what, limit)

    cert = derived(xor_cube(5))
    rep.charge = counting
    try:
        check(cert)
    finally:
        rep.charge = charge
    # the budget's 60 s is for MAX_WORK steps: this file's share of them
    return "score_representation, (Z_2)^5 cube", f"{used[0]:.2e} steps (MAX_WORK {rep.MAX_WORK:.0e})", \
        60.0 * used[0] / rep.MAX_WORK, cert


def refusals() -> list:
    program = [{"out": f"I{s}", "op": "identity", "args": ["1000"]} for s in range(att.MAX_IV_STEPS)]
    identity = _interval({"arrays": {}, "scalars": {}, "program": program, "target": "I0", "relation": "<",
                          "bound": "1"})
    take = _interval({"arrays": {"A": {"shape": [1, 900_000], "data": ["0"] * 900_000}}, "scalars": {},
                      "indices": {"ix": [0] * 16384}, "program": [{"out": "B", "op": "take_rows", "args": ["A", "ix"]}],
                      "target": "B", "relation": "<", "bound": "1"})
    chars = seal(dict(xor_cube(7, radius=0), claim={"text": "x"}))
    return [("10^4 steps of identity(1000)", identity), ("take_rows of 1 x 900,000 by 16,384 indices", take),
            ("(Z_2)^7 character checks, 1.3e8 products", chars)]


def main() -> None:
    print("## Checker budgets\n")
    print(f"Produced by `.venv/bin/python benchmarks/checker_budgets.py` ({platform.machine()}, "
          f"Python {platform.python_version()}); one run each, wall and CPU seconds of `check` alone.  The tests "
          "assert these budgets as work (tests/checker/test_adversarial_ball_kinds.py); the seconds are here.\n")
    print("| file at its limit | work | stated time | wall | CPU | wall / stated |")
    print("|---|---|---|---|---|---|")
    for make in (interval_at_limit, attention_at_limit, representation_near_limit):
        name, work, stated, cert = make()
        verdict, wall, cpu = _timed(cert)
        print(f"| {name} ({verdict}) | {work} | {stated:.3g} s | {wall:.2f} s | {cpu:.2f} s | {wall / stated:.2f} |")
    print("\n| refused before it is built | verdict | wall | CPU |")
    print("|---|---|---|---|")
    for name, cert in refusals():
        verdict, wall, cpu = _timed(cert)
        print(f"| {name} | {verdict} | {wall:.2f} s | {cpu:.2f} s |")


if __name__ == "__main__":
    main()
