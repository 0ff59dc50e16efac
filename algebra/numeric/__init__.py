"""Numeric layer: sampled local learning coefficients and their diagnostics.

Modules (import them directly; nothing is re-exported here so that importing
:mod:`algebra` stays light):

``models``        numpy regression models linear in a composite (RRR, deep linear
                  networks, the query-key composite, quadratic networks, regular and
                  polynomial models),
                  evaluated through sufficient statistics
``samplers``      batched SGLD, RMSProp-SGLD, MALA and HMC on the localized tempered posterior
``estimators``    chain-wise and multi-temperature LLC estimators with ESS-based errors
``diagnostics``   ESS, split R-hat, burn-in detection (with its failure signals),
                  Hutchinson Hessian trace
``calibration``   the one automatic calibration procedure and its ok/suspect verdict
``suite``         the calibration suite (``SUITE``, the procedure was designed on it) and the
                  validation suite (``VALIDATION``, never used for design); lambda, m from
                  :mod:`algebra.slt`
``inference_data`` export of sampler runs to ArviZ ``InferenceData`` (arviz imported lazily)
``torch_backend`` optional: ``TorchModel`` (a user's ``torch.nn.Module``, data and loss as a model
                  for the calibrated procedure) and batched SGLD (torch imported lazily)
(commands: ``algebra.cli.numeric``, ``neuroalgebra llc ...``)
"""
