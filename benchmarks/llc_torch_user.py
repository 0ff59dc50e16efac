"""A user's torch module through the calibrated LLC, as a new user would run it, beside devinterp.

The module of issue 22: ``nn.Sequential(Linear(4, 3), Linear(3, 4))`` without biases (P = 24),
n = 20,000 Gaussian inputs, a rank-2 teacher plus unit noise, half-MSE loss.  The reference point
is the empirical minimum (LBFGS from the teacher), so the learning coefficient of this data set's
own loss (``target="empirical"``) is that of a regular model on the rank-3 matrices through the
minimum: ``lambda_emp = (H (M + N) - H^2) / 2 = 15/2``, ``m = 1`` -- provided the minimum's product
has rank 3 (its third singular value is printed: it is of order ``n^-1/2``, not zero) and the
Hessian there has rank 15 (printed, a float rank by the widest gap; the hypothesis is checked, not
certified).  The population coefficient of the rank-2 teacher is Aoyagi & Watanabe's
``lambda = 7`` (``m = 2``, :func:`algebra.slt.formulas.rrr`); with n = 20,000 the population
target's temperature cap leaves ``nbeta <= 20`` and its verdict says so.

    PY benchmarks/llc_torch_user.py --write      # -> BENCHMARKS.md, <!-- llc_torch_user --> block

One thread; devinterp (README settings) on the same module and data in the same process first.
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

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

M_IN, H_MID, N_OUT, RANK, N = 4, 3, 4, 2, 20_000


def half_mse(out, y):
    return 0.5 * ((out - y) ** 2).sum(-1).mean()


def setup(torch, seed: int):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(N, M_IN, generator=g, dtype=torch.float64)
    A = torch.randn(RANK, M_IN, generator=g, dtype=torch.float64)
    B = torch.randn(N_OUT, RANK, generator=g, dtype=torch.float64)
    Y = X @ (B @ A).T + torch.randn(N, N_OUT, generator=g, dtype=torch.float64)
    net = torch.nn.Sequential(torch.nn.Linear(M_IN, H_MID, bias=False), torch.nn.Linear(H_MID, N_OUT, bias=False))
    net = net.double()
    with torch.no_grad():  # start at the teacher, its unused unit small but not zero: an exactly zero unit
        # is a critical point (a saddle of L_n), where LBFGS would stay (measured: singular values 3.5, 2.0, 3e-16)
        net[0].weight.copy_(1e-2 * torch.randn(H_MID, M_IN, generator=g, dtype=torch.float64))
        net[1].weight.copy_(1e-2 * torch.randn(N_OUT, H_MID, generator=g, dtype=torch.float64))
        net[0].weight[:RANK] = A
        net[1].weight[:, :RANK] = B
    return net, X, Y


def to_minimum(torch, net, X, Y) -> float:
    """LBFGS on the full-batch loss; returns the final gradient norm."""
    opt = torch.optim.LBFGS(net.parameters(), lr=1.0, max_iter=500, tolerance_grad=1e-14, tolerance_change=1e-16,
                            history_size=50, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = half_mse(net(X), Y)
        loss.backward()
        return loss

    for _ in range(5):
        opt.step(closure)
    closure()
    return float(torch.sqrt(sum((p.grad**2).sum() for p in net.parameters())))


def run(a) -> dict:
    import torch

    import llc_devinterp as D
    from algebra.numeric.calibration import calibrated_llc
    from algebra.numeric.torch_backend import TorchModel
    from algebra.slt import formulas

    torch.set_num_threads(1)
    net, X, Y = setup(torch, a.seed)
    gnorm = to_minimum(torch, net, X, Y)
    with torch.no_grad():
        prod = net[1].weight @ net[0].weight
    sv = torch.linalg.svdvals(prod).tolist()
    pop = formulas.reduced_rank_regression(M_IN, N_OUT, H_MID, RANK)
    # devinterp at its README settings on the same module and data (its loss sees index batches)
    call = D.devinterp_runner(torch, X.float(), Y.float())
    s = D.DEVINTERP_README
    net32 = torch.nn.Sequential(torch.nn.Linear(M_IN, H_MID, bias=False), torch.nn.Linear(H_MID, N_OUT, bias=False))
    net32.load_state_dict({k: v.float() for k, v in net.state_dict().items()})
    t0 = time.perf_counter()
    out = call(net32, s["num_chains"], s["num_draws"], s["lr"], s["n_beta"], s["localization"])
    t_dev = time.perf_counter() - t0
    tm = TorchModel(net, half_mse, (X, Y), name="torch Linear(4,3)-Linear(3,4), rank-2 teacher")
    lines = []
    t0 = time.perf_counter()
    from algebra.numeric.calibration import FAST, CalibrationSettings

    settings = FAST if a.fast else CalibrationSettings()
    res = calibrated_llc(tm, seed=a.seed, target="empirical", settings=settings,
                         progress=lambda m: (lines.append(m), print(m, flush=True)))
    t_ours = time.perf_counter() - t0
    # the empirical coefficient at a minimum where the product has rank r and L_n is Morse-Bott on the rank-r
    # matrices: r (M + N) - r^2 over 2 (a float rank of the product, by its widest singular-value gap)
    s_vals = np.array(sv)
    gaps = s_vals[:-1] / np.maximum(s_vals[1:], 1e-300)
    r_num = int(np.argmax(gaps)) + 1 if gaps.max() > 1e3 else len(sv)
    lam_emp = (r_num * (M_IN + N_OUT) - r_num**2) / 2
    return {"estimate": res.estimate, "stderr": res.stderr, "ci95": list(res.ci95), "verdict": res.verdict,
            "reasons": list(res.reasons), "target": res.target, "laplace": list(res.laplace), "spectrum": res.spectrum,
            "per_temperature": [(e.nbeta, e.estimate, e.stderr, e.rhat, e.ess, e.num_draws) for e in res.per_temperature],
            "lambda_empirical": lam_emp, "product_rank": r_num, "relative_error": (res.estimate - lam_emp) / lam_emp,
            "population_lambda": None if pop is None else str(pop.lam),
            "population_m": None if pop is None else pop.multiplicity,
            "gradient_norm_at_w_star": gnorm, "singular_values": sv, "seconds": t_ours,
            "devinterp_seconds": t_dev, "devinterp_estimate": float(out["llc_mean"].values),
            "ratio": t_ours / t_dev, "progress": lines, "load_average": os.getloadavg(),
            "settings": "FAST (16 chains, 300 warm-up + 300 draws per temperature: changed from the frozen procedure)"
            if a.fast else "frozen procedure"}


def table(r) -> str:
    ladder = "; ".join(f"{nb:.3g}: {e:.3f} +- {se:.3f} ({d} draws)" for nb, e, se, _, _, d in r["per_temperature"])
    return "\n".join([
        "| quantity | value |", "|---|---|",
        f"| exact, empirical target | lambda = {r['lambda_empirical']:g} (m = 1): a minimum whose product has rank {r['product_rank']} (float rank), singular values "
        f"{', '.join(f'{v:.4g}' for v in r['singular_values'])}; Hessian rank {r['spectrum']['rank']} |",
        f"| exact, population target (rank-2 teacher) | lambda = {r['population_lambda']} (m = {r['population_m']}), "
        "not reachable at n = 20,000 (nbeta <= 20) |",
        f"| calibrated, target empirical | {r['estimate']:.3f} +- {r['stderr']:.3f} ({100 * r['relative_error']:+.1f}%), "
        f"verdict {r['verdict']}{': ' + '; '.join(r['reasons']) if r['reasons'] else ''} |",
        f"| ladder (nbeta: estimate) | {ladder} |",
        f"| Laplace prediction at those nbeta | {', '.join(f'{v:.3f}' for v in r['laplace'] if v is not None)} |",
        f"| devinterp, README settings | {r['devinterp_estimate']:.3f} in {r['devinterp_seconds']:.1f} s |",
        f"| wall time, ours / devinterp | {r['seconds']:.0f} s / {r['devinterp_seconds']:.1f} s = {r['ratio']:.0f}x "
        f"(load average {r['load_average'][0]:.1f}) |",
        f"| gradient norm at w* (LBFGS) | {r['gradient_norm_at_w_star']:.2e} |",
        f"| settings | {r['settings']} |"])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="/tmp/llc_torch_user.json")
    p.add_argument("--write", action="store_true")
    p.add_argument("--fast", action="store_true", help="FAST settings (labelled as changed from the frozen procedure)")
    a = p.parse_args(argv)
    r = run(a)
    with open(a.out, "w") as fh:
        json.dump(r, fh, indent=1, default=float)
    body = table(r)
    print(body)
    if a.write:
        from llc_devinterp import replace_between_markers

        replace_between_markers(os.path.join(os.path.dirname(__file__), "..", "BENCHMARKS.md"), "llc_torch_user", body,
                                "PY benchmarks/llc_torch_user.py" + (" --fast" if a.fast else "") + " --write")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
