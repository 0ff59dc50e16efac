"""One door for every input (issue 33, items 3-4): one table of hostile values, fed to command-line options and
to public API parameters, every row refused by :mod:`algebra.inputs` naming the argument as the caller wrote it.

* CLI rows: exit status 2, no traceback, and the message's "invalid X=" names the option the user typed.  They
  run in ONE child process (many :func:`algebra.cli.main` calls, each reported) under ``RLIMIT_AS`` = 1 GiB
  and a CPU-seconds hang guard far above what a refusal uses; no row asserts wall-clock time.
* API rows: :class:`algebra.errors.InputError` whose ``.argument`` is the parameter's name, run in this process
  (each is refused before anything is built).
* :data:`GENERATED` crosses options with the hostile spellings (non-ASCII digits ``'١'`` and ``'５'``, ``10**30``,
  negative, empty, NaN, a float for an integer, a path under a missing directory or under a file).

Bugs caught: ``numeric.models.dln_model([2.9, 3, 2.2], 1)`` building a (2, 3, 2) model; ``--certificate ''``
exiting 0 with nothing written; ``export -o`` / ``--certificate`` under a missing directory (created silently,
or a traceback after the work); ``algebra.dimension(..., mode='sample', samples=10**9)`` allocating 22 GiB;
``calibrated_llc(None)``, ``seed=-1``, ``settings={...}``; ``MLP(activations=<function>)``.
"""

from __future__ import annotations

import json
import math
import re
import resource
import subprocess
import sys
import textwrap

import pytest

from algebra.errors import InputError

MISSING = "{tmp}/missing/dir/out.json"
PATH_9000 = "edges:" + ",".join(f"{i}-{i + 1}" for i in range(9000))  # a path graph: the matcher took minutes
UNDER_FILE = "{tmp}/afile/out.json"
NAMES_5002 = ",".join(f"v{i}" for i in range(5002))

# -- CLI rows: (argv, the option the message must name) --------------------------------------------------------

CLI = [
    # output files and directories: checked while parsing, before any work
    (["dim", "mlp", "--widths", "2,2,1", "--certificate", ""], "--certificate"),
    (["dim", "mlp", "--widths", "2,2,1", "--certificate", MISSING], "--certificate"),
    (["dim", "mlp", "--widths", "2,2,1", "--certificate", UNDER_FILE], "--certificate"),
    (["dim", "mlp", "--widths", "2,2,1", "--certificate", "{tmp}"], "--certificate"),
    (["attention-rank", "matrix", "{tmp}/ok.npz", "--certificate", MISSING], "--certificate"),
    (["rlct", "rrr", "--M", "2", "--N", "2", "--H", "1", "--r", "1", "--certificate", MISSING], "--certificate"),
    (["export", "-o", MISSING, "singular", "{tmp}/ok.npz"], "--output"),
    (["certify", "--fast", "--out", "{tmp}/afile/sub"], "--out"),
    (["certify", "--fast", "--out", "{tmp}/afile"], "--out"),
    (["secant-table", "--variety", "veronese", "--n-max", "2", "--out", "{tmp}/afile/t"], "--out"),
    # sizes refused before anything proportional to them is built
    (["dim", "mlp", "--widths", "2,2,1", "--mode", "sample", "--samples", "1000000000"], "--samples"),
    (["dim", "cnn", "--input", "1000000", "--filters", "3"], "--input"),
    (["llc", "graph", "--graph", "cyclic:4", "--d", "1000", "--k", "1", "--r", "1", "--fast"], "--d"),
    # the ambient count bracketed from the shapes: no receptive field per input position (was 1.35 GiB RSS)
    (["proximity", "cnn", "--input", "1000000", "--filters", "3", "--channels", "1,2", "--dense", "1",
      "--activation", "t^2", "--inactive", "1:0"], "--input"),
    (["dim", "mlp", "--widths", "9" * 5000 + ",1"], "--widths"),
    (["dim", "shallow", "--n", "9" * 5000, "--degree", "2", "--width", "2"], "--n"),
    (["dim", "mlp", "--widths", "2,2,1", "--max-memory", "nan"], "--max-memory"),
    (["dim", "mlp", "--widths", "2,2,1", "--max-memory", "-1G"], "--max-memory"),
    # hangs inside the documented limits: bounded from the factors' sizes before expanding, solving or searching
    (["dim", "polynomial", "((1+a+b)^64)^2", "--parameters", "a,b"], "polynomials"),
    (["dim", "polynomial", "(1+a+b)^64*(1+a+b)^64", "--parameters", "a,b"], "polynomials"),
    (["singular", "--ideal", "(1+x+y)^64*(1+x+y)^64"], "--ideal"),
    (["rlct", "ideal", "(x+y)^64"], "generators"),
    (["rlct", "poly", "(x+y)^64"], "K"),
    (["rlct", "poly", "(x^2+y^2+z^2)^32"], "K"),
    (["graph", "fisher", "--graph", PATH_9000, "--d", "2", "--k", "1", "--r", "1"], "--graph"),
    (["llc", "graph", "--graph", PATH_9000, "--d", "2", "--k", "1", "--r", "1", "--fast"], "--graph"),
    # the option as the user typed it, never the library's argument (polynomials[0], generator 1, K)
    (["dim", "polynomial", "a*b", "a*q", "--parameters", "a,b"], "polynomials"),
    (["llc", "poly", "y", "x*", "--fast"], "generators"),
    (["llc", "poly", "x^2+1", "--fast"], "generators"),
    (["rlct", "ideal", "x^2+1"], "generators"),
    (["rlct", "ideal", "x*y", "--variables", "x"], "generators"),
    (["singular", "--ideal", "x*"], "--ideal"),
    (["singular", "--ideal", "a+b+c+d+e+f+g"], "--ideal"),  # no --variables given: it is not the one blamed
    # held-out audit (issue 33.4): non-ASCII digits inside polynomials and counts, 5000-digit numbers, seeds past 2**63
    (["dim", "mlp", "--widths", "2,2,1", "--activation", "t^\u0661"], "--activation"),  # was accepted as t^1
    (["singular", "--ideal", "x^\u0661-y"], "--ideal"),
    (["dim", "polynomial", "9" * 5000 + "*a", "--parameters", "a"], "polynomials"),  # was int()'s ValueError
    (["dim", "cnn", "--input", "8", "--filters", "3", "--channels", "1," + "9" * 5000], "--channels"),  # traceback
    (["secant", "--variety", "segre", "--factors", "1," * 200000 + "1", "--k", "2"], "--factors"),  # hung
    (["secant", "--variety", "veronese", "--n", "2", "--degree", "2", "--k", "2", "--seed", str(10**30)], "--seed"),
    (["rlct", "dln", "--widths", "2," * 200000 + "2", "--r", "1"], "--widths"),  # hung: quadratic index search
    (["secant-table", "--variety", "veronese", "--n-max", "2", "--seed", str(2**63), "--out", "{tmp}/st"], "--seed"),
    (["normal-form", "qk", "--d", "3", "--k", "2", "--rank", "1", "--seed", str(10**30)], "--seed"),
    (["attention-rank", "slopes", "--fast", "--seed", "-1"], "--seed"),
    (["grok", "dim", "--p", "5", "--width", "2", "--seed", "-1"], "--seed"),
    # grokking run directories: a junk params.csv or checkpoint is refused naming the directory's option
    (["grok", "llc", "{tmp}/junkrun"], "RUN"),
    (["grok", "dim", "{tmp}/junkrun", "--epoch", "0"], "RUN"),
    (["grok", "report", "{tmp}/badp"], "RUN"),
    (["grok", "train", "--preset", "tiny", "--out", "{tmp}/junkrun"], "--out"),
    (["grok", "dim", "{tmp}/junkck", "--epoch", "0"], "RUN"),
    (["grok", "llc", "{tmp}/junkck"], "RUN"),
    (["grok", "train", "--preset", "tiny", "--out", "{tmp}/afile/run"], "--out"),
    (["grok", "dim", "--p", "7", "--width", "2", "--max-memory", "\u0668G"], "--max-memory"),
    # certificates read by export/crosscheck: a JSON list was AttributeError, a missing file FileNotFoundError,
    # a junk or empty file (or '', the working directory) exited 0 as "skipped"
    (["export", "singular", "{tmp}/list.json"], "CERT"),
    (["export", "singular", "{tmp}/junk.json"], "CERT"),
    (["crosscheck", "singular", "{tmp}/list.json"], "PATH"),
    (["crosscheck", "singular", "{tmp}/missing.json"], "PATH"),
    (["crosscheck", "singular", "{tmp}/junk.json"], "PATH"),
    (["crosscheck", "singular", "{tmp}/empty.json"], "PATH"),
    (["crosscheck", "singular", ""], "PATH"),
    # plot files and output directories checked while parsing: x.out was matplotlib's traceback after the work,
    # ' ' wrote ' .png', synthetic-certs '' wrote into the working directory
    (["rlct", "fit", "x^2", "--plot", "{tmp}/x.out"], "--plot"),
    (["attention-rank", "slopes", "--fast", "--plot", "{tmp}/x.out"], "--plot"),
    (["attention-rank", "slopes", "--fast", "--plot", " "], "--plot"),
    (["attention-rank", "slopes", "--fast", "--plot", "{tmp}/ .png"], "--plot"),
    (["attention-rank", "synthetic-certs", ""], "DIR"),
    (["attention-rank", "synthetic-certs", " "], "DIR"),
    # graphs refused by the parser naming --graph (were read as cyclic:1 / a self-loop and blamed as model=)
    (["llc", "graph", "--graph", "cyclic:\u0661", "--d", "2", "--k", "1", "--r", "1", "--fast"], "--graph"),
    (["llc", "graph", "--graph", "edges:0-0", "--d", "2", "--k", "1", "--r", "1", "--fast"], "--graph"),
    (["llc", "graph", "--graph", "cyclic:1", "--d", "2", "--k", "1", "--r", "1", "--fast"], "--graph"),
    (["graph", "fisher", "--graph", "torus:3x\u0663", "--d", "2", "--k", "1", "--r", "1"], "--graph"),
    # the option as typed: secant --polynomials (was polynomials[0]); 5,002 --variables (was --ideal, K, generators)
    (["secant", "--variety", "polynomial", "--polynomials", "x*", "--parameters", "x", "--k", "2"], "--polynomials"),
    (["secant", "--variety", "polynomial", "--polynomials", "a^2", "q", "--parameters", "a", "--k", "2"],
     "--polynomials"),
    (["rlct", "ideal", "x", "--variables", NAMES_5002], "--variables"),
    (["rlct", "poly", "x", "--variables", NAMES_5002], "--variables"),
    (["singular", "--ideal", "x", "--variables", NAMES_5002], "--variables"),
]

# hostile spellings of an integer, of a real, of a memory size
INTEGER_SPELLINGS = ("\u0661", "\uff15", str(10**30), "-3", "", "nan", "2.5")
INTEGER_OPTIONS = [  # (argv with {} where the value goes, the option)
    (["dim", "shallow", "--n", "{}", "--degree", "2", "--width", "2"], "--n"),
    (["dim", "mlp", "--widths", "2,{},1"], "--widths"),
    (["dim", "qk", "--d", "3", "--k", "{}"], "--k"),
    (["dim", "mlp", "--widths", "2,2,1", "--seed", "{}"], "--seed"),
    (["secant", "--variety", "veronese", "--n", "2", "--degree", "2", "--k", "{}"], "--k"),
    (["rlct", "qk", "--d", "3", "--k", "{}", "--r", "1"], "--k"),
]
REAL_OPTIONS = [
    (["attention-rank", "matrix", "{tmp}/ok.npz", "--beta", "{}"], "--beta"),
    (["grok", "train", "--preset", "tiny", "--out", "{tmp}/g", "--lr", "{}"], "--lr"),
]
REAL_SPELLINGS = ("\u0661", "nan", "inf", "1e999", "", "-0x1")

GENERATED = ([[a.replace("{}", v) for a in argv], flag] for argv, flag in INTEGER_OPTIONS for v in INTEGER_SPELLINGS)
GENERATED = [(argv, flag) for argv, flag in GENERATED] + \
    [([a.replace("{}", v) for a in argv], flag) for argv, flag in REAL_OPTIONS for v in REAL_SPELLINGS]

CPU_GUARD = 120  # CPU-seconds for the whole batch: a hang guard (the batch uses a few), not a budget

_CHILD = textwrap.dedent("""
    import contextlib, io, json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))
    resource.setrlimit(resource.RLIMIT_CPU, ({cpu}, {cpu} + 5))
    from algebra.cli import main
    out = []
    for argv in json.load(sys.stdin):
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 2
            except BaseException as exc:  # the traceback this test is about
                code = f"raised {{type(exc).__name__}}: {{exc}}"[:500]
        out.append([code, err.getvalue()[:2000]])
    print(json.dumps(out))
""")


def _fixtures(tmp) -> None:
    import numpy as np

    (tmp / "afile").write_text("not a directory\n")
    (tmp / "list.json").write_text("[1, 2]\n")
    (tmp / "junk.json").write_text("junk\n")
    (tmp / "empty.json").write_text("")
    from algebra.grokking.runs import TrainConfig, train

    (tmp / "junkrun").mkdir()
    (tmp / "junkrun" / "params.csv").write_text("name,value\nfoo,1\n")  # was KeyError: 'p'
    for name, edit in (("junkck", None), ("badp", "p")):
        train(tmp / name, TrainConfig(p=3, width=2, train_fraction=1.0, epochs=2, checkpoint_every=1))
        if edit is None:
            for f in (tmp / name / "checkpoints").glob("*.npz"):
                f.write_bytes(b"junk")
        else:
            text = (tmp / name / "params.csv").read_text()
            (tmp / name / "params.csv").write_text(text.replace("\np,3", "\np,abc"))
    np.savez(tmp / "ok.npz", Q=np.eye(2), K=np.array([[1.0, 2.0], [0.5, 1.0]]))


def _run_child(argvs, tmp, cpu) -> list:
    argvs = [[a.replace("{tmp}", str(tmp)) for a in argv] for argv in argvs]
    proc = subprocess.run([sys.executable, "-c", _CHILD.format(cpu=cpu)], input=json.dumps(argvs),
                          capture_output=True, text=True, timeout=40 * cpu)
    assert proc.returncode == 0, f"the child died (status {proc.returncode}): {proc.stderr[-3000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def cli_results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    _fixtures(tmp)
    rows = CLI + GENERATED
    results = _run_child([argv for argv, _ in rows], tmp, CPU_GUARD)
    return tmp, {json.dumps(argv): r for (argv, _), r in zip(rows, results)}


def _named(err: str) -> set:
    """The options a one-line refusal blames: ``invalid --n=...`` or ``invalid --n/--degree/--width=...`` (a
    size of several options), or argparse's ``argument --lr: expected one argument`` (``-0x1`` read as an option)."""
    m = re.search(r"invalid (\S+?)=", err) or re.search(r"argument (\S+?): ", err)
    return set(m.group(1).split("/")) if m else set()


def _check(code, err: str, flag: str) -> None:
    assert code == 2, f"exit {code!r}: {err}"
    assert "Traceback" not in err, err
    assert flag in _named(err), f"{flag} not named as the invalid option: {err}"


def _id(argv, flag) -> str:
    return " ".join(a if len(a) < 20 else a[:16] + "..." for a in argv)[:90] + f" -> {flag}"


@pytest.mark.parametrize("argv,flag", CLI + GENERATED, ids=[_id(a, f) for a, f in CLI + GENERATED])
def test_cli_refuses_naming_the_option(argv, flag, cli_results):
    tmp, results = cli_results
    code, err = results[json.dumps(argv)]
    _check(code, err, flag)
    assert not (tmp / "missing").exists(), "a refused output created its directory"


# -- API rows: (callable, the parameter InputError must name) ------------------------------------------------


def _dln_float():
    from algebra.numeric.models import dln_model

    return dln_model([2.9, 3, 2.2], 1)


def _api_rows():
    import networkx as nx

    import algebra
    from algebra.graph.groups import automorphism_group
    from algebra.graph.groups import parse_graph
    from algebra.models.base import monomial_count
    from algebra.models.polynomial import parse_names, parse_polynomial
    from algebra.models.segre_veronese import segre
    from algebra.slt.newton import newton_rlct
    from algebra.models import MLP
    from algebra.numeric.calibration import FAST, calibrated_llc
    from algebra.numeric.models import dln_model

    small = dln_model([2, 2, 2], 1)
    return [
        ("dln_model float widths", _dln_float, "widths"),
        ("MLP float width", lambda: MLP((2, 2.0, 1)), "widths"),
        ("MLP bool width", lambda: MLP((2, True, 1)), "widths"),
        ("MLP widths as text", lambda: MLP("2,2,1"), "widths"),
        ("MLP activations function", lambda: MLP((2, 2, 1), activations=lambda t: t * t), "activations"),
        ("MLP activations NaN coefficient", lambda: MLP((2, 2, 1), activations=[0, math.nan]), "activations"),
        ("MLP inactive junk text", lambda: MLP((2, 2, 1), inactive="1:x"), "inactive"),
        ("MLP inactive non-ASCII", lambda: MLP((2, 2, 1), inactive="1:\u0661"), "inactive"),
        ("MLP inactive a number", lambda: MLP((2, 2, 1), inactive=3), "inactive"),
        ("MLP inactive float neuron", lambda: MLP((2, 2, 1), inactive={1: [0.5]}), "inactive"),
        ("certify_model None", lambda: algebra.certify_model(None, "/nonexistent/c.json"), "model"),
        ("certify_model missing directory", lambda: algebra.certify_model(MLP((2, 2, 1)), "/nonexistent/dir/c.json"),
         "path"),
        ("certify_model seed -1", lambda: algebra.certify_model(MLP((2, 2, 1)), "/tmp/c.json", seed=-1), "seed"),
        ("calibrated_llc None", lambda: calibrated_llc(None), "model"),
        ("calibrated_llc seed -1", lambda: calibrated_llc(small, settings=FAST, seed=-1), "seed"),
        ("calibrated_llc seed 10**30", lambda: calibrated_llc(small, settings=FAST, seed=10**30), "seed"),
        ("calibrated_llc settings dict", lambda: calibrated_llc(small, settings={"start": "w_star"}), "settings"),
        ("calibrated_llc target function", lambda: calibrated_llc(small, settings=FAST, target=print), "target"),
        ("dimension samples 10**9", lambda: algebra.dimension(MLP((2, 2, 1)), mode="sample", samples=10**9),
         "samples"),
        ("dimension samples float", lambda: algebra.dimension(MLP((2, 2, 1)), mode="sample", samples=3.0), "samples"),
        ("dimension seed NaN", lambda: algebra.dimension(MLP((2, 2, 1)), seed=math.nan), "seed"),
        ("dimension max_memory junk", lambda: algebra.dimension(MLP((2, 2, 1)), max_memory="\uff18G"), "max_memory"),
        ("dimension mode function", lambda: algebra.dimension(MLP((2, 2, 1)), mode=print), "mode"),
        ("parse_polynomial 4.6 million term pairs", lambda: parse_polynomial("(1+x+y)^64*(1+x+y)^64"), "polynomial"),
        ("newton_rlct 65 boundary monomials", lambda: newton_rlct(parse_polynomial("(x+y)^64")), "K"),
        ("newton_rlct 561 monomials", lambda: newton_rlct(parse_polynomial("(x^2+y^2+z^2)^32")), "K"),
        ("automorphism_group 9001-node path", lambda: automorphism_group(nx.path_graph(9001)), "graph"),
        ("segre 200,001 factors", lambda: segre([1] * 200_001), "factors"),
        ("deep_linear_network 10**6 layers", lambda: algebra.deep_linear_network([2] * 10**6, 1), "widths"),
        ("parse_polynomial non-ASCII exponent", lambda: parse_polynomial("x^\u0661"), "polynomial"),
        ("parse_polynomial 5000-digit coefficient", lambda: parse_polynomial("9" * 5000 + "*x"), "polynomial"),
        ("certify_formula missing directory", lambda: algebra.certify_formula("query_key", (6, 4, 2),
                                                                              "/nonexistent/dir/f.json"), "path"),
        ("certify_formula empty path", lambda: algebra.certify_formula("query_key", (6, 4, 2), ""), "path"),
        ("certify_formula a directory", lambda: algebra.certify_formula("query_key", (6, 4, 2), "/"), "path"),
        ("certify_formula NUL byte", lambda: algebra.certify_formula("query_key", (6, 4, 2), "/tmp/a\x00b"), "path"),
        ("certify_formula args an int", lambda: algebra.certify_formula("query_key", 6, "/tmp/f.json"), "args"),
        ("data_dimension p = 1000003 (7.3 TiB of pairs)", lambda: algebra.data_dimension(1000003, 2), "--p"),
        ("dimension max_entries 0", lambda: algebra.dimension(MLP((2, 2, 1)), max_entries=0), "max_entries"),
        ("dimension max_entries text", lambda: algebra.dimension(MLP((2, 2, 1)), max_entries="3"), "max_entries"),
        ("monomial_count text", lambda: monomial_count("3", 2, homogeneous=True), "n"),
        ("parse_graph cyclic:1 (no edge)", lambda: parse_graph("cyclic:1", argument="graph"), "graph"),
        ("parse_names 5002 names", lambda: parse_names([f"v{i}" for i in range(5002)]), "parameters"),
        ("parse_names None", lambda: parse_names(None, argument="variables"), "variables"),
        ("ideal_singular_locus None", lambda: algebra.ideal_singular_locus(None), "generators"),
        ("ideal_singular_locus one string", lambda: algebra.ideal_singular_locus("x^2 - y^3"), "generators"),
        ("character_table None", lambda: algebra.character_table(None), "G"),
        ("PolynomialMap None", lambda: algebra.models.PolynomialMap(None, parameters=["a"]), "polynomials"),
    ]


API = _api_rows()


@pytest.mark.parametrize("row", API, ids=[r[0] for r in API])
def test_api_refuses_naming_the_parameter(row):
    _, call, argument = row
    with pytest.raises(InputError) as exc:
        call()
    assert exc.value.argument == argument, str(exc.value)


# -- the door itself ---------------------------------------------------------------------------------------------


def test_inputs_imports_nothing_of_ours_but_errors():
    import ast
    from pathlib import Path

    import algebra.inputs as door

    tree = ast.parse(Path(door.__file__).read_text())
    ours = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("algebra")}
    ours |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names if a.name.startswith("algebra")}
    assert ours == {"algebra.errors"}


def test_valid_spellings_still_read_the_same():
    from algebra import inputs
    from algebra.models import MLP

    assert inputs.parse_integer("+7", "--n") == 7 and inputs.integers((1, 2), "w") == (1, 2)
    assert MLP((2, 3, 1), inactive="1:0,1:2").inactive == MLP((2, 3, 1), inactive={1: [0, 2]}).inactive == {1: (0, 2)}
    assert inputs.memory("1.5k") == 1536 and inputs.seed(2**63 - 1) == 2**63 - 1


def test_tables_are_written_atomically(tmp_path, monkeypatch):
    # a write that fails half way (a full disk) leaves no 0-byte or truncated CSV behind
    import errno

    import algebra.files as files
    from algebra.geometry.secant import write_table

    real = files.os.fsync

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full)
    with pytest.raises(OSError):
        write_table([], tmp_path / "t.csv", tmp_path / "t.md")
    monkeypatch.setattr(files.os, "fsync", real)
    assert list(tmp_path.iterdir()) == []
