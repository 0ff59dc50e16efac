"""Side-by-side LLC benchmark: algebra.numeric vs devinterp on the exact-reference suite.

One Python ``PY`` with torch, devinterp and this package (for example ``.venv/bin/python``:
``pip install torch==2.13.0``, then devinterp) runs everything; each step is
also a sub-command:

    # all steps, then rewrite the two tables of BENCHMARKS.md ("Side by side", "Speed")
    nice -n 10 PY benchmarks/llc_devinterp.py all --data /tmp/llc_bench
    # or one at a time:
    PY benchmarks/llc_devinterp.py prepare --out /tmp/llc_bench    # the same samples for both tools
    PY benchmarks/llc_devinterp.py devinterp --data /tmp/llc_bench  # devinterp, README settings
    PY benchmarks/llc_devinterp.py ours --data /tmp/llc_bench       # calibrated + README-setting SGLD
    PY benchmarks/llc_devinterp.py speed --data /tmp/llc_bench      # equal steps, same torch module
    PY benchmarks/llc_devinterp.py report --data /tmp/llc_bench --write

devinterp settings are its README's: SGLD, lr 1e-3, n_beta 30, no
localization, batch 32, 4 chains x 200 draws.  Everything runs single-threaded
(OMP/MKL threads = 1, torch.set_num_threads(1)).

``speed`` times both tools on the same ``torch.nn.Module`` (RRR 5x5x5 r=2,
P = 50, the first suite model) with literally equal steps (chains x draws),
one ``gc.freeze()`` before every timed call (devinterp calls ``gc.collect()``
once per chain, whose cost grows with the objects alive in the process), and
each side's fixed per-call cost measured by a 16-draw call with the same
chains and subtracted with its steps.  The sides alternate over ``--repeats``
rounds and the table reports the median of each.
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

    Each model is built by :func:`algebra.claims.llc_suites.build_model` with
    ``explicit=True`` (every family: factor products, QK, quadratic networks,
    polynomial toys), so this stays in step with the suite.  One ``.npz`` per
    model holds the features ``X``, targets ``Y``, the reference point
    ``w_star`` and what the torch side needs to rebuild the composite.
    """
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from algebra.claims.llc_suites import SUITE, build_model, exact_coefficient

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
    if isinstance(comp, M.PolynomialComposite):
        return {"kind": "poly", "exponents": comp.exponents, "coefficients": comp.coefficients}
    raise TypeError(f"no torch composite for {type(comp).__name__}")


def _item_args(item) -> tuple:
    args = item["args"]
    return (tuple(args[0]), args[1]) if item["family"] == "dln" else tuple(args)


def _model_from_data(item, z):
    """Our numpy model of the saved samples, at the saved reference point."""
    from algebra.numeric import models as M
    from algebra.claims.llc_suites import build_composite

    comp = build_composite(item["family"], _item_args(item))
    return M.RegressionModel.from_samples(item["name"], comp, z["X"], z["Y"], z["w_star"],
                                          family=item["family"])


# ----------------------------------------------------------------------------- devinterp
def devinterp_runner(torch, X, Y):
    """``call(net, chains, draws, lr, n_beta, localization=0.0)`` running devinterp's ``llc`` on ``(X, Y)``.

    devinterp's loss sees indices into the samples (its data set is a list of
    index pairs), so the minibatches are rows of ``X``, ``Y`` as on our side.
    """
    from datasets import Dataset
    from devinterp.slt.llc import llc

    ds = Dataset.from_dict({"input_ids": [[i, i] for i in range(X.shape[0])]}).with_format("torch")

    def loss_fn(model, input_ids):
        idx = input_ids[:, 0].long()
        return 0.5 * ((model(X[idx]) - Y[idx]) ** 2).sum(dim=1, keepdim=True)

    def call(net, chains, draws, lr, n_beta, localization=0.0):
        return llc(net, ds, {}, lr=lr, n_beta=n_beta, loss_fn=loss_fn, num_chains=chains, num_draws=draws,
                   batch_size=DEVINTERP_README["batch_size"], localization=localization,
                   num_init_loss_batches=32, init_seed=0)

    return call


def run_devinterp(data: str) -> None:
    import torch

    torch.set_num_threads(1)
    with open(os.path.join(data, "index.json")) as fh:
        index = json.load(fh)
    results = []
    s = DEVINTERP_README
    for item in index:
        z = np.load(item["path"])
        call = devinterp_runner(torch, torch.tensor(z["X"]), torch.tensor(z["Y"]))
        t0 = time.perf_counter()
        out = call(torch_net(torch, z), s["num_chains"], s["num_draws"], s["lr"], s["n_beta"],
                   s["localization"])
        secs = time.perf_counter() - t0
        est = float(out["llc_mean"].values)
        lam = float(eval_fraction(item["exact_lambda"]))
        results.append({"k": item["k"], "estimate": est, "llc_std": float(out["llc_std"].values),
                        "relative_error": (est - lam) / lam, "seconds": secs,
                        "steps": s["num_chains"] * s["num_draws"]})
        print(item["name"], results[-1], flush=True)
    with open(os.path.join(data, "devinterp.json"), "w") as fh:
        json.dump({"settings": DEVINTERP_README, "results": results,
                   "versions": _versions()}, fh, indent=1)


def _versions() -> dict:
    import importlib.metadata as md
    import platform

    out = {"python": platform.python_version()}
    for name in ("numpy", "torch", "devinterp"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
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
            # index the list, never slice it: a slice of a ParameterList wraps each entry in a new
            # leaf Parameter, so under torch.func.functional_call the factors after the first kept
            # their values at w* and got no gradient
            C = self.ws[0]
            for i in range(1, len(self.ws)):
                C = self.ws[i] @ C
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
            # buffers, so that ``.double()`` converts them with the parameters
            self.register_buffer("factor", torch.tensor(np.where(iu[0] == iu[1], 1.0, 2.0), dtype=torch.float32))

        def forward(self, x):
            S = torch.einsum("jk,ki,kl->jil", self.V, self.W, self.W)
            return x @ (S[:, self.iu[0], self.iu[1]] * self.factor).T

    class PolyNet(torch.nn.Module):
        def __init__(self, exponents, coefficients):
            super().__init__()
            self.w = torch.nn.Parameter(w.clone())
            self.register_buffer("E", torch.tensor(exponents, dtype=torch.float32))
            self.register_buffer("A", torch.tensor(coefficients, dtype=torch.float32))

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
    with open(os.path.join(data, "ours.json"), "w") as fh:
        json.dump({"results": results}, fh, indent=1)


# ----------------------------------------------------------------------------- speed
SPEED_SHAPES = ((4, 1000), (64, 200))  # (chains, draws): equal steps on every side


def half_sse(out, y):
    return 0.5 * ((out - y) ** 2).sum(dim=1).mean()


def run_speed(data: str, *, repeats: int = 3) -> None:
    """Steps per second of devinterp and of our samplers on the same module and samples (module docstring)."""
    import gc

    import torch

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from algebra.numeric.samplers import sample
    from algebra.numeric.torch_backend import sgld_llc

    torch.set_num_threads(1)
    with open(os.path.join(data, "index.json")) as fh:
        item = json.load(fh)[0]
    z = np.load(item["path"])
    X, Y = torch.tensor(z["X"]), torch.tensor(z["Y"])
    model = _model_from_data(item, z)
    s = DEVINTERP_README
    devinterp = devinterp_runner(torch, X, Y)

    def ours(route):
        net = torch_net(torch, z)  # sgld_llc leaves the module as it is: one module serves every call

        def call(chains, draws):
            return sgld_llc(net, half_sse, (X, Y), nbeta=s["n_beta"], gamma=0.0,
                            step_size=s["lr"], num_chains=chains, num_draws=draws,
                            batch_size=s["batch_size"], seed=0, route=route)
        return call

    def numpy_side(**kw):
        def call(chains, draws):
            return sample(model, method="sgld", nbeta=s["n_beta"], gamma=0.0, step_size=s["lr"],
                          num_chains=chains, num_draws=draws, num_warmup=0, seed=0, **kw)
        return call

    sides = {"devinterp": lambda c, d: devinterp(torch_net(torch, z), c, d, s["lr"], s["n_beta"]),
             "torch_eager": ours("eager"), "torch_traced": ours("traced"),
             "numpy_minibatch32": numpy_side(batch_size=s["batch_size"]), "numpy_exact": numpy_side()}
    rows = {f"{side} {c}x{d}": [] for side in sides for c, d in SPEED_SHAPES}
    first = {}
    for side, call in sides.items():  # first calls: imports, caches, one trace per chain count
        t0 = time.perf_counter()
        call(SPEED_SHAPES[0][0], 16)
        first[side] = time.perf_counter() - t0
        for chains, _ in SPEED_SHAPES[1:]:
            call(chains, 16)
    for r in range(repeats):
        for chains, draws in SPEED_SHAPES:
            for side, call in sides.items():
                gc.collect()
                gc.freeze()
                t0 = time.perf_counter()
                call(chains, 16)  # the fixed cost of a call with these chains, plus its 16 draws
                base = time.perf_counter() - t0
                gc.freeze()
                t0 = time.perf_counter()
                call(chains, draws)
                secs = time.perf_counter() - t0
                gc.unfreeze()
                steps = chains * (draws - 16)
                rows[f"{side} {chains}x{draws}"].append(
                    {"seconds": secs, "fixed_seconds": base, "steps": chains * draws,
                     "steps_per_second": steps / max(secs - base, 1e-9),
                     "steps_per_second_incl_fixed": chains * draws / secs, "load_average": os.getloadavg()[0]})
                print(side, chains, draws, f"{rows[f'{side} {chains}x{draws}'][-1]['steps_per_second']:.0f} steps/s",
                      flush=True)
    # the exact full-batch path: cost per step does not grow with n (the same RRR)
    from algebra.numeric import models as M

    exact_n = {}
    for n in (10**3, 10**12):
        m = M.rrr_model(5, 5, 5, 2, n=n, seed=0)
        t0 = time.perf_counter()
        sample(m, method="sgld", nbeta=30.0, gamma=0.0, step_size=1e-3, num_chains=4, num_draws=2000,
               num_warmup=0, seed=0)
        exact_n[f"{n:.0e}"] = 8000 / (time.perf_counter() - t0)
    with open(os.path.join(data, "speed.json"), "w") as fh:
        json.dump({"model": item["name"], "num_params": item["num_params"], "settings": s,
                   "shapes": SPEED_SHAPES, "repeats": repeats, "first_call_seconds": first, "runs": rows,
                   "exact_path_steps_per_second_by_n": exact_n, "versions": _versions()}, fh, indent=1)


# ----------------------------------------------------------------------------- report
SIDE_LABELS = {"devinterp": "devinterp 2.0.1", "torch_eager": "ours, generic torch, eager (before)",
               "torch_traced": "ours, generic torch, traced (now the default)",
               "numpy_minibatch32": "ours, numpy gradients, minibatch 32",
               "numpy_exact": "ours, numpy, exact full batch"}


def side_by_side_table(data: str) -> str:
    with open(os.path.join(data, "index.json")) as fh:
        index = json.load(fh)
    with open(os.path.join(data, "devinterp.json")) as fh:
        dres = {r["k"]: r for r in json.load(fh)["results"]}
    with open(os.path.join(data, "ours.json")) as fh:
        ores = {r["k"]: r for r in json.load(fh)["results"]}
    lines = ["| model | exact lambda (m) | ours, calibrated, same samples | verdict | "
             "our SGLD, README settings | devinterp, README settings (llc_std) |",
             "|---|---|---|---|---|---|"]
    for item in index:
        o, d = ores[item["k"]], dres[item["k"]]
        lines.append(
            f"| {item['name']} | {item['exact_lambda']} ({item['multiplicity']}) | "
            f"{o['estimate']:.3f} +- {o['stderr']:.3f} ({100 * o['relative_error']:+.1f}%) | "
            f"{o['verdict']} | {o['readme_sgld_estimate']:.3f} ({100 * o['readme_sgld_relative_error']:+.1f}%) | "
            f"{d['estimate']:.3f} ({d['llc_std']:.3f}) ({100 * d['relative_error']:+.1f}%) |")
    return "\n".join(lines)


def speed_table(data: str) -> str:
    with open(os.path.join(data, "speed.json")) as fh:
        sp = json.load(fh)

    def values(side, c, d, field="steps_per_second"):
        return np.array([r[field] for r in sp["runs"][f"{side} {c}x{d}"]])

    head = "| side | " + " | ".join(f"{c} chains x {d} draws" for c, d in sp["shapes"]) + \
        " | first call (imports, trace) |"
    lines = [head, "|---" * (len(sp["shapes"]) + 2) + "|"]
    for side, label in SIDE_LABELS.items():
        cells = []
        for c, d in sp["shapes"]:
            v, ref = values(side, c, d), values("devinterp", c, d)
            cell = f"{np.median(v):,.0f}"
            if side != "devinterp":  # ratios within a round (back to back), then the median over rounds
                vi, refi = values(side, c, d, "steps_per_second_incl_fixed"), values("devinterp", c, d,
                                                                                     "steps_per_second_incl_fixed")
                cell += (f" ({np.median(v / ref):.1f}x, rounds {', '.join(f'{x:.0f}' for x in v / ref)}; "
                         f"{np.median(vi / refi):.1f}x incl. fixed)")
            else:
                cell += f" (rounds {', '.join(f'{x:.0f}' for x in v)})"
            cells.append(cell)
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {sp['first_call_seconds'][side]:.2f} s |")
    loads = [r["load_average"] for runs in sp["runs"].values() for r in runs]
    versions = ", ".join(f"{k} {v}" for k, v in sp["versions"].items())
    lines.append("")
    lines.append(f"steps/s = chains x (draws - 16) / (time of the call - time of a 16-draw call with the same "
                 f"chains), median of {sp['repeats']} alternating rounds; in parentheses the ratio to devinterp "
                 f"(median over rounds of the ratio within each round, and each round's ratio), and the same "
                 f"ratio for chains x draws / whole call time.  Load average {min(loads):.1f}-{max(loads):.1f} "
                 f"during the runs; {versions}.  Exact full-batch path (sufficient statistics), 4 chains x 2000 "
                 f"steps: " + ", ".join(f"{v:,.0f} steps/s at n = {k}"
                                        for k, v in sp["exact_path_steps_per_second_by_n"].items()) + ".")
    return "\n".join(lines)


def replace_between_markers(path: str, name: str, body: str, command: str) -> None:
    """Replace the text between ``<!-- name -->`` and ``<!-- /name -->`` in ``path``."""
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    text = open(path).read()
    i, j = text.find(start), text.find(end)
    if i < 0 or j < i:
        raise SystemExit(f"{path}: markers {start} ... {end} not found")
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    block = f"{start}\nWritten by `{command}` on {stamp}.\n\n{body}\n"
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from algebra.files import write_atomic  # a killed report never leaves BENCHMARKS.md half-written

    write_atomic(path, (text[:i] + block + text[j:]).encode())


def report(data: str, *, write: bool = False, command: str | None = None) -> None:
    tables = {"llc_devinterp side-by-side": side_by_side_table(data)}
    if os.path.exists(os.path.join(data, "speed.json")):
        tables["llc_devinterp speed"] = speed_table(data)
    for name, body in tables.items():
        print(f"{name}:\n{body}\n")
        if write:
            replace_between_markers(os.path.join(os.path.dirname(__file__), "..", "BENCHMARKS.md"), name, body,
                                    command or "benchmarks/llc_devinterp.py report --write")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("command", choices=["all", "prepare", "devinterp", "ours", "speed", "report"])
    p.add_argument("--out", "--data", dest="data", default="/tmp/llc_bench")
    p.add_argument("--n", type=int, default=N_BENCH, help="samples per model (prepare)")
    p.add_argument("--repeats", type=int, default=3, help="speed: alternating rounds (median reported)")
    p.add_argument("--write", action="store_true", help="report: rewrite the tables in BENCHMARKS.md")
    a = p.parse_args(argv)
    command = "PY benchmarks/llc_devinterp.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    if a.command in ("all", "prepare"):
        prepare(a.data, n=a.n)
    if a.command in ("all", "devinterp"):
        run_devinterp(a.data)
    if a.command in ("all", "ours"):
        run_ours(a.data)
    if a.command in ("all", "speed"):
        run_speed(a.data, repeats=a.repeats)
    if a.command in ("all", "report"):
        report(a.data, write=a.write or a.command == "all", command=command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
