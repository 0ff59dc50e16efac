"""The finite-temperature (Laplace) reference: what a sampler should return at its own ``nbeta`` and ``gamma``.

Near a minimum ``w*`` whose Hessian ``H`` of ``L_n`` has nonzero eigenvalues
``h_1, ..., h_r``, the localized tempered posterior
``exp(-nbeta (L_n - L_n*) - gamma/2 ||w - w*||^2)`` is, in those directions, the
Gaussian of precision ``nbeta h_i + gamma``, so

    E[nbeta (L_n - L_n*)] = sum_i nbeta h_i / (2 (nbeta h_i + gamma))        (Laplace)

(plus the contribution of the degenerate directions, which this leaves out).
It equals ``r / 2`` when ``gamma << nbeta h_i`` for all ``i``: the learning
coefficient of a model that is regular at ``w*`` (Watanabe 2009, Thm 6.2).  The
difference ``r/2 - E`` is what the localizing prior takes away in the
identifiable directions: :func:`localization_deficit`, a diagnostic the
calibration reads (it uses no exact value).  For a singular model the Laplace
value is not the estimator's target (the degenerate directions add their
own, non-Gaussian share), but it is still the number a Gaussian reading of
the same settings predicts; set beside devinterp's or a paper's fixed SGLD
settings (``nbeta = 30, gamma = 5``, say) it says how much of a reported
value those settings alone explain.

The spectrum comes from Hessian-vector products: the dense Hessian when
``P <= DENSE_MAX``, otherwise the ``LANCZOS_K`` largest eigenvalues by Lanczos
(:func:`scipy.sparse.linalg.eigsh`), which resolve the nonzero spectrum only
when its rank is below ``LANCZOS_K`` (``resolved`` says whether it did).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from algebra.errors import InputError

__all__ = ["HessianSpectrum", "hessian_spectrum", "laplace_prediction", "localization_deficit",
           "DENSE_MAX", "LANCZOS_K"]

DENSE_MAX = 2500
LANCZOS_K = 300
RANK_TOL = 1e-4  # eigenvalues below this fraction of the largest count as zero, unless a gap says otherwise
GAP = 1e3  # a drop by this factor between consecutive eigenvalues separates the rank from noise
FLOOR = 1e-10  # below this fraction of the largest, finite differences cannot tell an eigenvalue from zero


@dataclass(frozen=True)
class HessianSpectrum:
    """Nonzero Hessian eigenvalues of ``L_n`` at ``w*`` and how they were found.

    Attributes
    ----------
    eigenvalues : tuple of float
        The eigenvalues above ``RANK_TOL`` times the largest, descending.
    rank : int
        Their number (a float rank with a relative cut, not certified).
    resolved : bool
        Whether every nonzero eigenvalue was found (always for the dense route).
    method : str
        ``"dense"`` or ``"lanczos"``.
    gradient_norm : float
        ``||grad L_n(w*)||``; with ``offset`` below, how far ``w*`` is from the minimum.
    offset : float or None
        ``1/2 g^T H^+ g`` (the Laplace ``L_n(w*) - min L_n``), dense route only.
    """

    eigenvalues: tuple
    rank: int
    resolved: bool
    method: str
    gradient_norm: float
    offset: float | None

    def to_json(self) -> dict:
        ev = self.eigenvalues
        return {"rank": self.rank, "resolved": self.resolved, "method": self.method,
                "largest": ev[0] if ev else 0.0, "smallest_nonzero": ev[-1] if ev else None,
                "gradient_norm": self.gradient_norm, "offset": self.offset}


def _nonzero(vals: np.ndarray, top: float, floor: float) -> np.ndarray:
    """The eigenvalues that count as nonzero: above the widest gap of at least :data:`GAP` (the
    numerical rank), else above ``RANK_TOL * top``; never below ``floor * top``.

    Examples
    --------
    >>> _nonzero(np.array([1.0, 0.5, 1e-6, 1e-7]), 1.0, 0.0)
    array([1. , 0.5])
    >>> _nonzero(np.array([1.0, 0.5, 0.2, 0.01]), 1.0, 0.0)
    array([1.  , 0.5 , 0.2 , 0.01])
    >>> _nonzero(np.array([1.0, 0.5, 0.2, 0.01]), 1.0, 0.1)
    array([1. , 0.5, 0.2])
    """
    if not top > 0:
        return vals[:0]
    v = np.sort(vals[vals > max(FLOOR, floor) * top])[::-1]
    if v.size >= 2:
        ratios = v[:-1] / v[1:]
        i = int(np.argmax(ratios))
        if ratios[i] >= GAP:
            return v[: i + 1]
    return v[v > RANK_TOL * top]


def hessian_spectrum(model, *, dense_max: int = DENSE_MAX, lanczos_k: int = LANCZOS_K,
                     seed: int = 0, scale: float | None = None, floor: float = 0.0) -> HessianSpectrum:
    """The nonzero spectrum of the Hessian of ``L_n`` at ``model.w_star``.

    Parameters
    ----------
    model : object
        With ``w_star``, ``loss_and_grad(W)`` and ``hessian_vector(w, V)`` (all numeric models
        and :class:`~algebra.numeric.torch_backend.TorchModel`).
    dense_max, lanczos_k : int
        Dense up to ``dense_max`` parameters, else the ``lanczos_k`` largest eigenvalues.
    scale : float, optional
        The curvature the rank cut is relative to (default: the largest eigenvalue).  Where
        the Hessian vanishes at ``w*`` (``K = x^2 y^2``), pass the model's units: otherwise
        the finite-``n`` noise, of order ``n^-1/2``, would count as rank.
    seed : int
        Start vector of Lanczos.

    Examples
    --------
    A reduced-rank regression ``M = N = 3, H = 2`` at a rank-1 teacher: the Hessian's rank is the
    dimension ``r (M + N) - r^2 = 5`` of the rank-1 matrices, the directions the teacher's product sees:

    >>> from algebra.numeric.models import rrr_model
    >>> spec = hessian_spectrum(rrr_model(3, 3, 2, 1, n=10**12, seed=0))
    >>> spec.rank, spec.method, spec.resolved
    (5, 'dense', True)
    """
    w = np.asarray(model.w_star, dtype=float)
    P = w.size
    g = np.asarray(model.loss_and_grad(w[None])[1], dtype=float)[0]
    gnorm = float(np.linalg.norm(g))
    if P <= dense_max:
        rows = []
        for a in range(0, P, 256):
            E = np.zeros((min(256, P - a), P))
            E[np.arange(E.shape[0]), a + np.arange(E.shape[0])] = 1.0
            rows.append(np.asarray(model.hessian_vector(w, E), dtype=float))
        H = np.concatenate(rows, axis=0)
        H = 0.5 * (H + H.T)
        vals, vecs = np.linalg.eigh(H)
        top = max(float(np.max(np.abs(vals))) if vals.size else 0.0, float(scale or 0.0))
        kept = _nonzero(vals, top, floor)
        keep = vals >= kept.min() if kept.size else np.zeros(P, dtype=bool)
        coef = vecs[:, keep].T @ g
        offset = float(0.5 * np.sum(coef**2 / vals[keep])) if np.any(keep) else 0.0
        ev = tuple(float(v) for v in sorted(vals[keep], reverse=True))
        return HessianSpectrum(ev, len(ev), True, "dense", gnorm, offset)
    from scipy.sparse.linalg import LinearOperator, eigsh

    op = LinearOperator((P, P), matvec=lambda v: np.asarray(model.hessian_vector(w, np.asarray(v)[None]),
                                                            dtype=float)[0], dtype=float)
    k = min(int(lanczos_k), P - 2)
    v0 = np.random.default_rng(seed).standard_normal(P)
    vals = eigsh(op, k=k, which="LA", v0=v0, return_eigenvectors=False, tol=1e-6)
    vals = np.sort(vals)[::-1]
    top = max(float(vals[0]) if vals.size else 0.0, float(scale or 0.0))
    keep = _nonzero(vals, top, floor)
    resolved = keep.size < vals.size
    ev = tuple(float(v) for v in keep)
    return HessianSpectrum(ev, len(ev), bool(resolved), "lanczos", gnorm, None)


def laplace_prediction(spectrum, nbeta: float, gamma: float) -> float:
    """``sum_i nbeta h_i / (2 (nbeta h_i + gamma))`` over the nonzero eigenvalues (module docstring).

    Examples
    --------
    >>> round(laplace_prediction([1.0, 1.0], 100.0, 1.0), 4)    # 2 * 100/101 / 2
    0.9901
    >>> from algebra.numeric.models import linear_regression_model
    >>> from algebra.numeric.estimators import tempered_expectation
    >>> m = linear_regression_model(2, n=10**12)
    >>> abs(laplace_prediction(hessian_spectrum(m), 100.0, 1.0) - tempered_expectation(m, 100.0, 1.0, points=801)) < 1e-3
    True
    """
    ev = np.asarray(getattr(spectrum, "eigenvalues", spectrum), dtype=float)
    if not (nbeta > 0 and gamma >= 0 and math.isfinite(nbeta) and math.isfinite(gamma)):
        raise InputError("nbeta, gamma", (nbeta, gamma), "nbeta > 0 and gamma >= 0, finite")
    return float(np.sum(nbeta * ev / (2.0 * (nbeta * ev + gamma))))


def localization_deficit(spectrum, nbeta: float, gamma: float) -> float:
    """Fraction of ``rank / 2`` that the localizing prior removes in the identifiable directions.

    ``1 - laplace_prediction / (rank / 2)``: 0 when ``gamma`` is negligible against every
    ``nbeta h_i``.  A scale-free number (loss and prior enter only through ``gamma / (nbeta h_i)``).

    Examples
    --------
    The P = 10^4 quadratic network's spectrum spans about ``10^4`` to ``10^5``; with the old rule
    ``gamma = h`` at ``nbeta h = 10^4`` (``nbeta ~ 0.1``) the prior takes away nearly everything:

    >>> round(localization_deficit([1e5, 1e4], 0.1, 1e5), 3)
    0.95
    >>> round(localization_deficit([1e5, 1e4], 0.1, 1.0), 4)
    0.0005
    """
    ev = np.asarray(getattr(spectrum, "eigenvalues", spectrum), dtype=float)
    if ev.size == 0:
        return 0.0
    return 1.0 - laplace_prediction(ev, nbeta, gamma) / (ev.size / 2.0)
