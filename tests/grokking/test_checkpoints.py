"""Committed checkpoints (algebra.grokking.checkpoints): pinned bytes, exact phases, the `grok basin` command."""

import hashlib
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from algebra.cli import main
from algebra.claims.grokking import BASIN_CHECKPOINTS, BASIN_CHECKPOINTS_SHA256
from algebra.errors import CertificateError
from algebra.grokking.checkpoints import (
    _render,
    basin_epochs,
    exact_accuracies,
    phase,
    read_basin_checkpoints,
    write_basin_checkpoints,
)
from algebra.grokking.local_rank import short_hex
from algebra.grokking.network import CentredLoss, init_params
from algebra.grokking.runs import PRESETS, TrainConfig, train
from algebra.grokking.task import modular_addition

REPO = Path(__file__).resolve().parents[2]


def test_the_committed_checkpoints_are_those_the_committed_certificate_is_about():
    ck = read_basin_checkpoints(BASIN_CHECKPOINTS, BASIN_CHECKPOINTS_SHA256)
    assert ck.epochs == {"memorising": 200, "generalising": 425}
    cert = json.loads((REPO / "certificates" / "grokking-basin-selection-p17-K32.json").read_text())
    assert cert["source"]["checkpoints_sha256"] == BASIN_CHECKPOINTS_SHA256
    assert [short_hex(v) for v in ck.thetas["generalising"]] == cert["network"]["theta"]
    cfg = TrainConfig(**ck.config)
    assert cfg == PRESETS["small"]  # the run the README's command trains
    task = modular_addition(cfg.p, cfg.train_fraction, cfg.seed)
    phases = {role: phase(*exact_accuracies(task, cfg.width, th)) for role, th in ck.thetas.items()}
    assert phases == {"memorising": "memorising", "generalising": "generalising"}


def test_exact_accuracies_agree_with_the_float_evaluation_away_from_ties():
    task = modular_addition(7, 0.5, seed=3)
    fit = CentredLoss(7, 4, task.a[task.train], task.b[task.train], task.c[task.train])
    held = CentredLoss(7, 4, task.a[task.val], task.b[task.val], task.c[task.val])
    for seed in range(10):
        th = init_params(7, 4, np.random.default_rng(seed))
        tr, va = exact_accuracies(task, 4, th)
        assert (float(tr), float(va)) == (fit.evaluate(th)[1], held.evaluate(th, fit.offset(th))[1])


def test_an_exact_tie_goes_to_the_first_output_like_argmax():
    task = modular_addition(3, 1.0)
    tr, va = exact_accuracies(task, 1, np.zeros(9))  # every output 0: argmax is output 0
    assert va is None and tr == Fraction(int(np.sum(task.c == 0)), task.c.size) == Fraction(1, 3)


def test_a_file_is_refused_unless_its_bytes_are_the_recorded_ones(tmp_path):
    data = BASIN_CHECKPOINTS.read_bytes()
    with pytest.raises(CertificateError, match="checkpoints file .*grokking-basin-p17-K32.json: sha256"):
        read_basin_checkpoints(BASIN_CHECKPOINTS, "f" * 64)
    with pytest.raises(CertificateError, match=r"checkpoints file .*absent\.json: cannot be read"):
        read_basin_checkpoints(tmp_path / "absent.json", BASIN_CHECKPOINTS_SHA256)
    # right hash, wrong form: a non-canonical spelling of the same weights, and a weight that is no number
    body = json.loads(data)
    (tmp_path / "a.json").write_text(json.dumps(body))
    (tmp_path / "b.json").write_bytes(data.replace(b'"0x1.', b'"nan', 1))
    for name, why in (("a.json", "canonical form"), ("b.json", "not a checkpoints file")):
        raw = (tmp_path / name).read_bytes()
        with pytest.raises(CertificateError, match=why):
            read_basin_checkpoints(tmp_path / name, hashlib.sha256(raw).hexdigest())


def test_grok_basin_writes_what_the_claim_reads_and_refuses_a_run_that_never_groks(tmp_path, capsys):
    run = train(tmp_path / "run", PRESETS["tiny"])
    assert main(["grok", "basin", str(run.path), "--out", str(tmp_path / "ck.json"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ck = read_basin_checkpoints(tmp_path / "ck.json", out["sha256"])
    assert out["epochs"] == ck.epochs == dict(zip(("memorising", "generalising"), basin_epochs(run.loss_data())))
    for role, epoch in ck.epochs.items():
        assert np.array_equal(ck.thetas[role], run.theta(epoch))  # bit for bit
    assert (tmp_path / "ck.json").read_bytes() == _render(ck.config, ck.epochs, ck.thetas)
    flat = train(tmp_path / "flat", TrainConfig(p=5, width=2, train_fraction=0.6, epochs=4, checkpoint_every=2))
    assert main(["grok", "basin", str(flat.path), "--out", str(tmp_path / "no.json")]) == 2
    assert "expected a run that moves from memorising" in capsys.readouterr().err
    assert not (tmp_path / "no.json").exists()
