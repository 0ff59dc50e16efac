"""Grokking on modular addition as basin selection (the grokking paper, seed 002).

Modules (import them directly; nothing heavy is imported here):

``task``         the modular-addition data and its seeded train/validation split (Sec. 3.1)
``network``      the quadratic network ``V (W^T X)^2`` and its centred loss in numpy,
                 with exact gradients and Hessian-vector products (Sec. 3.2)
``runs``         training runs as directories (params.csv, loss_data.csv, checkpoints),
                 resumable, never overwriting a finished run (App. H.1)
``evaluation``   per-checkpoint LLC (paper's SGLD and the calibrated estimator),
                 Hutchinson trace, K_eff, Jacobian rank, GSM (App. H.3, I)
``references``   exact references certified by the dimension engine
                 (Thm 5.2, Cor 5.3, Cor 5.4, Remark 5.5 on the actual training data)
``experiments``  sweeps over (p, K, lr, wd, f, seed) on :mod:`algebra.sweep` (Dask)
``figures``      Figures 1, 2 and 9 (matplotlib, lazily imported)
(commands: ``algebra.cli.grokking``, ``neuroalgebra grok train|llc|sweep|report|dim``)
"""
