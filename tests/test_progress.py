"""Long work shows a tqdm bar with an ETA on stderr by default, and ``--quiet`` switches it off (issue 25).

One spelling everywhere: every command that takes an older ``--progress`` / ``--no-progress`` also takes
``--quiet``, and the older spellings keep working.
"""

from __future__ import annotations

import argparse
import json
import re

import pytest

from algebra.cli import build_parser, main

#: a tqdm bar with a count and an ETA: " 3/10 [00:01<00:02, ..."
BAR = re.compile(r"\d+%\|.*\| *\d+/\d+ \[\d\d:\d\d<\d\d:\d\d")


def _verify_dir(tmp_path):
    from algebra.certify import certify_model
    from algebra.models import MLP, QueryKey

    d = tmp_path / "certs"
    d.mkdir(parents=True)
    certify_model(MLP((2, 3, 2), "t^2"), d / "a.json")
    certify_model(QueryKey(3, 2), d / "b.json")
    return ["verify", str(d)]


#: name -> argv maker (tmp_path -> argv): commands doing long work, each run here on a small case
COMMANDS = {
    "dim examples": lambda tmp: ["dim"],
    "secant-table": lambda tmp: ["secant-table", "--variety", "veronese", "--n-max", "3", "--degree-max", "3",
                                 "--out", str(tmp / "st")],
    "proximity cnn-sweep": lambda tmp: ["proximity", "cnn-sweep", "--fast", "--out", str(tmp / "pc"),
                                        "--scheduler", "serial"],
    "grok train": lambda tmp: ["grok", "train", "--p", "5", "--width", "2", "--epochs", "4", "--out", str(tmp / "g")],
    "verify DIR": _verify_dir,
    "llc regular": lambda tmp: ["llc", "regular", "--in-dim", "1", "--fast"],  # one bar per temperature
}


def _stderr(argv, capsys) -> str:
    capsys.readouterr()
    main(argv)
    return capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_bar_by_default_and_none_with_quiet(name, tmp_path, capsys):
    shown = _stderr(COMMANDS[name](tmp_path / "default"), capsys)  # each run in a fresh output directory
    assert BAR.search(shown), shown[-300:]
    assert not BAR.search(_stderr(COMMANDS[name](tmp_path / "quiet") + ["--quiet"], capsys))


def test_json_output_stays_clean_with_the_bar_on_stderr(tmp_path, capsys):
    argv = _verify_dir(tmp_path) + ["--json"]
    main(argv)
    captured = capsys.readouterr()
    assert json.loads(captured.out)["all_verified"] is True and BAR.search(captured.err)


def test_the_older_spellings_still_work(tmp_path, capsys):
    table = ["secant-table", "--variety", "veronese", "--n-max", "3", "--degree-max", "3", "--out", str(tmp_path)]
    assert not BAR.search(_stderr(table + ["--no-progress"], capsys))
    grok = ["grok", "train", "--p", "5", "--width", "2", "--epochs", "4", "--out", str(tmp_path / "g")]
    assert BAR.search(_stderr(grok + ["--progress"], capsys))  # the old opt-in: the default now
    assert not BAR.search(_stderr(grok[:-1] + [str(tmp_path / "h"), "--progress", "--quiet"], capsys))


def _parsers(parser, path=()):
    """``(command path, parser)`` for every parser and subparser of the CLI."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, path + (name,))


def _options(parser) -> set:
    return {s for a in parser._actions for s in a.option_strings}


def test_every_progress_option_comes_with_quiet():
    """A command with an older progress flag (or a bar) takes --quiet too: one spelling to switch it off."""
    found = []
    for path, parser in _parsers(build_parser()):
        opts = _options(parser)
        if opts & {"--progress", "--no-progress"}:
            found.append(" ".join(path))
            assert "--quiet" in opts, path
    assert {"secant-table", "proximity sweep", "proximity cnn-sweep", "grok train", "grok llc", "grok sweep"} <= set(found)
    for path in (("dim",), ("certify",), ("verify",), ("crosscheck",), ("attention-rank", "heads"),
                 ("attention-rank", "slopes"), ("attention-rank", "train")):
        parser = dict(_parsers(build_parser()))[path]
        assert "--quiet" in _options(parser), path
