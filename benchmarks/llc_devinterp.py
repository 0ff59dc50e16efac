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
def prepare(out: str, *, entries=None, n: int = N_BENCH) -> list:
    """Write every suite model's explicit samples (the same data for both tools).

    Each model is built by :func:`algebra.numeric.suite.build_model` with
    ``explicit=True`` (every family: factor products, QK, quadratic networks,
    polynomial toys), so this stays in step with the suite.  One ``.npz`` per
    model holds the features ``X``, targets ``Y``, the reference point
    ``w_star`` and what the torch side needs to rebuild the composite.
    """
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from algebra.numeric.suite import SUITE, build_model, exact_coefficient

    entries = SUITE if entries is None else entries
    os.makedirs(out, exist_ok=True)
    index = []
    for k, e in enumerate(entries):
        lc = exact_coefficient(e.family, e.args)
        model = build_model(e.family, e.args, seed=1000 + k, n=n, explicit=True)
        path = os.path.join(out, f"model_{k}.npz")
        np.savez(path, X=model.X.astype(np.float32), Y=model.Y.astype(np.float32), w_star=model.w_star,
                 **_torch_spec(model.composite))
        index.append({"k": k, "family": e.family, "args": json.loads(json.dumps(e.args)),
                      "name": model.name, "exact_lambda": str(lc.lam), "multiplicity": lc.multiplicity,
                      "path": path, "num_params": model.dim, "n": n})
    with open(os.path.join(out, "index.json"), "w") as fh:
        json.dump(index, fh, indent=1)
    print(f"wrote {len(index)} models to {out}")
    return index


def _torch_spec(comp) -> dict:
    """Arrays that describe the composite to the torch side (no pickles)."""
    from algebra.numeric import models as M

    if isinstance(comp, M._Flattened):
        return {"kind": "factors", "widths": np.array(comp.inner.widths), "flatten": True}
    if isinstance(comp, M.FactorProduct):
        return {"kind": "factors", "widths": np.array(comp.widths), "flatten": False}
    if isinstance(comp, M.QuadraticForms):
        return {"kind": "quadratic", "dpk": np.array([comp.d, comp.p, comp.K])}
    if isinstance(comp, M.PolynomialMap):
        return {"kind": "poly", "exponents": comp.exponents, "coefficients": comp.coefficients}
    raise TypeError(f"no torch composite for {type(comp).__name__}")


def _item_args(item) -> tuple:
    args = item["args"]
    return (tuple(args[0]), args[1]) if item["family"] == "dln" else tuple(args)


def _model_from_data(item, z):
    """Our numpy model of the saved samples, at the saved reference point."""
    from algebra.numeric import models as M
    from algebra.numeric.suite import build_composite

    comp = build_composite(item["family"], _item_args(item))
    return M.RegressionModel.from_samples(item["name"], comp, z["X"], z["Y"], z["w_star"],
                                          family=item["family"])


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
        net = torch_net(torch, z)
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
    ds = Dataset.from_dict({"input_ids": [[i, i] for i in range(X.shape[0])]}).with_format("torch")

    def loss_fn(model, input_ids):
        idx = input_ids[:, 0].long()
        return 0.5 * ((model(X[idx]) - Y[idx]) ** 2).sum(dim=1, keepdim=True)

    out = {}
    for chains, draws in ((1, 1), (4, 200), (64, 50)):
        net = torch_net(torch, z)
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


def torch_net(torch, z):
    """A ``torch.nn.Module`` computing ``x @ C(w).T`` for the composite saved by :func:`prepare`.

    The parameters start at ``w_star`` in the packing of :mod:`algebra.numeric.models`
    (factor matrices row-major; quadratic ``(vec W, vec V)``; polynomial
    variables in order), so both tools sample the same loss from the same point.
    """
    kind = str(z["kind"])
    w = torch.tensor(np.asarray(z["w_star"]), dtype=torch.float32)

    class FactorNet(torch.nn.Module):
        def __init__(self, widths, flatten):
            super().__init__()
            ws, off = [], 0
            for i in range(len(widths) - 1):
                r, c = int(widths[i + 1]), int(widths[i])
                ws.append(torch.nn.Parameter(w[off:off + r * c].reshape(r, c).clone()))
                off += r * c
            self.ws = torch.nn.ParameterList(ws)
            self.flatten = flatten

        def forward(self, x):
            C = self.ws[0]
            for f in self.ws[1:]:
                C = f @ C
            if self.flatten:
                C = C.reshape(1, -1)
            return x @ C.T

    class QuadraticNet(torch.nn.Module):
        def __init__(self, d, p, K):
            super().__init__()
            self.W = torch.nn.Parameter(w[:K * d].reshape(K, d).clone())
            self.V = torch.nn.Parameter(w[K * d:].reshape(p, K).clone())
            iu = np.triu_indices(d)
            self.iu = (torch.as_tensor(iu[0]), torch.as_tensor(iu[1]))
            self.factor = torch.tensor(np.where(iu[0] == iu[1], 1.0, 2.0), dtype=torch.float32)

        def forward(self, x):
            S = torch.einsum("jk,ki,kl->jil", self.V, self.W, self.W)
            return x @ (S[:, self.iu[0], self.iu[1]] * self.factor).T

    class PolyNet(torch.nn.Module):
        def __init__(self, exponents, coefficients):
            super().__init__()
            self.w = torch.nn.Parameter(w.clone())
            self.E = torch.tensor(exponents, dtype=torch.float32)
            self.A = torch.tensor(coefficients, dtype=torch.float32)

        def forward(self, x):
            monos = torch.prod(self.w[None, :] ** self.E, dim=1)
            return x @ (self.A @ monos)[:, None]

    if kind == "factors":
        return FactorNet([int(v) for v in z["widths"]], bool(z["flatten"]))
    if kind == "quadratic":
        return QuadraticNet(*(int(v) for v in z["dpk"]))
    if kind == "poly":
        return PolyNet(np.asarray(z["exponents"]), np.asarray(z["coefficients"]))
    raise ValueError(f"unknown composite kind {kind!r}")


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
        model = _model_from_data(item, z)
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
    model = _model_from_data(item, z)
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
    # exact full-batch path: cost per step does not grow with n (same RRR as the speed model)
    for n in (10**3, 10**6, 10**9, 10**12):
        m = M.rrr_model(5, 5, 5, 2, n=n, seed=0)
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
    p.add_argument("--n", type=int, default=N_BENCH, help="samples per model (prepare)")
    a = p.parse_args(argv)
    if a.command == "prepare":
        prepare(a.data, n=a.n)
        return 0
    {"devinterp": run_devinterp, "ours": run_ours, "report": report,
     "devinterp-speed": run_devinterp_speed, "ours-speed": run_ours_speed}[a.command](a.data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
