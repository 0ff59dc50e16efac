"""Optional torch backend: batched SGLD for a user's ``torch.nn.Module`` (GPU when present).

devinterp-style inputs (a module at its trained parameters, a dataset or
DataLoader, a loss), with this package's conventions: all chains advance as
one batched computation (the parameters as one flat vector per chain, a
``torch.func.vmap`` forward pass, one autograd backward pass, by default
replayed from a graph traced once per input shape; optionally
``torch.compile``), one
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

import weakref

import numpy as np

from algebra.errors import InputError

__all__ = ["sgld_llc", "TorchModel"]


def _batches(data, batch_size, generator_np, *, device=None, block: int = 64):
    """Yield ``(inputs, targets)`` forever from tensors or a DataLoader-like iterable, on ``device``.

    Tensor pairs are moved to ``device`` once, and minibatch indices are drawn
    ``block`` steps at a time (one gather per block instead of one index
    conversion and two gathers per step).
    """
    import torch

    if isinstance(data, (tuple, list)) and len(data) == 2 and all(torch.is_tensor(t) for t in data):
        X, Y = (t.to(device) if device is not None else t for t in data)
        n = X.shape[0]
        while True:
            if batch_size is None or batch_size >= n:
                yield X, Y
            else:
                idx = torch.as_tensor(generator_np.integers(0, n, (block, batch_size)), device=X.device)
                Xb, Yb = X[idx], Y[idx]
                for t in range(block):
                    yield Xb[t], Yb[t]
    else:
        while True:
            got = False
            for xb, yb in data:
                got = True
                yield (xb.to(device), yb.to(device)) if device is not None else (xb, yb)
            if not got:
                raise InputError("data", data, "a non-empty DataLoader or a tuple (inputs, targets)")


class _FlatModule:
    """A module's trainable parameters as one flat vector per chain, and the batched loss.

    ``loss_and_grad(W, x, y)`` evaluates all chains (rows of ``W``) as one
    ``torch.func.vmap`` forward and takes the gradient with plain autograd on
    the sum of the chain losses (chains are independent, so row ``c`` of the
    gradient is chain ``c``'s).  Measured on the P = 10^4 quadratic network,
    batch 32, one thread: 1.8 ms per step for 4 chains against 2.1 ms with
    ``vmap(grad(...))``; per-parameter, per-chain tensors cost one kernel
    launch per parameter and chain in the update.
    """

    def __init__(self, module, loss_fn, *, device=None, dtype=None):
        import torch

        star = {k: p.detach() for k, p in module.named_parameters() if p.requires_grad}
        if not star:
            raise InputError("module", type(module).__name__, "a module with trainable parameters")
        self.device = next(iter(star.values())).device if device is None else device
        self.dtype = next(iter(star.values())).dtype if dtype is None else dtype
        self.names = list(star)
        self.shapes = [tuple(star[k].shape) for k in self.names]
        self.sizes = [int(np.prod(sh)) for sh in self.shapes]
        self.module = module
        self.buffers = {k: b.to(self.device) for k, b in module.named_buffers()}
        self.loss_fn = loss_fn
        self.star = torch.cat([star[k].reshape(-1) for k in self.names]).to(self.device, self.dtype)

    def params(self, w) -> dict:
        return {k: t.reshape(sh) for k, t, sh in zip(self.names, w.split(self.sizes, dim=-1), self.shapes)}

    def loss_one(self, w, x, y):
        from torch.func import functional_call

        return self.loss_fn(functional_call(self.module, {**self.params(w), **self.buffers}, (x,)), y)

    def loss(self, W, x, y):
        from torch.func import vmap

        return vmap(self.loss_one, in_dims=(0, None, None))(W, x, y)

    def loss_and_grad(self, W, x, y):
        import torch

        with torch.enable_grad():
            W = W.detach().requires_grad_(True)
            values = self.loss(W, x, y)
            (g,) = torch.autograd.grad(values.sum(), W)
        return values.detach(), g


class _ChainNoise:
    """Standard normal noise of shape (chains, P): chain ``c`` draws from its own generator.

    The draws come in blocks of ``block`` steps per chain (one call per chain
    per block instead of one per chain per step: at 64 chains and P = 10^4
    the per-step calls took 3.9 ms, more than the gradient's share), so the
    memory is ``block x chains x P`` with ``block`` chosen to keep it near
    ``2^24`` numbers.  A chain's noise does not depend on how many chains run.
    """

    def __init__(self, children, dim, *, device, dtype):
        import torch

        self._torch = torch
        self.gens = []
        for c in children:
            g = torch.Generator(device=device)
            g.manual_seed(int(c.generate_state(1, dtype=np.uint64)[0] % (2**63)))
            self.gens.append(g)
        self.dim, self.device, self.dtype = dim, device, dtype
        self.block = int(max(1, min(64, 2**24 // max(1, len(self.gens) * dim))))
        self._buf, self._pos = None, self.block

    def normal(self):
        torch = self._torch
        if self._pos == self.block:
            self._buf = torch.stack([torch.randn((self.block, self.dim), generator=g, device=self.device,
                                                 dtype=self.dtype) for g in self.gens], dim=1)
            self._pos = 0
        out = self._buf[self._pos]
        self._pos += 1
        return out


# Traced steps, per user module: {key: graph}.  Weak keys, so a module that is freed takes its
# graphs with it.
_TRACES = weakref.WeakKeyDictionary()


def _drop_identity_nodes(graph):
    """Remove the graph's no-op nodes: ``detach`` and views or expansions to the shape they already have.

    A trace through ``vmap`` and autograd records every batching-rule
    ``expand``/``view`` and every ``detach``; on a small module they are a
    fifth of the nodes (RRR 5x5x5, 4 chains: 84 nodes before, 66 after), and
    each costs one Python-level dispatch per step.  Unused nodes go too.
    """
    import torch

    aten = torch.ops.aten
    views = (aten.view.default, aten.expand.default, aten._unsafe_view.default)
    for node in list(graph.graph.nodes):
        if node.op != "call_function":
            continue
        src = node.args[0] if node.args else None
        if node.target is aten.detach.default:
            node.replace_all_uses_with(src)
        elif node.target in views and isinstance(src, torch.fx.Node):
            before, after = src.meta.get("val"), node.meta.get("val")
            if (torch.is_tensor(before) and torch.is_tensor(after) and before.shape == after.shape
                    and before.stride() == after.stride()):
                node.replace_all_uses_with(src)
    graph.graph.eliminate_dead_code()
    graph.recompile()
    return graph


class _SGLDStep:
    """One SGLD update of all chains, then the batched loss and gradient at the new point.

    ``step(W, g, xi, x, y) -> (W', L(W'; x, y) - L(w*; x, y), grad L(W'; x, y))`` with
    ``W' = W - eps/2 (nbeta g + gamma (W - w*)) + noise sqrt(eps) xi``.

    ``route`` says how it runs (keyword of :func:`sgld_llc`):

    - ``"traced"`` (default): the eager function is recorded once per input
      shape with ``torch.fx.experimental.proxy_tensor.make_fx`` into a graph of
      the same aten kernels (vmap's batching rules and autograd's backward are
      resolved at trace time), cached per module across calls.  Why the
      default: on a small module the eager step is Python dispatch, not
      arithmetic (RRR 5x5x5, P = 50, batch 32: the eager vmap forward and
      backward cost 2.4 ms at 4 chains against 0.6 ms for a plain
      single-chain forward and backward; BENCHMARKS.md, "Speed").  A trace
      bakes in Python control flow, so every call first compares the
      traced step with the eager one on its first minibatch and falls back
      to eager (``settings["route"]``) when they differ or tracing fails.
      The first trace in a process costs seconds (torch's tracing
      machinery loads), later ones a fraction of a second.
    - ``"eager"``: ``torch.func.vmap`` forward and one autograd backward per step.
    - ``"compiled"``: the eager step through ``torch.compile`` (needs a C compiler).
    """

    def __init__(self, flat, *, nbeta, gamma, eps, noise, route):
        self.flat, self.route = flat, route
        self.consts = (float(nbeta), float(gamma), float(eps), float(noise))
        self.half, self.scale = 0.5 * float(eps), float(noise) * float(eps) ** 0.5
        self.nbeta, self.gamma = float(nbeta), float(gamma)
        self.fallback_reason = None
        self._fn = None
        self._checked = {}
        self._last = (None, None, None)  # shapes and graph of the previous step
        if route == "compiled":
            import torch

            self._fn = torch.compile(self.eager, dynamic=False)

    def eager(self, W, g, xi, x, y, star):
        import torch

        with torch.no_grad():
            W = W - self.half * (self.nbeta * g + self.gamma * (W - star)) + self.scale * xi
        values, g = self.flat.loss_and_grad(W, x, y)
        with torch.no_grad():
            ref = self.flat.loss_one(star, x, y)
        return W, values - ref, g

    def _key(self, W, x, y):
        return (self.flat.loss_fn, self.consts, tuple(W.shape), W.dtype, str(W.device),
                tuple(x.shape), x.dtype, tuple(y.shape), y.dtype)

    def __call__(self, W, g, xi, x, y, star):
        if self.route == "eager":
            return self.eager(W, g, xi, x, y, star)
        if self.route == "compiled":
            return self._fn(W, g, xi, x, y, star)
        if x.shape == self._last[0] and y.shape == self._last[1]:  # the common case: same minibatch shape
            return self._last[2](W, g, xi, x, y, star)
        key = self._key(W, x, y)
        fn = self._checked.get(key)
        if fn is not None:
            self._last = (x.shape, y.shape, fn)
            return fn(W, g, xi, x, y, star)
        # a new input shape: take (or record) its trace and check it against the eager step
        import torch
        from torch.fx.experimental.proxy_tensor import make_fx

        args = (W, g, xi, x, y, star)
        expect = self.eager(*args)
        cache = _TRACES.setdefault(self.flat.module, {})
        try:
            if key not in cache:
                graph = make_fx(lambda W, g, xi, x, y, star: self.eager(W, g, xi, x, y, star))(*args)
                cache[key] = _drop_identity_nodes(graph)
            got = cache[key](*args)
            same = all(torch.allclose(a, b, rtol=1e-5, atol=1e-7, equal_nan=True) for a, b in zip(got, expect))
            if not same:
                self.fallback_reason = "the traced step differs from the eager step"
        except Exception as exc:  # noqa: BLE001 - whatever stops the trace, the eager step still runs
            same = False
            self.fallback_reason = f"trace failed: {type(exc).__name__}: {exc}"[:300]
        if same:
            self._checked[key] = cache[key]
            self._last = (x.shape, y.shape, cache[key])
        else:
            cache.pop(key, None)
            self.route = "eager"
        return expect


def sgld_llc(module, loss_fn, data, *, nbeta: float, gamma: float = 1.0, step_size: float = 1e-4,
             num_chains: int = 4, num_draws: int = 200, num_warmup: int = 0,
             batch_size: int | None = None, noise: float = 1.0, seed: int = 0,
             device=None, divergence_limit: float | None = None, progress: bool = False,
             compiled: bool = False, route: str = "traced", burnin: int | str = "auto"):
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
        Each step costs one batched forward and backward pass of all chains;
        draw ``t`` is the minibatch loss at the point reached after
        ``num_warmup + t + 1`` updates, read off the forward pass that also
        gives the next gradient.
    batch_size : int, optional
        Minibatch size when ``data`` is a tensor pair (None: full batch).
    seed : int
        Root of the SeedSequence; chain ``c`` uses child ``c``.
    device : str or torch.device, optional
        Defaults to the module's device.
    compiled : bool
        Run the step through ``torch.compile`` (needs a C compiler; the
        same as ``route="compiled"``).  Off by default: compiling takes tens
        of seconds per call (27 s on the P = 10^4 quadratic network), which
        pays off only over thousands of steps (BENCHMARKS.md, "Network scale").
    route : {"traced", "eager", "compiled"}
        How each step runs (:class:`_SGLDStep`): ``"traced"`` (default) replays a
        recorded graph of aten kernels, checked against the eager step on the
        first minibatch of every call (falls back to ``"eager"`` when they
        differ; the route used is in ``settings["route"]``).
    burnin : int or "auto"
        Passed to :func:`~algebra.numeric.estimators.estimate_llc`.

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
    from tqdm import tqdm

    from algebra.numeric.estimators import estimate_llc
    from algebra.numeric.samplers import SamplerRun

    if not nbeta > 0 or not step_size > 0 or gamma < 0:
        raise InputError("nbeta, step_size, gamma", (nbeta, step_size, gamma), "nbeta > 0, step_size > 0, gamma >= 0")
    if not isinstance(num_chains, int) or num_chains < 1 or not isinstance(num_draws, int) or num_draws < 1:
        raise InputError("num_chains, num_draws", (num_chains, num_draws), "positive integers")
    if not isinstance(num_warmup, int) or num_warmup < 0:
        raise InputError("num_warmup", num_warmup, "a non-negative integer")
    if route not in ("traced", "eager", "compiled"):
        raise InputError("route", route, "'traced', 'eager' or 'compiled'")
    flat = _FlatModule(module, loss_fn, device=device)
    device, star = flat.device, flat.star
    step = _SGLDStep(flat, nbeta=nbeta, gamma=gamma, eps=step_size, noise=noise,
                     route="compiled" if compiled else route)
    P = star.numel()
    if divergence_limit is None:
        divergence_limit = 1000.0 * (P + 1)

    root = np.random.SeedSequence(seed)
    children = root.spawn(num_chains)
    xi = _ChainNoise(children, P, device=device, dtype=star.dtype)
    stream = _batches(data, batch_size, np.random.default_rng(root.spawn(1)[0]), device=device)
    W = star.unsqueeze(0).repeat(num_chains, 1)
    total = num_warmup + num_draws
    diffs = np.empty((num_chains, num_draws))
    divergent_step = np.full(num_chains, -1)
    eps = float(step_size)
    limit = divergence_limit / nbeta
    # one forward + backward of all chains per step: its loss is the draw for the point reached,
    # its gradient drives the next update; the loss at w* on the same minibatch is one more
    # single-chain forward inside the same step
    x, y = next(stream)
    _, g = flat.loss_and_grad(W, x, y)
    for t in tqdm(range(total), disable=not progress, desc="torch sgld"):
        x, y = next(stream)
        W, cur, g = step(W, g, xi.normal(), x, y, star)
        d = cur.double().cpu().numpy()
        if not (d.max() <= limit):  # a NaN or a runaway chain (max of NaN is NaN)
            bad = (divergent_step < 0) & ~(d <= limit)
            if np.any(bad):
                divergent_step[bad] = t
                W = W.clone()
                W[torch.as_tensor(bad, device=device)] = star
                _, g = flat.loss_and_grad(W, x, y)
        if t >= num_warmup:
            diffs[:, t - num_warmup] = d
    diffs[divergent_step >= 0] = np.nan
    settings = {"backend": "torch", "method": "sgld", "nbeta": nbeta, "gamma": gamma,
                "step_size": eps, "num_chains": num_chains, "num_draws": num_draws,
                "num_warmup": num_warmup, "batch_size": batch_size, "noise": noise,
                "device": str(device), "num_params": P, "compiled": bool(compiled),
                "route": step.route, "route_fallback": step.fallback_reason}
    run = SamplerRun(diffs, 0.0, float(nbeta), float(gamma), np.full(num_chains, eps), None,
                     divergent_step, int(seed), [list(c.spawn_key) for c in children], settings)
    return estimate_llc(run, burnin=burnin)


class TorchModel:
    """A user's ``torch.nn.Module``, data and loss as a model for :func:`calibrated_llc`.

    Parameters
    ----------
    module : torch.nn.Module
        At the reference parameters ``w*`` (a local minimum of the loss; not modified).
    loss_fn : callable
        ``loss_fn(outputs, targets) -> scalar`` mean loss over the batch (an average negative
        log-likelihood, e.g. ``0.5 * ((out - y)**2).sum(-1).mean()`` for unit-variance Gaussian
        noise, for the population target's temperature cap to mean what it says).
    data : tuple (inputs, targets) of tensors, or an iterable of such batches (DataLoader)
        Read once into memory on ``device``.
    n : int, optional
        Sample size that sets the temperature cap (default: number of samples).
    chunk : int, optional
        Samples per vmapped evaluation (default: all); lowers peak memory.
    dtype : torch.dtype, optional
        Default ``torch.float64`` (the samplers work in float64).
    device : torch.device or str, optional
        Where the module and data live (default: the module's).
    name : str, optional
        Label in tables (default: the module's class and ``P``).

    Examples
    --------
    A linear regression with ``P = 3`` parameters at its least-squares point: regular, so the
    learning coefficient of this data set's own loss is ``P / 2`` (``target="empirical"``):

    >>> import torch  # doctest: +SKIP
    >>> from algebra.numeric.calibration import FAST, calibrated_llc  # doctest: +SKIP
    >>> g = torch.Generator().manual_seed(0)  # doctest: +SKIP
    >>> X = torch.randn(2000, 3, generator=g, dtype=torch.float64)  # doctest: +SKIP
    >>> Y = X @ torch.ones(3, 1, dtype=torch.float64) + torch.randn(2000, 1, generator=g, dtype=torch.float64)  # doctest: +SKIP
    >>> net = torch.nn.Linear(3, 1, bias=False).double()  # doctest: +SKIP
    >>> with torch.no_grad():  # doctest: +SKIP
    ...     net.weight.copy_(torch.linalg.lstsq(X, Y).solution.T)
    >>> half_mse = lambda out, y: 0.5 * ((out - y) ** 2).sum(-1).mean()  # doctest: +SKIP
    >>> res = calibrated_llc(TorchModel(net, half_mse, (X, Y)), settings=FAST, target="empirical")  # doctest: +SKIP
    >>> abs(res.estimate - 1.5) < 4 * res.stderr  # doctest: +SKIP
    True

    (Skipped in the doctest run: torch is optional; ``tests/numeric/test_torch_backend.py``
    runs the same.)

    References
    ----------
    The estimator: :func:`algebra.numeric.calibration.calibrated_llc`; the exact reference of a
    regular model, ``P/2``: Watanabe (2009), Thm 6.2.
    """

    def __init__(self, module, loss_fn, data, *, n: int | None = None, chunk: int | None = None,
                 dtype=None, device=None, name: str | None = None):
        import torch

        self._torch = torch
        self.dtype = torch.float64 if dtype is None else dtype
        first = next((p for p in module.parameters() if p.requires_grad), None)
        if first is None:
            raise InputError("module", type(module).__name__, "a module with trainable parameters")
        self.device = first.device if device is None else device
        self.module = module.to(device=self.device, dtype=self.dtype)
        self._flat = _FlatModule(self.module, loss_fn, device=self.device, dtype=self.dtype)
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
        self.w_star = self._flat.star.detach().cpu().double().numpy()
        self.name = name or f"torch {type(module).__name__} (P={self.w_star.size})"
        self.family = "torch"

    @property
    def dim(self) -> int:
        return int(self.w_star.size)

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
        with self._torch.no_grad():
            (out,) = self._over_chunks(lambda W, x, y: (self._flat.loss(W, x, y),), self._tensor(W))
        return out.double().cpu().numpy()

    def loss_and_grad(self, W, batch=None):
        """Full-batch loss and gradient per chain (minibatches: use :func:`sgld_llc`)."""
        if batch is not None:
            raise InputError("batch", "minibatch", "None (TorchModel evaluates the full batch)")
        v, g = self._over_chunks(self._flat.loss_and_grad, self._tensor(W))
        return v.double().cpu().numpy(), g.double().cpu().numpy()

    def hessian_vector(self, w, V) -> np.ndarray:
        """Exact Hessian-vector products ``H(w) v`` for each row of ``V`` (forward-over-reverse)."""
        from torch.func import grad, jvp, vmap

        w_t = self._tensor(w)[0]

        def hvp(v, x, y):
            return jvp(lambda u: grad(self._flat.loss_one)(u, x, y), (w_t,), (v,))[1]

        f = vmap(hvp, in_dims=(0, None, None))
        (out,) = self._over_chunks(lambda Vt, x, y: (f(Vt, x, y),), self._tensor(V))
        return out.double().cpu().numpy()
