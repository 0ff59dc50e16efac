"""Certificates of the CNN proximity claims: the native route against the explicit-polynomial route.

Native (``algebra.certify.subnetwork.subnetwork_certificate``): the checker evaluates the CNN and its
differential itself (``algebra/checker/cnn.py``); the bound of ``dim F'`` comes from the
subnetwork's own upper-bound witnesses.  Peer, measured in the same run on a few cases: the
route the catalogue used before, the differential written out as explicit polynomials
(``cnn_proximity.differential_map``) and certified by ``dimension_certificate`` with the claim
``rank >= P' - s' + 1``.

Usage: ``python benchmarks/bench_cnn_certificates.py [--fast]`` (prints a Markdown summary).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

from algebra.certify.canonical import render
from algebra.checker import check
from algebra.certify.subnetwork import judge_subnetwork
from algebra.claims.proximity import cnn_claims
from algebra.claims.records import SubnetworkClaim
from algebra.geometry.cnn_proximity import differential_map

#: The peer runs on the four fixed claims (which it certified before) and on one 3-layer ``t^3`` sweep case.
PEER_IDS = ("proximity-cnn-inactive-4-2-1-2-t2-1", "proximity-cnn-inactive-5-2-2-1-2-1-t2-0",
            "proximity-cnn-inactive-5-2-1-2-t3-1", "proximity-cnn-inactive-6-2-2-1-2-2-t2-1",
            "proximity-cnn-sweep-6_2-2-2_1-2-2-1_1-1-1_d0_t3_nb_l1c0")


def _native(claim) -> dict:
    t0 = time.perf_counter()
    e, _ = judge_subnetwork(claim)
    t1 = time.perf_counter()
    check(e.certificate)
    return {"certify_s": t1 - t0, "check_s": time.perf_counter() - t1, "bytes": len(render(e.certificate)),
            "verdict": e.verdict}


def _peer(claim) -> dict:
    from algebra.certify.rank import dimension_certificate
    from algebra.models.cnn import CNN

    m = claim.model
    sub = CNN(m.input_shape, m.filters, channels=m.channels, strides=m.strides, activations=m.activations, bias=m.bias,
              dense=m.dense, inactive=claim.inactive)
    t0 = time.perf_counter()
    e = dimension_certificate(differential_map(m, claim.theta), claimed=sub.parameter_count - sub.symmetry_count() + 1,
                              relation=">=")
    t1 = time.perf_counter()
    check(e.certificate)
    return {"certify_s": t1 - t0, "check_s": time.perf_counter() - t1, "bytes": len(render(e.certificate)),
            "verdict": e.verdict}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="the catalogue's fast subset")
    fast = parser.parse_args(argv).fast
    claims = [c for c in cnn_claims(fast) if isinstance(c, SubnetworkClaim)]
    _native(claims[0]), _peer(claims[0])  # warm-up: imports and caches out of the timings
    t0 = time.perf_counter()
    rows = {c.id: _native(c) for c in claims}
    total = time.perf_counter() - t0
    verdicts = {}
    for r in rows.values():
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
    print(f"Command: `python benchmarks/bench_cnn_certificates.py{' --fast' if fast else ''}`  ")
    print(f"Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine {platform.machine()}, Python "
          f"{platform.python_version()}\n")
    print(f"Native route, {len(rows)} claims: certify {sum(r['certify_s'] for r in rows.values()):.1f} s "
          f"(wall {total:.1f} s, max {max(r['certify_s'] for r in rows.values()):.2f} s), check "
          f"{sum(r['check_s'] for r in rows.values()):.1f} s, {sum(r['bytes'] for r in rows.values()):,} bytes "
          f"(max {max(r['bytes'] for r in rows.values()):,}); verdicts {verdicts}\n")
    print("| claim | native certify s | native check s | native bytes | polynomial-map certify s | check s | bytes | "
          "certify ratio (native / polynomial) |")
    print("|---|---|---|---|---|---|---|---|")
    for c in claims:
        if c.id not in PEER_IDS:
            continue
        n, p = rows[c.id], _peer(c)
        print(f"| {c.id} | {n['certify_s']:.2f} | {n['check_s']:.2f} | {n['bytes']:,} | {p['certify_s']:.2f} | "
              f"{p['check_s']:.2f} | {p['bytes']:,} | {n['certify_s'] / p['certify_s']:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
