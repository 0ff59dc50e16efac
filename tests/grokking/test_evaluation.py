"""Tests of algebra.grokking.evaluation: GSM, numerical rank, per-checkpoint rows, resumption."""

import math

import numpy as np
import pytest

from algebra.errors import InputError
from algebra.grokking.evaluation import (PAPER_SGLD, evaluate_checkpoint, evaluate_run, gsm, numerical_rank,
                                         read_evaluation)
from algebra.grokking.network import CentredLoss
from algebra.grokking.references import data_dimension
from algebra.grokking.runs import TrainConfig, load_run, train
from algebra.numeric.diagnostics import hutchinson_trace
from algebra.numeric.samplers import sample

CFG = TrainConfig(p=5, width=4, train_fraction=0.8, epochs=40, checkpoint_every=10)


def test_gsm_definition():
    # App. H.3 with a checkpoint every epoch is the plain average of |a_T - a_V|
    rng = np.random.default_rng(0)
    ta, va = rng.random(11), rng.random(11)
    va[-1] = 0.97
    assert gsm(range(11), ta, va) == pytest.approx(np.mean(np.abs(ta - va)[:-1]))
    va[-1] = 0.9
    assert gsm(range(11), ta, va) == 0.0


def test_numerical_rank_of_a_known_matrix():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((30, 7)) @ rng.standard_normal((7, 20))
    r, gap = numerical_rank(np.linalg.svd(A, compute_uv=False))
    assert r == 7 and gap > 1e8


def test_sgld_without_noise_is_a_gradient_step():
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 5, 10), rng.integers(0, 5, 10)
    L = CentredLoss(5, 2, a, b, (a + b) % 5, w_star=rng.standard_normal(30))
    run = sample(L, **{**PAPER_SGLD, "num_chains": 1, "num_warmup": 0, "num_draws": 1}, noise=0.0, init=L.w_star[None] + 0.01)
    w0 = L.w_star + 0.01
    _, g = L.loss_and_grad(w0[None])
    w1 = w0 - 0.5 * 1e-4 * (30.0 * g[0] + 5.0 * 0.01)
    assert np.allclose(run.final[0], w1)


def test_hutchinson_agrees_with_exact_trace():
    rng = np.random.default_rng(2)
    a, b = rng.integers(0, 5, 12), rng.integers(0, 5, 12)
    L = CentredLoss(5, 3, a, b, (a + b) % 5, w_star=rng.standard_normal(45))
    h = hutchinson_trace(L, num_vectors=200, seed=0)
    exact = np.trace(L.hessian_vector(L.w_star, np.eye(45)))
    assert h["exact"] == pytest.approx(exact)
    assert abs(h["estimate"] - exact) < 4 * h["stderr"]


def test_evaluate_run_rows_and_resume(tmp_path):
    train(tmp_path / "r", CFG)
    rows = evaluate_run(tmp_path / "r", every=2, calibrated_every=2, jacobian_every=2)
    assert [int(r["epoch"]) for r in rows] == [0, 20, 40]   # back from the last, stride 2
    last = rows[-1]
    assert last["llc_cal_verdict"] in ("ok", "suspect") and math.isfinite(last["llc_cal"])
    assert math.isfinite(last["llc_sgld"]) and last["llc_sgld_se"] > 0 and last["hutch_se"] > 0
    # the rank at any point is at most the generic rank of the full-width data map
    generic = data_dimension(CFG.p, CFG.width, CFG.train_fraction, CFG.seed, coefficient_space=False)
    assert last["jac_rank"] <= generic["dimension"] and last["exact_dim_k_eff"] <= generic["dimension"]
    assert last["exact_dim_certified"] == "True"
    text = (tmp_path / "r" / "evaluation.csv").read_text()
    again = evaluate_run(tmp_path / "r", every=2)      # nothing left to do
    assert (tmp_path / "r" / "evaluation.csv").read_text() == text and len(again) == 3
    loss = load_run(tmp_path / "r").loss_data()
    filled = [r for r in loss if not math.isnan(r["llc_mean"])]
    assert [int(r["epoch"]) for r in filled] == [0, 20, 40]
    assert filled[-1]["llc_mean"] == pytest.approx(last["llc_sgld"])
    # seeds are recorded and reproduce the row
    again_row = evaluate_checkpoint(load_run(tmp_path / "r"), 40)
    assert again_row["seed"] == int(last["seed"]) and again_row["llc_sgld"] == pytest.approx(last["llc_sgld"])


def test_unfinished_run_is_refused(tmp_path):
    train(tmp_path / "r", CFG)
    (tmp_path / "r" / "status.json").write_text('{"status": "running"}')
    with pytest.raises(InputError):
        evaluate_run(tmp_path / "r")
    assert read_evaluation(tmp_path / "r") == []


@pytest.mark.slow  # a Dask LocalCluster
def test_checkpoints_as_dask_tasks_match_serial(tmp_path):
    pytest.importorskip("distributed")
    train(tmp_path / "a", CFG)
    train(tmp_path / "b", CFG)
    serial = evaluate_run(tmp_path / "a", every=2)
    dask = evaluate_run(tmp_path / "b", every=2, workers=2)
    keys = ("epoch", "seed", "llc_sgld", "llc_sgld_se", "hutch", "hutch_se", "k_eff")
    assert [{k: r[k] for k in keys} for r in serial] == [{k: r[k] for k in keys} for r in dask]
