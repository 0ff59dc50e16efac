"""An experiment, not part of the procedure: Metropolis moves along the gauge orbits of a factor product.

``benchmarks/llc_cost_anatomy.py`` (measurement 6) found the slow directions of the frozen HMC on the cost
model, DLN (20,30,20,30,20) r=3, to be the gauge orbits ``W_b -> A_b W_b, W_{b+1} -> W_{b+1} A_b^-1``
(``A_b`` in GL(d_b) at each inner layer boundary ``b``), along which ``L`` is constant and only the
localizing prior holds the chains.  HMC's step is set by the stiffest direction, so crossing an orbit
takes of order ``nbeta h`` transitions.

This script interleaves, after every HMC transition, ``k`` Metropolis moves along the orbits:

- ``A_b`` is the Cayley transform ``(I - eps Z_b / 2)^-1 (I + eps Z_b / 2)`` of a standard normal
  ``Z_b``.  ``Z -> -Z`` maps ``A`` to ``A^-1`` and keeps the law of ``Z``, so the choice of group
  element is symmetric under inversion.
- The move ``w -> g.w`` is linear in ``w``.  Its Jacobian is
  ``prod_b |det A_b|^(d_{b-1} - d_{b+1})``, and the acceptance is
  ``min(1, exp(-(U(g.w) - U(w))) |J|)``.
- ``U`` is recomputed, loss included. That makes the move exact for the tempered, localized posterior,
  whatever the rounding does to ``L``'s invariance.
- Each chain's ``eps`` is adapted to acceptance 0.4 during the first half of the warm-up and then fixed.

The HMC transitions are the frozen procedure's.  The script runs the two start groups of
``start="mixed"`` at ``nbeta h = 10^5`` with and without the moves, as measurement 6 did, and reports
for each group ``nbeta (L - L*)``, the factors' imbalance, ``|w - w*|^2``, the ESS and the wall time:

    .venv/bin/python benchmarks/llc_gauge_moves.py --out benchmarks/llc_results/gauge_moves.json --write
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

ACCEPT = 0.4


def _cayley(eps: np.ndarray, Z: np.ndarray) -> tuple:
    """``A = (I - X)^-1 (I + X)`` with ``X = eps Z / 2`` per chain, its inverse and ``log |det A|``."""
    X = 0.5 * eps[:, None, None] * Z
    eye = np.eye(Z.shape[-1])[None]
    A = np.linalg.solve(eye - X, eye + X)
    A_inv = np.linalg.solve(eye + X, eye - X)
    logdet = np.linalg.slogdet(eye + X)[1] - np.linalg.slogdet(eye - X)[1]
    return A, A_inv, logdet


class GaugeMoves:
    """Wraps an HMC step function: after each transition, ``moves`` Metropolis moves along the orbits.

    ``fp`` is the model's :class:`~algebra.numeric.models.FactorProduct`; ``num_warmup`` the sampler's
    warm-up (``eps`` adapts during its first half).  ``accepted`` and ``proposed`` count the moves.
    """

    def __init__(self, step, fp, *, moves: int, chains: int, num_warmup: int, seed: int, eps0: float = 0.01):
        self.step, self.fp, self.moves = step, fp, int(moves)
        self.eps = np.full(chains, float(eps0))
        self.num_warmup, self.t = int(num_warmup), 0
        self.rng = np.random.default_rng(seed)
        self.accepted = np.zeros(chains)
        self.proposed = 0

    def propose(self, W: np.ndarray) -> tuple:
        """``g.w`` for a fresh ``g`` per chain, and ``log |J|``."""
        fs = [f.copy() for f in self.fp.factors(W)]
        widths = self.fp.widths
        log_j = np.zeros(W.shape[0])
        for b in range(1, len(widths) - 1):  # inner boundary b: W_b (fs[b-1]) -> A W_b, W_{b+1} (fs[b]) -> W_{b+1} A^-1
            Z = self.rng.standard_normal((W.shape[0], widths[b], widths[b]))
            A, A_inv, logdet = _cayley(self.eps, Z)
            fs[b - 1] = np.matmul(A, fs[b - 1])
            fs[b] = np.matmul(fs[b], A_inv)
            log_j += logdet * (widths[b - 1] - widths[b + 1])
        return np.concatenate([f.reshape(W.shape[0], -1) for f in fs], axis=1), log_j

    def __call__(self, chains, eps, kernel):
        from algebra.numeric.samplers import _Chains

        chains, acc, wild = self.step(chains, eps, kernel)
        target = kernel.target
        W, U, G, loss = chains.W, chains.U, chains.G, chains.loss
        for _ in range(self.moves):
            W2, log_j = self.propose(W)
            U2, G2, loss2 = target(W2)
            log_a = np.where(np.isfinite(U2), U - U2 + log_j, -np.inf)
            take = np.log(self.rng.random(W.shape[0])) < log_a
            W = np.where(take[:, None], W2, W)
            G = np.where(take[:, None], G2, G)
            U, loss = np.where(take, U2, U), np.where(take, loss2, loss)
            a = np.exp(np.minimum(log_a, 0.0))
            if self.t < self.num_warmup // 2:
                self.eps *= np.exp(0.1 * (a - ACCEPT))
            elif self.t >= self.num_warmup:
                self.accepted += take
                self.proposed += 1
        self.t += 1
        return _Chains(W, U, G, loss), acc, wild


def sample_with_gauge_moves(model, *, moves: int, seed: int, num_warmup: int, **kw):
    """:func:`~algebra.numeric.samplers.sample` (HMC) with ``moves`` gauge moves after each transition."""
    from algebra.numeric import samplers

    hmc = samplers._STEPS["hmc"]
    wrapper = GaugeMoves(hmc, model.composite, moves=moves, chains=kw["num_chains"], num_warmup=num_warmup,
                         seed=seed + 7919)
    samplers._STEPS["hmc"] = wrapper
    try:
        run = samplers.sample(model, method="hmc", seed=seed, num_warmup=num_warmup, **kw)
    finally:
        samplers._STEPS["hmc"] = hmc
    return run, wrapper


def experiment(seed: int, draws: int, moves: int) -> dict:
    from llc_cost_anatomy import MODEL, _kw, imbalance, mixed_start

    from algebra.claims.llc_suites import exact_coefficient
    from algebra.numeric.estimators import estimate_llc
    from algebra.numeric.samplers import sample

    model, s, h, init = mixed_start(seed)  # measurement 6's start
    ws = np.asarray(model.w_star, dtype=float)
    half = s.num_chains // 2
    kw = {k: v for k, v in _kw(s).items() if k != "method"}
    init[:half] = ws
    rows = []
    for k in (0, moves):
        t0 = time.perf_counter()
        if k:
            run, g = sample_with_gauge_moves(model, moves=k, seed=seed + 1, num_warmup=1000, nbeta=1e5 / h,
                                             num_draws=draws, init=init, progress=f"{k} gauge moves", **kw)
            acc = float(g.accepted.sum() / max(g.proposed * s.num_chains, 1))
        else:
            run = sample(model, method="hmc", nbeta=1e5 / h, num_draws=draws, num_warmup=1000, seed=seed + 1,
                         init=init, progress="no gauge moves", **kw)
            acc = None
        secs = time.perf_counter() - t0
        est = estimate_llc(run)
        y = run.nbeta * (run.losses - run.loss_star)
        W = np.array(run.final, dtype=float)
        imb, rad = imbalance(model.composite, W), np.sum((W - ws) ** 2, axis=1)
        rows.append({"moves": k, "draws": draws, "seconds": secs, "estimate": est.estimate, "stderr": est.stderr,
                     "ess": est.ess, "rhat": est.rhat, "gauge_accept": acc,
                     "nbeta_L": [float(y[:half].mean()), float(y[half:].mean())],
                     "imbalance": [float(imb[:half].mean()), float(imb[half:].mean())],
                     "radius2": [float(rad[:half].mean()), float(rad[half:].mean())]})
        print(json.dumps(rows[-1]), flush=True)
    lc = exact_coefficient(*MODEL)
    return {"model": model.name, "num_params": model.dim, "exact_lambda": str(lc.lam), "seed": seed, "rows": rows}


def render(res: dict) -> str:
    from llc_cost_anatomy import pair

    lines = [f"{res['model']} (P = {res['num_params']}, exact lambda {res['exact_lambda']}), nbeta h = 10^5, 16 chains "
             f"(8 from w*, 8 from where a 500 + 500-step run at 10^4 ended), warm-up 1,000, seed {res['seed']}; "
             "group means (from w* / from the hotter ends): `nbeta (L - L*)` over the draws, the factor imbalance "
             "and `|w - w*|^2` at the last draw:",
             "",
             "| gauge moves per transition | draws | estimate +- se | ESS | split R-hat | nbeta (L - L*) | "
             "factor imbalance | `|w - w*|^2` | move acceptance | seconds |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        acc = "-" if r["gauge_accept"] is None else f"{r['gauge_accept']:.2f}"
        lines.append(f"| {r['moves']} | {r['draws']} | {r['estimate']:.2f} +- {r['stderr']:.2f} | {r['ess']:.0f} | "
                     f"{r['rhat']:.3f} | {pair(r['nbeta_L'], '.2f')} | {pair(r['imbalance'], '.1f')} | "
                     f"{pair(r['radius2'], '.0f')} | {acc} | {r['seconds']:.0f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--draws", type=int, default=2000)
    p.add_argument("--moves", type=int, default=4)
    p.add_argument("--out", default="/tmp/llc_gauge_moves.json")
    p.add_argument("--from-json", nargs="+", default=None, metavar="FILE",
                   help="render earlier runs' --out files (their rows one after the other)")
    p.add_argument("--write", action="store_true", help="replace the <!-- llc_gauge_moves --> block of BENCHMARKS.md")
    a = p.parse_args(argv)
    if a.from_json:
        parts = []
        for name in a.from_json:
            with open(name) as fh:
                parts.append(json.load(fh))
        res = {**parts[0], "rows": [r for part in parts for r in part["rows"]]}
    else:
        from algebra.files import write_atomic

        res = experiment(a.seed, a.draws, a.moves)
        write_atomic(a.out, json.dumps(res, indent=1, default=float).encode())
    body = render(res)
    print(body)
    if a.write:
        from llc_devinterp import replace_between_markers

        replace_between_markers(os.path.join(HERE, "..", "BENCHMARKS.md"), "llc_gauge_moves", body,
                                "PY benchmarks/llc_gauge_moves.py --write"
                                + (" --from-json " + " ".join(a.from_json) if a.from_json else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
