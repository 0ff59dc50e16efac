"""LLC at network scale (P >= 10^4) on a user's torch module: calibrated estimate and speed.

The model is the quadratic network ``y = V (W x)^2 + noise`` with d = 6
inputs, p = 4 outputs and K = 1000 hidden units (P = K (d + p) = 10,000
parameters; exact lambda = 42 by the grokking paper's Theorem 4.1, certified
secant dimension 84), ``n`` explicit samples from its generic teacher
(:func:`algebra.numeric.models.quadratic_network_model`).  The same samples
and the same ``torch.nn.Module`` (``torch_net`` of ``llc_devinterp.py``)
serve every side.  Each sub-command is its own process (peak RSS is the
process's own) and writes one JSON file into ``--out``:

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
measured with a 1-chain 16-draw call and subtracted with its 16 steps; with
``--compiled`` the first call compiles for its chain count and later calls
reuse it, so the warm-up and baseline calls run the same number of chains
and the compile time is reported apart.  Everything runs single-threaded.
"""

from __future__ import annotations

import argparse
import gc
import json
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


def run_calibrated(a) -> None:
    from algebra.numeric.calibration import CalibrationSettings, calibrated_llc
    from algebra.numeric.suite import exact_coefficient

    model = samples(a.n)
    if a.backend == "torch":
        import torch

        torch.set_num_threads(1)
        from algebra.numeric.torch_backend import TorchModel

        net = user_module(torch, model, torch.float64)
        target = TorchModel(net, half_sse, (torch.tensor(model.X), torch.tensor(model.Y)), chunk=a.chunk)
    else:
        target = model
    settings = CalibrationSettings(num_chains=a.chains, num_draws=a.draws, num_warmup=a.warmup,
                                   draws_growth=1.0)
    rss0 = peak_rss_mib()
    t0 = time.perf_counter()
    res = calibrated_llc(target, settings=settings, seed=a.seed)
    secs = time.perf_counter() - t0
    lam = float(exact_coefficient("quadratic", SHAPE).lam)
    write(a.out, f"calibrated_{a.backend}", {
        "backend": a.backend, "num_params": int(target.dim), "n": a.n, "exact_lambda": lam,
        "estimate": res.estimate, "stderr": res.stderr, "verdict": res.verdict, "reasons": list(res.reasons),
        "nbetas": res.settings["nbetas"], "curvature": res.curvature, "seconds": secs,
        "per_temperature": [{"nbeta": e.nbeta, "estimate": e.estimate, "stderr": e.stderr}
                            for e in res.per_temperature],
        "peak_rss_mib": peak_rss_mib(), "rss_before_sampling_mib": rss0,
        "settings": settings.to_json(), "seed": a.seed})


def run_speed(a) -> None:
    import torch

    torch.set_num_threads(1)
    model = samples(a.n)
    X = torch.tensor(model.X, dtype=torch.float32)
    Y = torch.tensor(model.Y, dtype=torch.float32)
    steps = a.chains * a.draws
    if a.side == "ours":
        from algebra.numeric.torch_backend import sgld_llc

        def call(chains, draws):
            net = user_module(torch, model, torch.float32)
            return sgld_llc(net, half_sse, (X, Y), nbeta=SGLD["n_beta"], gamma=0.0, step_size=SGLD["lr"],
                            num_chains=chains, num_draws=draws, batch_size=SGLD["batch_size"], seed=0,
                            compiled=a.compiled)
    elif a.side == "numpy":
        from algebra.numeric.samplers import sample

        def call(chains, draws):
            run = sample(model, method="sgld", nbeta=SGLD["n_beta"], gamma=0.0, step_size=SGLD["lr"],
                         num_chains=chains, num_draws=draws, num_warmup=0, batch_size=SGLD["batch_size"],
                         seed=0)
            return float(np.nanmean(run.nbeta * (run.losses - run.loss_star)))
    else:
        from datasets import Dataset
        from devinterp.slt.llc import llc

        ds = Dataset.from_dict({"input_ids": [[i, i] for i in range(X.shape[0])]}).with_format("torch")

        def loss_fn(module, input_ids):
            idx = input_ids[:, 0].long()
            return 0.5 * ((module(X[idx]) - Y[idx]) ** 2).sum(dim=1, keepdim=True)

        def call(chains, draws):
            net = user_module(torch, model, torch.float32)
            return llc(net, ds, {}, lr=SGLD["lr"], n_beta=SGLD["n_beta"], loss_fn=loss_fn, num_chains=chains,
                       num_draws=draws, batch_size=SGLD["batch_size"], num_init_loss_batches=32, init_seed=0)

    # compiled: the first call compiles for its chain count (later calls reuse it), so the warm-up
    # and the baseline run the same chains as the timed call
    base_chains = a.chains if a.compiled else 1
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
    side = a.side + ("_compiled" if a.compiled else "")
    write(a.out, f"speed_{side}_{a.chains}", {
        "side": side, "chains": a.chains, "draws": a.draws, "steps": steps, "seconds": secs,
        "overhead_seconds": base, "first_call_seconds": warm,
        "steps_per_second": (steps - 16 * base_chains) / max(secs - base, 1e-9),
        "steps_per_second_incl_overhead": steps / secs, "estimate": est, "peak_rss_mib": peak_rss_mib(),
        "num_params": int(model.dim)})


def report(a) -> None:
    def load(name):
        path = os.path.join(a.out, name + ".json")
        return json.load(open(path)) if os.path.exists(path) else None

    lines = ["| backend | P | n | nbeta h used | estimate +- stderr (exact 42) | verdict | seconds | peak RSS |",
             "|---|---|---|---|---|---|---|---|"]
    for b in ("numpy", "torch"):
        r = load(f"calibrated_{b}")
        if r:
            used = ", ".join(f"{v * r['curvature']:.3g}" for v in r["nbetas"])
            lines.append(f"| {b} | {r['num_params']} | {r['n']} | {used} | {r['estimate']:.2f} +- "
                         f"{r['stderr']:.2f} | {r['verdict']} | {r['seconds']:.0f} | "
                         f"{r['peak_rss_mib']:.0f} MiB |")
    lines += ["", "| chains x draws | devinterp (steps/s) | ours, generic torch (steps/s, ratio) | "
              "ours, compiled (steps/s, ratio; compile s) | ours, numpy gradients |", "|---|---|---|---|---|"]
    for c in (4, 64):
        d, o, oc, on = (load(f"speed_{s}_{c}") for s in ("devinterp", "ours", "ours_compiled", "numpy"))
        if not d:
            continue
        cells = []
        for r in (o, oc, on):
            cells.append("-" if not r else f"{r['steps_per_second']:.0f} ({r['steps_per_second'] / d['steps_per_second']:.1f}x)")
        if oc:
            cells[1] += f"; {oc['first_call_seconds'] - oc['overhead_seconds']:.0f} s"
        lines.append(f"| {c} x {d['draws']} | {d['steps_per_second']:.0f} | {cells[0]} | {cells[1]} | {cells[2]} |")
    print("\n".join(lines))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("command", choices=["calibrated", "speed", "report"])
    p.add_argument("--out", default="/tmp/llc_network")
    p.add_argument("--backend", choices=["numpy", "torch"], default="numpy")
    p.add_argument("--side", choices=["ours", "numpy", "devinterp"], default="ours",
                   help="ours: sgld_llc on the torch module; numpy: the hand-written numpy model")
    p.add_argument("--n", type=int, default=100_000, help="explicit samples")
    p.add_argument("--chains", type=int, default=4)
    p.add_argument("--draws", type=int, default=200)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--chunk", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--compiled", action="store_true", help="speed --side ours: torch.compile the step")
    a = p.parse_args(argv)
    {"calibrated": run_calibrated, "speed": run_speed, "report": report}[a.command](a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
