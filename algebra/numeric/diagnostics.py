"""Convergence diagnostics for batched chains: ESS, split R-hat, burn-in, Hutchinson trace.

References
----------
* Effective sample size with Geyer's initial monotone sequence and split
  R-hat: Gelman et al., *Bayesian Data Analysis*, 3rd ed. (2013), Sec. 11.4-11.5;
  Vehtari et al. (2021), "Rank-normalization, folding, and localization".
* Burn-in: the MSER rule of White (1997) (truncation that minimises the
  standard error of the remaining mean), applied to the chain-averaged trace.
* Hessian trace: Hutchinson (1990); grokking paper, Appendix I.
"""

from __future__ import annotations

import numpy as np

from algebra.errors import InputError

__all__ = ["autocorrelation", "effective_sample_size", "split_rhat", "detect_burnin",
           "burnin_report", "hutchinson_trace"]


def _chains(x) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.ndim == 1:
        x = x[None]
    if x.ndim != 2 or x.shape[1] < 4:
        raise InputError("samples", x.shape, "an array (chains, draws) with at least 4 draws")
    return x


def autocorrelation(x) -> np.ndarray:
    """Autocorrelation of each chain at every lag (FFT), shape (chains, draws).

    Examples
    --------
    >>> rho = autocorrelation(np.array([[1.0, -1.0] * 8]))
    >>> float(rho[0, 0]), float(np.round(rho[0, 1], 2))
    (1.0, -0.94)
    """
    x = _chains(x)
    n = x.shape[1]
    centred = x - x.mean(axis=1, keepdims=True)
    size = 1 << (2 * n - 1).bit_length()
    f = np.fft.rfft(centred, size, axis=1)
    acov = np.fft.irfft(f * np.conj(f), size, axis=1)[:, :n] / n
    var = acov[:, :1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(var > 0, acov / np.where(var > 0, var, 1.0), 0.0)


def effective_sample_size(x) -> float:
    """Multi-chain effective sample size of the mean (Geyer initial monotone sequence).

    Uses the within/between-chain variance combination of Gelman et al. (2013),
    so chains that disagree lower the ESS.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> ess = effective_sample_size(rng.standard_normal((4, 1000)))
    >>> 3000 < ess < 5000
    True
    """
    x = _chains(x)
    m, n = x.shape
    rho_w = autocorrelation(x)
    acov0 = x.var(axis=1, ddof=1)
    W = acov0.mean()
    B_over_n = x.mean(axis=1).var(ddof=1) if m > 1 else 0.0
    var_plus = (n - 1) / n * W + B_over_n
    if var_plus <= 0:
        return float(m * n)
    mean_acov = (acov0[:, None] * (n - 1) / n * rho_w).mean(axis=0)
    rho = 1.0 - (W - mean_acov) / var_plus
    rho[0] = 1.0
    # Geyer: sum pairs rho_{2k} + rho_{2k+1} while positive, made monotone
    total = 0.0
    prev = np.inf
    for k in range(0, n - 1, 2):
        pair = rho[k] + rho[k + 1]
        if pair <= 0:
            break
        pair = min(pair, prev)
        prev = pair
        total += pair
    tau = max(-1.0 + 2.0 * total, 1.0 / np.log10(max(m * n, 10)))
    return float(m * n / tau)


def split_rhat(x) -> float:
    """Split R-hat (Gelman et al. 2013): each chain is halved, then the classic ratio.

    Values above about 1.01-1.05 say that chains have not mixed.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> round(split_rhat(rng.standard_normal((4, 1000))), 2)
    1.0
    >>> split_rhat(rng.standard_normal((4, 1000)) + np.arange(4)[:, None]) > 1.5
    True
    """
    x = _chains(x)
    half = x.shape[1] // 2
    s = np.concatenate([x[:, :half], x[:, half:2 * half]], axis=0)
    n = s.shape[1]
    W = s.var(axis=1, ddof=1).mean()
    B = n * s.mean(axis=1).var(ddof=1)
    if W == 0:
        return 1.0 if B == 0 else float("inf")
    return float(np.sqrt(((n - 1) / n * W + B / n) / W))


def detect_burnin(x, *, batch: int = 5, min_kept: int = 5) -> int:
    """Number of initial draws to discard (MSER-``batch`` on the chain-averaged trace).

    Chooses ``d`` minimising ``var(y[d:]) / (len(y) - d)^2`` over batch means
    ``y`` (White 1997).  The search runs over the *whole* trace, keeping at
    least ``min_kept`` batches, so the answer can exceed the number of draws
    it leaves: MSER's own validity rule then says the run is too short
    (burn-in longer than the kept draws), and a minimiser at the end of the
    search window says the trace never became stationary
    (:func:`burnin_report` gives both signals).

    Examples
    --------
    >>> trace = np.concatenate([np.linspace(10, 0, 200), np.zeros(800)])
    >>> rng = np.random.default_rng(1)
    >>> 150 <= detect_burnin(trace + 0.1 * rng.standard_normal(1000)) <= 250
    True
    """
    return burnin_report(x, batch=batch, min_kept=min_kept)["burnin"]


def burnin_report(x, *, batch: int = 5, min_kept: int = 5) -> dict:
    """MSER burn-in with its two failure signals.

    Returns
    -------
    dict
        ``burnin`` (draws to discard), ``kept`` (draws left),
        ``exceeds_kept`` (``burnin > kept``: more of the run is transient
        than stationary; MSER's truncation rule rejects such a run) and
        ``at_window_end`` (the minimiser is the last admissible truncation:
        the trace is still trending when the draws run out).

    Examples
    --------
    A trace that drifts for 70% of the run, then settles:

    >>> rng = np.random.default_rng(0)
    >>> late = np.concatenate([np.linspace(5, 0, 700), np.zeros(300)]) + 0.05 * rng.standard_normal(1000)
    >>> r = burnin_report(late)
    >>> r["exceeds_kept"], r["at_window_end"]
    (True, False)

    A trace still relaxing when the draws run out (time constant 300 draws of 1000):

    >>> burnin_report(5 * np.exp(-np.arange(1000) / 300))["at_window_end"]
    True
    """
    x = _chains(x)
    if not isinstance(batch, (int, np.integer)) or batch < 1:
        raise InputError("batch", batch, "a positive integer")
    if not isinstance(min_kept, (int, np.integer)) or min_kept < 2:
        raise InputError("min_kept", min_kept, "an integer >= 2")
    y = x.mean(axis=0)
    nb = y.size // batch
    if nb < 2 * min_kept:
        return {"burnin": 0, "kept": int(y.size), "exceeds_kept": False, "at_window_end": False}
    means = y[:nb * batch].reshape(nb, batch).mean(axis=1)
    means = means - means.mean()  # centred: the one-pass variances below lose nothing to a large mean
    last = nb - min_kept
    # MSER score of every truncation d = 0..last in one pass (suffix sums)
    rev = means[::-1]
    count = np.arange(1, nb + 1)
    s1 = np.cumsum(rev)[::-1]
    s2 = np.cumsum(rev**2)[::-1]
    size = count[::-1]
    var = s2 / size - (s1 / size) ** 2
    score = np.maximum(var, 0.0)[:last + 1] / size[:last + 1] ** 2
    d = int(np.argmin(score))
    burnin = d * batch
    kept = int(y.size - burnin)
    return {"burnin": burnin, "kept": kept, "exceeds_kept": bool(burnin > kept),
            "at_window_end": bool(d == last)}


def hutchinson_trace(model, w=None, *, num_vectors: int = 100, seed: int = 0) -> dict:
    """Hutchinson estimate of ``tr H`` of ``L_n`` at ``w`` (grokking paper, Appendix I).

    ``tr H = E[v^T H v]`` for Rademacher ``v``; the ``num_vectors`` probes are
    one batch of Hessian-vector products.  Returns the estimate, its standard
    error and, when ``P <= 400``, the exact trace for comparison.

    Examples
    --------
    >>> from algebra.numeric.models import linear_regression_model
    >>> out = hutchinson_trace(linear_regression_model(3, n=10**8), num_vectors=20)
    >>> round(out["exact"], 3), abs(out["estimate"] - out["exact"]) < 4 * out["stderr"] + 1e-6
    (3.0, True)
    """
    if not isinstance(num_vectors, (int, np.integer)) or num_vectors < 2:
        raise InputError("num_vectors", num_vectors, "an integer >= 2")
    w = np.asarray(model.w_star if w is None else w, dtype=float)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    V = rng.choice([-1.0, 1.0], size=(int(num_vectors), w.size))
    quad = np.sum(V * model.hessian_vector(w, V), axis=1)
    out = {"estimate": float(quad.mean()), "stderr": float(quad.std(ddof=1) / np.sqrt(quad.size)),
           "num_vectors": int(num_vectors), "seed": int(seed), "exact": None}
    if w.size <= 400:
        out["exact"] = float(np.trace(model.hessian_vector(w, np.eye(w.size))))
    return out
