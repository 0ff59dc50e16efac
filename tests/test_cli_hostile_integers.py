"""Every integer option of ``neuroalgebra`` refuses non-ASCII digits, and ``--prime`` 2 or 3 never crashes;
every real option (:func:`algebra.cli.args.real_arg`) also refuses NaN and infinities.

The options are found by walking the argparse parser (:func:`algebra.cli.build_parser`), so a new
subcommand or option is covered without editing this file: a scalar integer option is one whose type
carries ``integer_option`` (:func:`algebra.cli.args.integer_arg`), the grokking converter
:func:`~algebra.cli.args.integer`, or :func:`~algebra.engine.dimension.parse_memory`; an
option parsed as text by its command must be classified below (``INTEGER_LISTS`` or ``NOT_INTEGER``),
and :func:`test_every_text_option_is_classified` fails until it is.

Bugs caught: ``type=int`` reads '١' as 1 and '５' as 5 (a command about another model than the one
typed); ``str.isdigit()`` accepts '²', which ``int()`` then refuses with a traceback (``rlct ideal
--prior ²,1``); the Cramer rung's empty block at a rank-0 lower bound modulo 2 or 3 (issue 20, item 8).
"""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from algebra.cli import build_parser, main
from algebra.engine.dimension import parse_memory
from algebra.cli.args import integer

HOSTILE = ("١", "²", "５")  # Arabic-Indic one (int() reads it), superscript two (isdigit() accepts it), fullwidth five
# every option gets the first in the default run, all three in the slow run
DIGITS = [HOSTILE[0]] + [pytest.param(d, marks=pytest.mark.slow) for d in HOSTILE[1:]]

# (command path, flag) -> a valid command line with {} where the hostile digit goes inside the list
INTEGER_LISTS = {
    (("dim", "mlp"), "--widths"): ["dim", "mlp", "--widths", "2,{},1"],
    (("dim", "mlp"), "--inactive"): ["dim", "mlp", "--widths", "2,2,1", "--inactive", "1:{}"],
    (("dim", "linear"), "--widths"): ["dim", "linear", "--widths", "2,{},2"],
    (("dim", "cnn"), "--input"): ["dim", "cnn", "--input", "{}", "--filters", "2"],
    (("dim", "cnn"), "--filters"): ["dim", "cnn", "--input", "4", "--filters", "{}"],
    (("dim", "cnn"), "--channels"): ["dim", "cnn", "--input", "4", "--filters", "2", "--channels", "1,{}"],
    (("dim", "cnn"), "--strides"): ["dim", "cnn", "--input", "4", "--filters", "2", "--strides", "{}"],
    (("dim", "cnn"), "--inactive"): ["dim", "cnn", "--input", "4", "--filters", "2", "--channels", "1,2",
                                     "--dense", "1", "--inactive", "1:{}"],
    (("secant",), "--factors"): ["secant", "--variety", "segre", "--factors", "2,{}", "--k", "2"],
    (("secant",), "--degrees"): ["secant", "--variety", "segre-veronese", "--factors", "2,2", "--degrees", "1,{}",
                                 "--k", "2"],
    (("proximity", "mlp"), "--widths"): ["proximity", "mlp", "--widths", "2,{},1", "--inactive", "1:0"],
    (("proximity", "mlp"), "--inactive"): ["proximity", "mlp", "--widths", "2,2,1", "--inactive", "1:{}"],
    (("proximity", "cnn"), "--input"): ["proximity", "cnn", "--input", "{}", "--filters", "2", "--channels", "1,2",
                                        "--dense", "1", "--inactive", "1:0"],
    (("proximity", "cnn"), "--filters"): ["proximity", "cnn", "--input", "4", "--filters", "{}", "--channels", "1,2",
                                          "--dense", "1", "--inactive", "1:0"],
    (("proximity", "cnn"), "--channels"): ["proximity", "cnn", "--input", "4", "--filters", "2", "--channels", "1,{}",
                                           "--dense", "1", "--inactive", "1:0"],
    (("proximity", "cnn"), "--strides"): ["proximity", "cnn", "--input", "4", "--filters", "2", "--channels", "1,2",
                                          "--strides", "{}", "--dense", "1", "--inactive", "1:0"],
    (("proximity", "cnn"), "--inactive"): ["proximity", "cnn", "--input", "4", "--filters", "2", "--channels", "1,2",
                                           "--dense", "1", "--inactive", "1:{}"],
    (("normal-form", "linear"), "--widths"): ["normal-form", "linear", "--widths", "2,{},2", "--rank", "1"],
    (("rlct", "dln"), "--widths"): ["rlct", "dln", "--widths", "2,{},2", "--r", "1"],
    (("rlct", "poly"), "--prior"): ["rlct", "poly", "x^2*y^2", "--prior", "{},1"],
    (("rlct", "ideal"), "--prior"): ["rlct", "ideal", "x*y", "--prior", "{},1"],
    (("llc", "dln"), "--widths"): ["llc", "dln", "--widths", "2,{},2", "--r", "1"],
    (("llc", "check-settings"), "--widths"): ["llc", "check-settings", "--widths", "2,{},2", "--nbeta", "10", "--gamma",
                                              "1", "--step-size", "1e-3", "--batch-size", "8", "--draws", "8",
                                              "--chains", "2", "--n", "20", "--twins", "1"],
    (("attention-rank", "heads"), "--layers"): ["attention-rank", "heads", "--layers", "0,{}"],
    (("attention-rank", "heads"), "--heads"): ["attention-rank", "heads", "--heads", "0,{}"],
    (("grok", "sweep"), "--p"): ["grok", "sweep", "--out", "{tmp}", "--p", "7,{}"],
    (("grok", "sweep"), "--width"): ["grok", "sweep", "--out", "{tmp}", "--width", "8,{}"],
    (("grok", "sweep"), "--seed"): ["grok", "sweep", "--out", "{tmp}", "--seed", "0,{}"],
}

# text options that are not integers (names, polynomials, paths, floats, choices)
NOT_INTEGER = {
    "--mode", "--activation", "--ideal", "--certificate", "--parameters", "--inputs", "--symmetry", "--equation", "--variety",
    "--polynomials", "--out", "--scheduler", "--example", "--claim", "--output", "--variables", "--method", "--plot",
    "--features", "--point", "--which", "--multipliers", "--eps", "--emit", "--emit-multiplier", "--emit-eps",
    "--preset", "--backend", "--llc", "--graph", "--group", "--lr", "--weight-decay", "--train-fraction", "--beta",
    "--start",
}

# every command with --prime: the smallest valid command line (slow ones marked)
PRIME_COMMANDS = {
    ("dim",): ["dim"],
    ("dim", "mlp"): ["dim", "mlp", "--widths", "3,4,1,1,1", "--activation", "t^2+t"],
    ("dim", "shallow"): ["dim", "shallow", "--n", "2", "--degree", "2", "--width", "2"],
    ("dim", "quadratic"): ["dim", "quadratic", "--d", "2", "--outputs", "1", "--width", "2"],
    ("dim", "attention"): ["dim", "attention", "--d", "2", "--dout", "1", "--tokens", "2"],
    ("dim", "qk"): ["dim", "qk", "--d", "2", "--k", "1"],
    ("dim", "linear"): ["dim", "linear", "--widths", "2,2,2"],
    ("dim", "polynomial"): ["dim", "polynomial", "a*c", "a*d", "b*c", "b*d", "--parameters", "a,b,c,d"],
    ("dim", "cnn"): ["dim", "cnn", "--input", "3", "--filters", "2", "--activation", "t^2", "--dense", "1"],
    ("secant",): ["secant", "--variety", "veronese", "--n", "2", "--degree", "2", "--k", "2"],
    ("secant-table",): ["secant-table", "--variety", "veronese", "--n-max", "2", "--degree-max", "2", "--k-max", "2",
                        "--out", "{tmp}", "--scheduler", "serial"],
    ("proximity", "mlp"): ["proximity", "mlp", "--widths", "2,2,1", "--inactive", "1:0"],
    ("proximity", "sweep"): ["proximity", "sweep", "--out", "{tmp}"],
    ("proximity", "cnn"): ["proximity", "cnn", "--input", "4", "--filters", "2", "--channels", "1,2", "--activation",
                           "t^2", "--dense", "1", "--inactive", "1:0"],
    ("proximity", "cnn-sweep"): ["proximity", "cnn-sweep", "--out", "{tmp}", "--scheduler", "serial"],
}
SLOW_PRIME = {("proximity", "sweep"), ("proximity", "cnn-sweep")}  # about 4 s each


def _options(parser, path=()):
    """``(path, flag, action)`` for every option that takes a value, in every subcommand."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _options(sub, path + (name,))
        elif action.option_strings and action.nargs != 0:
            yield path, max(action.option_strings, key=len), action


OPTIONS = list(_options(build_parser()))


def _is_scalar_integer(action) -> bool:
    return bool(getattr(action.type, "integer_option", None)) or action.type in (integer, parse_memory, int)


SCALARS = [(path, flag) for path, flag, action in OPTIONS if _is_scalar_integer(action)]
# real options built by algebra.cli.args.real_arg (float() reads '١', 'nan', 'infinity' and '1e999' -> inf)
REALS = [(path, flag) for path, flag, action in OPTIONS if getattr(action.type, "real_option", None)]
HOSTILE_REALS = ("١", "nan", "inf", "1e999", "0x10")
PRIMES = sorted({path for path, flag, _ in OPTIONS if flag == "--prime"})


def _run(argv) -> tuple:
    """``(exit status, stdout + stderr)`` of ``neuroalgebra argv`` in this process; an escaping exception fails."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except Exception as exc:  # the traceback this file is about
            pytest.fail(f"neuroalgebra {' '.join(argv)} raised {type(exc).__name__}: {exc}")
    return code, out.getvalue() + err.getvalue()


def _fill(argv, value, tmp_path) -> list:
    return [a.replace("{tmp}", str(tmp_path)).replace("{}", value) for a in argv]


def test_the_walk_finds_the_integer_options():
    # a walk that found nothing would make every test below vacuous
    assert len(SCALARS) > 100 and (("dim", "mlp"), "--prime") in SCALARS and (("rlct", "rrr"), "--M") in SCALARS
    assert ("dim", "mlp") in PRIMES and ("secant",) in PRIMES


def test_the_walk_finds_the_real_options():
    assert {(("attention-rank", "train"), "--lr"), (("attention-rank", "matrix"), "--beta")} <= set(REALS)


def test_no_option_uses_bare_int():
    # int() reads '١' as 1: the option would silently run another command than the one typed
    bare = [f"{' '.join(path)} {flag}" for path, flag, action in OPTIONS if action.type is int]
    assert not bare, f"type=int (use algebra.cli.args.integer_arg): {bare}"


def test_every_text_option_is_classified():
    keys = set(INTEGER_LISTS)
    unknown = [f"{' '.join(path)} {flag}" for path, flag, action in OPTIONS
               if action.type is None and (path, flag) not in keys and flag not in NOT_INTEGER]
    assert not unknown, f"classify these options in INTEGER_LISTS or NOT_INTEGER: {unknown}"
    stale = [key for key in keys if key not in {(p, f) for p, f, _ in OPTIONS}]
    assert not stale, f"INTEGER_LISTS names options that no longer exist: {stale}"


def test_every_prime_command_has_a_command_line():
    assert set(PRIMES) == set(PRIME_COMMANDS)


# every scalar integer option with each hostile digit, every real option with each hostile real
SCALAR_CASES = ([pytest.param(path, flag, digit, id=f"{'-'.join(path)}{flag}-{digit}",
                              marks=() if digit == HOSTILE[0] else pytest.mark.slow)
                 for path, flag in SCALARS for digit in HOSTILE] +
                [pytest.param(path, flag, value, id=f"{'-'.join(path)}{flag}-{value}") for path, flag in REALS
                 for value in HOSTILE_REALS])


@pytest.mark.parametrize("path,flag,value", SCALAR_CASES)
def test_scalar_option_refuses_hostile_spellings(path, flag, value):
    code, text = _run([*path, flag, value])
    assert code == 2, text
    assert flag in text and "Traceback" not in text


@pytest.mark.parametrize("digit", DIGITS)
@pytest.mark.parametrize("key", list(INTEGER_LISTS), ids=[f"{'-'.join(p)}{f}" for p, f in INTEGER_LISTS])
def test_integer_list_option_refuses_non_ascii_digits(key, digit, tmp_path):
    # the valid spelling must run (else a refusal below could come from another argument)
    good = "1" if key[1] == "--inactive" else "2"  # neuron 1 of a width-2 layer; 2 elsewhere
    good_argv, bad_argv = (_fill(INTEGER_LISTS[key], v, tmp_path) for v in (good, digit))
    if key[0] not in (("grok", "sweep"), ("attention-rank", "heads"), ("llc", "dln")):  # training, a download, SGLD
        code, text = _run(good_argv)
        assert code == 0, text
    code, text = _run(bad_argv)
    assert code == 2, text
    assert key[1] in text and "Traceback" not in text


@pytest.mark.parametrize("prime", ["2", "3"])
@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p in SLOW_PRIME else p
                                  for p in PRIME_COMMANDS], ids=["-".join(p) for p in PRIME_COMMANDS])
def test_small_prime_never_crashes(path, prime, tmp_path):
    code, text = _run(_fill(PRIME_COMMANDS[path], "", tmp_path) + ["--prime", prime])
    assert code in (0, 1, 2), text
    assert "Traceback" not in text


@pytest.mark.parametrize("widths,activation", [("3,4,1,1,1", "t^2+t"), ("3,2,2,2,2,1", "t^2")])
@pytest.mark.parametrize("prime", ["2", "3"])
def test_small_prime_gives_an_honest_lower_bound(widths, activation, prime):
    # issue 20 item 8: these died in the Cramer rung; the rank modulo p is still a proven lower bound
    code, text = _run(["dim", "mlp", "--widths", widths, "--activation", activation, "--prime", prime])
    assert code == 0, text
    assert "certified: false" in text and f"the prime {prime} is not above" in text
