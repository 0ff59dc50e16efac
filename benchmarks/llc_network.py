"""LLC at network scale (P >= 10^4) on a user's torch module: calibrated estimate and speed.

The model is the quadratic network ``y = V (W x)^2 + noise`` with d = 6
inputs, p = 4 outputs and K = 1000 hidden units (P = K (d + p) = 10,000
parameters; exact lambda = 42 by the grokking paper's Theorem 4.1, certified
secant dimension 84), ``n`` explicit samples from its generic teacher
(:func:`algebra.numeric.models.quadratic_network_model`).  The same samples
and the same ``torch.nn.Module`` (``torch_net`` of ``llc_devinterp.py``)
serve every side.  ``calibrated --model rrr`` runs the second P = 10^4
model, reduced-rank regression M = N = 100, H = 50, teacher rank 10 (exact
lambda 2550 by Aoyagi & Watanabe), on the numpy backend with exactly drawn
sufficient statistics at n = 10^12.  Each sub-command is its own process
(peak RSS is the process's own) and writes one JSON file into ``--out``:

    # calibrated estimate (one environment with torch, numpy and this package)
    nice -n 10 PY benchmarks/llc_network.py calibrated --backend numpy --out /tmp/llc_network
    nice -n 10 PY benchmarks/llc_network.py calibrated --backend torch --out /tmp/llc_network
    # speed: equal steps (chains x draws) on both sides, SGLD lr 1e-7, nbeta 30, batch 32
    nice -n 10 PY benchmarks/llc_network.py speed --side ours --chains 4 --draws 200 --out /tmp/llc_network
    nice -n 10 PY benchmarks/llc_network.py speed --side devinterp --chains 4 --draws 200 --out /tmp/llc_network
    (the same with --side numpy, with --side ours --compiled, and all with --chains 64 --draws 50)
    PY benchmarks/llc_network.py report --out /tmp/llc_network

PY is a Python with torch, numpy and this package (and devinterp for
``--side devinterp``).  devinterp's sampler calls ``gc.collect()`` once per
chain; its cost grows with the objects alive in the process, so one
``gc.freeze()`` runs before each timed call (on every side).  The fixed
per-call cost (devinterp's 32 init-loss batches, data set set-up) is
measured with a 16-draw call with the same chains and subtracted with its
steps (before this round: a 1-chain call); compiled and traced steps are
recorded per chain count on the first call and reused later, so the
compile or trace time is reported apart.  Everything runs single-threaded.

The ``calibrated`` rows, the quadratic network's ``diagnose`` and the
report:

    nice -n 10 PY benchmarks/llc_network.py calibrated --model rrr --chains 16 --tag chains16 --out /tmp/llc_network
    nice -n 10 PY benchmarks/llc_network.py diagnose --out /tmp/llc_network
    PY benchmarks/llc_network.py report --out /tmp/llc_network --write
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import resource
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

SHAPE = (6, 4, 1000)  # d, p, K: P = 10,000
# devinterp's README settings except the step: the top Hessian eigenvalue at w* is h = 1.02e5, so
# lr 1e-3 diverges on both sides; lr 1e-7 keeps eps * nbeta * h / 2 = 0.15
SGLD = {"lr": 1e-7, "n_beta": 30.0, "batch_size": 32}


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def samples(n: int, seed: int = 0):
    """The explicit samples and the numpy model of them (same loss as the torch module).

    The teacher is the suite's generic one (Gaussian rows ``W``, ``V`` of random
    sign and magnitude in [0.5, 1.5]), taken as ``w*`` directly: at K = 1000
    ``quadratic_network_model``'s ``refine_minimum`` step moves away from the
    minimum (its loss at the returned ``w*`` is ~10^18 against 2.0 at the
    teacher), so it is not used here.
    """
    from algebra.numeric.models import QuadraticForms, RegressionModel, quadratic_statistics

    d, p, K = SHAPE
    comp = QuadraticForms(d, p, K)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    G = rng.standard_normal((K, d))
    V = rng.choice([-1.0, 1.0], size=(p, K)) * rng.uniform(0.5, 1.5, size=(p, K))
    w0 = comp.pack(G, V)
    s = quadratic_statistics(comp.matrix(w0[None])[0], d, int(n), rng, keep=True)
    return RegressionModel.from_samples(f"quadratic d={d} p={p} K={K}", comp, s["X"], s["Y"], w0,
                                        family="quadratic")


def user_module(torch, model, dtype):
    """The user's ``nn.Module`` at ``w*`` (the class ``llc_devinterp.py`` hands to devinterp)."""
    from llc_devinterp import torch_net

    net = torch_net(torch, {"kind": "quadratic", "dpk": np.array(SHAPE), "w_star": model.w_star})
    net = net.to(dtype)
    net.factor = net.factor.to(dtype)
    return net


def half_sse(out, y):
    return 0.5 * ((out - y) ** 2).sum(dim=1).mean()


def write(out: str, name: str, record: dict) -> None:
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, name + ".json"), "w") as fh:
        json.dump(record, fh, indent=1)
    print(json.dumps(record, indent=1))


# the second P >= 10^4 model: reduced-rank regression with M = N = 100, H = 50 (P = 10^4), teacher
# rank 10 (chosen before any run; exact lambda 2550, m = 1, Aoyagi & Watanabe 2005), exactly drawn
# sufficient statistics at n = 10^12, so the numpy backend's step costs O(chains x M N H)
RRR = (100, 100, 50, 10)


def target_model(a):
    """The model sampled by ``calibrated``: ``(numpy model, family, args)``."""
    if a.model == "rrr":
        from algebra.numeric.models import rrr_model

        return rrr_model(*RRR, n=10**12, seed=a.seed), "rrr", RRR
    return samples(a.n), "quadratic", SHAPE


def calibration_settings(a):
    """The frozen procedure, with only the budget (chains, draws, warm-up, doubling) reduced where asked.

    ``--gamma`` changes the localization itself: for diagnosis only (the row says so).
    """
    from dataclasses import replace

    from algebra.numeric.calibration import CalibrationSettings

    budget = {"num_chains": a.chains, "num_draws": a.draws, "num_warmup": a.warmup, "draws_growth": a.growth,
              "gamma": a.gamma}
    budget = {k: v for k, v in budget.items() if v is not None}
    return replace(CalibrationSettings(), **budget), budget


def run_calibrated(a) -> None:
    from algebra.numeric.calibration import calibrated_llc
    from algebra.claims.llc_suites import exact_coefficient

    model, family, args = target_model(a)
    if a.backend == "torch":
        if family != "quadratic":
            raise SystemExit("--backend torch needs explicit samples: only --model quadratic")
        import torch

        torch.set_num_threads(1)
        from algebra.numeric.torch_backend import TorchModel

        net = user_module(torch, model, torch.float64)
        target = TorchModel(net, half_sse, (torch.tensor(model.X), torch.tensor(model.Y)), chunk=a.chunk)
    else:
        target = model
    settings, budget = calibration_settings(a)
    rss0 = peak_rss_mib()
    t0 = time.perf_counter()
    res = calibrated_llc(target, settings=settings, seed=a.seed)
    secs = time.perf_counter() - t0
    lc = exact_coefficient(family, args)
    write(a.out, f"calibrated_{a.model}_{a.backend}" + (f"_{a.tag}" if a.tag else ""), {
        "model": model.name, "backend": a.backend, "num_params": int(target.dim), "n": int(model.n),
        "exact_lambda": str(lc.lam), "multiplicity": lc.multiplicity,
        "estimate": res.estimate, "stderr": res.stderr, "ci95": list(res.ci95), "verdict": res.verdict,
        "reasons": list(res.reasons), "nbetas": res.settings["nbetas"], "curvature": res.curvature,
        "gamma": res.gamma, "bias_bound": res.bias_allowance, "bias_allowance": res.bias_allowance,
        "target": res.target, "laplace": list(res.laplace), "spectrum": res.spectrum, "seconds": secs,
        "per_temperature": [e.to_json() for e in res.per_temperature],
        "peak_rss_mib": peak_rss_mib(), "rss_before_sampling_mib": rss0,
        "settings": settings.to_json(), "budget_changed_from_frozen": budget, "seed": a.seed,
        "command": "benchmarks/llc_network.py " + " ".join(sys.argv[1:])})


def run_diagnose(a) -> None:
    """The quadratic network's ladder predicted from its Hessian spectrum and the localizing prior.

    At ``w*`` the loss is ``1/2 u^T A u`` in ``u = vec C(w) - vec C(w*)`` to second order
    (``A = I_p kron Sxx``), so the nonzero Hessian eigenvalues ``h_i`` are those of
    ``A^(1/2) J J^T A^(1/2)`` (``J`` the Jacobian of ``vec C``).  A Gaussian target with
    precision ``nbeta h_i + gamma`` per direction has
    ``E[nbeta (L - L*)] = sum_i nbeta h_i / (2 (nbeta h_i + gamma))``, which tends to
    ``rank / 2 = lambda`` only when ``gamma << nbeta h_i`` for every ``i``.  Also reports
    the gradient at ``w*`` and ``L_n(w*) - min L_n`` (is ``w*`` the minimum?).
    """
    from algebra.numeric.laplace import laplace_prediction
    from algebra.numeric.samplers import top_curvature

    model = samples(a.n)
    comp, w = model.composite, model.w_star
    rows = comp.p * comp.in_dim
    C, vjp = comp.matrix_and_vjp(np.repeat(w[None], rows, axis=0))
    J = vjp(np.eye(rows).reshape(rows, comp.p, comp.in_dim))  # (p q, P)
    A = np.kron(np.eye(comp.p), model.Sxx)
    L = np.linalg.cholesky(A)
    ev = np.sort(np.linalg.eigvalsh(L.T @ (J @ J.T) @ L))[::-1]
    rank = int(np.sum(ev > 1e-8 * ev[0]))
    h = top_curvature(model)
    loss, g = model.loss_and_grad(w[None])
    u = np.linalg.lstsq(J.T, g[0], rcond=None)[0]  # the gradient is J^T u
    drop = 0.5 * float(u @ np.linalg.solve(A, u))  # L_n(w*) - min of the quadratic approximation
    ladder = []
    for s in (1e4, 1e5, 1e6, 1e7, 1e8):
        nb = s / h
        ladder.append({"nbeta_h": s, "nbeta": nb, "prediction_gamma_h": laplace_prediction(ev[:rank], nb, h),
                       "bias_from_loss_drop": nb * drop})
    write(a.out, "diagnose_quadratic", {
        "model": model.name, "rank": rank, "eigenvalues_top": ev[:3].tolist(),
        "eigenvalue_smallest_nonzero": float(ev[rank - 1]), "top_curvature_power_iteration": h,
        "gamma": h, "grad_norm_at_w_star": float(np.linalg.norm(g)),
        "loss_above_minimum": drop, "ladder": ladder, "seed": 0})


def run_speed(a) -> None:
    import torch

    torch.set_num_threads(1)
    a.chains, a.draws = a.chains or 4, a.draws or 200
    model = samples(a.n)
    X = torch.tensor(model.X, dtype=torch.float32)
    Y = torch.tensor(model.Y, dtype=torch.float32)
    steps = a.chains * a.draws
    if a.side == "ours":
        from algebra.numeric.torch_backend import sgld_llc

        net = user_module(torch, model, torch.float32)  # left as it is by sgld_llc: one module, one trace

        def call(chains, draws):
            return sgld_llc(net, half_sse, (X, Y), nbeta=SGLD["n_beta"], gamma=0.0, step_size=SGLD["lr"],
                            num_chains=chains, num_draws=draws, batch_size=SGLD["batch_size"], seed=0,
                            compiled=a.compiled, route=a.route)
    elif a.side == "numpy":
        from algebra.numeric.samplers import sample

        def call(chains, draws):
            run = sample(model, method="sgld", nbeta=SGLD["n_beta"], gamma=0.0, step_size=SGLD["lr"],
                         num_chains=chains, num_draws=draws, num_warmup=0, batch_size=SGLD["batch_size"],
                         seed=0)
            return float(np.nanmean(run.nbeta * (run.losses - run.loss_star)))
    else:
        from llc_devinterp import devinterp_runner

        devinterp = devinterp_runner(torch, X, Y)

        def call(chains, draws):
            return devinterp(user_module(torch, model, torch.float32), chains, draws, SGLD["lr"], SGLD["n_beta"])

    # the warm-up and the baseline run the same chains as the timed call (compiled and traced steps are
    # recorded per chain count on the first call; later calls reuse them)
    base_chains = a.chains
    t0 = time.perf_counter()
    call(base_chains, 16)  # warm caches and imports (and compile)
    warm = time.perf_counter() - t0
    gc.freeze()
    t0 = time.perf_counter()
    call(base_chains, 16)  # the fixed cost of a call, plus its steps
    base = time.perf_counter() - t0
    gc.freeze()
    t0 = time.perf_counter()
    out = call(a.chains, a.draws)
    secs = time.perf_counter() - t0
    est = {"ours": lambda: out.estimate, "numpy": lambda: out}.get(a.side, lambda: float(out["llc_mean"].values))()
    side = a.side + ("_compiled" if a.compiled else f"_{a.route}" if a.side == "ours" and a.route != "eager" else "")
    write(a.out, f"speed_{side}_{a.chains}", {
        "side": side, "chains": a.chains, "draws": a.draws, "steps": steps, "seconds": secs,
        "overhead_seconds": base, "first_call_seconds": warm,
        "steps_per_second": (steps - 16 * base_chains) / max(secs - base, 1e-9),
        "steps_per_second_incl_overhead": steps / secs, "estimate": est, "peak_rss_mib": peak_rss_mib(),
        "num_params": int(model.dim)})


def _load(out, name):
    path = os.path.join(out, name + ".json")
    return json.load(open(path)) if os.path.exists(path) else None


def calibrated_table(out) -> str:
    """One row per ``calibrated_*.json`` in ``out``: estimate, ladder, verdict, cost."""
    from fractions import Fraction

    lines = ["| model | backend | P | n | changed from the frozen procedure | nbeta h: estimate +- se "
             "| estimate +- stderr (exact lambda) | rel. error | verdict | why suspect | seconds | peak RSS |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    names = sorted(f[:-5] for f in os.listdir(out) if f.startswith("calibrated_") and f.endswith(".json"))
    for name in names:
        r = _load(out, name)
        lam = float(Fraction(str(r["exact_lambda"])))
        model = r.get("model", f"quadratic d={SHAPE[0]} p={SHAPE[1]} K={SHAPE[2]}")
        st = r["settings"]
        budget = r.get("budget_changed_from_frozen")
        if budget is None:  # files written before the budget was recorded
            budget = {k: st[k] for k in ("num_chains", "num_draws", "num_warmup", "draws_growth")}
        budget = ", ".join(f"{k} {v:g}" for k, v in budget.items()) or "none reduced"
        ladder = "; ".join(f"{e['nbeta'] * r['curvature']:.0e}: {e['estimate']:.2f} +- {e['stderr']:.2f}"
                           for e in r.get("per_temperature", [])) or "not saved by that run"
        why = "; ".join(r["reasons"])[:160]
        lines.append(f"| {model} | {r['backend']} | {r['num_params']} | {r['n']:.0e} | {budget} | {ladder} | "
                     f"{r['estimate']:.2f} +- {r['stderr']:.2f} ({r['exact_lambda']}) | "
                     f"{100 * (r['estimate'] - lam) / lam:+.1f}% | {r['verdict']} | {why} | {r['seconds']:.0f} | "
                     f"{r['peak_rss_mib']:.0f} MiB |")
    return "\n".join(lines)


def diagnosis_table(out) -> str:
    """The quadratic network's sampled ladder beside the Gaussian prediction with the localizing prior."""
    dg = _load(out, "diagnose_quadratic")
    sampled = _load(out, "calibrated_quadratic_numpy")
    if dg is None:
        return ""
    by_scale = {}
    if sampled:
        by_scale = {round(math.log10(e["nbeta"] * sampled["curvature"])): e for e in sampled["per_temperature"]}
    lines = ["| nbeta h | nbeta | sampled (numpy, calibrated run) | Gaussian prediction, gamma = h | "
             "same, gamma -> 0 | nbeta (L_n(w*) - min L_n) |", "|---|---|---|---|---|---|"]
    for row in dg["ladder"]:
        e = by_scale.get(round(math.log10(row["nbeta_h"])))
        got = f"{e['estimate']:.2f} +- {e['stderr']:.2f}" if e else "-"
        lines.append(f"| {row['nbeta_h']:.0e} | {row['nbeta']:.3g} | {got} | {row['prediction_gamma_h']:.2f} | "
                     f"{dg['rank'] / 2:g} | {row['bias_from_loss_drop']:.4f} |")
    lines.append("")
    lines.append(f"Hessian at w*: rank {dg['rank']}, nonzero eigenvalues {dg['eigenvalue_smallest_nonzero']:.3g} "
                 f"to {dg['eigenvalues_top'][0]:.4g} (power iteration: h = {dg['top_curvature_power_iteration']:.4g}, "
                 f"so gamma = h = {dg['gamma']:.4g}); |grad L_n(w*)| = {dg['grad_norm_at_w_star']:.3g}, "
                 f"L_n(w*) - min L_n = {dg['loss_above_minimum']:.3g}.")
    return "\n".join(lines)


def speed_table(out) -> str:
    sides = (("ours", "ours, generic torch, eager"), ("ours_traced", "ours, generic torch, traced"),
             ("ours_compiled", "ours, compiled"), ("numpy", "ours, numpy gradients"))
    sides = [(side, label) for side, label in sides if any(_load(out, f"speed_{side}_{c}") for c in (4, 64))]
    lines = ["| chains x draws | devinterp (steps/s) | " + " | ".join(f"{label} (steps/s, ratio)" for _, label in sides)
             + " |", "|---" * (len(sides) + 2) + "|"]
    for c in (4, 64):
        d = _load(out, f"speed_devinterp_{c}")
        if not d:
            continue
        cells = []
        for side, _ in sides:
            r = _load(out, f"speed_{side}_{c}")
            cells.append("-" if not r else f"{r['steps_per_second']:.0f} ({r['steps_per_second'] / d['steps_per_second']:.1f}x"
                         f"; first call {r['first_call_seconds']:.1f} s)")
        lines.append(f"| {c} x {d['draws']} | {d['steps_per_second']:.0f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report(a) -> None:
    from llc_devinterp import replace_between_markers

    tables = {"llc_network calibrated": calibrated_table(a.out), "llc_network diagnosis": diagnosis_table(a.out),
              "llc_network speed": speed_table(a.speed_out or a.out)}
    command = "PY benchmarks/llc_network.py " + " ".join(sys.argv[1:])
    for name, body in tables.items():
        print(f"{name}:\n{body}\n")
        if a.write and body.count("\n") > 1:
            replace_between_markers(os.path.join(os.path.dirname(__file__), "..", "BENCHMARKS.md"), name, body,
                                    command)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("command", choices=["calibrated", "diagnose", "speed", "report"])
    p.add_argument("--out", default="/tmp/llc_network")
    p.add_argument("--model", choices=["quadratic", "rrr"], default="quadratic",
                   help="calibrated: the quadratic network (explicit samples) or RRR 100x100x50 r=10")
    p.add_argument("--backend", choices=["numpy", "torch"], default="numpy")
    p.add_argument("--side", choices=["ours", "numpy", "devinterp"], default="ours",
                   help="ours: sgld_llc on the torch module; numpy: the hand-written numpy model")
    p.add_argument("--n", type=int, default=100_000, help="explicit samples (quadratic network)")
    p.add_argument("--chains", type=int, default=None,
                   help="calibrated: chains (default: the frozen procedure's); speed: default 4")
    p.add_argument("--draws", type=int, default=None,
                   help="calibrated: draws at the lowest nbeta (default: frozen); speed: default 200")
    p.add_argument("--warmup", type=int, default=None, help="calibrated: warm-up (default: frozen)")
    p.add_argument("--growth", type=float, default=None,
                   help="calibrated: draws growth per decade of nbeta (default: frozen)")
    p.add_argument("--gamma", type=float, default=None,
                   help="calibrated, diagnosis only: localization gamma (frozen: 1, parameter units)")
    p.add_argument("--tag", default="", help="calibrated: suffix of the JSON file name")
    p.add_argument("--chunk", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--compiled", action="store_true", help="speed --side ours: torch.compile the step")
    p.add_argument("--route", choices=["eager", "traced"], default="eager",
                   help="speed --side ours: the generic step's route (sgld_llc's default is traced)")
    p.add_argument("--speed-out", default=None, help="report: folder of the speed JSON files (default --out)")
    p.add_argument("--write", action="store_true", help="report: also replace the tables in BENCHMARKS.md")
    a = p.parse_args(argv)
    {"calibrated": run_calibrated, "diagnose": run_diagnose, "speed": run_speed,
     "report": report}[a.command](a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
