"""Per-checkpoint measurements of a run: LLC (two estimators), Hutchinson trace, atoms, Jacobian rank.

Everything is computed from the **training data only** (paper Section 6.2),
on the loss ``L_n`` of :class:`~algebra.grokking.network.CentredLoss`:

``llc_sgld``
    the paper's fixed sampler (App. H.1): SGLD, step ``1e-4``,
    ``beta = 30/n`` (so ``n beta = 30``), ``gamma = 5``, 3 chains, 100
    burn-in steps, 600 draws, minibatches of the training batch size as
    devinterp's data loader gives them; chain-wise estimator of
    :func:`algebra.numeric.estimators.estimate_llc` with its ESS-based error.
``llc_cal``
    the toolkit's calibrated estimator :func:`algebra.numeric.calibration.calibrated_llc`
    (HMC, temperature ladder, ok/suspect verdict with reasons).  It costs
    ~100x the SGLD estimate, so it runs on every ``calibrated_every``-th checkpoint.
``hutch``
    :func:`algebra.numeric.diagnostics.hutchinson_trace` with 100 Rademacher
    probes (App. I) of the exact Hessian-vector product.
``k_eff``
    atoms above 1% of the largest (Remark 5.5), see
    :func:`~algebra.grokking.references.effective_atoms`.
``jac_rank``, ``jac_gap``
    numerical rank of the float Jacobian of the centred training
    predictions at the trained point (the largest ratio of consecutive
    singular values among those above ``1e-12 s_max`` marks the rank) and
    that ratio; ``exact_dim_k_eff`` is the engine's certified data
    dimension for width ``K_eff`` (``jacobian_every``-th checkpoints).

Results go to ``evaluation.csv`` in the run directory (one row per epoch;
epochs already there, or in ``evaluation_tasks.jsonl``, are skipped, so an
interrupted evaluation resumes; checkpoints can run as Dask tasks) and
the SGLD estimate fills the ``llc_mean, llc_se`` columns (estimate and its ESS-based standard error) of ``loss_data.csv``.
Seeds: checkpoint ``e`` uses ``SeedSequence(seed, spawn_key=(e,))``; each
row records it.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

from algebra.errors import InputError, ResourceError
from algebra.exact.field import FloatField
from algebra.grokking.references import DataRestrictedQuadratic, data_dimension, effective_atoms
from algebra.grokking.runs import LOSS_COLUMNS, Run, _write_csv, load_run, task_losses
from algebra.numeric.calibration import FAST, CalibrationSettings, calibrated_llc
from algebra.numeric.diagnostics import hutchinson_trace
from algebra.numeric.estimators import estimate_llc
from algebra.numeric.laplace import hessian_spectrum, laplace_prediction
from algebra.numeric.samplers import sample

__all__ = ["PAPER_SGLD", "EVAL_COLUMNS", "evaluate_checkpoint", "evaluate_run", "read_evaluation",
           "numerical_rank", "gsm"]

#: The grokking paper's fixed SGLD settings (App. H.1); ``nbeta = n * beta = 30``.
PAPER_SGLD = {"method": "sgld", "nbeta": 30.0, "gamma": 5.0, "step_size": 1e-4,
              "num_chains": 3, "num_warmup": 100, "num_draws": 600}

EVAL_COLUMNS = ("epoch", "seed", "train_loss", "val_loss", "train_acc", "val_acc",
                "llc_sgld", "llc_sgld_se", "llc_sgld_rhat", "llc_cal", "llc_cal_se", "llc_cal_verdict",
                "llc_cal_reasons", "llc_cal_target", "llc_sgld_laplace",
                "hutch", "hutch_se", "k_eff", "jac_rank", "jac_gap", "exact_dim_k_eff", "exact_dim_certified")


def numerical_rank(s: np.ndarray, *, floor: float = 1e-12) -> tuple:
    """``(rank, gap)`` from singular values: the largest ratio ``s_i / s_{i+1}`` marks the rank.

    Only gaps after values above ``floor * s_max`` compete; if every value
    is above the floor the rank is full and the gap is ``inf``.

    Examples
    --------
    >>> numerical_rank(np.array([4.0, 2.0, 1.0, 2.0**-30, 2.0**-50]))
    (3, 1073741824.0)
    >>> numerical_rank(np.array([2.0, 1.0]))
    (2, inf)
    """
    s = np.sort(np.asarray(s, dtype=float))[::-1]
    if s.size == 0 or s[0] == 0:
        return 0, math.inf
    k = int(np.sum(s > floor * s[0]))
    if k == s.size:
        return int(s.size), math.inf
    with np.errstate(divide="ignore"):
        ratios = s[:k] / s[1:k + 1]  # the last one looks past the floor (inf when exactly 0)
    i = int(np.argmax(ratios))
    return i + 1, float(ratios[i])


def gsm(epochs, train_acc, val_acc, *, threshold: float = 0.95) -> float:
    """Grokking severity measure (App. H.3) from checkpoint accuracies.

    ``GSM = 1{a_V(T) >= 0.95} / T * sum_x |a_T(x) - a_V(x)|``; between
    checkpoints the gap is taken as constant (left Riemann sum over the
    checkpoint epochs), so with a checkpoint every epoch it is the paper's sum.

    Examples
    --------
    >>> gsm([0, 10, 20], [0.0, 1.0, 1.0], [0.0, 0.5, 1.0])
    0.25
    >>> gsm([0, 10, 20], [0.0, 1.0, 1.0], [0.0, 0.5, 0.9])     # never generalises
    0.0
    """
    e = np.asarray(epochs, dtype=float)
    gap = np.abs(np.asarray(train_acc, float) - np.asarray(val_acc, float))
    if e.size < 2 or not np.isfinite(gap[-1]) or not val_acc[-1] >= threshold:
        return 0.0
    T = e[-1] - e[0]
    return float(np.sum(gap[:-1] * np.diff(e)) / T)


def _checkpoint_seed(seed: int, epoch: int) -> int:
    return int(np.random.SeedSequence(seed, spawn_key=(int(epoch),)).generate_state(1)[0])


def evaluate_checkpoint(run: Run, epoch: int, *, seed: int = 0, calibrated: bool = False,
                        calibration: CalibrationSettings = FAST, hutchinson_vectors: int = 100,
                        jacobian: bool = False, exact: bool = False, sgld: dict | None = None,
                        k_eff_rtol: float = 1e-2) -> dict:
    """Measure one checkpoint (module docstring); returns a row of :data:`EVAL_COLUMNS`."""
    cfg = run.config
    task = run.task()
    tr, _ = task_losses(task, cfg.width)
    theta = run.theta(epoch)
    tr.w_star = theta
    s = _checkpoint_seed(seed, epoch)
    ld = {int(r["epoch"]): r for r in run.loss_data()}.get(int(epoch), {})
    row = {c: "" for c in EVAL_COLUMNS}
    row.update(epoch=int(epoch), seed=s, **{k: ld.get(k, "") for k in ("train_loss", "val_loss", "train_acc", "val_acc")})
    settings = dict(PAPER_SGLD if sgld is None else sgld)
    batch = cfg.batch_size if tr.n > cfg.batch_size else None
    sub = np.random.SeedSequence(s).generate_state(3)
    est = estimate_llc(sample(tr, batch_size=batch, seed=int(sub[0]), **settings), burnin=0)
    row.update(llc_sgld=est.estimate, llc_sgld_se=est.stderr, llc_sgld_rhat=est.rhat)
    h = hutchinson_trace(tr, theta, num_vectors=hutchinson_vectors, seed=int(sub[1]))
    row.update(hutch=h["estimate"], hutch_se=h["stderr"])
    k_eff = effective_atoms(theta, cfg.p, cfg.width, rtol=k_eff_rtol)
    row["k_eff"] = k_eff
    if calibrated:
        # the training set is a fixed data set: its own loss's coefficient at the checkpoint (issue 22 item 4),
        # no population temperature cap (n = 144 would leave one far too hot temperature)
        cal = calibrated_llc(tr, settings=calibration, seed=int(sub[2]), target="empirical")
        row.update(llc_cal=cal.estimate, llc_cal_se=cal.stderr, llc_cal_verdict=cal.verdict,
                   llc_cal_reasons="; ".join(cal.reasons), llc_cal_target=cal.target)
        # what a Gaussian reading of the paper's own SGLD settings predicts (its "estimator-dependent scale")
        spec = hessian_spectrum(tr)
        if spec.resolved:
            row["llc_sgld_laplace"] = laplace_prediction(spec, settings["nbeta"], settings["gamma"])
    if jacobian:
        m = DataRestrictedQuadratic(cfg.p, cfg.width, task.a[task.train], task.b[task.train])
        J = m.jacobian(theta, None, FloatField())
        rank, gap = numerical_rank(np.linalg.svd(J, compute_uv=False))
        row.update(jac_rank=rank, jac_gap=gap)
    if exact and k_eff > 0:
        try:
            d = data_dimension(cfg.p, k_eff, cfg.train_fraction, cfg.seed, coefficient_space=False, task=task)
        except ResourceError:  # too large for the engine: left empty, never guessed
            d = None
        if d is not None:
            row.update(exact_dim_k_eff=d["dimension"], exact_dim_certified=d["certified"])
    return row


def read_evaluation(path) -> list:
    """Rows of ``evaluation.csv`` (numbers as floats, verdicts as strings, empty as NaN).

    Examples
    --------
    >>> import tempfile
    >>> read_evaluation(tempfile.mkdtemp())      # not evaluated yet
    []
    """
    path = Path(path)
    f = path / "evaluation.csv" if path.is_dir() else path
    if not f.exists():
        return []
    out = []
    with open(f, newline="") as fh:
        for r in csv.DictReader(fh):
            row = {}
            for k, v in r.items():
                if v in ("", None):
                    row[k] = float("nan")
                else:
                    try:
                        row[k] = float(v)
                    except ValueError:
                        row[k] = v
            out.append(row)
    return out


def _every(epochs: list, k: int) -> set:
    """Every ``k``-th epoch counted back from the last (the final checkpoint is always in)."""
    if k <= 0:
        return set()
    return set(epochs[::-1][::k])


def _evaluate_item(item: dict) -> dict:
    """Sweep task: one checkpoint of one run (see :func:`evaluate_run`)."""
    cal = CalibrationSettings(**{k: tuple(v) if isinstance(v, list) else v for k, v in item["calibration"].items()})
    return evaluate_checkpoint(load_run(item["run_path"]), item["epoch"], seed=item["root_seed"],
                               calibrated=item["calibrated"], calibration=cal,
                               hutchinson_vectors=item["hutchinson_vectors"], jacobian=item["jacobian"],
                               exact=item["jacobian"])


def evaluate_run(path, *, every: int = 1, calibrated_every: int = 0, jacobian_every: int = 0,
                 seed: int = 0, calibration: CalibrationSettings = FAST, hutchinson_vectors: int = 100,
                 progress: bool = False, scheduler: str | None = "serial", workers: int | None = None) -> list:
    """Evaluate the checkpoints of a finished run (the last and every ``every``-th before it); resumable.

    Each checkpoint is one task of :func:`algebra.sweep.run_sweep`: in this
    process by default, on a LocalCluster with ``workers``, or on the Dask
    scheduler at ``scheduler`` (the paper's preset has 1,001 checkpoints of
    ~15 min each on one CPU core).  Finished checkpoints are kept in
    ``evaluation_tasks.jsonl`` as they arrive and gathered into
    ``evaluation.csv``; epochs already in either are not evaluated again.

    Parameters
    ----------
    every : int
        Stride over checkpoints for the SGLD LLC and the Hutchinson trace,
        counted back from the last checkpoint (always evaluated).
    calibrated_every, jacobian_every : int
        Strides (over the evaluated checkpoints, again from the last) for the
        calibrated LLC and for the Jacobian rank with the exact K_eff
        dimension; 0 turns them off, a stride beyond the count means the last only.
    scheduler, workers
        As in :func:`algebra.sweep.run_sweep`; ``workers`` alone starts a
        LocalCluster of that size.

    Returns
    -------
    list of dict
        All rows of ``evaluation.csv`` after this call.

    Raises
    ------
    InputError
        If the run is not finished or a stride is invalid.
    """
    from algebra.sweep import run_sweep

    run = load_run(path)
    if not run.finished:
        raise InputError("RUN", str(path), "a finished run (resume it with `grok train` first)")
    for name, v, lo in (("--every", every, 1), ("--calibrated-every", calibrated_every, 0),
                        ("--jacobian-every", jacobian_every, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise InputError(name, v, f"an integer >= {lo}")
    if workers is not None and scheduler == "serial":
        scheduler = None  # --workers N asks for a LocalCluster
    epochs = run.checkpoints()
    chosen = sorted(_every(epochs, every))
    cal_set, jac_set = _every(chosen, calibrated_every), _every(chosen, jacobian_every)
    done = {int(r["epoch"]): r for r in read_evaluation(run.path)}
    rows = [{c: ("" if isinstance(v, float) and math.isnan(v) else v) for c, v in r.items()} for r in done.values()]
    items = [{"run_path": str(run.path), "epoch": int(e), "root_seed": int(seed), "calibrated": e in cal_set,
              "jacobian": e in jac_set, "hutchinson_vectors": int(hutchinson_vectors),
              "calibration": calibration.to_json()} for e in chosen if e not in done]
    if items:
        new = run_sweep(_evaluate_item, items, key=lambda it: f"epoch {it['epoch']} seed {it['root_seed']}",
                        scheduler=scheduler, workers=workers, table=run.path / "evaluation_tasks.jsonl",
                        progress=progress, desc=f"llc {run.path.name}")
        rows += [{c: r.get(c, "") for c in EVAL_COLUMNS} for r in new]
        rows.sort(key=lambda r: int(r["epoch"]))
        _write_csv(run.path / "evaluation.csv", EVAL_COLUMNS, [[r.get(c, "") for c in EVAL_COLUMNS] for r in rows])
    # the SGLD estimate into loss_data.csv's LLC columns (the paper's layout)
    llc = {int(r["epoch"]): r for r in rows}
    data = run.loss_data()
    table = []
    for r in data:
        e = int(r["epoch"])
        vals = [e] + [r[c] for c in LOSS_COLUMNS[1:5]]
        vals += [llc[e]["llc_sgld"], llc[e]["llc_sgld_se"]] if e in llc else ["", ""]
        table.append(["" if isinstance(x, float) and math.isnan(x) else x for x in vals])
    _write_csv(run.path / "loss_data.csv", LOSS_COLUMNS, table)
    return read_evaluation(run.path)
