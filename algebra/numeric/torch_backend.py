"""Optional torch backend: batched SGLD for a user's ``torch.nn.Module`` (GPU when present).

devinterp-style inputs (a module at its trained parameters, a dataset or
DataLoader, a loss), with this package's conventions: all chains advance as
one batched computation (``torch.func.vmap`` over stacked parameters), one
:class:`numpy.random.SeedSequence` gives each chain its own generator, and
the sampled loss is compared with ``L(w*)`` *on the same minibatch* at every
step, so the minibatch noise of ``L(w*)`` does not enter the estimate (the
error that devinterp's separate init-loss batches add, of order
``nbeta * sd(loss) / sqrt(samples)``).  Divergent chains are reported with
their step.  The result is an :class:`~algebra.numeric.estimators.LLCEstimate`.

:class:`TorchModel` wraps a module, its data and loss in the interface the
numpy samplers use (``w_star``, ``loss``, ``loss_and_grad``, ``hessian_vector``
on batched parameters), so :func:`~algebra.numeric.calibration.calibrated_llc`
gives a user's network the same calibrated estimate, error bars and verdict
as the built-in models (full-batch HMC; chains batched with ``torch.func.vmap``,
the data streamed in chunks, so memory is ``O(chains x (P + chunk x width))``).

torch is imported inside the functions; without it they raise ImportError.
"""

from __future__ import annotations

import numpy as np

from algebra.errors import InputError

__all__ = ["sgld_llc", "TorchModel"]


def _batches(data, batch_size, generator_np, n_hint=None):
    """Yield ``(inputs, targets)`` forever from tensors or a DataLoader-like iterable."""
    import torch

    if isinstance(data, (tuple, list)) and len(data) == 2 and all(torch.is_tensor(t) for t in data):
        X, Y = data
        n = X.shape[0]
        while True:
            if batch_size is None or batch_size >= n:
                yield X, Y
            else:
                idx = torch.as_tensor(generator_np.integers(0, n, batch_size), device=X.device)
                yield X[idx], Y[idx]
    else:
        while True:
            got = False
            for xb, yb in data:
                got = True
                yield xb, yb
            if not got:
                raise InputError("data", data, "a non-empty DataLoader or a tuple (inputs, targets)")


def sgld_llc(module, loss_fn, data, *, nbeta: float, gamma: float = 1.0, step_size: float = 1e-4,
             num_chains: int = 4, num_draws: int = 200, num_warmup: int = 0,
             batch_size: int | None = None, noise: float = 1.0, seed: int = 0,
             device=None, divergence_limit: float | None = None, progress: bool = False):
    """Estimate the LLC of ``module`` at its current parameters with batched SGLD in torch.

    Parameters
    ----------
    module : torch.nn.Module
        At the reference parameters ``w*`` (not modified).
    loss_fn : callable
        ``loss_fn(outputs, targets) -> scalar`` mean loss over the batch.
    data : tuple (inputs, targets) of tensors, or an iterable of such batches (DataLoader)
    nbeta, gamma, step_size : float
        Inverse temperature, localization, SGLD step (update
        ``w <- w - eps/2 (nbeta grad L + gamma (w - w*)) + sqrt(eps) xi``).
    num_chains, num_draws, num_warmup : int
    batch_size : int, optional
        Minibatch size when ``data`` is a tensor pair (None: full batch).
    seed : int
        Root of the SeedSequence; chain ``c`` uses child ``c``.
    device : str or torch.device, optional
        Defaults to the module's device.

    Returns
    -------
    LLCEstimate

    Examples
    --------
    >>> import torch  # doctest: +SKIP
    >>> net = torch.nn.Linear(3, 1, bias=False)  # doctest: +SKIP
    >>> X = torch.randn(1000, 3); Y = net(X).detach() + torch.randn(1000, 1)  # doctest: +SKIP
    >>> est = sgld_llc(net, torch.nn.functional.mse_loss, (X, Y), nbeta=100.0)  # doctest: +SKIP
    """
    import torch
    from torch.func import functional_call, grad, vmap

    from algebra.numeric.estimators import estimate_llc
    from algebra.numeric.samplers import SamplerRun

    if not nbeta > 0 or not step_size > 0 or gamma < 0:
        raise InputError("nbeta, step_size, gamma", (nbeta, step_size, gamma), "nbeta > 0, step_size > 0, gamma >= 0")
    if not isinstance(num_chains, int) or num_chains < 1 or not isinstance(num_draws, int) or num_draws < 1:
        raise InputError("num_chains, num_draws", (num_chains, num_draws), "positive integers")
    names = [n for n, p in module.named_parameters() if p.requires_grad]
    star = {n: p.detach() for n, p in module.named_parameters() if p.requires_grad}
    if device is None:
        device = next(iter(star.values())).device
    star = {n: t.to(device) for n, t in star.items()}
    P = sum(t.numel() for t in star.values())
    if divergence_limit is None:
        divergence_limit = 1000.0 * (P + 1)
    buffers = {n: b.to(device) for n, b in module.named_buffers()}

    root = np.random.SeedSequence(seed)
    children = root.spawn(num_chains)
    gens = []
    for c in children:
        g = torch.Generator(device=device)
        g.manual_seed(int(c.generate_state(1, dtype=np.uint64)[0] % (2**63)))
        gens.append(g)
    batch_rng = np.random.default_rng(root.spawn(1)[0])

    def loss_of(params, x, y):
        return loss_fn(functional_call(module, ({**params, **buffers}), (x,)), y)

    grad_loss = vmap(grad(loss_of), in_dims=(0, None, None))
    batched_loss = vmap(loss_of, in_dims=(0, None, None))
    params = {n: t.unsqueeze(0).repeat((num_chains,) + (1,) * t.dim()).clone() for n, t in star.items()}
    stream = _batches(data, batch_size, batch_rng)
    total = num_warmup + num_draws
    diffs = np.empty((num_chains, num_draws))
    divergent_step = np.full(num_chains, -1)
    eps = float(step_size)
    from tqdm import tqdm

    for t in tqdm(range(total), disable=not progress, desc="torch sgld"):
        x, y = next(stream)
        x, y = x.to(device), y.to(device)
        with torch.no_grad():
            g = grad_loss(params, x, y)
            for n in names:
                noise_t = torch.stack([torch.randn(star[n].shape, generator=gens[c], device=device)
                                       for c in range(num_chains)])
                drift = nbeta * g[n] + gamma * (params[n] - star[n])
                params[n] = params[n] - 0.5 * eps * drift + noise * (eps ** 0.5) * noise_t
            cur = batched_loss(params, x, y)
            ref = loss_of(star, x, y)
            d = (cur - ref).double().cpu().numpy()
        bad = (divergent_step < 0) & (~np.isfinite(d) | (nbeta * d > divergence_limit))
        if np.any(bad):
            divergent_step[bad] = t
            with torch.no_grad():
                for n in names:
                    params[n][torch.as_tensor(bad, device=device)] = star[n]
        if t >= num_warmup:
            diffs[:, t - num_warmup] = d
    diffs[divergent_step >= 0] = np.nan
    settings = {"backend": "torch", "method": "sgld", "nbeta": nbeta, "gamma": gamma,
                "step_size": eps, "num_chains": num_chains, "num_draws": num_draws,
                "num_warmup": num_warmup, "batch_size": batch_size, "noise": noise,
                "device": str(device), "num_params": P}
    run = SamplerRun(diffs, 0.0, float(nbeta), float(gamma), np.full(num_chains, eps), None,
                     divergent_step, int(seed), [list(c.spawn_key) for c in children], settings)
    return estimate_llc(run)


class TorchModel:
    """A user's ``torch.nn.Module``, data and loss as a model for :func:`calibrated_llc`.

    Parameters
    ----------
    module : torch.nn.Module
        At the reference parameters ``w*`` (a local minimum of the loss; not modified).
    loss_fn : callable
        ``loss_fn(outputs, targets) -> scalar`` mean loss over the batch.
    data : tuple (inputs, targets) of tensors, or an iterable of such batches (DataLoader)
        Read once into memory on ``device``.
    n : int, optional
        Sample size that sets the temperature cap (default: number of samples).
    chunk : int, optional
        Samples per vmapped evaluation (default: all); lowers peak memory.
    dtype : torch.dtype, optional
        Default ``torch.float64`` (the samplers work in float64).

    Examples
    --------
    >>> import torch  # doctest: +SKIP
    >>> from algebra.numeric.calibration import calibrated_llc  # doctest: +SKIP
    >>> net = torch.nn.Linear(3, 1, bias=False).double()  # doctest: +SKIP
    >>> X = torch.randn(20000, 3, dtype=torch.float64); Y = X @ torch.ones(3, 1) + torch.randn(20000, 1)  # doctest: +SKIP
    >>> res = calibrated_llc(TorchModel(net, half_mse, (X, Y)))   # lambda = 3/2  # doctest: +SKIP
    """

    def __init__(self, module, loss_fn, data, *, n: int | None = None, chunk: int | None = None,
                 dtype=None, device=None, name: str | None = None):
        import torch

        self._torch = torch
        self.dtype = torch.float64 if dtype is None else dtype
        star = {k: p.detach() for k, p in module.named_parameters() if p.requires_grad}
        if not star:
            raise InputError("module", type(module).__name__, "a module with trainable parameters")
        self.device = next(iter(star.values())).device if device is None else device
        self.names = list(star)
        self.shapes = [tuple(star[k].shape) for k in self.names]
        self.sizes = [int(np.prod(sh)) for sh in self.shapes]
        self.module = module.to(device=self.device, dtype=self.dtype)
        self.buffers = {k: b.to(self.device) for k, b in module.named_buffers()}
        self.loss_fn = loss_fn
        if isinstance(data, (tuple, list)) and len(data) == 2 and all(torch.is_tensor(t) for t in data):
            X, Y = data
        else:
            parts = list(data)
            if not parts:
                raise InputError("data", data, "a non-empty DataLoader or a tuple (inputs, targets)")
            X = torch.cat([p[0] for p in parts])
            Y = torch.cat([p[1] for p in parts])
        cast = (lambda t: t.to(self.device, self.dtype)) if X.is_floating_point() else (lambda t: t.to(self.device))
        self.X = cast(X)
        self.Y = Y.to(self.device, self.dtype) if Y.is_floating_point() else Y.to(self.device)
        self.n = int(n if n is not None else self.X.shape[0])
        self.chunk = int(chunk or self.X.shape[0])
        if self.chunk < 1:
            raise InputError("chunk", chunk, "a positive integer")
        self.w_star = np.concatenate([star[k].detach().cpu().double().numpy().ravel() for k in self.names])
        self.name = name or f"torch {type(module).__name__} (P={self.w_star.size})"
        self.family = "torch"

    @property
    def dim(self) -> int:
        return int(self.w_star.size)

    def _params(self, w):
        out, off = {}, 0
        for k, sh, sz in zip(self.names, self.shapes, self.sizes):
            out[k] = w[off:off + sz].reshape(sh)
            off += sz
        return out

    def _loss_one(self, w, x, y):
        from torch.func import functional_call

        return self.loss_fn(functional_call(self.module, {**self._params(w), **self.buffers}, (x,)), y)

    def _over_chunks(self, fn, W):
        """Sample-weighted mean over data chunks of ``fn(W, x, y)`` (a tuple of tensors)."""
        N = self.X.shape[0]
        total = None
        for start in range(0, N, self.chunk):
            x, y = self.X[start:start + self.chunk], self.Y[start:start + self.chunk]
            part = fn(W, x, y)
            part = tuple(t * (x.shape[0] / N) for t in part)
            total = part if total is None else tuple(a + b for a, b in zip(total, part))
        return total

    def _tensor(self, W):
        return self._torch.as_tensor(np.atleast_2d(W), dtype=self.dtype, device=self.device)

    def loss(self, W) -> np.ndarray:
        """Full-batch loss for each row of ``W`` (chains, P)."""
        from torch.func import vmap

        f = vmap(self._loss_one, in_dims=(0, None, None))
        with self._torch.no_grad():
            (out,) = self._over_chunks(lambda W, x, y: (f(W, x, y),), self._tensor(W))
        return out.double().cpu().numpy()

    def loss_and_grad(self, W, batch=None):
        """Full-batch loss and gradient per chain (minibatches: use :func:`sgld_llc`)."""
        from torch.func import grad_and_value, vmap

        if batch is not None:
            raise InputError("batch", "minibatch", "None (TorchModel evaluates the full batch)")
        f = vmap(grad_and_value(self._loss_one), in_dims=(0, None, None))
        g, v = self._over_chunks(lambda W, x, y: f(W, x, y), self._tensor(W))
        return v.double().cpu().numpy(), g.double().cpu().numpy()

    def hessian_vector(self, w, V) -> np.ndarray:
        """Exact Hessian-vector products ``H(w) v`` for each row of ``V`` (forward-over-reverse)."""
        from torch.func import grad, jvp, vmap

        w_t = self._tensor(w)[0]

        def hvp(v, x, y):
            return jvp(lambda u: grad(self._loss_one)(u, x, y), (w_t,), (v,))[1]

        f = vmap(hvp, in_dims=(0, None, None))
        (out,) = self._over_chunks(lambda Vt, x, y: (f(Vt, x, y),), self._tensor(V))
        return out.double().cpu().numpy()
