"""Side-by-side LLC benchmark: algebra.numeric vs devinterp on the exact-reference suite.

Two Python environments are involved, so the script has sub-commands:

    # 1. (project venv) write each suite model's data: the same samples for both tools
    .venv/bin/python benchmarks/llc_devinterp.py prepare --out /tmp/llc_bench
    # 2. (benchmark venv: pip install torch==2.13.0 devinterp) devinterp on those samples
    /work/bench-venv-llc/bin/python benchmarks/llc_devinterp.py devinterp --data /tmp/llc_bench
    # 3. (project venv) ours on the same samples, plus the speed measurements
    .venv/bin/python benchmarks/llc_devinterp.py ours --data /tmp/llc_bench
    # 4. (project venv) merge into a markdown table
    .venv/bin/python benchmarks/llc_devinterp.py report --data /tmp/llc_bench
    # speed only (rerun both when the shared machine is quiet):
    #   devinterp-speed (benchmark venv), ours-speed (project venv)

devinterp settings are its README's: SGLD, lr 1e-3, n_beta 30, no
localization, batch 32, 4 chains x 200 draws.  Everything runs single-threaded
(OMP/MKL threads = 1, torch.set_num_threads(1)).
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

N_BENCH = 100_000
DEVINTERP_README = {"lr": 1e-3, "n_beta": 30.0, "localization": 0.0, "num_chains": 4,
                    "num_draws": 200, "batch_size": 32}


# ----------------------------------------------------------------------------- prepare
def prepare(out: str) -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from algebra.numeric import models as M
    from algebra.numeric.suite import SUITE, exact_coefficient

    os.makedirs(out, exist_ok=True)
    index = []
    for k, e in enumerate(SUITE):
        lc = exact_coefficient(e.family, e.args)
        rng = np.random.default_rng(np.random.SeedSequence(1000 + k))
        if e.family == "qk":
            d, kk, r = e.args
            widths = (d, kk, d)
        elif e.family == "dln":
            widths, r = e.args
        elif e.family == "rrr":
            Mi, N, H, r = e.args
            widths = (Mi, H, N)
        else:
            a, b = e.args
            widths, r = (a, b), min(a, b)
        comp = M.FactorProduct(widths)
        fs = M._teacher_factors(widths, r, rng)
        qin, _ = np.linalg.qr(rng.standard_normal((widths[0], widths[0])))
        qout, _ = np.linalg.qr(rng.standard_normal((widths[-1], widths[-1])))
        fs[0], fs[-1] = fs[0] @ qin, qout @ fs[-1]
        w0 = comp.pack(fs)
        C = comp.matrix(w0[None])[0]
        if e.family == "qk":
            x = rng.standard_normal((N_BENCH, widths[0]))
            z = rng.standard_normal((N_BENCH, widths[0]))
            X = (x[:, :, None] * z[:, None, :]).reshape(N_BENCH, -1)
            Y = X @ C.reshape(-1, 1) + rng.standard_normal((N_BENCH, 1))
        else:
            X = rng.standard_normal((N_BENCH, widths[0]))
            Y = X @ C.T + rng.standard_normal((N_BENCH, widths[-1]))
        model = _model_from_data(widths, X, Y, w0, e.family)
        path = os.path.join(out, f"model_{k}.npz")
        np.savez(path, X=X.astype(np.float32), Y=Y.astype(np.float32), w_star=model.w_star,
                 widths=np.array(widths))
        index.append({"k": k, "family": e.family, "args": json.loads(json.dumps(e.args)),
                      "name": model.name, "exact_lambda": str(lc.lam), "multiplicity": lc.multiplicity,
                      "widths": list(widths), "flatten": e.family == "qk", "path": path,
                      "num_params": comp.num_params})
    with open(os.path.join(out, "index.json"), "w") as fh:
        json.dump(index, fh, indent=1)
    print(f"wrote {len(index)} models to {out}")


def _model_from_data(widths, X, Y, w0, family):
    from algebra.numeric import models as M

    comp = M.FactorProduct(widths)
    if family == "qk":
        comp = M._Flattened(comp)
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    n = X.shape[0]
    model = M.RegressionModel(f"{family} {tuple(widths)}", comp, X.T @ X / n, X.T @ Y / n,
                              float(np.sum(Y**2) / n), n, np.asarray(w0, dtype=float), X=X, Y=Y,
                              family=family)
    return model.refine_minimum()


# ----------------------------------------------------------------------------- devinterp
def run_devinterp(data: str) -> None:
    import torch
    from datasets import Dataset
    from devinterp.slt.llc import llc

    torch.set_num_threads(1)
    with open(os.path.join(data, "index.json")) as fh:
        index = json.load(fh)
    results = []
    for item in index:
        z = np.load(item["path"])
        X = torch.tensor(z["X"])
        Y = torch.tensor(z["Y"])
        widths = [int(v) for v in z["widths"]]
        net = _torch_factor_net(torch, widths, z["w_star"], item["flatten"])
        ds = Dataset.from_dict({"input_ids": [[i, i] for i in range(X.shape[0])]}).with_format("torch")

        def loss_fn(model, input_ids, X=X, Y=Y):
            idx = input_ids[:, 0].long()
            pred = model(X[idx])
            return 0.5 * ((pred - Y[idx]) ** 2).sum(dim=1, keepdim=True)

        s = DEVINTERP_README
        t0 = time.perf_counter()
        out = llc(net, ds, {}, lr=s["lr"], n_beta=s["n_beta"], loss_fn=loss_fn,
                  num_chains=s["num_chains"], num_draws=s["num_draws"], batch_size=s["batch_size"],
                  localization=s["localization"], num_init_loss_batches=32, init_seed=0)
        secs = time.perf_counter() - t0
        est = float(out["llc_mean"].values)
        lam = float(eval_fraction(item["exact_lambda"]))
        results.append({"k": item["k"], "estimate": est, "llc_std": float(out["llc_std"].values),
                        "relative_error": (est - lam) / lam, "seconds": secs,
                        "steps": s["num_chains"] * s["num_draws"]})
        print(item["name"], results[-1], flush=True)
    speed = _devinterp_speed(torch, Dataset, llc, index[0])
    with open(os.path.join(data, "devinterp.json"), "w") as fh:
        json.dump({"settings": DEVINTERP_README, "results": results, "speed": speed}, fh, indent=1)


def _devinterp_speed(torch, Dataset, llc, item) -> dict:
    """Steps per second at 4 and 64 chains, and the fixed per-call overhead (1 draw)."""
    z = np.load(item["path"])
    X, Y = torch.tensor(z["X"]), torch.tensor(z["Y"])
    widths = [int(v) for v in z["widths"]]
    ds = Dataset.from_dict({"input_ids": [[i, i] for i in range(X.shape[0])]}).with_format("torch")

    def loss_fn(model, input_ids):
        idx = input_ids[:, 0].long()
        return 0.5 * ((model(X[idx]) - Y[idx]) ** 2).sum(dim=1, keepdim=True)

    out = {}
    for chains, draws in ((1, 1), (4, 200), (64, 50)):
        net = _torch_factor_net(torch, widths, z["w_star"], item["flatten"])
        t0 = time.perf_counter()
        llc(net, ds, {}, lr=1e-3, n_beta=30.0, loss_fn=loss_fn, num_chains=chains, num_draws=draws,
            batch_size=32, num_init_loss_batches=32, init_seed=0)
        out[f"{chains}x{draws}"] = {"seconds": time.perf_counter() - t0, "steps": chains * draws}
    base = out["1x1"]["seconds"]
    for key in ("4x200", "64x50"):
        v = out[key]
        v["steps_per_second"] = v["steps"] / max(v["seconds"] - base, 1e-9)
        v["steps_per_second_incl_overhead"] = v["steps"] / v["seconds"]
    out["overhead_seconds"] = base
    return out


def _torch_factor_net(torch, widths, w_star, flatten):
    class FactorNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            ws = []
            off = 0
            for i in range(len(widths) - 1):
                r, c = widths[i + 1], widths[i]
                ws.append(torch.nn.Parameter(torch.tensor(w_star[off:off + r * c].reshape(r, c),
                                                          dtype=torch.float32)))
                off += r * c
            self.ws = torch.nn.ParameterList(ws)

        def forward(self, x):
            C = self.ws[0]
            for w in self.ws[1:]:
                C = w @ C
            if flatten:
                C = C.reshape(1, -1)
            return x @ C.T

    return FactorNet()


def eval_fraction(text: str):
    from fractions import Fraction

    return Fraction(text)


def run_devinterp_speed(data: str) -> None:
    """Only the speed measurement (rerun when the shared machine is quiet)."""
    import torch
    from datasets import Dataset
    from devinterp.slt.llc import llc

    torch.set_num_threads(1)
    with open(os.path.join(data, "index.json")) as fh:
        index = json.load(fh)
    path = os.path.join(data, "devinterp.json")
    with open(path) as fh:
        saved = json.load(fh)
    saved["speed"] = _devinterp_speed(torch, Dataset, llc, index[0])
    with open(path, "w") as fh:
        json.dump(saved, fh, indent=1)
    print(json.dumps(saved["speed"], indent=1))


def run_ours_speed(data: str) -> None:
    with open(os.path.join(data, "index.json")) as fh:
        index = json.load(fh)
    path = os.path.join(data, "ours.json")
    with open(path) as fh:
        saved = json.load(fh)
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    saved["speed"] = _our_speed(index[0])
    with open(path, "w") as fh:
        json.dump(saved, fh, indent=1)
    print(json.dumps(saved["speed"], indent=1))


# ----------------------------------------------------------------------------- ours
def run_ours(data: str) -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from algebra.numeric.calibration import calibrated_llc
    from algebra.numeric.samplers import sample

    with open(os.path.join(data, "index.json")) as fh:
        index = json.load(fh)
    results = []
    for item in index:
        z = np.load(item["path"])
        model = _model_from_data([int(v) for v in z["widths"]], z["X"], z["Y"], z["w_star"],
                                 item["family"])
        model.w_star = np.asarray(z["w_star"], dtype=float)
        lam = float(eval_fraction(item["exact_lambda"]))
        t0 = time.perf_counter()
        res = calibrated_llc(model, seed=0)
        results.append({"k": item["k"], "estimate": res.estimate, "stderr": res.stderr,
                        "covered": bool(res.ci95[0] <= lam <= res.ci95[1]),
                        "relative_error": (res.estimate - lam) / lam, "verdict": res.verdict,
                        "reasons": list(res.reasons), "seconds": time.perf_counter() - t0})
        # README-setting SGLD with our sampler on the same data (minibatch 32, same steps)
        run = sample(model, method="sgld", nbeta=30.0, gamma=0.0, step_size=1e-3, num_chains=4,
                     num_draws=200, num_warmup=0, batch_size=32, seed=0)
        est = float(np.nanmean(run.nbeta * (run.losses - run.loss_star)))
        results[-1]["readme_sgld_estimate"] = est
        results[-1]["readme_sgld_relative_error"] = (est - lam) / lam
        print(item["name"], results[-1], flush=True)
    speed = _our_speed(index[0])
    with open(os.path.join(data, "ours.json"), "w") as fh:
        json.dump({"results": results, "speed": speed}, fh, indent=1)


def _our_speed(item) -> dict:
    from algebra.numeric import models as M
    from algebra.numeric.samplers import sample

    z = np.load(item["path"])
    model = _model_from_data([int(v) for v in z["widths"]], z["X"], z["Y"], z["w_star"], item["family"])
    out = {}
    t0 = time.perf_counter()
    sample(model, method="sgld", nbeta=30.0, gamma=0.0, step_size=1e-3, num_chains=1, num_draws=1,
           num_warmup=0, batch_size=32, seed=0)
    out["overhead_seconds"] = time.perf_counter() - t0
    for chains, draws in ((4, 2000), (64, 2000)):
        for label, kw in (("minibatch32", {"batch_size": 32}), ("exact_full_batch", {})):
            t0 = time.perf_counter()
            sample(model, method="sgld", nbeta=30.0, gamma=0.0, step_size=1e-3, num_chains=chains,
                   num_draws=draws, num_warmup=0, seed=0, **kw)
            secs = time.perf_counter() - t0
            out[f"{chains}x{draws} {label}"] = {"seconds": secs, "steps": chains * draws,
                                                "steps_per_second": chains * draws / secs}
    # exact full-batch path: cost per step does not grow with n
    widths = [int(v) for v in z["widths"]]
    for n in (10**3, 10**6, 10**9, 10**12):
        m = M.rrr_model(widths[0], widths[-1], widths[1], 2, n=n, seed=0)
        t0 = time.perf_counter()
        sample(m, method="sgld", nbeta=30.0, gamma=0.0, step_size=1e-3, num_chains=4, num_draws=2000,
               num_warmup=0, seed=0)
        secs = time.perf_counter() - t0
        out[f"exact path n={n:.0e}"] = {"seconds": secs, "steps_per_second": 8000 / secs}
    return out


# ----------------------------------------------------------------------------- report
def report(data: str) -> None:
    with open(os.path.join(data, "index.json")) as fh:
        index = json.load(fh)
    with open(os.path.join(data, "devinterp.json")) as fh:
        dv = json.load(fh)
    with open(os.path.join(data, "ours.json")) as fh:
        ours = json.load(fh)
    dres = {r["k"]: r for r in dv["results"]}
    ores = {r["k"]: r for r in ours["results"]}
    lines = ["| model (widths) | exact lambda (m) | ours, calibrated, same samples | verdict | "
             "our SGLD, README settings | devinterp, README settings (llc_std) |",
             "|---|---|---|---|---|---|"]
    for item in index:
        o, d = ores[item["k"]], dres[item["k"]]
        lines.append(
            f"| {item['name']} | {item['exact_lambda']} ({item['multiplicity']}) | "
            f"{o['estimate']:.3f} +- {o['stderr']:.3f} ({100 * o['relative_error']:+.1f}%) | "
            f"{o['verdict']} | {o['readme_sgld_estimate']:.3f} ({100 * o['readme_sgld_relative_error']:+.1f}%) | "
            f"{d['estimate']:.3f} ({d['llc_std']:.3f}) ({100 * d['relative_error']:+.1f}%) |")
    print("\n".join(lines))
    print()
    print("speed (single thread):")
    print(json.dumps({"devinterp": dv["speed"], "ours": ours["speed"]}, indent=1))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("command", choices=["prepare", "devinterp", "ours", "report", "devinterp-speed",
                                       "ours-speed"])
    p.add_argument("--out", "--data", dest="data", default="/tmp/llc_bench")
    a = p.parse_args(argv)
    {"prepare": prepare, "devinterp": run_devinterp, "ours": run_ours, "report": report,
     "devinterp-speed": run_devinterp_speed, "ours-speed": run_ours_speed}[a.command](a.data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
