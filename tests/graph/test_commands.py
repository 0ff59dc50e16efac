"""``neuroalgebra graph irreps|fisher`` and ``neuroalgebra llc graph`` through algebra.cli.main."""

import json

import pytest

from algebra.cli import main


def _json(capsys, argv):
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


def test_irreps_json(capsys):
    code, out = _json(capsys, ["graph", "irreps", "--group", "dihedral:6", "--json"])
    assert code == 0 and out["orthogonality"]["verified"]
    assert [i["dimension"] for i in out["irreps"]] == [1, 1, 1, 1, 2, 2]
    assert sum(c["size"] for c in out["classes"]) == 12


def test_irreps_text_and_graph_groups(capsys):
    assert main(["graph", "irreps", "--group", "petersen"]) == 0
    text = capsys.readouterr().out
    assert "order 120" in text and "verified exactly" in text and "True" in text
    assert main(["graph", "irreps", "--group", "torus:3x4", "--method", "dixon"]) == 0


def test_fisher_holds(capsys):
    code, out = _json(capsys, ["graph", "fisher", "--graph", "cyclic:6", "--d", "3", "--k", "2", "--r", "1",
                               "--json"])
    assert code == 0 and out["assumption1_holds"] is True and float(out["alpha_lower_float"]) > 0
    comps = out["components"]
    assert len(comps) == 6 and comps[0]["rank_Q_rho"] == 9 and all(c["rank_Q_rho"] == 0 for c in comps[1:])
    for key in ("irrep", "dimension", "multiplicity", "rank_Q_rho"):
        assert key in comps[0]
    assert max(out["identities"].values()) < 1e-12


@pytest.mark.parametrize("extra", [["--radius", "0"], ["--features", "constant"]])
def test_fisher_fails_on_bad_designs(capsys, extra):
    code, out = _json(capsys, ["graph", "fisher", "--graph", "dihedral:3", "--d", "2", "--k", "1", "--r", "1",
                               "--json", *extra])
    assert code == 1 and out["assumption1_holds"] is False and out["kernel"] is not None
    assert all("mechanism" in c for c in out["components"])


def test_fisher_text(capsys):
    assert main(["graph", "fisher", "--graph", "torus:2x3", "--d", "2", "--k", "2", "--r", "2"]) == 0
    assert "Assumption 1 HOLDS" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["graph", "irreps", "--group", "klein"],
    ["graph", "fisher", "--graph", "cyclic:6", "--d", "2", "--k", "3", "--r", "1"],
    ["graph", "fisher", "--graph", "cyclic:6", "--d", "0", "--k", "1", "--r", "0"],
    ["llc", "graph", "--graph", "cyclic:5", "--d", "3", "--k", "2", "--r", "1", "--point", "open", "--fast"],
])
def test_bad_input_exits_2(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        code = main(argv)
        raise SystemExit(code)
    assert exc.value.code == 2


@pytest.mark.slow  # 1.3-2.6 s end to end (the default run stays at half its earlier worker-seconds)
def test_llc_graph_json_keys(capsys):
    code, out = _json(capsys, ["llc", "graph", "--graph", "cyclic:5", "--d", "2", "--k", "1", "--r", "1",
                               "--fast", "--chains", "4", "--json"])
    for key in ("estimate", "stderr", "ci95", "exact_lambda", "multiplicity", "relative_error", "verdict",
                "assumption1_holds", "seed", "settings"):
        assert key in out
    assert out["exact_lambda"] == "3/2" and out["assumption1_holds"] is True
    assert 0 <= out["frozen_chains"] <= 4
    assert code == (0 if out["verdict"] == "ok" else 1)


def test_cli_parser_does_not_import_networkx():
    """Building the CLI (``neuroalgebra --help``) stays light: networkx loads only when a graph command runs."""
    import subprocess
    import sys

    code = ("import sys; from algebra.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('networkx' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "False"


@pytest.mark.parametrize("extra, holds", [([], True), (["--features", "constant"], False)])
def test_fisher_certificate(tmp_path, capsys, extra, holds):
    """``--certificate`` writes Lemma 1 / (13)-(15) on the design; the checker re-derives it."""
    from algebra.checker import check_file

    path = tmp_path / "lemma1.json"
    code, out = _json(capsys, ["graph", "fisher", "--graph", "cyclic:5", "--d", "2", "--k", "1", "--r", "1",
                               "--certificate", str(path), "--json"] + extra)
    assert code == (0 if holds else 1) and out["assumption1_holds"] is holds
    assert out["certificate"]["verified"] and out["certificate"]["kind"] == "score_representation"
    ok, reason = check_file(str(path))[:2]
    assert ok and "(14) derived" in reason
    claim = json.loads(path.read_text())["claim"]
    assert sum(c["rank"] for c in claim["components"]) == claim["about"]["score_dimension"]


def test_fisher_certificate_bad_path_leaves_nothing(tmp_path, capsys):
    (tmp_path / "a_file").write_text("")
    target = tmp_path / "a_file" / "c.json"  # a path below a regular file cannot be written
    with pytest.raises(SystemExit) as exc:  # refused while parsing (algebra.inputs.output_file), before any work
        main(["graph", "fisher", "--graph", "cyclic:5", "--d", "2", "--k", "1", "--r", "1", "--certificate", str(target)])
    assert exc.value.code == 2 and sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]
    assert "--certificate" in capsys.readouterr().err
