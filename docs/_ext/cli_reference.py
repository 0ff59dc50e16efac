"""Sphinx extension: the CLI reference, generated from the argparse parsers (``algebra.cli.build_parser``).

``.. neuroalgebra-cli::`` renders every command and subcommand, in ``--help`` order, as a section with its usage
line, its description, its options (flags, metavar, help, default, choices) and its epilog.  Nothing is written
by hand, so the reference cannot drift from the parser.
"""

from __future__ import annotations

import argparse

from docutils import nodes
from docutils.parsers.rst import Directive


def _subparsers(parser: argparse.ArgumentParser) -> list:
    """``[(name, help, subparser)]`` of a parser's subcommands, in registration order."""
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            seen = set()
            for name, sub in action.choices.items():
                if id(sub) in seen:
                    continue
                seen.add(id(sub))
                out.append((name, helps.get(name), sub))
    return out


def _options(parser: argparse.ArgumentParser) -> nodes.Node:
    rows = nodes.definition_list()
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.help == argparse.SUPPRESS:
            continue
        name = ", ".join(action.option_strings) or action.dest
        if action.option_strings and action.nargs != 0:
            name += f" {action.metavar or action.dest.upper()}"
        text = action.help or ""
        if action.choices is not None and not isinstance(action.choices, dict):
            text += f" (one of: {', '.join(map(str, action.choices))})"
        if action.default not in (None, False, argparse.SUPPRESS) and action.option_strings and action.nargs != 0:
            text += f" [default: {action.default}]"
        item = nodes.definition_list_item()
        item += nodes.term("", "", nodes.literal(text=name))
        item += nodes.definition("", nodes.paragraph(text=text or "(no help text)"))
        rows += item
    return rows


def _section(document, path: str, summary: str | None, parser: argparse.ArgumentParser) -> nodes.section:
    section = nodes.section(ids=[nodes.make_id("cli " + path)])
    section += nodes.title(text=path)
    if summary:
        section += nodes.paragraph(text=summary)
    section += nodes.literal_block(text=parser.format_usage().strip())
    if parser.description:
        section += nodes.paragraph(text=parser.description)
    section += _options(parser)
    if parser.epilog:
        section += nodes.literal_block(text=parser.epilog)
    for name, help_text, sub in _subparsers(parser):
        section += _section(document, f"{path} {name}", help_text, sub)
    return section


class CLIReference(Directive):
    has_content = False

    def run(self):
        from algebra.cli import build_parser

        parser = build_parser()
        section = _section(self.state.document, "neuroalgebra", None, parser)
        return list(section.children[1:])


def setup(app):
    app.add_directive("neuroalgebra-cli", CLIReference)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
