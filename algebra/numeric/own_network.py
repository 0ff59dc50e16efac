"""The LLC of a researcher's own ``torch.nn.Module``: minibatch SGLD that sets itself up and says what it estimates.

:func:`llc` takes a module at its trained parameters ``w*``, a loss and the data, and needs no tuning
argument.  Every default is stated here with its reason (issue 34):

* **Target: the empirical one.**  A sampler started at ``w*`` on the data set's own loss ``L_n`` estimates
  the learning coefficient of ``L_n - L_n(w*)`` at ``w*`` (``target = "empirical"``), never the
  population one; for deep linear networks both exact values are reported (:func:`deep_linear_reference`).
* **Temperature ``nbeta = n / log n``**: Watanabe's WBIC temperature (Watanabe 2013, JMLR 14, Thm 4), the
  one at which ``E[n L_n]`` under the tempered posterior is ``n L_n* + lambda log n`` to leading order.
* **Localization ``gamma = GAMMA_SCALE * P / ||w*||^2``** (``GAMMA_SCALE = 0.1``): the prior
  ``gamma/2 ||w - w*||^2`` has standard deviation ``sqrt(||w*||^2 / P) / sqrt(GAMMA_SCALE)``, about three
  times the root-mean-square weight of the module itself, so it does not depend on ``n`` and rescales with
  the parameters (``w -> a w`` sends ``gamma -> gamma /
  a^2``).  Its effect on the identifiable directions is measured at the settings used
  (:func:`~algebra.numeric.laplace.localization_deficit`; above 1% is a ``suspect`` reason).
* **Sampler: RMSProp-preconditioned SGLD** (Li et al. 2016), the best sampler of the largest published
  LLC benchmark; the preconditioner ``1 / (sqrt(V) + 1e-8)`` starts at ``V = nbeta diag(H) + gamma`` (the
  squared drift's stationary mean in a quadratic direction; the drift itself is 0 at ``w*`` on data the
  module fits exactly), adapts (``V`` the running mean of the squared drift, ``alpha = 0.99``) during warm-up only and is frozen for the kept draws, so the kept chain is SGLD
  with a constant diagonal preconditioner (no missing ``Gamma`` correction term).  Plain SGLD is
  ``sampler="sgld"`` (its accuracy against RMSProp's on the design models is not yet measured).
* **Step size by a pilot search**: steps ``eps_max 2^-k`` (``eps_max`` the largest step whose discretisation
  bias of the Gaussian part, predicted from the Hessian spectrum, is at most :data:`STEP_BIAS`:
  :func:`_step_for_bias`), the largest whose pilot chains stay finite and
  stationary (first-half and second-half means of the draws agree within 3 standard errors across
  chains, or within :data:`DRIFT_REL` of the estimate); then a run at half that step (twice the steps, every
  other draw kept) must agree with the chosen one within 2 combined standard errors or :data:`HALVING_REL`,
  else the step is halved again (at most :data:`MAX_HALVINGS` times).
* **Chains and draws by diagnostics**: :data:`CHAINS` chains (the standard error comes from their
  independent means); after :data:`WARMUP` warm-up steps, draws are added in blocks of :data:`DRAW_BLOCK`
  until split R-hat ``<= 1.01`` and ESS ``>= 400``, up to :data:`MAX_DRAWS`; the first :data:`BURN` of
  the draws is discarded (the chains' relaxation from ``w*``).

Design (BENCHMARKS.md, "Own network LLC"): on four deep linear twins (P = 400 to 4,000, noiseless data)
``GAMMA_SCALE = 1`` read -23% and -39% on the first two where ``0.1`` read -4% and -30% (the localization
truncates the singular directions), with the chains started at ``drift^2 = 0``; after the preconditioner's
start at ``nbeta diag(H) + gamma``, a 1% predicted step bias (``STEP_BIAS``) read -2.4% and -6.5% where 5%
read +2.9% and -1.9% (a larger step relaxes the slow directions sooner; the half-step check guards the
bias).  The error bars are within-call: separate calls at neighbouring steps moved by up to 8% on the
design set, more than their standard errors, which is why the half-step check has a relative floor.
* **Minibatch** :data:`BATCH` samples (tensor data; a DataLoader's own batches otherwise): the sampled loss is
  compared with ``L(w*)`` on the same minibatch at every step, as in
  :func:`~algebra.numeric.torch_backend.sgld_llc`.

The finite-temperature (Laplace) prediction at the settings used: at a minimum with Hessian ``H`` of
``L_n`` (eigenvalues ``h_i``), the localized tempered posterior ``exp(-nbeta (L_n - L_n*) - gamma/2 ||w -
w*||^2)`` is Gaussian with precision ``A = nbeta H + gamma I`` (quadratic ``L_n``), so ``E[nbeta (L_n -
L_n*)] = nbeta/2 tr(H A^-1) = sum_i nbeta h_i / (2 (nbeta h_i + gamma))``
(:func:`~algebra.numeric.laplace.laplace_prediction`; degenerate directions contribute 0 in this reading).
With a gradient ``g`` at ``w*`` the posterior mean moves to ``-nbeta A^-1 g`` and the expectation falls by
``nbeta^2/2 (g' A^-1 g + gamma g' A^-2 g)`` (the *gradient shift*, computed by conjugate gradients on
Hessian-vector products): above 1% of the Laplace value, ``w*`` is not a minimum at the sampler's
resolution and that is the first ``suspect`` reason, as is a negative Hessian eigenvalue.  The spectrum
is dense up to ``P = DENSE_MAX``; above, stochastic Lanczos quadrature (:data:`PROBES` Rademacher probes,
:data:`LANCZOS_K` steps; Ubaru, Chen & Saad 2017) gives the Laplace value with a standard error, and the
Hessian-vector products run on a random subsample of at most ``CURVATURE_WORK / P`` rows (cost bounded).

Speed: a sampler step is one call of a graph recorded once with ``make_fx`` (update, vmapped loss and
gradient of all chains), ``L_b(w*)`` is gathered from per-sample losses at ``w*`` computed once, minibatch
indices are drawn 64 steps at a time, and the loss trace stays on the device until a 64-step block ends:
20 ms -> 1.6 ms per step at P = 24 (8 chains; ``sgld_llc``: 1.4 ms), 0.86x, 1.03x and 1.00x ``sgld_llc``'s
step by CPU clock at P = 10^3, 10^4, 10^5 (one thread; BENCHMARKS.md, "Own network LLC").

torch is imported inside the functions.
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

import algebra.inputs as inputs
from algebra.errors import InputError

__all__ = ["OwnNetworkLLC", "llc", "check_settings", "exact_twin", "half_squared_error", "linear_layers", "deep_linear_reference",
           "GAMMA_SCALE", "CHAINS", "BATCH"]

GAMMA_SCALE = 0.1  # gamma = GAMMA_SCALE * P / ||w*||^2 (design set, BENCHMARKS.md "Own network LLC")
CHAINS = 8
BATCH = 256
PILOT_WARMUP, PILOT_DRAWS = 100, 100
DRIFT_REL = 0.1  # pilot stationarity: half-to-half drift within 3 se or this fraction of the estimate
WARMUP = 500
DRAW_BLOCK, MAX_DRAWS = 500, 4000
BURN = 0.5  # fraction of the kept run's draws discarded as relaxation before the estimate
RHAT_MAX, ESS_MIN = 1.01, 400.0
GRID_LEVELS = 14
MAX_HALVINGS = 2
HALVING_REL = 0.02  # the half-step check's relative tolerance floor (design set)
RMS_ALPHA, RMS_EPS = 0.99, 1e-8
BLOCK = 64  # steps per drawn index block and per host read-back of the loss trace
SHIFT_MAX = 0.01  # gradient shift / Laplace value
STEP_BIAS = 0.05  # the pilot's largest step: predicted discretisation bias of the Gaussian part (_step_for_bias)
DEFICIT_MAX = 0.01
NEG_CURVATURE = 1e-6  # a Hessian eigenvalue below -NEG_CURVATURE * top is negative curvature (float64 HVPs)
DENSE_MAX, LANCZOS_K, PROBES, CG_ITERS = 1000, 40, 4, 50
CURVATURE_WORK = 2 * 10**8  # samples x P of the Hessian-vector products: at most this many / P samples
RANK_GAP = 10.0  # consecutive singular values of the product differing by this factor separate the rank
FLINT_MAX_WIDTH = 64  # exact (fmpq) rank of the stored product up to this width


@dataclass(frozen=True)
class OwnNetworkLLC:
    """Result of :func:`llc` (and of each twin of :func:`check_settings`).

    ``estimate`` and ``stderr`` (across independent chains) estimate the learning coefficient named by
    ``target``; ``laplace`` is the Gaussian prediction at ``settings``; ``reference`` the exact values
    where the module is a deep linear network (else None); ``verdict`` is ``"ok"`` or ``"suspect"`` with
    ``reasons`` (a non-minimum first).
    """

    estimate: float
    stderr: float
    rhat: float
    ess: float
    seed: int
    target: str
    verdict: str
    reasons: tuple
    settings: dict
    laplace: float | None
    spectrum: dict
    chain_estimates: tuple
    halving: tuple = ()
    pilot: tuple = ()
    reference: dict | None = None
    wall_time: float = field(default=float("nan"), compare=False)

    def to_json(self) -> dict:
        ref = None
        if self.reference is not None:
            ref = {k: (str(v) if isinstance(v, Fraction) else v) for k, v in self.reference.items()}
            for key in ("population", "empirical"):
                if isinstance(ref.get(key), dict):
                    ref[key] = {k: (str(v) if isinstance(v, Fraction) else v) for k, v in ref[key].items()}
        return {"estimate": self.estimate, "stderr": self.stderr, "rhat": self.rhat, "ess": self.ess,
                "seed": self.seed, "target": self.target, "verdict": self.verdict, "reasons": list(self.reasons),
                "settings": dict(self.settings), "laplace": self.laplace, "spectrum": dict(self.spectrum),
                "chain_estimates": list(self.chain_estimates), "halving": [dict(h) for h in self.halving],
                "pilot": [dict(p) for p in self.pilot], "reference": ref, "wall_time": self.wall_time}


# ------------------------------------------------------------------------------------------ input


def _data_size(data) -> int:
    import torch

    if isinstance(data, (tuple, list)) and len(data) == 2 and all(torch.is_tensor(t) for t in data):
        X, Y = data
        if X.ndim < 1 or Y.ndim < 1 or X.shape[0] != Y.shape[0]:
            raise InputError("data", f"tensors of shapes {tuple(X.shape)}, {tuple(Y.shape)}",
                             "a pair (inputs, targets) with the same number of rows")
        return int(X.shape[0])
    dataset = getattr(data, "dataset", None)
    if dataset is not None and hasattr(dataset, "__len__") and hasattr(data, "__iter__"):
        return int(len(dataset))
    raise InputError("data", type(data).__name__, "a tuple (inputs, targets) of tensors or a DataLoader")


def _check_module(module):
    import torch

    if not isinstance(module, torch.nn.Module):
        raise InputError("module", type(module).__name__, "a torch.nn.Module")
    if not any(p.requires_grad for p in module.parameters()):
        raise InputError("module", type(module).__name__, "a module with trainable parameters")


# ------------------------------------------------------------------------------- deep linear networks


def linear_layers(module):
    """The ``Linear`` layers of ``module`` in order if it computes their composition, else None.

    Recognised: every parameterised leaf is a ``torch.nn.Linear``, consecutive layers chain
    (``out_features`` of one is ``in_features`` of the next), and the module's forward on 16 random
    inputs equals the composed affine map (float64 copy, relative difference below ``1e-9``) -- so a
    ``ReLU`` in the ``Sequential`` or an activation in a hand-written ``forward`` is caught.

    Examples
    --------
    >>> import torch  # doctest: +SKIP
    >>> net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Linear(3, 2))  # doctest: +SKIP
    >>> len(linear_layers(net))  # doctest: +SKIP
    2
    >>> linear_layers(torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2)))  # doctest: +SKIP
    """
    import torch

    leaves = [m for m in module.modules() if not list(m.children()) and list(m.parameters(recurse=False))]
    if not leaves or not all(type(m) is torch.nn.Linear for m in leaves):
        return None
    if any(a.out_features != b.in_features for a, b in zip(leaves, leaves[1:])):
        return None
    twin = copy.deepcopy(module).to(device="cpu", dtype=torch.float64)
    layers = [m for m in twin.modules() if not list(m.children()) and list(m.parameters(recurse=False))]
    x = torch.randn(16, layers[0].in_features, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    try:
        with torch.no_grad():
            out = twin(x)
            comp = x
            for m in layers:
                comp = comp @ m.weight.T + (m.bias if m.bias is not None else 0.0)
    except Exception:  # noqa: BLE001 - a forward that does not take a plain batch is not a plain stack
        return None
    if not torch.is_tensor(out) or out.shape != comp.shape:
        return None
    scale = float(comp.abs().max()) + 1.0
    if not float((out - comp).abs().max()) <= 1e-9 * scale:
        return None
    return leaves


def _exact_rank(matrices) -> int | None:
    """Exact rank of the product of the stored float matrices (each float is a dyadic rational), by flint."""
    try:
        import flint
    except ImportError:
        return None
    prod = None
    for W in matrices:  # W: numpy (out, in), product W_L ... W_1
        Q = flint.fmpq_mat(W.shape[0], W.shape[1],
                           [flint.fmpq(*Fraction(float(v)).as_integer_ratio()) for v in W.ravel()])
        prod = Q if prod is None else Q * prod
    return int(prod.rank())


def deep_linear_reference(module, *, n: int | None = None) -> dict | None:
    """Exact learning coefficients of a deep linear module at its parameters ``w*`` (None if not one).

    With ``W_L ... W_1`` the product at ``w*`` (:func:`linear_layers` decides the module is one):

    * ``rank_numerical``: singular values of the product (float64), the rank above the widest gap of
      at least :data:`RANK_GAP` between consecutive singular values, else all above ``1e-12`` times the
      largest (not certified); ``rank_exact``: the exact rank of the stored product (floats are dyadic
      rationals; flint's ``fmpq_mat.rank``) when every width is at most :data:`FLINT_MAX_WIDTH`.
    * **empirical** (what :func:`llc` estimates): if ``w*`` minimises ``L_n = f(product)`` with ``f``
      locally quadratic and positive definite in the product (mean squared error, full-rank input
      second moments), ``L_n - L_n*`` is of the order of ``||product - product*||^2`` on the model near
      ``w*`` (at a constrained minimum too: the rank-``r`` matrices form a manifold near a product of
      rank exactly ``r``, where ``f`` is generically non-degenerate), so its learning coefficient is
      Aoyagi's value at the rank ``r_emp`` of the product at ``w*``.  Fitted to noisy data with finite
      ``n``, the minimiser's product has the largest rank the widths allow (``min(widths)``), its extra
      singular values of order ``n^-1/2``: e.g. ``(4, 3, 4)`` gives ``r_emp = 3``,
      ``lambda = (3 (4 + 4) - 9)/2 = 15/2``.  ``r_emp`` is the exact rank where computed, else the
      numerical one.
    * **population**: Aoyagi's value at the teacher's rank, estimated as the numerical (gap) rank of the
      product, not certified: ``(4, 3, 4)`` with a rank-2 teacher gives ``7`` (``m = 2``; the ``6`` one
      may expect is ``dim{rank-2 4x4}/2``, the value of a ``(4, 2, 4)`` network).
    * **biases**: with a bias on the output layer (hidden biases optional) the model is ``x -> P x + c``
      with ``c`` free (``b_L`` is a regular coordinate for ``c``; hidden biases only enter through ``c``
      and add nothing), so both values gain ``d_L / 2``, provided the second moments of ``(x, 1)`` are
      non-singular.  Hidden biases without an output bias couple ``c`` to the weights: not covered
      (``covered`` says so, the values are None).

    References
    ----------
    Aoyagi (2024), Theorem 1 (:func:`algebra.slt.formulas.deep_linear_network`); Aoyagi & Watanabe (2005).
    """
    from algebra.slt.formulas import deep_linear_network

    layers = linear_layers(module)
    if layers is None:
        return None
    widths = [layers[0].in_features] + [m.out_features for m in layers]
    mats = [m.weight.detach().to("cpu").double().numpy() for m in layers]
    prod = mats[0]
    for W in mats[1:]:
        prod = W @ prod
    sv = np.linalg.svd(prod, compute_uv=False)
    top = float(sv[0]) if sv.size else 0.0
    live = sv[sv > 1e-12 * top] if top > 0 else sv[:0]
    r_num = int(live.size)
    if live.size >= 2:
        ratios = live[:-1] / live[1:]
        i = int(np.argmax(ratios))
        if ratios[i] >= RANK_GAP:
            r_num = i + 1
    r_exact = _exact_rank(mats) if max(widths) <= FLINT_MAX_WIDTH else None
    layer_ranks = [int(np.linalg.matrix_rank(W)) for W in mats]
    r_emp = int(live.size)  # float rank: singular values above 1e-12 of the largest (float64 resolution)
    certified = r_exact is not None and r_exact == r_emp
    has_bias = [m.bias is not None for m in layers]
    out_bias = has_bias[-1]
    covered = not any(has_bias) or out_bias
    extra = Fraction(widths[-1], 2) if out_bias else Fraction(0)
    ref = {"widths": widths, "biases": has_bias, "singular_values": [float(s) for s in sv],
           "rank_numerical": r_num, "rank_exact": r_exact, "n": n, "layer_ranks": layer_ranks,
           "covered": ("no biases: Aoyagi's formula" if not any(has_bias) else
                       f"output bias: Aoyagi's formula + d_L/2 = {extra}" if out_bias else
                       "hidden biases without an output bias: not covered by the formula")}
    for key, r, how in (("population", r_num, f"teacher rank = numerical rank {r_num} of the product "
                                               f"(gap rule, ratio >= {RANK_GAP:g}; not certified)"),
                        ("empirical", r_emp, f"rank {r_emp} of the product at w* (singular values above 1e-12 of the "
                                             "largest; " + ("certified: the exact rank of the stored floats, "
                                                            "flint" if certified else "not certified") + ")")):
        if covered:
            lc = deep_linear_network(widths, r)
            ref[key] = {"lambda": lc.lam + extra, "multiplicity": lc.multiplicity, "rank": r,
                        "derivation": f"Aoyagi (2024) Thm 1 at widths {widths}, rank {how}"
                                      + (f", + d_L/2 = {extra} (output bias)" if out_bias else "")}
        else:
            ref[key] = None
    # Aoyagi's value is the minimum over the fibre; it is the local value at w* where w* lies in the most
    # degenerate stratum (every layer of rank r), and for r = min(widths) everywhere (a submersion onto the
    # rank-r matrices: the regular value dim/2)
    if ref["empirical"] is not None:
        local = r_emp == min(widths) or all(k == r_emp for k in layer_ranks)
        ref["empirical"]["local_at_w_star"] = bool(local)
        if not local:
            ref["empirical"]["derivation"] += (f"; layer ranks {layer_ranks} exceed {r_emp}: the local value at w* "
                                               "can be larger than this global one")
    return ref


# ------------------------------------------------------------------------------------- curvature


def _lanczos_probes(hv, P: int, steps: int, probes: int, rng) -> tuple:
    """``probes`` Lanczos runs of ``steps`` steps from Rademacher vectors, advanced together (one batched
    Hessian-vector call per step, full reorthogonalisation).  Returns the Ritz values and weights of each
    run (stochastic Lanczos quadrature: ``tr f(H) ~ P mean_j sum_k tau_jk f(theta_jk)``; Ubaru, Chen & Saad
    2017) and the Hutchinson diagonal ``mean_j z_j * H z_j`` from the first step."""
    Z = rng.choice((-1.0, 1.0), size=(probes, P))
    Q = np.empty((steps, probes, P))
    q = Z / math.sqrt(P)
    alphas, betas = np.zeros((probes, steps)), np.zeros((probes, steps))
    diag = None
    m = steps
    for k in range(steps):
        Q[k] = q
        Hq = np.asarray(hv(q), dtype=float)
        if k == 0:
            diag = np.maximum((Z * Hq * math.sqrt(P)).mean(axis=0), 0.0)
        a = np.einsum("jp,jp->j", q, Hq)
        alphas[:, k] = a
        r = Hq - a[:, None] * q - (betas[:, k - 1][:, None] * Q[k - 1] if k else 0.0)
        coef = np.einsum("kjp,jp->kj", Q[:k + 1], r)  # reorthogonalise against every earlier vector
        r -= np.einsum("kj,kjp->jp", coef, Q[:k + 1])
        b = np.linalg.norm(r, axis=1)
        if k == steps - 1 or not np.all(b > 1e-10 * (np.abs(alphas[:, :k + 1]).max() + 1e-300)):
            m = k + 1
            break
        betas[:, k] = b
        q = r / b[:, None]
    ritz = []
    for j in range(probes):
        T = np.diag(alphas[j, :m]) + np.diag(betas[j, :m - 1], 1) + np.diag(betas[j, :m - 1], -1)
        theta, U = np.linalg.eigh(T)
        ritz.append((theta, U[0] ** 2))
    return ritz, diag


def _curvature(tm, nbeta: float, gamma: float, seed: int) -> dict:
    """Spectrum (or its quadrature), lowest eigenvalue, Hessian diagonal, gradient and the gradient shift at ``w*``.

    ``P <= DENSE_MAX``: the dense Hessian (:func:`~algebra.numeric.laplace.hessian_spectrum`), exact Laplace value.
    Larger: :data:`PROBES` Lanczos runs of :data:`LANCZOS_K` steps (:func:`_lanczos_probes`): the largest and
    smallest Ritz values bound the spectrum from inside (a negative smallest Ritz value is a negative
    eigenvalue), and the Laplace value and the rank are quadrature estimates with a standard error across
    probes.  Cost: ``LANCZOS_K`` batched Hessian-vector products over at most ``CURVATURE_WORK / P`` samples.
    """
    from algebra.numeric.laplace import RANK_TOL, hessian_spectrum, laplace_prediction, localization_deficit

    w = np.asarray(tm.w_star, dtype=float)
    P = w.size
    hvp = lambda v: np.asarray(tm.hessian_vector(w, np.asarray(v, dtype=float)[None]), dtype=float)[0]  # noqa: E731
    g = np.asarray(tm.loss_and_grad(w[None])[1], dtype=float)[0]
    out = {"gradient_norm": float(np.linalg.norm(g))}
    if P <= DENSE_MAX:
        spec = hessian_spectrum(tm, dense_max=DENSE_MAX, seed=seed)
        rows = [np.asarray(tm.hessian_vector(w, np.eye(P)[a:a + 256]), dtype=float) for a in range(0, P, 256)]
        H = np.concatenate(rows, axis=0)
        vals = np.linalg.eigvalsh(0.5 * (H + H.T))
        out.update(nodes=(np.asarray(spec.eigenvalues, dtype=float), np.ones(len(spec.eigenvalues))),
                   spectrum=spec.to_json(), top=float(spec.eigenvalues[0]) if spec.eigenvalues else 0.0,
                   lowest=float(vals[0]), diag=np.maximum(np.diag(H), 0.0),
                   laplace=laplace_prediction(spec, nbeta, gamma), laplace_stderr=0.0,
                   deficit=localization_deficit(spec, nbeta, gamma))
    else:
        rng = np.random.default_rng(seed)
        ritz, diag = _lanczos_probes(lambda Q: tm.hessian_vector(w, Q), P, LANCZOS_K, PROBES, rng)
        top = max(float(th.max()) for th, _ in ritz)
        lowest = min(float(th.min()) for th, _ in ritz)
        lap, rank = [], []
        for th, tau in ritz:
            h = np.maximum(th, 0.0)
            live = th > RANK_TOL * top
            lap.append(P * float(np.sum(tau * np.where(live, nbeta * h / (2.0 * (nbeta * h + gamma)), 0.0))))
            rank.append(P * float(np.sum(tau * live)))
        lap_v, rank_v = float(np.mean(lap)), float(np.mean(rank))
        nodes = np.concatenate([th[th > RANK_TOL * top] for th, _ in ritz])
        weights = np.concatenate([P * tau[th > RANK_TOL * top] / len(ritz) for th, tau in ritz])
        out["nodes"] = (nodes, weights)
        out.update(spectrum={"method": "slq", "probes": PROBES, "steps": LANCZOS_K, "largest": top,
                             "rank_estimate": rank_v, "samples": int(tm.X.shape[0])},
                   top=top, lowest=lowest, diag=diag, laplace=lap_v,
                   laplace_stderr=float(np.std(lap, ddof=1) / math.sqrt(len(lap))),
                   deficit=(1.0 - lap_v / (rank_v / 2.0)) if rank_v > 0 else 0.0)
    # u = A^-1 g with A = nbeta H + gamma I, by conjugate gradients (A is positive definite at a minimum)
    shift = float("nan")
    if out["lowest"] > -gamma / nbeta:
        u, r = np.zeros(P), g.copy()
        p, rr = r.copy(), float(r @ r)
        for _ in range(CG_ITERS):
            if rr <= 1e-24 * max(float(g @ g), 1e-300):
                break
            Ap = nbeta * hvp(p) + gamma * p
            a = rr / float(p @ Ap)
            u, r = u + a * p, r - a * Ap
            rr_new = float(r @ r)
            p, rr = r + (rr_new / rr) * p, rr_new
        shift = 0.5 * nbeta**2 * (float(g @ u) + gamma * float(u @ u))
    out["shift"] = shift
    return out


def _step_for_bias(nodes, weights, nbeta: float, gamma: float, precondition: bool) -> float:
    """The largest step whose predicted discretisation bias of the Gaussian part is at most :data:`STEP_BIAS`.

    In a quadratic direction of precision ``a = nbeta h + gamma`` the update ``x' = (1 - s/2) x + sqrt(eps p) xi``
    with ``s = eps p a`` has stationary variance ``1 / (a (1 - s/4))`` (Euler-Maruyama on the Ornstein-Uhlenbeck
    process), so that direction's share ``nbeta h / (2 a)`` of ``E[nbeta (L - L*)]`` is inflated by
    ``1 / (1 - s/4)``; ``p = 1 / sqrt(a)`` for the preconditioned sampler (its preconditioner starts at, and
    adapts towards, ``E[drift^2] = a``), ``1`` for plain SGLD.  The share-weighted relative bias over the
    spectrum's nodes (eigenvalues, or quadrature nodes with weights) is increasing in ``eps``; bisection.

    One direction, plain SGLD (``a = 101``): the step whose ``s = eps a`` inflates its share by exactly
    ``STEP_BIAS``:

    >>> s = _step_for_bias(np.array([1.0]), np.ones(1), 100.0, 1.0, False) * 101
    >>> round((s / 4) / (1 - s / 4) / STEP_BIAS, 6)
    1.0
    """
    h = np.maximum(np.asarray(nodes, dtype=float), 0.0)
    a = nbeta * h + gamma
    share = np.asarray(weights, dtype=float) * nbeta * h / (2.0 * a)
    root = np.sqrt(a) if precondition else a
    top = float(root.max()) if root.size else 1.0
    if not share.sum() > 0:
        return 1.0 / top

    def bias(eps):
        s = eps * root
        return float(np.sum(share * (s / 4) / (1 - s / 4)) / share.sum())

    lo, hi = 1e-12 / top, 1.0 / top  # s <= 1 at the stiffest direction
    if bias(hi) <= STEP_BIAS:
        return hi
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if bias(mid) <= STEP_BIAS else (lo, mid)
    return lo


# ------------------------------------------------------------------------------------------ sampler


class _Data:
    """The minibatch stream: ``(x, y, ref)`` with ``ref = L_b(w*)`` on the same minibatch, or None.

    Tensor data lives on the device once; minibatch indices are drawn :data:`BLOCK` steps at a time as one
    index tensor (one gather per block).  ``L_b(w*)`` is the mean of per-sample losses at ``w*`` computed once
    over the whole data set (one forward pass), gathered by the same indices, so a step costs no forward pass
    at ``w*``; this holds when ``loss_fn`` is a mean of per-sample terms, which is checked on the data itself
    (``loss_fn`` on 64 rows against the mean of its 64 single-row values), else ``ref`` is None and the step
    evaluates ``L_b(w*)`` itself.  A DataLoader's batches come as they are (``ref`` None).
    """

    def __init__(self, flat, data, batch_size, rng):
        import torch

        self.rng, self.flat = rng, flat
        self.pair = isinstance(data, (tuple, list)) and len(data) == 2 and all(torch.is_tensor(t) for t in data)
        if not self.pair:
            self.loader, self.it = data, None
            return
        dev = flat.device
        cast = (lambda t: t.to(dev, flat.dtype)) if data[0].is_floating_point() else (lambda t: t.to(dev))
        self.X = cast(data[0])
        self.Y = data[1].to(dev, flat.dtype) if data[1].is_floating_point() else data[1].to(dev)
        self.n = int(self.X.shape[0])
        self.B = None if batch_size is None or batch_size >= self.n else int(batch_size)
        self.star_losses = self._per_sample_star()
        self.full_ref = None
        if self.B is None:
            with torch.no_grad():
                self.full_ref = flat.loss_one(flat.star, self.X, self.Y).detach()
        self.pos, self.block = BLOCK, None

    def _per_sample_star(self):
        """Per-sample losses at ``w*`` (n,) when ``loss_fn`` is their mean (checked), else None."""
        import torch
        from torch.func import functional_call, vmap

        flat = self.flat
        params = {**flat.params(flat.star), **flat.buffers}
        one = lambda o, t: flat.loss_fn(o.unsqueeze(0), t.unsqueeze(0))  # noqa: E731
        try:
            with torch.no_grad():
                parts = []
                for a in range(0, self.n, 4096):
                    out = functional_call(flat.module, params, (self.X[a:a + 4096],))
                    parts.append(vmap(one)(out, self.Y[a:a + 4096]).reshape(-1))
                losses = torch.cat(parts)
                m = min(64, self.n)
                batch = flat.loss_one(flat.star, self.X[:m], self.Y[:m])
        except Exception:  # noqa: BLE001 - a loss that does not split into rows: evaluate L_b(w*) per step
            return None
        if losses.shape != (self.n,) or not bool(torch.isfinite(losses).all()):
            return None
        tol = 1e-10 if losses.dtype == torch.float64 else 1e-5
        if not abs(float(losses[:m].mean()) - float(batch)) <= tol * (abs(float(batch)) + 1e-30) + 1e-300:
            return None
        return losses

    def __next__(self):
        import torch

        if not self.pair:
            while True:
                if self.it is None:
                    self.it = iter(self.loader)
                try:
                    xb, yb = next(self.it)
                except StopIteration:
                    self.it = None
                    continue
                dev = self.flat.device
                xb = xb.to(dev, self.flat.dtype) if xb.is_floating_point() else xb.to(dev)
                yb = yb.to(dev, self.flat.dtype) if yb.is_floating_point() else yb.to(dev)
                return xb, yb, None
        if self.B is None:
            return self.X, self.Y, self.full_ref
        if self.pos == BLOCK:
            idx = torch.as_tensor(self.rng.integers(0, self.n, (BLOCK, self.B)), device=self.X.device)
            refs = None if self.star_losses is None else self.star_losses[idx].mean(dim=1)
            self.block = (self.X[idx], self.Y[idx], refs)
            self.pos = 0
        t = self.pos
        self.pos += 1
        Xb, Yb, refs = self.block
        return Xb[t], Yb[t], None if refs is None else refs[t]


class _Step:
    """One update of all chains and the batched loss and gradient at the new point, as one recorded graph.

    ``step(W, g, V, xi, x, y, ref, c) -> (W', g', V', L_b(W') - L_b(w*))`` with the drift
    ``D = nbeta g + gamma (W - w*)``, ``V' = V + a (D^2 - V)`` (``a = 1 - alpha`` while adapting, 0 when
    frozen), the preconditioner ``p = 1 / (sqrt(V') + 1e-8)`` (1 for plain SGLD) and
    ``W' = W - eps/2 p D + sqrt(eps p) xi``; ``c = (nbeta, gamma, eps, a)`` is a tensor, so one graph serves
    every step size.  With the preconditioner frozen, ``V`` is the pair ``(eps/2 p, sqrt(eps p))`` (shape
    (2, chains, P)), computed once per run, and the update is three elementwise operations.  The graph is recorded once per input shape with ``make_fx`` (aten kernels, no-op
    nodes dropped; as :class:`~algebra.numeric.torch_backend._SGLDStep`, whose reason holds here: on a
    small module a step is Python dispatch, not arithmetic), compared with the eager step on its first
    input, and the eager step is used when they differ or tracing fails (``fallback``).
    """

    def __init__(self, flat, precondition):
        self.flat, self.precondition = flat, precondition
        self.traces, self.fallback = {}, None

    def eager(self, W, g, V, xi, x, y, ref, c):
        import torch

        flat, star = self.flat, self.flat.star
        with torch.no_grad():
            drift = c[0] * g + c[1] * (W - star)
            if V.dim() == 3:  # frozen: V holds (eps/2 p, sqrt(eps p)), computed once per run
                W = W - V[0] * drift + V[1] * xi
            elif self.precondition:
                V = V + c[3] * (drift * drift - V)
                pre = 1.0 / (V.sqrt() + RMS_EPS)
                W = W - (0.5 * c[2]) * pre * drift + (c[2] * pre).sqrt() * xi
            else:
                W = W - (0.5 * c[2]) * drift + c[2].sqrt() * xi
        values, g = flat.loss_and_grad(W, x, y)
        with torch.no_grad():
            if ref is None:
                ref = flat.loss_one(star, x, y)
            d = values - ref
        return W, g, V, d

    def __call__(self, W, g, V, xi, x, y, ref, c):
        if self.fallback is not None:
            return self.eager(W, g, V, xi, x, y, ref, c)
        key = (tuple(W.shape), tuple(V.shape), tuple(x.shape), tuple(y.shape), ref is None)
        fn = self.traces.get(key)
        if fn is not None:
            return fn(W, g, V, xi, x, y, ref, c) if ref is not None else fn(W, g, V, xi, x, y, c)
        import torch
        from torch.fx.experimental.proxy_tensor import make_fx

        from algebra.numeric.torch_backend import _drop_identity_nodes

        expect = self.eager(W, g, V, xi, x, y, ref, c)
        try:
            if ref is None:
                fn = _drop_identity_nodes(make_fx(lambda W, g, V, xi, x, y, c: self.eager(W, g, V, xi, x, y, None, c))(
                    W, g, V, xi, x, y, c))
                got = fn(W, g, V, xi, x, y, c)
            else:
                fn = _drop_identity_nodes(make_fx(lambda W, g, V, xi, x, y, ref, c: self.eager(W, g, V, xi, x, y, ref, c))(
                    W, g, V, xi, x, y, ref, c))
                got = fn(W, g, V, xi, x, y, ref, c)
            tol = 1e-7 if W.dtype == torch.float64 else 1e-4
            if all(torch.allclose(a, b, rtol=tol, atol=tol, equal_nan=True) for a, b in zip(got, expect)):
                self.traces[key] = fn
            else:
                self.fallback = "the traced step differs from the eager step"
        except Exception as exc:  # noqa: BLE001 - whatever stops the trace, the eager step still runs
            self.fallback = f"trace failed: {type(exc).__name__}: {exc}"[:300]
        return expect


class _Chains:
    """All chains of one sampler run: positions, gradients, the RMSProp second moments, the data stream.

    A step is one call of the recorded :class:`_Step` graph; the loss differences stay on the device in a
    preallocated (steps, chains) tensor and are read back once per :data:`BLOCK` steps, when a chain that
    left the finite range ``|L_b(w) - L_b(w*)| <= 1000 (P + 1) / nbeta`` is marked divergent (its first such
    step) and restarted at ``w*``; nothing else synchronises with the host inside a run.
    """

    def __init__(self, sampler, noise, W, V=None):
        import torch

        self.s, self.noise, self.W = sampler, noise, W
        x, y, _ = next(sampler.data)
        self.g = sampler.flat.loss_and_grad(W, x, y)[1]
        self.V = V
        if self.V is None:
            star = sampler.flat.star
            drift = sampler.nbeta * self.g + sampler.gamma * (W - star)
            self.V = drift * drift if sampler.precondition else torch.zeros((1,), dtype=W.dtype, device=W.device)

    def run(self, eps: float, steps: int, *, adapt: bool, bar=None) -> tuple:
        """``steps`` updates; returns the loss differences ``L_b(w) - L_b(w*)`` (chains, steps) and divergences."""
        import torch

        s = self.s
        flat, star = s.flat, s.flat.star
        C = self.W.shape[0]
        out = torch.empty((steps, C), dtype=star.dtype, device=star.device)
        bad = np.full(C, -1)
        limit = 1000.0 * (star.numel() + 1) / s.nbeta
        c = torch.tensor([s.nbeta, s.gamma, eps, (1 - RMS_ALPHA) if adapt else 0.0], dtype=star.dtype,
                         device=star.device)
        W, g, V = self.W, self.g, self.V
        # frozen preconditioner: its two factors once per run, not per step
        M = torch.stack([0.5 * eps / (V.sqrt() + RMS_EPS), (eps / (V.sqrt() + RMS_EPS)).sqrt()]) if (
            s.precondition and not adapt) else V
        t0 = 0
        for t in range(steps):
            x, y, ref = next(s.data)
            W, g, M, out[t] = s.step(W, g, M, self.noise.normal(), x, y, ref, c)
            if (t + 1) % BLOCK == 0 or t == steps - 1:
                win = out[t0:t + 1]
                wrong = ~(win.abs() <= limit)
                if bool(wrong.any()):
                    rows = wrong.any(dim=0).cpu().numpy()
                    first = wrong.to(torch.int8).argmax(dim=0).cpu().numpy()
                    new = rows & (bad < 0)
                    bad[new] = t0 + first[new]
                    mask = torch.as_tensor(rows, device=W.device)
                    W = torch.where(mask[:, None], star.expand_as(W), W)
                    g = flat.loss_and_grad(W, x, y)[1]
                if bar is not None:
                    bar.update(t + 1 - t0)
                t0 = t + 1
        self.W, self.g = W, g
        if not (s.precondition and not adapt):
            self.V = M
        return out.T.double().cpu().numpy(), bad


def _summary(diffs: np.ndarray, bad: np.ndarray, nbeta: float) -> dict:
    """Chain-wise estimate, its standard error across chains, split R-hat and ESS of ``nbeta * diffs``."""
    from algebra.numeric.diagnostics import effective_sample_size, split_rhat

    keep = diffs[bad < 0] * nbeta
    if keep.shape[0] < 2:
        return {"estimate": float("nan"), "stderr": float("inf"), "rhat": float("inf"), "ess": 0.0,
                "chains": tuple(float(v) for v in diffs.mean(axis=1) * nbeta), "divergent": int((bad >= 0).sum())}
    means = keep.mean(axis=1)
    return {"estimate": float(means.mean()), "stderr": float(means.std(ddof=1) / math.sqrt(means.size)),
            "rhat": split_rhat(keep), "ess": effective_sample_size(keep), "chains": tuple(float(v) for v in means),
            "divergent": int((bad >= 0).sum())}


class _Sampler:
    """Shared state of one module's sampling: flat module, data stream, the recorded step, seeds, the bar."""

    def __init__(self, module, loss_fn, data, *, batch_size, device, seed, chains, nbeta, gamma,
                 precondition, bar, dtype=None):
        from algebra.numeric.torch_backend import _FlatModule

        self.flat = _FlatModule(module, loss_fn, device=device, dtype=dtype)
        root = np.random.SeedSequence(seed)
        self._seeds = root.spawn(64)
        self._next = 0
        self.data = _Data(self.flat, data, batch_size, np.random.default_rng(root.spawn(1)[0]))
        self.step = _Step(self.flat, precondition)
        self.chains, self.nbeta, self.gamma, self.precondition, self.bar = chains, nbeta, gamma, precondition, bar

    def start(self, V=None) -> _Chains:
        from algebra.numeric.torch_backend import _ChainNoise

        child = self._seeds[self._next]
        self._next += 1
        noise = _ChainNoise(child.spawn(self.chains), self.flat.star.numel(), device=self.flat.device,
                            dtype=self.flat.star.dtype)
        W = self.flat.star.unsqueeze(0).repeat(self.chains, 1)
        return _Chains(self, noise, W, V=None if V is None else V.clone())

    def run(self, eps, warmup, draws, *, V=None, adaptive=True, thin=1, burn=None) -> tuple:
        """Warm-up (preconditioner adapting), then draws in blocks until the diagnostics hold (``adaptive``);
        ``thin`` keeps every ``thin``-th of ``draws`` steps; ``burn`` (default :data:`BURN`) of the draws is
        discarded."""
        burn = BURN if burn is None else burn
        ch = self.start(V)
        ch.run(eps, warmup, adapt=True, bar=self.bar)
        parts, bads = [], []
        total = 0
        while True:
            d, b = ch.run(eps, draws if not parts else DRAW_BLOCK, adapt=False, bar=self.bar)
            if thin > 1:
                d, b = d[:, thin - 1::thin], np.where(b >= 0, b // thin, -1)
            parts.append(d)
            bads.append(b)
            total += d.shape[1]
            diffs = np.concatenate(parts, axis=1)
            bad = np.max(np.stack([np.where(b >= 0, b + total - d.shape[1], -1) for b in bads]), axis=0)
            # the first BURN of the draws is the chains' relaxation from w* (flat and singular directions relax
            # slowly): the estimate and its diagnostics use the rest, as split R-hat's convention
            cut = int(burn * total)
            s = _summary(diffs[:, cut:], bad, self.nbeta)
            s["burn"] = cut
            if not adaptive or total >= MAX_DRAWS or (s["rhat"] <= RHAT_MAX and s["ess"] >= ESS_MIN):
                s["draws"] = total
                return s, ch.V


# ---------------------------------------------------------------------------------------- entry


def _defaults(flat_star, n: int) -> tuple:
    P = flat_star.numel()
    nbeta = n / math.log(n)
    sq = float((flat_star.double() ** 2).sum())
    gamma = GAMMA_SCALE * P / sq if sq > 0 else GAMMA_SCALE
    return nbeta, gamma


def _fixed_step_llc(module, loss_fn, data, *, nbeta, gamma, step_size, batch_size, draws, chains, seed,
                    device, warmup=0, precondition=False):
    """One run at given settings (no search): devinterp-style SGLD; the summary dict."""
    s = _Sampler(module, loss_fn, data, batch_size=batch_size, device=device, seed=seed, chains=chains,
                 nbeta=nbeta, gamma=gamma, precondition=precondition, bar=None)
    out, _ = s.run(step_size, warmup, draws, adaptive=False, burn=0.0)  # the user's settings: every draw kept
    return out


def llc(module, loss_fn, data, *, device="cpu", seed: int = 0, progress: bool = True,
        sampler: str = "rmsprop") -> OwnNetworkLLC:
    """Estimate the learning coefficient of ``module`` at its parameters ``w*`` on the data set's own loss.

    No tuning argument: temperature, localization, sampler, step size, chains and draws are chosen as the
    module docstring states, and returned in ``settings``.

    Parameters
    ----------
    module : torch.nn.Module
        At the reference parameters ``w*`` (not modified; a copy is used for the Hessian).
    loss_fn : callable
        ``loss_fn(outputs, targets) -> scalar`` mean loss over a batch (an average negative log-likelihood).
    data : tuple (inputs, targets) of tensors, or a DataLoader
        ``n`` is the number of rows (a DataLoader's ``len(dataset)``).
    device : str or torch.device
    seed : int
        Root of one :class:`numpy.random.SeedSequence`: pilot, main and halving runs use its children.
    progress : bool
        A tqdm bar over the sampler steps.
    sampler : {"rmsprop", "sgld"}
        ``"sgld"`` (plain SGLD) exists for the comparison in BENCHMARKS.md.

    Returns
    -------
    OwnNetworkLLC
        ``target = "empirical"``; ``reference`` holds both exact values for a deep linear module.

    Raises
    ------
    InputError
        Naming ``module``, ``loss_fn``, ``data``, ``seed``, ``progress`` or ``sampler``.

    Examples
    --------
    >>> import algebra
    >>> algebra.llc(object(), None, None)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid module='object': expected a torch.nn.Module

    References
    ----------
    Watanabe (2013), "A widely applicable Bayesian information criterion", JMLR 14, Thm 4 (temperature);
    Li, Chen, Carlson & Carin (2016), AAAI (RMSProp-preconditioned SGLD); Lau et al. (2023), "The local
    learning coefficient" (the estimator ``nbeta E[L_n - L_n*]``).
    """
    import torch
    from tqdm import tqdm

    from algebra.numeric.torch_backend import TorchModel

    t0 = time.perf_counter()
    _check_module(module)
    if not callable(loss_fn):
        raise InputError("loss_fn", type(loss_fn).__name__, "a callable loss_fn(outputs, targets)")
    seed = inputs.seed(seed)
    if not isinstance(progress, bool):
        raise InputError("progress", progress, "True or False")
    sampler = inputs.choice(sampler, "sampler", ("rmsprop", "sgld"))
    n = _data_size(data)
    if n < 3:
        raise InputError("data", f"{n} samples", "at least 3 samples (nbeta = n / log n)")
    dev = torch.device(device)
    is_pair = isinstance(data, (tuple, list))
    batch = min(n, BATCH) if is_pair else None
    star = torch.cat([p.detach().reshape(-1) for p in module.parameters() if p.requires_grad])
    nbeta, gamma = _defaults(star, n)
    rows = max(256, CURVATURE_WORK // max(1, star.numel()))
    curv_data = data
    if is_pair and n > rows:  # the curvature of a random subsample bounds its cost (CURVATURE_WORK)
        pick = torch.as_tensor(np.random.default_rng(np.random.SeedSequence(seed).spawn(2)[1]).choice(
            n, rows, replace=False), device=data[0].device)
        curv_data = (data[0][pick], data[1][pick])
    tm = TorchModel(copy.deepcopy(module), loss_fn, curv_data, device=dev)
    curv = _curvature(tm, nbeta, gamma, seed)
    precondition = sampler == "rmsprop"
    eps_max = _step_for_bias(*curv["nodes"], nbeta, gamma, precondition)

    bar = tqdm(total=None, disable=not progress, desc="llc", unit="step")
    try:
        s = _Sampler(module, loss_fn, data, batch_size=batch, device=dev, seed=seed, chains=CHAINS,
                     nbeta=nbeta, gamma=gamma, precondition=precondition, bar=bar)
        # the preconditioner starts at the drift's stationary second moment in a quadratic direction,
        # nbeta H_ii + gamma (Hessian diagonal: dense, or Hutchinson from the Lanczos probes), and adapts
        # from there during warm-up (drift^2 at w* is 0 on a data set the module fits exactly)
        V0 = None
        if precondition:
            V0 = torch.as_tensor(nbeta * curv["diag"] + gamma, dtype=s.flat.star.dtype,
                                 device=s.flat.star.device).unsqueeze(0).repeat(CHAINS, 1)
        pilot, eps, V = [], None, V0
        for k in range(GRID_LEVELS):
            e = eps_max * 2.0**-k
            ch = s.start(V0)
            ch.run(e, PILOT_WARMUP, adapt=True, bar=bar)
            d, b = ch.run(e, PILOT_DRAWS, adapt=False, bar=bar)
            finite = bool(np.all(b < 0) and np.all(np.isfinite(d)))
            row = {"step_size": e, "finite": finite}
            if finite:
                h = PILOT_DRAWS // 2
                diff = nbeta * (d[:, h:].mean(axis=1) - d[:, :h].mean(axis=1))
                se = float(diff.std(ddof=1) / math.sqrt(diff.size))
                est = float(nbeta * d.mean())
                row.update(drift=float(diff.mean()), drift_se=se, estimate=est)
                # stationary: the second half's mean within 3 standard errors of the first half's, or within
                # DRIFT_REL of the estimate (slow relaxation of flat directions is the main run's warm-up's
                # business; a step past the stability limit runs away or diverges)
                row["stationary"] = bool(abs(diff.mean()) <= max(3.0 * se, DRIFT_REL * abs(est)))
            else:
                row["stationary"] = False
            pilot.append(row)
            if row["stationary"]:
                eps, V = e, ch.V
                break
        reasons_sampler = []
        if eps is None:
            eps = eps_max * 2.0**-(GRID_LEVELS - 1)
            reasons_sampler.append(f"no pilot step down to {eps:.3g} was finite and stationary")
        main, V_main = s.run(eps, WARMUP, DRAW_BLOCK, V=V)
        halving = []
        for _ in range(MAX_HALVINGS):
            # the half step runs twice the steps (warm-up and draws) and keeps every other draw: the same
            # time span, so slow relaxation does not pass for step-size bias
            half, V_half = s.run(eps / 2, 2 * WARMUP, 2 * main["draws"], V=V, adaptive=False, thin=2)
            # agreement: within 2 combined standard errors, or HALVING_REL of the estimate (an estimate with a
            # +-0.3% error bar need not be step-free to 0.3%: the accuracy asked of it is a few percent)
            tol = max(2.0 * math.hypot(main["stderr"], half["stderr"]), HALVING_REL * abs(main["estimate"]))
            agree = abs(half["estimate"] - main["estimate"]) <= tol
            halving.append({"step_size": eps / 2, "estimate": half["estimate"], "stderr": half["stderr"],
                            "agrees": bool(agree), "against": main["estimate"], "against_stderr": main["stderr"]})
            if agree:
                break
            eps, main, V = eps / 2, half, V_half
        else:
            h = halving[-1]
            reasons_sampler.append(f"halving the step {MAX_HALVINGS} times still moved the estimate (last: "
                                   f"{h['against']:.4g} +- {h['against_stderr']:.2g} -> {h['estimate']:.4g} +- "
                                   f"{h['stderr']:.2g} at step {h['step_size']:.3g})")
    finally:
        bar.close()

    reasons = []
    if curv["lowest"] < -NEG_CURVATURE * max(curv["top"], 1e-300):
        reasons.append(f"w* is not a minimum: negative Hessian eigenvalue {curv['lowest']:.3g} "
                       f"(largest {curv['top']:.3g}, Lanczos)")
    if not math.isfinite(curv["shift"]) or curv["shift"] > SHIFT_MAX * max(curv["laplace"], 0.5):
        reasons.append(f"w* is not a minimum at this resolution: gradient norm {curv['gradient_norm']:.3g} "
                       f"shifts nbeta (L - L*) by {curv['shift']:.3g} (> {SHIFT_MAX:.0%} of the Laplace value "
                       f"{curv['laplace']:.4g})")
    reasons += reasons_sampler
    if main["divergent"]:
        reasons.append(f"{main['divergent']} divergent chain(s)")
    if not main["rhat"] <= RHAT_MAX:
        reasons.append(f"split R-hat {main['rhat']:.3f} > {RHAT_MAX} after {main['draws']} draws")
    if not main["ess"] >= ESS_MIN:
        reasons.append(f"ESS {main['ess']:.0f} < {ESS_MIN:.0f} after {main['draws']} draws")
    if curv["deficit"] > DEFICIT_MAX:
        reasons.append(f"the localizing prior removes {curv['deficit']:.1%} of rank/2 in the identifiable "
                       f"directions (> {DEFICIT_MAX:.0%})")
    settings = {"nbeta": nbeta, "gamma": gamma, "step_size": eps, "sampler": sampler, "batch_size": batch,
                "chains": CHAINS, "warmup": WARMUP, "draws": main["draws"], "n": n, "num_params": int(star.numel()),
                "device": str(dev), "gamma_scale": GAMMA_SCALE, "eps_max": eps_max, "step_bias": STEP_BIAS,
                "burn": BURN, "halving_rel": HALVING_REL,
                "why": {"nbeta": "n / log n (WBIC temperature)",
                        "gamma": f"{GAMMA_SCALE:g} * P / ||w*||^2 (prior sd = rms weight)",
                        "step_size": "largest stationary pilot step, halving checked"}}
    spectrum = {**curv["spectrum"], "lowest": curv["lowest"], "gradient_shift": curv["shift"],
                "laplace_stderr": curv["laplace_stderr"],
                "localization_deficit": curv["deficit"]}
    return OwnNetworkLLC(main["estimate"], main["stderr"], main["rhat"], main["ess"], seed, "empirical",
                         "ok" if not reasons else "suspect", tuple(reasons), settings, curv["laplace"], spectrum,
                         main["chains"], tuple(halving), tuple(pilot), deep_linear_reference(module, n=n),
                         time.perf_counter() - t0)


# ------------------------------------------------------------------------------------ exact twins


def exact_twin(widths, n: int, *, seed: int = 0, rank: int | None = None, dtype=None):
    """A deep linear network of ``widths`` at a rank-deficient teacher, with noiseless data: ``(net, X, Y, lam)``.

    Every layer of the teacher is ``U_i V_i`` of rank ``r = rank`` (default ``max(1, min(widths) // 2)``),
    Gaussian factors: a point of the most degenerate stratum of the fibre, where the local learning
    coefficient is Aoyagi's global value (at a teacher whose wider layers have full rank the local value is
    larger: measured on ``(4, 3, 4)``, ``r = 1``, a Hessian of rank 13 > 2 * 6); ``X`` is ``n`` standard normal inputs and ``Y = net(X)``, so
    ``w*`` (the teacher) minimises ``L_n`` exactly with ``L_n* = 0`` and both targets coincide: ``lam``
    is Aoyagi's value at rank ``r`` (:func:`algebra.slt.formulas.deep_linear_network`), a ``Fraction``.
    The loss is half the summed squared error, averaged over samples.
    """
    import torch

    from algebra.slt.formulas import deep_linear_network

    dtype = torch.float64 if dtype is None else dtype
    r = max(1, min(widths) // 2) if rank is None else rank
    lam = deep_linear_network(widths, r).lam
    g = torch.Generator().manual_seed(int(seed))
    layers = [torch.nn.Linear(a, b, bias=False) for a, b in zip(widths, widths[1:])]
    net = torch.nn.Sequential(*layers).to(dtype)
    with torch.no_grad():
        for m in layers:  # every layer of rank r: the most degenerate stratum, where the local value is Aoyagi's
            U = torch.randn(m.out_features, r, generator=g, dtype=dtype)
            V = torch.randn(r, m.in_features, generator=g, dtype=dtype)
            m.weight.copy_(U @ V / math.sqrt(r * m.in_features))
        X = torch.randn(n, widths[0], generator=g, dtype=dtype)
        Y = net(X)
    return net, X, Y, lam


def half_squared_error(out, y):
    """``0.5 * ||out - y||^2`` summed over outputs, averaged over the batch (the twins' loss)."""
    return 0.5 * ((out - y) ** 2).sum(-1).mean()


def check_settings(module_or_widths, *, nbeta, gamma, step_size, batch_size, draws, chains, n, seed=0,
                   twins: int = 2, warmup: int = 0, device="cpu") -> dict:
    """Run given (devinterp-style, plain SGLD) settings on exact twins and report how far they land.

    The twins are deep linear networks of the same widths (a module's ``Linear`` chain, or the widths
    given), at rank-deficient teachers with noiseless data of size ``n`` (:func:`exact_twin`), sampled with
    ``w <- w - eps/2 (nbeta grad L_b + gamma (w - w*)) + sqrt(eps) xi`` at exactly the given settings.
    Each row has the exact value, the estimate with its standard error across chains, the relative error,
    and the Laplace prediction at these settings; ``bias`` is the mean relative error over twins with the
    standard error of that mean.

    Parameters
    ----------
    module_or_widths : torch.nn.Module or sequence of int
        A module whose ``Linear`` layers chain (their widths are used), or ``(d_0, ..., d_L)``.
    nbeta, gamma, step_size : float
        The settings to check (``nbeta > 0``, ``gamma >= 0``, ``step_size > 0``).
    batch_size, draws, chains, n : int
        Minibatch size, kept draws per chain, chains (>= 2), samples per twin.
    seed : int
        Root of the SeedSequence; twin ``k`` uses child ``k``.
    twins : int
        Number of twins (independent teachers and data sets).
    warmup : int
        Draws discarded before the kept ones (devinterp's README uses none).
    device : str or torch.device

    Returns
    -------
    dict
        ``rows`` (one per twin), ``bias`` and ``bias_stderr``, ``settings``, ``seed``.

    Raises
    ------
    InputError
        Naming the offending parameter.

    References
    ----------
    Aoyagi (2024), Theorem 1 (the exact values); devinterp's ``estimate_learning_coeff_with_summary``
    (the update checked).

    Examples
    --------
    >>> import algebra
    >>> algebra.check_settings([3, 2, 3], nbeta=-1.0, gamma=1.0, step_size=1e-3, batch_size=32, draws=100,
    ...                        chains=4, n=100)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid nbeta=-1.0: expected a number > 0
    """
    import torch

    from algebra.numeric.torch_backend import TorchModel

    if isinstance(module_or_widths, torch.nn.Module):
        leaves = [m for m in module_or_widths.modules() if not list(m.children())
                  and isinstance(m, torch.nn.Linear)]
        if not leaves or any(a.out_features != b.in_features for a, b in zip(leaves, leaves[1:])):
            raise InputError("module_or_widths", type(module_or_widths).__name__,
                             "a module whose Linear layers chain, or a list of widths")
        widths = [leaves[0].in_features] + [m.out_features for m in leaves]
    else:
        widths = inputs.integers(module_or_widths, "module_or_widths", minimum=1, min_length=2)
    nbeta = inputs.real(nbeta, "nbeta", low=0, low_open=True)
    gamma = inputs.real(gamma, "gamma", low=0)
    step_size = inputs.real(step_size, "step_size", low=0, low_open=True)
    n = inputs.integer(n, "n", minimum=1)
    batch_size = inputs.integer(batch_size, "batch_size", minimum=1)
    draws = inputs.integer(draws, "draws", minimum=8)
    chains = inputs.integer(chains, "chains", minimum=2)
    twins = inputs.integer(twins, "twins", minimum=1)
    warmup = inputs.integer(warmup, "warmup", minimum=0)
    seed = inputs.seed(seed)
    dev = torch.device(device)
    rows = []
    for k, child in enumerate(np.random.SeedSequence(seed).spawn(twins)):
        s = int(child.generate_state(1)[0])
        net, X, Y, lam = exact_twin(widths, n, seed=s)
        t0 = time.perf_counter()
        out = _fixed_step_llc(net, half_squared_error, (X, Y), nbeta=nbeta, gamma=gamma, step_size=step_size,
                              batch_size=min(batch_size, n), draws=draws, chains=chains, seed=s, device=dev,
                              warmup=warmup)
        wall = time.perf_counter() - t0
        curv = _curvature(TorchModel(copy.deepcopy(net), half_squared_error, (X, Y), device=dev), nbeta, gamma, s)
        exact = float(lam)
        rows.append({"twin": k, "widths": list(widths), "rank": max(1, min(widths) // 2), "exact": str(lam),
                     "estimate": out["estimate"], "stderr": out["stderr"], "rhat": out["rhat"], "ess": out["ess"],
                     "divergent": out["divergent"], "relative_error": (out["estimate"] - exact) / exact,
                     "laplace": curv["laplace"], "laplace_relative": (curv["laplace"] - exact) / exact,
                     "seed": s, "wall_time": wall})
    errs = np.array([r["relative_error"] for r in rows], dtype=float)
    se = float(errs.std(ddof=1) / math.sqrt(errs.size)) if errs.size > 1 else float(
        rows[0]["stderr"] / float(Fraction(rows[0]["exact"])))
    return {"settings": {"nbeta": nbeta, "gamma": gamma, "step_size": step_size, "batch_size": batch_size,
                         "draws": draws, "chains": chains, "n": n, "warmup": warmup, "sampler": "sgld"},
            "seed": seed, "rows": rows, "bias": float(errs.mean()), "bias_stderr": se}
