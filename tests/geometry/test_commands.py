"""`neuroalgebra dim`: JSON fields for every family; bad input exits 2 naming the argument."""

import json
import subprocess
import sys

import pytest

from algebra.cli import main
from tests.known_dimensions import KNOWN_CASES

FAMILY_ARGS = [
    ["mlp", "--widths", "3,4,1", "--activation", "t^2"],
    ["mlp", "--widths", "3,4,1", "--activation", "t^2", "--bias"],
    ["mlp", "--widths", "2,3,1,1", "--activation", "t^3", "--inactive", "1:0"],
    ["shallow", "--n", "4", "--degree", "3", "--width", "5"],
    ["quadratic", "--d", "4", "--outputs", "3", "--width", "5"],
    ["quadratic", "--d", "3", "--outputs", "2", "--width", "2", "--bias"],
    ["attention", "--d", "3", "--dout", "2", "--tokens", "2"],
    ["attention", "--d", "3", "--dout", "2", "--tokens", "2", "--rank", "2"],
    ["attention", "--d", "3", "--dout", "2", "--tokens", "1"],
    ["qk", "--d", "5", "--k", "3"],
    ["linear", "--widths", "4,3,5"],
    ["polynomial", "a*c", "a*d", "b*c", "b*d", "--parameters", "a,b,c,d"],
]
KEYS = ["dimension", "lower_bound", "upper_bound", "certified", "ambient_dimension", "parameter_count",
        "expected_dimension", "mode", "prime", "seed", "seconds"]


@pytest.mark.parametrize("argv", FAMILY_ARGS, ids=[a[0] + str(i) for i, a in enumerate(FAMILY_ARGS)])
def test_dim_json_has_the_fields(argv, capsys):
    assert main(["dim", *argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in KEYS:
        assert key in out
    assert out["lower_bound"] == out["dimension"] <= out["upper_bound"]
    assert out["certified"] == (out["lower_bound"] == out["upper_bound"])


def test_dim_human_table_and_builtin_examples(capsys):
    assert main(["dim", "qk", "--d", "3", "--k", "2"]) == 0
    assert "certified" in capsys.readouterr().out
    assert main(["dim", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) >= 8 and all("example" in r for r in rows)


BAD = [
    (["mlp", "--widths", "3,0,1"], "--widths"),
    (["mlp", "--widths", "3,-4,1"], "--widths"),
    (["mlp", "--widths", "3,4,1", "--activation", "exp(t)"], "--activation"),
    (["mlp", "--widths", "3,4,1", "--activation", "7"], "--activation"),
    (["mlp", "--widths", "3,4,1", "--inactive", "3:0"], "--inactive"),
    (["attention", "--d", "3", "--dout", "2", "--tokens", "2", "--rank", "4"], "--rank"),
    (["shallow", "--n", "0", "--degree", "3", "--width", "2"], "--n"),
    (["qk", "--d", "-2", "--k", "1"], "--d"),
    (["mlp", "--widths", "400,4000,4000,1"], "--widths"),
    (["polynomial", "__import__('os').system('true')", "--parameters", "a"], "polynomials"),
    (["polynomial", "a*c", "--parameters", "a,c", "--symmetry", "a,c"], "--symmetry"),
    (["polynomial", "a*c", "a*d", "--parameters", "a,c,d", "--equation", "y1 - y2"], "--equation"),
    (["mlp", "--widths", "3,\u00b2,1"], "--widths"),  # a Unicode digit that int() refuses
    (["mlp", "--widths", "3,\u0663,1"], "--widths"),  # Arabic-Indic three
    (["mlp", "--widths", "3,4,1", "--inactive", "1:\u00b2"], "--inactive"),
    (["mlp", "--widths", "2,3,1,1,1,1,1,1,1,1,1,1", "--activation", "t^3", "--over-q"], "--over-q"),
    (["shallow", "--n", "3", "--degree", "1000", "--width", "5"], "--degree"),
    (["mlp", "--widths", "3,4,1", "--activation", "t^1000"], "--activation"),
    (["mlp", "--widths", "1000000,2,1"], "--widths"),
]


def test_user_witnesses_certify_a_polynomial_map(capsys):
    argv = ["dim", "polynomial", "a*c", "a*d", "b*c", "b*d", "--parameters", "a,b,c,d", "--json"]
    assert main(argv) == 0
    plain = json.loads(capsys.readouterr().out)  # no witness given: the Cramer fallback certifies it
    assert (plain["lower_bound"], plain["upper_bound"], plain["certified"], plain["rung"]) == (3, 3, True, "cramer")
    assert main(argv + ["--symmetry", "a,b,-c,-d"]) == 0
    sym = json.loads(capsys.readouterr().out)
    assert (sym["upper_bound"], sym["certified"], sym["rung"]) == (3, True, "symmetry")
    assert main(argv + ["--equation", "y1*y4 - y2*y3"]) == 0
    eq = json.loads(capsys.readouterr().out)
    assert (eq["upper_bound"], eq["certified"], eq["equation_rank"], eq["rung"]) == (3, True, 1, "equations")


@pytest.mark.parametrize("argv, argument", BAD, ids=[b[1] + str(i) for i, b in enumerate(BAD)])
def test_bad_input_exits_2_naming_the_argument(argv, argument, capsys):
    try:
        code = main(["dim", *argv])
    except SystemExit as exc:  # argparse's own type errors
        code = exc.code
    assert code == 2
    assert argument in capsys.readouterr().err


def test_bad_input_in_a_real_process_prints_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "algebra", "dim", "mlp", "--widths", "3,\u00b2,1"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "--widths" in proc.stderr and "Traceback" not in proc.stderr


def test_one_family_table_builds_every_dim_subcommand():
    """A family added to MODEL_FAMILIES gets its `dim` subcommand, and model_from_args builds it."""
    from algebra.cli import build_parser
    from algebra.cli.geometry import MODEL_FAMILIES, model_from_args

    parser = build_parser()
    for name in MODEL_FAMILIES:
        argv = next((c.argv for c in KNOWN_CASES if c.argv[0] == name), None)
        if argv is None:
            continue
        args = parser.parse_args(["dim", *argv])
        assert model_from_args(args).spec() == next(c for c in KNOWN_CASES if c.argv[0] == name).make().spec()


def test_witness_json_has_point_and_inputs(capsys):
    assert main(["dim", "mlp", "--widths", "3,4,1", "--bias", "--witness", "--json"]) == 0
    w = json.loads(capsys.readouterr().out)["witness"]
    assert {"rows", "cols", "prime", "theta", "inputs"} <= set(w) and len(w["inputs"]) >= 1


@pytest.mark.parametrize("where", ["before", "after"])
def test_engine_options_count_before_or_after_the_family(where, capsys):
    """`dim --over-q --seed 3 --json qk ...` used to drop every option given before FAMILY: the family's
    own defaults overwrote them, so it silently printed a mod-p table with seed 0."""
    opts, fam = ["--over-q", "--seed", "3", "--json"], ["qk", "--d", "3", "--k", "1"]
    argv = ["dim", *opts, *fam] if where == "before" else ["dim", *fam, *opts]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["field"], out["seed"], out["dimension"], out["certified"]) == ("QQ", 3, 5, True)


def test_an_option_after_the_family_wins(capsys):
    assert main(["dim", "--seed", "1", "qk", "--d", "3", "--k", "1", "--seed", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] == 2
