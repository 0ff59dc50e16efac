"""Numerical checks of a learning coefficient: volume scaling and Z(n).

For ``K >= 0`` with ``K(0) = 0`` on a box ``[-b, b]^d`` with the uniform prior,

* the volume ``V(eps) = P(K(w) < eps)`` behaves as
  ``eps^lambda (c_0 + c_1 L + ... + c_{m-1} L^{m-1})`` with ``L = -log eps``;
* the partition function ``Z(n) = E[exp(-n K(w))]`` behaves as
  ``n^{-lambda} (c_0 + ... + c_{m-1} (log n)^{m-1})``

(Watanabe 2009, Ch. 4: both are governed by the largest pole ``-lambda`` of the
zeta function, of order ``m``).  Both are estimated with scrambled Sobol
quasi-Monte Carlo (``scipy.stats.qmc``); every replicate gets its own seed,
spawned from one ``numpy.random.SeedSequence``.  For a given ``m`` the fit is
a one-dimensional search over lambda with the ``c_k`` solved by linear least
squares in relative error; the replicates' lambdas give a Student-t
confidence interval.  These are floats with a stated confidence, never exact
results.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from algebra.errors import InputError

__all__ = ["ScalingFit", "volume_scaling", "partition_scaling", "evaluator", "MAX_POINTS", "MAX_REPLICATES"]

#: Most Sobol points of one check (``n_samples x replicates``, each replicate's values kept): 2^22 points
#: take about 3 s; the default is 2^19.
MAX_POINTS = 2**22
#: Most replicates: each is a fit of its own (about 20 ms), 100 of them about 2 s.
MAX_REPLICATES = 100


@dataclass(frozen=True)
class ScalingFit:
    """A fitted exponent with its confidence interval.

    Attributes
    ----------
    method : str
        ``"volume"`` (V(eps)) or ``"partition"`` (Z(n)).
    lam : float
        Mean of the replicates' fitted lambda.
    ci : tuple of float
        Confidence interval for lambda (Student t over replicates).
    confidence : float
    multiplicity : int
        The ``m`` assumed in the fit.
    multiplicity_fit : int
        The ``m`` in ``1..max_multiplicity`` preferred by the pooled data.
    replicate_lams : tuple of float
    grid : tuple of float
        The eps values (volume) or n values (partition).
    values : tuple of float
        Pooled estimates of V(eps) or Z(n) on the grid.
    coefficients : tuple of float
        ``c_k`` of the pooled fit.
    seed : int
    n_samples : int
        Sobol points per replicate.
    """

    method: str
    lam: float
    ci: tuple
    confidence: float
    multiplicity: int
    multiplicity_fit: int
    replicate_lams: tuple
    grid: tuple
    values: tuple
    coefficients: tuple
    seed: int
    n_samples: int
    dim: int
    extra: dict = field(default_factory=dict)

    def contains(self, value: Any) -> bool:
        """Whether ``value`` (e.g. an exact Fraction) lies in the confidence interval."""
        return self.ci[0] <= float(value) <= self.ci[1]

    def to_json(self) -> dict:
        return {
            "method": self.method,
            "lambda": self.lam,
            "ci": list(self.ci),
            "confidence": self.confidence,
            "multiplicity_assumed": self.multiplicity,
            "multiplicity_fit": self.multiplicity_fit,
            "replicate_lambdas": list(self.replicate_lams),
            "seed": self.seed,
            "n_samples": self.n_samples,
            "dim": self.dim,
        }

    def plot(self, path: str, *, exact: Any = None) -> str:
        """Save a log-log plot of the data and the fit to ``path`` (needs matplotlib)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        x = np.asarray(self.grid, dtype=float)
        y = np.asarray(self.values, dtype=float)
        fig, ax = plt.subplots(figsize=(5, 3.5))
        ax.loglog(x, y, "o", ms=4, label="QMC estimate")
        ax.loglog(x, _model(x, self.lam, np.asarray(self.coefficients), self.method), "-", label=f"fit: lambda = {self.lam:.3f}")
        if exact is not None:
            ax.set_title(f"exact lambda = {exact}; {int(self.confidence * 100)}% CI [{self.ci[0]:.3f}, {self.ci[1]:.3f}]")
        ax.set_xlabel("eps" if self.method == "volume" else "n")
        ax.set_ylabel("V(eps)" if self.method == "volume" else "Z(n)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
        return path


def evaluator(K: Any) -> tuple[Callable[[np.ndarray], np.ndarray], int | None]:
    """Turn ``K`` into a vectorised float function of an ``(N, d)`` array.

    ``K`` may be a callable (returned as is, dimension unknown), a
    :class:`~algebra.models.polynomial.Polynomial`, a sympy ``Poly`` or an
    exponent dict (see :func:`algebra.slt.newton.as_terms`).

    Examples
    --------
    >>> f, d = evaluator({(2, 0): 1, (0, 4): 1})
    >>> d, f(np.array([[1.0, 2.0]])).tolist()
    (2, [17.0])
    """
    if callable(K) and not hasattr(K, "gens"):
        return K, None
    from algebra.slt.newton import _poly_text, as_terms

    names, terms = as_terms(K)
    if not terms or any(sum(e) == 0 for e in terms):
        text = _poly_text(names, sorted(terms.items(), reverse=True))
        raise InputError("K", text, "a nonzero polynomial vanishing at the origin")
    exps = np.array(list(terms), dtype=np.int64)
    coeffs = np.array([float(c) for c in terms.values()])
    d = exps.shape[1]

    def f(W: np.ndarray) -> np.ndarray:
        out = np.zeros(W.shape[0])
        for e, c in zip(exps, coeffs):
            out += c * np.prod(W ** e, axis=1)
        return out

    return f, d


def _model(x: np.ndarray, lam: float, coeffs: np.ndarray, method: str) -> np.ndarray:
    L = -np.log(x) if method == "volume" else np.log(x)
    power = x**lam if method == "volume" else x ** (-lam)
    return power * np.polyval(coeffs[::-1], L)


def _fit(x: np.ndarray, y: np.ndarray, m: int, method: str, lam_max: float) -> tuple[float, np.ndarray, float]:
    """Fit ``y ~ x^{+-lam} P_{m-1}(L)`` in relative error; returns (lam, coeffs, rms)."""
    from scipy.optimize import minimize_scalar

    L = -np.log(x) if method == "volume" else np.log(x)
    basis = np.vstack([L**k for k in range(m)]).T

    # The leading coefficient c_{m-1} of the asymptotic expansion is positive; without
    # that constraint a negative log term can mimic a smaller lambda on a short range.
    # With one linear inequality the constrained least-squares optimum is either the
    # unconstrained one or lies on the boundary c_{m-1} = 0.

    def solve(lam: float) -> tuple[float, np.ndarray]:
        power = x**lam if method == "volume" else x ** (-lam)
        A = basis * (power / y)[:, None]
        coef, *_ = np.linalg.lstsq(A, np.ones_like(y), rcond=None)
        if m > 1 and coef[-1] < 0:
            coef = np.append(np.linalg.lstsq(A[:, :-1], np.ones_like(y), rcond=None)[0], 0.0)
        resid = A @ coef - 1.0
        return float(np.sqrt(np.mean(resid**2))), coef

    # The objective can have several local minima in lambda (the polynomial in L trades
    # off against the power), so scan a grid first and refine around the best point.
    grid = np.linspace(1e-6, lam_max, 200)
    scores = [solve(t)[0] for t in grid]
    i = int(np.argmin(scores))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    res = minimize_scalar(lambda t: solve(t)[0], bounds=(lo, hi), method="bounded", options={"xatol": 1e-10})
    rms, coef = solve(res.x)
    return float(res.x), coef, rms


def _sobol_batches(dim: int, n_samples: int, replicates: int, seed: int, box: float):
    from scipy.stats import qmc

    for child in np.random.SeedSequence(seed).spawn(replicates):
        sampler = qmc.Sobol(d=dim, scramble=True, seed=np.random.default_rng(child))
        m = int(math.ceil(math.log2(n_samples)))
        yield (2.0 * sampler.random_base2(m) - 1.0) * box


def _validate(dim, n_samples, replicates, seed, multiplicity, confidence, box):
    if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= 6:
        raise InputError("dim", dim, "an integer between 1 and 6 (low-dimensional checks only)")
    for name, value, low in (("n_samples", n_samples, 64), ("replicates", replicates, 2), ("multiplicity", multiplicity, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise InputError(name, value, f"an integer >= {low}")
    if replicates > MAX_REPLICATES:
        raise InputError("replicates", replicates, f"at most {MAX_REPLICATES} replicates (MAX_REPLICATES)")
    if n_samples * replicates > MAX_POINTS:
        raise InputError("n_samples", n_samples, f"at most 2^{MAX_POINTS.bit_length() - 1} Sobol points in all "
                                                 f"(n_samples x replicates, MAX_POINTS; {replicates} replicates)")
    if multiplicity > dim:  # the largest pole of the zeta function has order m <= d (Watanabe 2009, Ch. 2)
        raise InputError("multiplicity", multiplicity, f"an integer between 1 and the number of variables, {dim}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError("seed", seed, "a non-negative integer")
    if not (isinstance(confidence, float) and 0 < confidence < 1):
        raise InputError("confidence", confidence, "a float in (0, 1)")
    if not (isinstance(box, (int, float)) and box > 0):
        raise InputError("box", box, "a positive number")


def _summarise(method, lams, pooled_x, pooled_y, multiplicity, max_multiplicity, confidence, seed, n_samples, dim, lam_max):
    from scipy.stats import t as student

    lams = np.asarray(lams)
    mean = float(lams.mean())
    se = float(lams.std(ddof=1) / math.sqrt(len(lams)))
    q = float(student.ppf(0.5 + confidence / 2, len(lams) - 1))
    _, coef, _ = _fit(pooled_x, pooled_y, multiplicity, method, lam_max)
    rms = [_fit(pooled_x, pooled_y, k, method, lam_max)[2] for k in range(1, max_multiplicity + 1)]
    best = min(rms)
    # Larger m never fits worse; prefer the smallest m within 1.5x of the best residual.
    m_fit = next(k + 1 for k, r in enumerate(rms) if r <= 1.5 * best + 1e-12)
    return ScalingFit(
        method=method,
        lam=mean,
        ci=(mean - q * se, mean + q * se),
        confidence=confidence,
        multiplicity=multiplicity,
        multiplicity_fit=m_fit,
        replicate_lams=tuple(float(v) for v in lams),
        grid=tuple(float(v) for v in pooled_x),
        values=tuple(float(v) for v in pooled_y),
        coefficients=tuple(float(v) for v in coef),
        seed=seed,
        n_samples=n_samples,
        dim=dim,
        extra={"residual_rms_by_m": [float(r) for r in rms]},
    )


def volume_scaling(
    K: Any,
    *,
    dim: int | None = None,
    eps: Sequence[float] | None = None,
    multiplicity: int = 1,
    max_multiplicity: int | None = None,
    n_samples: int = 2**16,
    replicates: int = 8,
    seed: int = 0,
    box: float = 1.0,
    confidence: float = 0.95,
    min_count: int = 50,
) -> ScalingFit:
    """Estimate lambda from ``V(eps) = P(K < eps)`` under the uniform prior on ``[-box, box]^dim``.

    Parameters
    ----------
    K : callable or polynomial
        See :func:`evaluator`.
    dim : int, optional
        Number of parameters (required for a callable ``K``).
    eps : sequence of float, optional
        Thresholds; default a log grid chosen so each replicate sees at
        least ``min_count`` points below the smallest threshold.
    multiplicity : int
        The ``m`` assumed in the fitted form.
    n_samples, replicates, seed, box, confidence
        Sobol points per replicate (rounded up to a power of two), number of
        independent scrambles, root seed, half-width of the box, CI level.

    Examples
    --------
    >>> fit = volume_scaling({(2, 0): 1, (0, 4): 1}, n_samples=2**12, replicates=4)
    >>> fit.contains(0.75), round(fit.lam, 1)
    (True, 0.8)
    """
    f, d = evaluator(K)
    dim = d if dim is None else dim
    if dim is None:
        raise InputError("dim", None, "the number of parameters of a callable K")
    _validate(dim, n_samples, replicates, seed, multiplicity, confidence, box)
    max_multiplicity = max_multiplicity or max(multiplicity, min(dim, 3))
    values = [np.sort(f(W)) for W in _sobol_batches(dim, n_samples, replicates, seed, box)]
    N = len(values[0])
    if eps is None:
        lo = max(float(np.max([v[min_count] for v in values])), 1e-300)
        hi = float(np.min([v[N // 4] for v in values]))
        if not hi > lo:
            raise InputError("K", "the sampled values", "a function with a spread of small values on the box")
        grid = np.geomspace(lo, hi, 12)
    else:
        grid = np.asarray(eps, dtype=float)
        if grid.ndim != 1 or len(grid) < 3 or np.any(grid <= 0):
            raise InputError("eps", list(eps), "at least three positive thresholds")
    curves = [np.searchsorted(v, grid, side="left") / N for v in values]
    if any(np.any(c == 0) for c in curves):
        raise InputError("eps", grid.tolist(), "thresholds with at least one sample below each")
    lam_max = float(dim)
    lams = [_fit(grid, c, multiplicity, "volume", lam_max)[0] for c in curves]
    pooled = np.mean(curves, axis=0)
    return _summarise("volume", lams, grid, pooled, multiplicity, max_multiplicity, confidence, seed, N, dim, lam_max)


def partition_scaling(
    K: Any,
    *,
    dim: int | None = None,
    ns: Sequence[float] | None = None,
    multiplicity: int = 1,
    max_multiplicity: int | None = None,
    n_samples: int = 2**16,
    replicates: int = 8,
    seed: int = 0,
    box: float = 1.0,
    confidence: float = 0.95,
) -> ScalingFit:
    """Estimate lambda from ``Z(n) = E[exp(-n K)]`` (uniform prior on the box).

    Examples
    --------
    >>> fit = partition_scaling({(2, 0): 1, (0, 4): 1}, n_samples=2**12, replicates=4)
    >>> fit.contains(0.75)
    True
    """
    f, d = evaluator(K)
    dim = d if dim is None else dim
    if dim is None:
        raise InputError("dim", None, "the number of parameters of a callable K")
    _validate(dim, n_samples, replicates, seed, multiplicity, confidence, box)
    max_multiplicity = max_multiplicity or max(multiplicity, min(dim, 3))
    grid = np.geomspace(1e2, 1e4, 10) if ns is None else np.asarray(ns, dtype=float)
    if grid.ndim != 1 or len(grid) < 3 or np.any(grid <= 1):
        raise InputError("ns", None if ns is None else list(ns), "at least three sample sizes > 1")
    curves = []
    for W in _sobol_batches(dim, n_samples, replicates, seed, box):
        k = f(W)
        curves.append(np.array([np.mean(np.exp(-n * k)) for n in grid]))
    lam_max = float(dim)
    lams = [_fit(grid, c, multiplicity, "partition", lam_max)[0] for c in curves]
    N = len(W)
    pooled = np.mean(curves, axis=0)
    return _summarise("partition", lams, grid, pooled, multiplicity, max_multiplicity, confidence, seed, N, dim, lam_max)
