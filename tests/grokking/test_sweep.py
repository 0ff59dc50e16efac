"""Tests of algebra.sweep (the shared Dask runner) and algebra.grokking.experiments."""

import json

import pytest

from algebra.errors import InputError
from algebra.grokking.experiments import grid, sweep
from algebra.grokking.runs import TrainConfig
from algebra.sweep import SweepError, _square, run_sweep

BASE = TrainConfig(p=5, width=4, train_fraction=0.8, epochs=20, checkpoint_every=5)


def _fails_on_three(item):
    if item["x"] == 3:
        raise ValueError("three")
    return {"y": item["x"]}


@pytest.mark.slow  # a Dask LocalCluster
def test_two_worker_local_cluster_matches_serial(tmp_path):
    pytest.importorskip("distributed")
    cfgs = grid(BASE, lr=[0.01, 0.02], seed=[0, 1])
    serial = sweep(tmp_path / "serial", cfgs, scheduler="serial", progress=False)
    dask = sweep(tmp_path / "dask", cfgs, workers=2, progress=False)
    keys = ("p", "width", "lr", "seed", "gsm", "final_val_acc", "final_train_acc", "grok_epoch", "fit_epoch")
    assert [{k: r[k] for k in keys} for r in serial] == [{k: r[k] for k in keys} for r in dask]
    assert (tmp_path / "dask" / "sweep.csv").exists()
    for a, b in zip(serial, dask):
        assert (tmp_path / "serial" / a["run"].split("/")[-1] / "loss_data.csv").read_text() == \
            (tmp_path / "dask" / b["run"].split("/")[-1] / "loss_data.csv").read_text()


def test_resume_skips_finished_items_and_retries_failures(tmp_path):
    table = tmp_path / "t.jsonl"
    items = [{"x": i} for i in range(5)]
    with pytest.raises(SweepError) as e:
        run_sweep(_fails_on_three, items, scheduler="serial", table=table, progress=False)
    assert len(e.value.failures) == 1
    assert len(table.read_text().splitlines()) == 4
    rows = run_sweep(_square, items, scheduler="serial", table=table, progress=False)
    # the four recorded rows are kept (y = x), only x = 3 ran again (y = 9)
    assert [r["y"] for r in rows] == [0, 1, 2, 9, 4]
    assert len(table.read_text().splitlines()) == 5


def test_cut_line_is_rerun(tmp_path):
    table = tmp_path / "t.jsonl"
    run_sweep(_square, [{"x": 1}, {"x": 2}], scheduler="serial", table=table, progress=False)
    lines = table.read_text().splitlines()
    table.write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2])   # killed mid-write
    rows = run_sweep(_square, [{"x": 1}, {"x": 2}], scheduler="serial", table=table, progress=False)
    assert [r["y"] for r in rows] == [1, 4]
    assert json.loads(table.read_text().splitlines()[-1])["y"] == 4


def test_bad_runner_arguments():
    with pytest.raises(InputError):
        run_sweep(_square, [{"x": 1}], workers=-1, progress=False)
    with pytest.raises(InputError):
        run_sweep(_square, [{"x": 1}, {"x": 1}], scheduler="serial", progress=False)
    with pytest.raises(InputError):
        grid(BASE, p=[4])
