"""Export sampler runs to ArviZ ``InferenceData`` (optional extra ``arviz``).

ArviZ (Kumar et al. 2019, JOSS 4(33), 1143) is the ecosystem's format for
MCMC output: its summaries, trace/rank plots and diagnostics then work on
our draws.  The posterior group holds, per chain and draw, the LLC draws
``llc = nbeta (L_n(w) - L_n(w*))`` (their mean over draws is the chain-wise
estimate of :func:`~algebra.numeric.estimators.estimate_llc`) and the radius
``||w - w*||^2``; ``sample_stats`` holds ``diverging`` (a chain's draws from
the step it diverged on; the draws themselves are NaN) and the per-chain
step size and acceptance.  Split R-hat of :func:`~algebra.numeric.diagnostics.split_rhat`
equals ``arviz.rhat(..., method="split")`` on the same draws; our ESS is
Geyer's on whole chains, ArviZ's ``method="mean"`` the same on split chains
(tests compare both).

arviz is imported inside the function; without it the function raises ImportError.
"""

from __future__ import annotations

import numpy as np

from algebra.errors import InputError

__all__ = ["to_inference_data"]


def to_inference_data(run):
    """Convert a :class:`~algebra.numeric.samplers.SamplerRun` to ``arviz.InferenceData``.

    Parameters
    ----------
    run : SamplerRun

    Returns
    -------
    arviz.InferenceData
        Groups ``posterior`` (``llc``, ``radius``; dims ``chain``, ``draw``)
        and ``sample_stats`` (``diverging``, ``step_size``, ``acceptance``);
        ``attrs`` record ``nbeta``, ``gamma``, ``seed`` and the method.

    Examples
    --------
    >>> from algebra.numeric.models import linear_regression_model
    >>> from algebra.numeric.samplers import sample
    >>> run = sample(linear_regression_model(2, n=10**9), method="hmc", nbeta=1e3, num_chains=4,
    ...              num_draws=100, num_warmup=100, seed=0)
    >>> idata = to_inference_data(run)                     # doctest: +SKIP
    >>> idata.posterior["llc"].shape                       # doctest: +SKIP
    (4, 100)
    """
    import arviz as az

    losses = np.asarray(getattr(run, "losses", None), dtype=float)
    if losses.ndim != 2:
        raise InputError("run", type(run).__name__, "a SamplerRun with losses of shape (chains, draws)")
    C, D = losses.shape
    llc = run.nbeta * (losses - run.loss_star)
    radius = np.asarray(run.radii, dtype=float) if run.radii is not None else np.full((C, D), np.nan)
    num_warmup = int(run.settings.get("num_warmup", 0))
    step = np.asarray(run.divergent_step)
    draw_index = np.arange(D)[None] + num_warmup
    diverging = (step[:, None] >= 0) & (draw_index >= step[:, None])
    sample_stats = {"diverging": diverging,
                    "step_size": np.repeat(np.asarray(run.step_size, dtype=float)[:, None], D, axis=1)}
    if run.accept_rate is not None:
        sample_stats["acceptance"] = np.repeat(np.asarray(run.accept_rate, dtype=float)[:, None], D, axis=1)
    attrs = {"nbeta": float(run.nbeta), "gamma": float(run.gamma), "seed": int(run.seed),
             "method": str(run.settings.get("method")), "loss_star": float(run.loss_star),
             "library": "neuroalgebra (algebra.numeric)"}
    return az.from_dict(posterior={"llc": llc, "radius": radius}, sample_stats=sample_stats,
                        attrs=attrs)
