"""The certified data dimension of the grokking network at the paper's sizes, from a sparse block point.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 .venv/bin/python benchmarks/grok_scale.py [P,K,F ...]

For each size (default: the ``paper`` preset p = 53, K = 1024, f = 0.4, then the full data f = 1.0) one
child process computes :func:`algebra.grokking.local_rank.block_lower_bound` (the rank modulo 1048573 of
the p diagonal blocks of the Jacobian at a point where neuron k writes to output k mod p only: a proven
lower bound on the generic rank) and the cap ``p rank(Phi P_perp)`` exactly over Q (an upper bound
everywhere); the dimension is certified when they meet.  Prints a markdown table with wall time and the
child's peak RSS for BENCHMARKS.md ("Grokking").
"""

from __future__ import annotations

import json
import subprocess
import sys

SIZES = ("53,1024,0.4", "53,1024,1.0")


def measure(p: int, K: int, f: float) -> dict:
    import resource
    import time

    from algebra.grokking.local_rank import block_lower_bound
    from algebra.grokking.references import centred_rank, monomial_matrix
    from algebra.grokking.task import modular_addition

    t = modular_addition(p, f, 0)
    a, b = t.a[t.train], t.b[t.train]
    t0 = time.perf_counter()
    r = block_lower_bound(p, K, a, b)
    t1 = time.perf_counter()
    cap = p * centred_rank(monomial_matrix(p, a, b))
    t2 = time.perf_counter()
    return {"p": p, "K": K, "f": f, "N": int(a.size), "P": 3 * p * K, "lower": r["lower"], "cap": cap,
            "symmetry_bound": K * (3 * p - 2), "certified": r["lower"] == cap,
            "block_seconds": round(t1 - t0, 1), "cap_seconds": round(t2 - t1, 1),
            "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)}


def main(argv) -> int:
    if argv[:1] == ["--child"]:
        p, K, f = argv[1].split(",")
        print(json.dumps(measure(int(p), int(K), float(f))))
        return 0
    rows = []
    for size in argv or SIZES:
        out = subprocess.run([sys.executable, __file__, "--child", size], capture_output=True, text=True, check=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print("| p | K | f | N | P | lower (block point, mod 1048573) | cap p(N-1) (exact over Q) | K(3p-2) | certified "
          "| block ranks | cap over Q | peak RSS |")
    print("|" + "---|" * 12)
    for r in rows:
        print(f"| {r['p']} | {r['K']} | {r['f']:g} | {r['N']:,} | {r['P']:,} | {r['lower']:,} | {r['cap']:,} | "
              f"{r['symmetry_bound']:,} | {'**yes**: dim = ' + format(r['lower'], ',') if r['certified'] else 'no'} | "
              f"{r['block_seconds']} s | {r['cap_seconds']} s | {r['peak_rss_gb']} GB |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
