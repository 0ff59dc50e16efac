"""Lightning versus softmax attention training (proximity-bias paper, Figure 5).

Setting of Section 4.3 and Appendix G.5 of *Neural models and proximity bias
toward submodels*: ``d = t = 2``, ``a = d' = 1``, ``A = k q^T``, ``V = v^T``.

* lightning attention ``phi(X) = v^T X X^T k q^T X`` = ``psi(q, S)(X)`` with
  ``S = (v k^T + k v^T) / 2`` (Lemma D.8 of that paper);
* softmax attention ``phi(X) = v^T X softmax(X^T k q^T X)`` (softmax over each
  column, so column ``s'`` of the output mixes the values with weights
  ``softmax_s((k . x_s)(q . x_s'))``).

Target ``h = psi(q*, S*)`` with ``|q*| = 1`` and ``S*`` of eigenvalues 1 and
0.2; 512 standard Gaussian inputs; initialization ``(k_0, q*, v_0)`` with
``S_0`` of eigenvalues 1 and -0.05; 500 full-batch Adam steps on ``(k, q, v)``
with the mean squared loss.  We record ``sigma_2(S_t) / sigma_1(S_t)``.
Gradients are analytic numpy (checked against finite differences in the
tests), so torch is not needed.  The paper does not state the Adam learning
rate; we use ``lr = 0.01`` (a keyword argument).
"""

from __future__ import annotations

import numpy as np

from algebra.errors import InputError

__all__ = [
    "lightning_forward",
    "softmax_forward",
    "loss_and_grad",
    "sigma_ratio",
    "train_run",
    "figure5",
    "plot_figure5",
    "MAX_INPUTS",
    "MAX_RUN_STEPS",
    "MAX_WORK",
    "MAX_LR",
]

#: Most inputs of a run: every Adam step forms a few (inputs, 2, 2) float64 arrays (10^6 inputs: ~300 MB).
MAX_INPUTS = 10**6
#: Most runs x steps of :func:`figure5` (each model): every step's ratio is kept (the default 30 x 500 is 15,000).
MAX_RUN_STEPS = 10**6
#: Most runs x steps x inputs (each model): 0.4-2 microseconds each, so 10^9 is under an hour (the default 7.7 x 10^6).
MAX_WORK = 10**9
#: Largest Adam learning rate: Adam moves each parameter by about ``lr`` a step, and the parameters start at
#: norm ~1; above 1 the run leaves the float range (``--lr 1e308`` overflowed to NaN and the SVD failed).
MAX_LR = 1.0


def lightning_forward(params: dict, X: np.ndarray) -> np.ndarray:
    """Outputs ``(v^T X X^T k) q^T X`` for a batch ``X`` of shape (N, d, t) -> (N, t).

    Examples
    --------
    >>> X = np.array([[[1.0, 0.0], [0.0, 2.0]]])
    >>> p = {"k": np.array([1.0, 0.0]), "q": np.array([0.0, 1.0]), "v": np.array([1.0, 1.0])}
    >>> lightning_forward(p, X).tolist()
    [[0.0, 2.0]]
    """
    k, q, v = params["k"], params["q"], params["v"]
    c = (np.einsum("d,nds->ns", v, X) * np.einsum("d,nds->ns", k, X)).sum(axis=1)
    return c[:, None] * np.einsum("d,nds->ns", q, X)


def softmax_forward(params: dict, X: np.ndarray) -> np.ndarray:
    """Outputs ``v^T X softmax(X^T k q^T X)`` (column softmax) -> (N, t)."""
    a = np.einsum("d,nds->ns", params["k"], X)
    b = np.einsum("d,nds->ns", params["q"], X)
    z = np.einsum("d,nds->ns", params["v"], X)
    logits = a[:, :, None] * b[:, None, :]  # (n, s, s')
    logits -= logits.max(axis=1, keepdims=True)
    P = np.exp(logits)
    P /= P.sum(axis=1, keepdims=True)
    return np.einsum("ns,nst->nt", z, P)


def loss_and_grad(params: dict, X: np.ndarray, h: np.ndarray, model: str) -> tuple[float, dict]:
    """Mean squared loss ``mean_n sum_s (f - h)^2`` and its gradient in (k, q, v)."""
    k, q, v = params["k"], params["q"], params["v"]
    N = X.shape[0]
    a = np.einsum("d,nds->ns", k, X)
    b = np.einsum("d,nds->ns", q, X)
    z = np.einsum("d,nds->ns", v, X)
    if model == "lightning":
        c = (a * z).sum(axis=1)
        f = c[:, None] * b
        r = f - h
        e = 2.0 * r / N
        g_c = (e * b).sum(axis=1)
        g_b = e * c[:, None]
        g_a = g_c[:, None] * z
        g_z = g_c[:, None] * a
    elif model == "softmax":
        logits = a[:, :, None] * b[:, None, :]
        logits -= logits.max(axis=1, keepdims=True)
        P = np.exp(logits)
        P /= P.sum(axis=1, keepdims=True)
        f = np.einsum("ns,nst->nt", z, P)
        r = f - h
        e = 2.0 * r / N
        g_z = np.einsum("nt,nst->ns", e, P)
        g_l = e[:, None, :] * P * (z[:, :, None] - f[:, None, :])
        g_a = np.einsum("nst,nt->ns", g_l, b)
        g_b = np.einsum("nst,ns->nt", g_l, a)
    else:
        raise InputError("model", model, "'lightning' or 'softmax'")
    loss = float((r * r).sum() / N)
    grad = {"k": np.einsum("ns,nds->d", g_a, X), "q": np.einsum("ns,nds->d", g_b, X),
            "v": np.einsum("ns,nds->d", g_z, X)}
    return loss, grad


def sigma_ratio(k, v) -> float:
    """``sigma_2(S) / sigma_1(S)`` for ``S = (v k^T + k v^T) / 2``.

    Examples
    --------
    >>> sigma_ratio(np.array([1.0, 0.0]), np.array([1.0, 0.0]))
    0.0
    >>> round(sigma_ratio(np.array([1.0, 0.0]), np.array([0.0, 1.0])), 12)
    1.0
    """
    S = 0.5 * (np.outer(v, k) + np.outer(k, v))
    s = np.linalg.svd(S, compute_uv=False)
    return float(s[1] / s[0]) if s[0] > 0 else 0.0


def _rotation(theta):
    return np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])


def _setup(rng, n_inputs):
    q_star = _rotation(rng.uniform(0, 2 * np.pi)) @ np.array([1.0, 0.0])
    R = _rotation(rng.uniform(0, 2 * np.pi))
    S_star = R @ np.diag([1.0, 0.2]) @ R.T
    X = rng.normal(size=(n_inputs, 2, 2))
    h = np.einsum("nds,de,nes->n", X, S_star, X)[:, None] * np.einsum("d,nds->ns", q_star, X)
    # S_0 = sym(v k^T) has eigenvalues (v.k +- |v||k|)/2 = 1, -0.05
    norm = np.sqrt(1.05)
    ang = np.arccos(0.95 / 1.05)
    base = rng.uniform(0, 2 * np.pi)
    k0 = norm * np.array([np.cos(base), np.sin(base)])
    v0 = norm * np.array([np.cos(base + ang), np.sin(base + ang)])
    return X, h, {"k": k0, "q": q_star.copy(), "v": v0}


def train_run(model: str, seed, *, steps: int = 500, n_inputs: int = 512, lr: float = 0.01) -> dict:
    """One Adam run; returns losses and ``sigma_2/sigma_1`` at steps 0..steps.

    Examples
    --------
    >>> out = train_run("lightning", 0, steps=5, n_inputs=16)
    >>> len(out["ratio"]), round(out["ratio"][0], 12)
    (6, 0.05)
    """
    if not (isinstance(steps, int) and steps >= 0):
        raise InputError("steps", steps, "a nonnegative integer")
    rng = np.random.default_rng(seed)
    X, h, params = _setup(rng, n_inputs)
    m = {k: np.zeros(2) for k in params}
    s = {k: np.zeros(2) for k in params}
    b1, b2, eps_adam = 0.9, 0.999, 1e-8
    ratios = [sigma_ratio(params["k"], params["v"])]
    losses = []
    for t in range(1, steps + 1):
        loss, g = loss_and_grad(params, X, h, model)
        losses.append(loss)
        for name in params:
            m[name] = b1 * m[name] + (1 - b1) * g[name]
            s[name] = b2 * s[name] + (1 - b2) * g[name] ** 2
            mhat = m[name] / (1 - b1**t)
            shat = s[name] / (1 - b2**t)
            params[name] = params[name] - lr * mhat / (np.sqrt(shat) + eps_adam)
        if not all(np.isfinite(v).all() for v in params.values()):  # the loss left the float range
            raise InputError("lr", lr, f"a learning rate at which the run stays finite (it overflowed at step {t})")
        ratios.append(sigma_ratio(params["k"], params["v"]))
    return {"model": model, "ratio": ratios, "loss": losses, "params": params}


def figure5(*, runs: int = 30, steps: int = 500, n_inputs: int = 512, seed: int = 0,
            lr: float = 0.01, progress: bool = False) -> dict:
    """Median and interquartile range of ``sigma_2/sigma_1`` over ``runs`` runs, both models.

    Run ``i`` of both models uses the same child seed (same target, inputs and
    initialization), spawned from ``seed`` by ``numpy.random.SeedSequence``.
    """
    from tqdm import tqdm

    for name, value in (("runs", runs), ("steps", steps), ("n_inputs", n_inputs)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(name, value, "a positive integer")
    if n_inputs > MAX_INPUTS:
        raise InputError("n_inputs", n_inputs, f"at most {MAX_INPUTS:,} inputs (MAX_INPUTS)")
    if runs * steps > MAX_RUN_STEPS:
        raise InputError("runs" if runs > steps else "steps", runs if runs > steps else steps,
                         f"runs x steps at most {MAX_RUN_STEPS:,} (MAX_RUN_STEPS; asked for {runs * steps:,})")
    if runs * steps * n_inputs > MAX_WORK:
        sizes = {"runs": runs, "steps": steps, "n_inputs": n_inputs}
        name = max(sizes, key=sizes.get)
        raise InputError(name, sizes[name], f"runs x steps x inputs at most {MAX_WORK:,} (MAX_WORK; asked for "
                                            f"{runs * steps * n_inputs:,})")
    if not (isinstance(lr, (int, float)) and 0 < lr <= MAX_LR):
        raise InputError("lr", lr, f"a learning rate in (0, {MAX_LR:g}] (MAX_LR)")
    children = np.random.SeedSequence(seed).spawn(runs)
    out = {"runs": runs, "steps": steps, "n_inputs": n_inputs, "seed": seed, "lr": lr, "models": {}}
    for model in ("lightning", "softmax"):
        R = np.array([train_run(model, c, steps=steps, n_inputs=n_inputs, lr=lr)["ratio"]
                      for c in tqdm(children, desc=model, disable=not progress)])
        q25, q50, q75 = np.percentile(R, [25, 50, 75], axis=0)
        out["models"][model] = {"median": q50.tolist(), "q25": q25.tolist(), "q75": q75.tolist(),
                                "runs": R[:8].tolist(), "final_median": float(q50[-1])}
    return out


def plot_figure5(result: dict, path) -> str:
    """Plot the Figure 5 reproduction (median, IQR band, 8 faint runs) to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for model, colour in (("lightning", "C0"), ("softmax", "C3")):
        r = result["models"][model]
        steps = np.arange(len(r["median"]))
        for run in r["runs"]:
            ax.plot(steps, run, color=colour, alpha=0.15, lw=0.8)
        ax.fill_between(steps, r["q25"], r["q75"], color=colour, alpha=0.25)
        ax.plot(steps, r["median"], color=colour, lw=2, label=f"{model} attention")
    ax.set_xlabel("Adam step t")
    ax.set_ylabel(r"$\sigma_2(S_t)/\sigma_1(S_t)$")
    ax.set_title(f"{result['runs']} runs: median, IQR, 8 runs")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)
