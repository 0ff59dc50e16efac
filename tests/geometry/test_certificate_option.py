"""`--certificate FILE` on dim, secant and rlct: the file verifies and proves the printed number."""

import json

import pytest

from algebra.checker import check_file
from algebra.cli import main


def _run(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _claim(path):
    ok, reason = check_file(str(path))
    assert ok, reason
    return json.loads(path.read_text())["claim"]


@pytest.mark.parametrize("argv, value", [
    (["dim", "mlp", "--widths", "3,4,1", "--activation", "t^2", "--bias"], 10),
    (["dim", "polynomial", "a*c", "a*d", "b*c", "b*d", "--parameters", "a,b,c,d"], 3),
    (["dim", "quadratic", "--d", "4", "--outputs", "3", "--width", "5"], 29),
    (["secant", "--variety", "veronese", "--n", "3", "--degree", "4", "--k", "5"], 14),
])
def test_dimension_certificates(tmp_path, capsys, argv, value):
    path = tmp_path / "c.json"
    out = _run(capsys, argv + ["--json", "--certificate", str(path)])
    assert out["dimension"] == value and out["certified"]
    assert out["certificate"]["verified"] and out["certificate"]["value"] == value
    claim = _claim(path)
    assert (claim["relation"], claim["value"]) == ("==", value)


@pytest.mark.parametrize("argv, reused", [
    (["dim", "mlp", "--widths", "2,3,2,1", "--activation", "t^2+t", "--bias"], True),
    (["dim", "qk", "--d", "4", "--k", "2"], True),
    (["dim", "mlp", "--widths", "2,3,1", "--activation", "t^2", "--mode", "coefficient"], False),
])
def test_dim_certificate_runs_the_engine_once(tmp_path, capsys, monkeypatch, argv, reused):
    """The printed result and the certificate come from one engine run, unless the
    user asked for a mode the certificate cannot use (then two runs, both at the same seed)."""
    import algebra.engine
    import algebra.cli.geometry as commands

    calls = []

    def counting(*args, **kwargs):
        calls.append(kwargs.get("mode"))
        return original(*args, **kwargs)

    original = algebra.engine.dimension
    monkeypatch.setattr(algebra.engine, "dimension", counting)
    monkeypatch.setattr(commands, "dimension", counting)
    path = tmp_path / "c.json"
    out = _run(capsys, argv + ["--json", "--certificate", str(path)])
    assert out["certificate"]["verified"] and out["certificate"]["value"] == out["dimension"]
    assert len(calls) == (1 if reused else 2), calls
    assert _claim(path)["value"] == out["dimension"]


def test_certificate_refuses_a_foreign_result():
    from algebra.certify.rank import dimension_certificate
    from algebra.engine import dimension
    from algebra.errors import InputError
    from algebra.models import QueryKey

    res = dimension(QueryKey(3, 2), seed=1, witness=True)
    with pytest.raises(InputError, match="result"):
        dimension_certificate(QueryKey(3, 2), seed=0, result=res)
    with pytest.raises(InputError, match="result"):
        dimension_certificate(QueryKey(3, 3), seed=1, result=res)
    assert dimension_certificate(QueryKey(3, 2), seed=1, result=res).lower == res.lower_bound


@pytest.mark.parametrize("argv, lam", [
    (["rlct", "quadratic", "--d", "4", "--outputs", "3", "--width", "5"], "29/2"),
    (["rlct", "qk", "--d", "6", "--k", "4", "--r", "2"], "27/2"),
    (["rlct", "rrr", "--M", "3", "--N", "4", "--H", "2", "--r", "1"], "4"),
    (["rlct", "dln", "--widths", "4,3,5", "--r", "1"], "7"),
])
def test_rlct_certificates(tmp_path, capsys, argv, lam):
    path = tmp_path / "l.json"
    out = _run(capsys, argv + ["--json", "--certificate", str(path)])
    assert out["lambda"] == lam
    assert _claim(path)["value"] == lam


def test_defective_quadratic_network_verdict_is_hypothesis_fails(capsys):
    out = _run(capsys, ["rlct", "quadratic", "--d", "4", "--outputs", "3", "--width", "5", "--json"])
    assert out["extra"]["verdict"] == "hypothesis fails"
    assert "29 < expected count 30" in out["extra"]["failed_hypothesis"]


def test_unwritable_certificate_leaves_nothing(tmp_path):
    blocker = tmp_path / "afile"
    blocker.write_text("not a directory")
    target = blocker / "c.json"
    with pytest.raises(SystemExit) as exc:  # refused while parsing (algebra.inputs.output_file), before any work
        main(["dim", "qk", "--d", "3", "--k", "2", "--certificate", str(target)])
    assert exc.value.code == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_samples_with_certificate_is_refused(tmp_path, capsys):
    path = tmp_path / "c.json"
    argv = ["dim", "quadratic", "--d", "4", "--outputs", "3", "--width", "5", "--mode", "sample", "--samples", "2"]
    assert main(argv + ["--certificate", str(path)]) == 2
    assert "--samples" in capsys.readouterr().err and not path.exists()


def test_certificate_uses_the_requested_prime(tmp_path, capsys):
    path = tmp_path / "c.json"
    out = _run(capsys, ["dim", "qk", "--d", "4", "--k", "2", "--prime", "65521", "--json", "--certificate", str(path)])
    assert out["certificate"]["verified"]
    assert json.loads(path.read_text())["point"]["prime"] == "65521"
