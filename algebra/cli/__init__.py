"""Command-line interface (``neuroalgebra``, ``python -m algebra``): argument parsing only.

Composition lives here, above the packages it combines: every subcommand
calls library functions, and nothing in ``algebra`` outside this package
imports it.  One module per command group (:data:`COMMAND_MODULES`), each
exposing ``register(subparsers)``; each registered parser sets
``handler=callable(args) -> int``.  The argument types and the options
shared by every group are in :mod:`algebra.cli.args`.

Exit status: 0 on success, 2 on bad input (an :class:`~algebra.errors.InputError`
is printed as one line, without a traceback) and on an output that cannot be
written (a full disk, no permission, a file where a directory belongs: an
:class:`OSError` with one of :data:`algebra.files.OUTPUT_ERRNOS`, printed as one
line with its path and cause by :func:`algebra.files.output_fault`), 1 when a
verification fails.
"""

from __future__ import annotations

import argparse
import sys

from algebra.version import __version__
from algebra.cli import attention_rank, certify, geometry, graph, grokking, numeric, slt
from algebra.errors import AlgebraError, InputError, ResourceError
from algebra.files import output_fault

__all__ = ["COMMAND_MODULES", "EXIT_STATUS", "build_parser", "main"]

#: The exit statuses every command keeps (the epilog of ``neuroalgebra --help``).
EXIT_STATUS = """exit status:
  0  success: the answer was computed (and, where a command checks something, it held)
  1  a decided negative answer: a certificate NOT VERIFIED, a claim refuted or not confirmed, an LLC
     estimate whose diagnostics say `suspect`, Assumption 1 failing, a projector identity violated
  2  the command was refused before or while computing: bad input (one line naming the option, the
     value and what is allowed), a size above its limit (--max-memory, MAX_ORDER, ...), an output
     that cannot be written (full disk, no permission), or a usage error

docs: python -m sphinx -b html docs OUT (API, CLI reference, tutorials)"""

# Modules that contribute subcommands, in the order they appear in --help.
COMMAND_MODULES = (geometry, certify, slt, numeric, attention_rank, grokking, graph)


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors exit with status 2 and one line, and which takes options only as
    spelled: no prefix abbreviations, so adding an option never changes what an existing command line means
    (``llc suite --n`` was read as ``--no-worker-timeout`` once that option existed)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # pragma: no cover - argparse path
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="neuroalgebra",
        description="Exact, certified geometry of neural-network models.",
        epilog=EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"neuroalgebra {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except (InputError, ResourceError) as exc:
        print(f"neuroalgebra {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except AlgebraError as exc:
        print(f"neuroalgebra {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # pragma: no cover - output piped into `head`
        sys.stderr.close()
        return 0
    except OSError as exc:  # a full disk, an unwritable --out, a file where a directory belongs: exit 2
        message = output_fault(exc)
        if message is None:
            raise
        print(f"neuroalgebra {args.command}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # pragma: no cover
        print("interrupted", file=sys.stderr)
        return 130
