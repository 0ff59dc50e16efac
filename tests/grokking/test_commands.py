"""Tests of ``neuroalgebra grok ...`` through algebra.cli.main."""

import json

import pytest

from algebra.cli import main


@pytest.mark.parametrize("argv,arg", [
    (["grok", "dim", "--p", "9", "--width", "4"], "--p"),
    (["grok", "dim", "--p", "7", "--width", "0"], "--width"),
    (["grok", "dim", "--p", "7", "--width", "-3"], "--width"),
    (["grok", "dim", "--p", "7", "--width", "4", "--train-fraction", "0"], "--train-fraction"),
    (["grok", "dim", "--p", "7", "--width", "4", "--train-fraction", "1.5"], "--train-fraction"),
    (["grok", "train", "--p", "21", "--out", "OUT"], "--p"),
    (["grok", "train", "--width", "0", "--out", "OUT"], "--width"),
    (["grok", "train", "--train-fraction", "1.2", "--out", "OUT"], "--train-fraction"),
    (["grok", "sweep", "--p", "7,9", "--out", "OUT"], "--p"),
    (["grok", "sweep", "--lr", "0.01,x", "--out", "OUT"], "--lr"),
])
def test_bad_arguments_exit_2_naming_the_argument(argv, arg, tmp_path, capsys):
    argv = [str(tmp_path / "o") if a == "OUT" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"invalid {arg}=" in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_dim_json_keys(capsys):
    assert main(["grok", "dim", "--p", "7", "--width", "4", "--train-fraction", "0.5", "--seed", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for k in ("dimension", "lower_bound", "upper_bound", "certified", "n_train", "paper_value", "coefficient_space", "cap"):
        assert k in out
    assert out["paper_value"] == 4 * 20 and out["n_train"] == 24 and out["certified"] is True
    assert out["dimension"] <= min(out["cap"], out["coefficient_space"])


def test_train_llc_report(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    run = str(tmp_path / "run")
    common = ["--p", "5", "--width", "4", "--train-fraction", "0.8", "--epochs", "20", "--checkpoint-every", "10"]
    assert main(["grok", "train", *common, "--out", run, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["status"] == "finished" and first["config"]["p"] == 5
    assert main(["grok", "train", *common, "--out", run]) == 0
    assert "already finished" in capsys.readouterr().out
    assert main(["grok", "llc", run, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [int(r["epoch"]) for r in rows] == [0, 10, 20]
    assert main(["grok", "report", run, "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)[0]
    assert rep["figure"].endswith("grokking.png") and (tmp_path / "run" / "grokking.png").stat().st_size > 1000


def test_dim_at_a_checkpoint_writes_a_verified_local_rank_certificate(tmp_path, capsys):
    from algebra.grokking.runs import TrainConfig, train

    train(tmp_path / "r", TrainConfig(p=5, width=3, train_fraction=0.6, epochs=4, checkpoint_every=2))
    cert = tmp_path / "c.json"
    assert main(["grok", "dim", str(tmp_path / "r"), "--epoch", "4", "--certificate", str(cert), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["checker"]["verified"] is True and out["claim"]["maps"]["train"]["samples"] == 15
    assert main(["verify", str(cert)]) == 0
    assert json.loads(cert.read_text())["kind"] == "local_rank"


@pytest.mark.parametrize("argv,arg", [
    (["grok", "dim", "RUN"], "--epoch"),
    (["grok", "dim", "RUN", "--epoch", "4", "--p", "5"], "--p"),
    (["grok", "dim", "RUN", "--epoch", "3"], "--epoch"),
    (["grok", "dim", "--p", "5", "--width", "2", "--epoch", "4"], "--epoch"),
    (["grok", "dim", "--width", "2"], "--p"),
])
def test_dim_checkpoint_arguments_exit_2(argv, arg, tmp_path, capsys):
    from algebra.grokking.runs import TrainConfig, train

    train(tmp_path / "r", TrainConfig(p=5, width=2, train_fraction=0.6, epochs=4, checkpoint_every=2))
    argv = [str(tmp_path / "r") if a == "RUN" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"invalid {arg}=" in err and err.count("\n") == 1
