"""Tests of algebra.grokking.runs: determinism, resumption after a kill, no overwriting."""

import signal
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from algebra.errors import InputError
from algebra.grokking.runs import PRESETS, TrainConfig, load_run, train

SMALL = TrainConfig(p=7, width=8, train_fraction=0.6, epochs=40, checkpoint_every=10)


def _checkpoints(path):
    run = load_run(path)
    return {e: run.theta(e) for e in run.checkpoints()}


def test_same_seed_same_checkpoints(tmp_path):
    train(tmp_path / "a", SMALL)
    train(tmp_path / "b", SMALL)
    train(tmp_path / "c", replace(SMALL, seed=1))
    a, b, c = (_checkpoints(tmp_path / x) for x in "abc")
    assert list(a) == [0, 10, 20, 30, 40]
    assert all(np.array_equal(a[e], b[e]) for e in a)
    assert not np.array_equal(a[40], c[40])
    assert (tmp_path / "a" / "loss_data.csv").read_text() == (tmp_path / "b" / "loss_data.csv").read_text()


#: The child trains and kills itself with SIGKILL at a known point of epoch K's checkpoint: "before",
#: inside numpy.savez just before the optimiser state of epoch K is written (epoch K's parameters and
#: loss row are on disk, optimizer.npz still names K - 10); "after", just after optimizer.npz naming K
#: has been renamed into place.  The kill lands at the same point on every machine, instead of wherever
#: a polling parent happened to catch the child.  (Library hooks used: numpy.savez and os.replace, as
#: algebra.grokking.runs writes files; if it stops using them the child is not killed and the test fails.)
_KILLED_CHILD = """
import os, signal, sys
from dataclasses import replace
import numpy as np
from algebra.grokking.runs import PRESETS, train

path, when, kill_epoch, epochs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
savez, os_replace = np.savez, os.replace

def savez_or_die(file, *args, **arrays):
    if when == "before" and "epoch" in arrays and int(arrays["epoch"]) == kill_epoch:
        os.kill(os.getpid(), signal.SIGKILL)
    savez(file, *args, **arrays)

def replace_then_die(src, dst):
    os_replace(src, dst)
    if when == "after" and os.path.basename(dst) == "optimizer.npz":
        with np.load(dst) as z:
            if int(z["epoch"]) == kill_epoch:
                os.kill(os.getpid(), signal.SIGKILL)

np.savez, os.replace = savez_or_die, replace_then_die
train(path, replace(PRESETS["tiny"], epochs=epochs, checkpoint_every=10))
"""


@pytest.mark.parametrize("when", ["before", "after"])
def test_resume_after_kill_is_bit_identical(tmp_path, when):
    """The bugs: a resume that restarts from a checkpoint whose optimiser state was never written
    ("before"), or that repeats or skips the epochs after the last complete one ("after"); either
    way the resumed run's checkpoints and loss rows differ from an uninterrupted run's."""
    cfg = replace(PRESETS["tiny"], epochs=60, checkpoint_every=10)
    kill_epoch = 30
    proc = subprocess.run([sys.executable, "-c", _KILLED_CHILD, str(tmp_path / "killed"), when, str(kill_epoch),
                           str(cfg.epochs)], timeout=300)
    assert proc.returncode == -signal.SIGKILL
    with np.load(tmp_path / "killed" / "optimizer.npz") as z:
        assert int(z["epoch"]) == (kill_epoch - 10 if when == "before" else kill_epoch)
    run = load_run(tmp_path / "killed")
    assert not run.finished and run.checkpoints()[-1] == kill_epoch
    resumed = train(tmp_path / "killed", cfg)
    whole = train(tmp_path / "whole", cfg)
    assert resumed.finished and whole.finished
    a, b = _checkpoints(tmp_path / "killed"), _checkpoints(tmp_path / "whole")
    assert list(a) == list(b) == cfg.checkpoint_epochs()
    assert all(np.array_equal(a[e], b[e]) for e in a)
    assert (tmp_path / "killed" / "loss_data.csv").read_text() == (tmp_path / "whole" / "loss_data.csv").read_text()


def test_finished_run_is_never_overwritten(tmp_path):
    train(tmp_path / "r", SMALL)
    files = {f: f.stat().st_mtime_ns for f in (tmp_path / "r").rglob("*") if f.is_file()}
    again = train(tmp_path / "r", SMALL)
    assert again.finished
    assert {f: f.stat().st_mtime_ns for f in (tmp_path / "r").rglob("*") if f.is_file()} == files
    with pytest.raises(InputError) as e:
        train(tmp_path / "r", replace(SMALL, weight_decay=0.5))
    assert e.value.argument == "--out" and "weight_decay" in str(e.value)


def test_directory_with_foreign_files_is_refused(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "notes.txt").write_text("mine")
    with pytest.raises(InputError):
        train(tmp_path / "x", SMALL)


def test_tiny_preset_groks(tmp_path):
    rows = train(tmp_path / "t", PRESETS["tiny"]).loss_data()
    fit = next(r["epoch"] for r in rows if r["train_acc"] == 1.0)
    grok = next(r["epoch"] for r in rows if r["val_acc"] >= 0.95)
    assert fit < grok and rows[-1]["val_acc"] >= 0.95


@pytest.mark.parametrize("field,value", [("p", 15), ("width", 0), ("train_fraction", 0.0), ("train_fraction", 2.0),
                                         ("lr", -1.0), ("batch_size", 1), ("optimizer", "lbfgs")])
def test_bad_config(field, value):
    with pytest.raises(InputError) as e:
        replace(SMALL, **{field: value}).validated()
    assert e.value.argument.lstrip("-").replace("-", "_") == field


def test_torch_backend_matches_numpy(tmp_path):
    pytest.importorskip("torch")
    a = train(tmp_path / "np", SMALL)
    b = train(tmp_path / "torch", replace(SMALL, backend="torch"))
    for e in a.checkpoints():
        assert np.allclose(a.theta(e), b.theta(e), rtol=1e-7, atol=1e-10)
