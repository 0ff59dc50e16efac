"""Argument types, validators and options shared by every command of ``neuroalgebra``.

One mechanism per job: every value is parsed and range-checked by :mod:`algebra.inputs`
(the one door the Python API goes through too); this module holds its argparse wrappers.
Every integer option of every command goes through
:func:`parse_integer` (ASCII digits only), through an argparse type built
here (:func:`integer_arg`, :func:`positive_arg`, :func:`nonnegative_arg`,
:func:`prime_arg`) or through :func:`memory_arg` for byte sizes; a real
option through :func:`parse_real` or :func:`real_arg` (ASCII decimal, finite,
within its bounds).  The
options several command groups offer are added here too: ``--certificate
FILE`` (:func:`add_certificate_option`, :func:`write_certificate`) and the
sweep runner's ``--scheduler``/``--workers``/``--no-worker-timeout`` (:func:`add_sweep_options`,
:func:`sweep_options`, the keyword arguments of :func:`algebra.sweep.run_sweep`).
"""

from __future__ import annotations

import argparse
import contextlib
import re

import algebra.inputs as inputs
from algebra.engine.dimension import parse_memory
from algebra.errors import InputError
from algebra.exact.field import MAX_PRIME

__all__ = [
    "parse_integer",
    "parse_integers",
    "parse_widths",
    "parse_memory",
    "integer",
    "integer_arg",
    "positive_arg",
    "nonnegative_arg",
    "prime_arg",
    "seed_arg",
    "parse_real",
    "real_arg",
    "memory_arg",
    "output_file_arg",
    "output_directory_arg",
    "input_file_arg",
    "add_progress_options",
    "progress_bar",
    "add_certificate_option",
    "write_certificate",
    "print_certificate",
    "certificate_status",
    "parse_claim",
    "claim_arg",
    "claim_options",
    "add_sweep_options",
    "sweep_options",
]

# ASCII digits only (int() also reads '١' and '５'; float() also reads 'nan' and '1_0'): the rules live in
# algebra.inputs, the one door every input goes through; these are its argparse wrappers.


# -- argument types ---------------------------------------------------------------------------


def parse_integer(text, argument: str, *, minimum: int | None = None, allowed: str | None = None) -> int:
    """An integer written in ASCII decimal digits (optional sign), ``>= minimum`` when given:
    :func:`algebra.inputs.parse_integer`, the one reader of integer text.

    Examples
    --------
    >>> parse_integer("12", "--n"), parse_integer(" -3 ", "--r")
    (12, -3)
    >>> parse_integer("١", "--n", minimum=1)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --n='١': expected an integer >= 1 in ASCII digits
    >>> parse_integer("0", "--n", minimum=1)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --n='0': expected an integer >= 1
    """
    return inputs.parse_integer(text, argument, minimum=minimum, allowed=allowed)


def parse_integers(text, argument: str, *, minimum: int | None = None, min_length: int = 1,
                   allowed: str | None = None) -> tuple:
    """``"3,4,1"`` -> ``(3, 4, 1)``: at least ``min_length`` entries separated by commas
    (:func:`algebra.inputs.parse_integers`).

    Examples
    --------
    >>> parse_integers("0, 2", "--layers", minimum=0)
    (0, 2)
    >>> parse_integers("1,٢", "--layers")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --layers='1,٢': expected integers separated by commas
    """
    return inputs.parse_integers(text, argument, minimum=minimum, min_length=min_length, allowed=allowed)


def parse_widths(text: str, argument: str = "--widths", *, min_length: int = 2) -> tuple:
    """``"3,4,1"`` -> ``(3, 4, 1)``; every entry a positive integer in ASCII digits.

    Examples
    --------
    >>> parse_widths("3,4,1")
    (3, 4, 1)
    >>> parse_widths("3,-4")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --widths='3,-4': expected at least 2 positive integers separated by commas
    >>> parse_widths("3,²,1")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --widths='3,²,1': expected at least 2 positive integers separated by commas
    """
    return parse_integers(text, argument, minimum=1, min_length=min_length)


def integer(text) -> int:
    """A converter like ``int`` for ASCII digits only (raises :class:`~algebra.errors.InputError`, a ``ValueError``).

    Examples
    --------
    >>> integer("7")
    7
    >>> integer("５")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid value='５': expected an integer in ASCII digits
    """
    return parse_integer(text, "value")


@contextlib.contextmanager
def generators_named(name: str):
    """Re-raise a refusal of :func:`~algebra.models.polynomial.parse_generators`'s ``generator N`` as one
    naming what the user typed (``--ideal``, the positional ``generators``), the position kept in the text.

    Examples
    --------
    >>> with generators_named("--ideal"):
    ...     raise InputError("generator 2", "x*", "a polynomial")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --ideal='x*': expected a polynomial (generator 2)
    >>> with generators_named("generators"):
    ...     raise InputError("generator", "x+1", "a polynomial vanishing at the origin")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid generators='x+1': expected a polynomial vanishing at the origin
    """
    try:
        yield
    except InputError as exc:
        argument = str(exc.argument)
        if argument == "generator":
            raise InputError(name, exc.value, exc.allowed) from None
        if not argument.startswith("generator "):
            raise
        raise InputError(name, exc.value, f"{exc.allowed} ({exc.argument})") from None


def integer_arg(name: str, *, minimum: int | None = None, maximum: int | None = None, allowed: str | None = None):
    """argparse type: :func:`parse_integer` with a message naming the option ``name``.

    The returned callable carries ``integer_option = name`` (the CLI test finds every integer option by it).
    """
    def parse(text: str) -> int:
        try:
            return inputs.parse_integer(text, name, minimum=minimum, maximum=maximum, allowed=allowed)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.integer_option = name
    return parse


def positive_arg(name: str):
    """argparse type: a positive integer, with a message naming the argument."""
    return integer_arg(name, minimum=1, allowed="a positive integer")


def nonnegative_arg(name: str):
    """argparse type: a non-negative integer."""
    return integer_arg(name, minimum=0, allowed="a non-negative integer")


def seed_arg(name: str = "--seed"):
    """argparse type: a seed in ``[0, 2**63)`` (:func:`algebra.inputs.seed`'s range), refused naming the option (the
    library would name its parameter, ``seed``, after the work had started).

    Examples
    --------
    >>> seed_arg()("7")
    7
    >>> seed_arg()(str(2**63))
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: invalid --seed='9223372036854775808': expected an integer in [0, 2**63)
    """
    return integer_arg(name, minimum=0, maximum=inputs.SEED_LIMIT - 1, allowed="an integer in [0, 2**63)")


def prime_arg(name: str = "--prime"):
    """argparse type: a prime below :data:`~algebra.exact.field.MAX_PRIME` (2 and 3 included: a lower bound modulo
    any prime is proven; the engine notes when one is too small to reach the dimension).

    Examples
    --------
    >>> prime_arg()("101")
    101
    >>> prime_arg()("100")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: invalid --prime='100': expected a prime below 2097152
    """
    def parse(text: str) -> int:
        try:
            return inputs.parse_prime(text, name, below=MAX_PRIME)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.integer_option = name
    return parse


def parse_real(text, argument: str, *, low: float | None = None, high: float | None = None,
               low_open: bool = False, high_open: bool = False) -> float:
    """A finite real number written in ASCII decimal (``0.25``, ``1e-3``), in ``[low, high]`` (ends open on request).

    Examples
    --------
    >>> parse_real("1e-3", "--lr", low=0, low_open=True)
    0.001
    >>> parse_real("nan", "--eps", low=0, high=1, low_open=True, high_open=True)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --eps='nan': expected a number in (0, 1) in ASCII digits
    >>> parse_real("١", "--beta", low=0)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --beta='١': expected a number >= 0 in ASCII digits
    >>> parse_real("1e308", "--beta", low=0, high=1e6)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --beta='1e308': expected a number in [0, 1e+06]
    """
    return inputs.parse_real(text, argument, low=low, high=high, low_open=low_open, high_open=high_open)


def real_arg(name: str, **bounds):
    """argparse type: :func:`parse_real` (keyword ``bounds`` as there) with a message naming the option ``name``.

    The returned callable carries ``real_option = name`` (the CLI test finds every real option by it).
    """
    def parse(text: str) -> float:
        try:
            return parse_real(text, name, **bounds)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.real_option = name
    return parse


def memory_arg(name: str = "--max-memory"):
    """argparse type: :func:`algebra.inputs.memory` (bytes, ``8G``), its message naming the option ``name``.

    Examples
    --------
    >>> memory_arg()("512M")
    536870912
    >>> memory_arg()("nan")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: invalid --max-memory='nan': expected bytes, e.g. 8G, 512M or 1000000
    """
    def parse(text: str) -> int:
        try:
            return inputs.memory(text, name)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.integer_option = name
    return parse


def _path_arg(check, name: str, kind: str):
    def parse(text: str) -> str:
        try:
            check(text, name)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return text

    parse.path_option = name
    parse.__name__ = kind  # argparse names the type in its own messages
    return parse


def output_file_arg(name: str, *, suffixes: tuple | None = None):
    """argparse type: :func:`algebra.inputs.output_file` (checked while parsing, so before any work), naming
    the option ``name``; the text is kept as typed.

    Examples
    --------
    >>> output_file_arg("--certificate")("/nonexistent/dir/c.json")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: invalid --certificate='/nonexistent/dir/c.json': expected a file in an existing directory (/nonexistent/dir does not exist)
    >>> output_file_arg("--certificate")("")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: invalid --certificate='': expected a file path (not empty)
    """
    return _path_arg(lambda text, option: inputs.output_file(text, option, suffixes=suffixes), name, "output file")


#: The plot formats a ``--plot FILE`` may name (matplotlib reads the format from the suffix).
PLOT_SUFFIXES = (".png", ".pdf", ".svg")


def plot_file_arg(name: str = "--plot"):
    """argparse type: a plot file, :func:`algebra.inputs.output_file` with a suffix in :data:`PLOT_SUFFIXES`
    (checked while parsing: a wrong suffix was matplotlib's traceback after the work).

    Examples
    --------
    >>> plot_file_arg()("fit.out")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: invalid --plot='fit.out': expected a file name ending in .png, .pdf or .svg
    """
    return output_file_arg(name, suffixes=PLOT_SUFFIXES)


def output_directory_arg(name: str):
    """argparse type: :func:`algebra.inputs.output_directory` (created later if missing; a file in the way is
    refused while parsing)."""
    return _path_arg(inputs.output_directory, name, "output directory")


def input_file_arg(name: str):
    """argparse type: :func:`algebra.inputs.input_file` (an existing regular file)."""
    return _path_arg(inputs.input_file, name, "input file")


# -- progress: a tqdm bar on stderr by default, --quiet switches it off ------------------------------


def add_progress_options(parser, *, legacy: tuple = ()) -> None:
    """``--quiet``: the one spelling, on every command doing long work, that switches its progress bar off.

    By default such a command shows a tqdm bar with an ETA on stderr (stdout, ``--json`` included, holds only
    the answer).  ``legacy`` keeps an older spelling working: ``"--no-progress"`` (the same as ``--quiet``) and
    ``"--progress"`` (the old opt-in; the bar is now the default, so it is accepted and changes nothing unless it
    follows ``--quiet``).
    """
    parser.add_argument("--quiet", dest="quiet", action="store_true", default=False,
                        help="no progress bar (by default a tqdm bar with an ETA is shown on stderr)")
    if "--no-progress" in legacy:
        parser.add_argument("--no-progress", dest="quiet", action="store_true", default=False,
                            help="the same as --quiet (older spelling)")
    if "--progress" in legacy:
        parser.add_argument("--progress", dest="quiet", action="store_false", default=False,
                            help="show the progress bar (the default; older spelling)")


def progress_bar(iterable=None, *, quiet: bool, desc: str, total: int | None = None, unit: str = "it"):
    """A tqdm bar with an ETA on stderr over ``iterable`` (``quiet``: a bar that shows nothing, same interface).

    Examples
    --------
    >>> with progress_bar(range(3), quiet=True, desc="demo") as bar:
    ...     [x for x in bar]
    [0, 1, 2]
    """
    from tqdm import tqdm

    return tqdm(iterable, desc=desc, total=total, unit=unit, disable=quiet)


# -- --certificate FILE ----------------------------------------------------------------------------


def add_certificate_option(parser, *, claim: bool = False) -> None:
    """``--certificate FILE``: write one certificate of what the command proved (``dim``, ``secant``, ``rlct``);
    with ``claim``, also ``--claim CLAIM`` (:func:`parse_claim`), recorded in that certificate."""
    parser.add_argument("--certificate", metavar="FILE", default=None, type=output_file_arg("--certificate"),
                        help="also write a certificate of the result to FILE (re-check it with `neuroalgebra verify FILE`)")
    if claim:
        parser.add_argument("--claim", metavar="CLAIM", type=claim_arg, default=None,
                            help="with --certificate: your claim about the dimension, '20' (== 20), '>=20' or '<=20', "
                                 "recorded in the certificate; the independent checker judges it (confirmed, refuted "
                                 "or out of reach) and the exit status is 1 unless it is confirmed")


_CLAIM = re.compile(r"(==|>=|<=)?\s*([0-9]+)")


def parse_claim(text, argument: str = "--claim") -> tuple:
    """``"20"``, ``"==20"``, ``">= 20"``, ``"<=20"`` -> ``(relation, value)``: a claim about a dimension.

    Examples
    --------
    >>> parse_claim("20"), parse_claim(">= 7"), parse_claim("<=3")
    (('==', 20), ('>=', 7), ('<=', 3))
    >>> parse_claim("=20")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --claim='=20': expected a dimension N, ==N, >=N or <=N (N a non-negative integer in ASCII digits, below 2**63)
    """
    m = _CLAIM.fullmatch(str(text).strip())
    if m is None or (len(m.group(2)) > 1 and m.group(2)[0] == "0") or len(m.group(2)) > 19 or int(m.group(2)) >= 2**63:
        raise InputError(argument, text, "a dimension N, ==N, >=N or <=N (N a non-negative integer in ASCII digits, "
                         "below 2**63)")
    return m.group(1) or "==", int(m.group(2))


def claim_arg(text: str) -> tuple:
    """argparse type of ``--claim``: :func:`parse_claim`, its error as argparse's."""
    try:
        return parse_claim(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def claim_options(args) -> dict:
    """``{"claimed", "relation"}`` of ``--claim`` for an :mod:`algebra.certify` entry point (empty without it);
    refuses ``--claim`` without ``--certificate`` (the claim is judged in the certificate, by the checker)."""
    claim = getattr(args, "claim", None)
    if claim is None:
        return {}
    if not getattr(args, "certificate", None):
        raise InputError("--claim", f"{claim[0]}{claim[1]}", "--claim together with --certificate FILE (the claim is "
                         "recorded in the certificate and judged there by the independent checker)")
    return {"relation": claim[0], "claimed": claim[1]}


def write_certificate(path, emit) -> dict:
    """Call ``emit(path)`` (an :mod:`algebra.certify` entry point), re-verify the file, and describe it.

    The entry points write atomically, so a failure leaves no file behind.
    The file is re-read and checked by the independent checker before the
    command reports it; the description says what the certificate proves
    (``kind``, ``relation``, ``value``), which for an uncertified result is
    only the proven lower bound.
    """
    from algebra.checker import check_file_verdict

    try:
        emitted = emit(path)
    except OSError as exc:
        raise InputError("--certificate", str(path), f"a writable file path ({exc.strerror or exc})") from None
    ok, reason, judgement = check_file_verdict(str(path))
    claim = emitted.certificate["claim"]
    info = {"path": str(path), "kind": emitted.kind, "relation": claim.get("relation"), "value": claim.get("value"),
            "verified": bool(ok), "checker": reason}
    if judgement is not None:  # the --claim the file records, as the checker judged it from the file
        info["claimed"] = judgement
    return info


def print_certificate(info: dict) -> None:
    """One line for a :func:`write_certificate` description: path, what it proves, the checker's verdict (and its
    verdict on the recorded claim)."""
    j = info.get("claimed")
    said = f"; claim {j['quantity']} {j['relation']} {j['value']}: {j['verdict'].upper()}" if j else ""
    print(f"certificate: {info['path']} ({info['kind']}: {info['relation']} {info['value']}; "
          f"independent checker: {'VERIFIED' if info['verified'] else 'REJECTED'}{said})")


def certificate_status(info: dict | None) -> int:
    """The exit status a command that wrote ``info`` (:func:`write_certificate`, or ``None``) returns: 1 when the
    file does not verify or the claim it records is not confirmed, else 0."""
    if info is None:
        return 0
    bad = not info["verified"] or ("claimed" in info and info["claimed"]["verdict"] != "confirmed")
    return 1 if bad else 0


# -- the sweep runner's options ------------------------------------------------------------------------


def add_sweep_options(parser, *, serial_by_default: bool = False) -> None:
    """Add the shared ``--scheduler``, ``--workers`` and ``--no-worker-timeout`` options of
    :func:`algebra.sweep.run_sweep`.

    ``serial_by_default`` only changes the help text: commands whose default
    work takes seconds (``certify``, ``secant-table``, ``llc suite``) run in
    this process unless ``--workers`` or ``--scheduler`` is given.
    """
    from algebra.sweep import NO_WORKER_TIMEOUT

    default = ("in this process, unless --workers asks for a LocalCluster" if serial_by_default
               else "a LocalCluster on this machine")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="Dask scheduler address (tcp://host:8786), or 'serial' to run in this process; "
                             f"default: {default}")
    # ASCII digits only; run_sweep checks the range
    parser.add_argument("--workers", type=integer_arg("--workers"), default=None, metavar="N",
                        help="worker processes of the LocalCluster (default: number of CPUs)")
    parser.add_argument("--no-worker-timeout", type=positive_arg("--no-worker-timeout"), default=None,
                        metavar="SECONDS",
                        help="with --scheduler ADDRESS: stop (exit status 1, every finished result kept) when the "
                             f"scheduler has had no live worker for SECONDS (default: {NO_WORKER_TIMEOUT:g})")


MAX_WORKERS = 256
# tcp:// (or tls://, ws://, wss://, ucx://) host:port, ASCII only; IPv4 parts 0-255
_SCHEDULER = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}"
                        r"|(?![\d.]+:)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)"
                        r":(?:6553[0-5]|655[0-2]\d|65[0-4]\d\d|6[0-4]\d{3}|[1-5]\d{4}|[1-9]\d{0,3})", re.ASCII)


def sweep_options(args, *, serial: bool = False) -> dict:
    """``{"scheduler": ..., "workers": ...}`` for :func:`algebra.sweep.run_sweep` from :func:`add_sweep_options`.

    ``serial=True``: with neither option given, ``scheduler="serial"`` (a sweep of seconds does not pay
    for starting a cluster).  ``--no-worker-timeout`` travels with the address, as a
    :class:`algebra.sweep.SchedulerAddress`, so every library function that passes ``scheduler`` on to
    :func:`~algebra.sweep.run_sweep` honours it.

    Examples
    --------
    >>> sweep_options(argparse.Namespace(scheduler=None, workers=None), serial=True)
    {'scheduler': 'serial', 'workers': None}
    >>> sweep_options(argparse.Namespace(scheduler=None, workers=2), serial=True)
    {'scheduler': None, 'workers': 2}
    >>> opts = sweep_options(argparse.Namespace(scheduler="tcp://h:8786", workers=None, no_worker_timeout=5))
    >>> opts["scheduler"], opts["scheduler"].no_worker_timeout
    ('tcp://h:8786', 5)
    >>> sweep_options(argparse.Namespace(scheduler="tcp://256.1.1.1:1", workers=None))
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --scheduler='tcp://256.1.1.1:1': expected 'serial' or an address with a port, tcp://host:8786 (ASCII; host a name or an IPv4 address with parts 0-255)
    >>> sweep_options(argparse.Namespace(scheduler=None, workers=10**9))
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --workers=1000000000: expected between 1 and 256 (MAX_WORKERS: worker processes of a LocalCluster on this machine; a larger cluster is a --scheduler ADDRESS)
    """
    from algebra.sweep import SchedulerAddress

    opts = {"scheduler": getattr(args, "scheduler", None), "workers": getattr(args, "workers", None)}
    workers = opts["workers"]
    if workers is not None and not 1 <= workers <= MAX_WORKERS:
        raise InputError("--workers", workers, f"between 1 and {MAX_WORKERS} (MAX_WORKERS: worker processes "
                         "of a LocalCluster on this machine; a larger cluster is a --scheduler ADDRESS)")
    address = opts["scheduler"]
    if address not in (None, "serial") and not _SCHEDULER.fullmatch(address):
        raise InputError("--scheduler", address, "'serial' or an address with a port, tcp://host:8786 "
                         "(ASCII; host a name or an IPv4 address with parts 0-255)")
    if serial and opts["scheduler"] is None and opts["workers"] is None:
        opts["scheduler"] = "serial"
    if opts["scheduler"] not in (None, "serial"):
        opts["scheduler"] = SchedulerAddress(opts["scheduler"],
                                             no_worker_timeout=getattr(args, "no_worker_timeout", None))
    return opts
