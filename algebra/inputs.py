"""One door for every input: the parsers and range checks every command and every public function goes through.

A validator written twice already disagrees (``2.9`` read as ``2`` in one place, refused in another), so each
kind of input is read here, once, at the bottom of the layers (beside :mod:`algebra.errors`; this module imports
nothing else of ours).  Every refusal is an :class:`~algebra.errors.InputError` naming the argument *as the
caller wrote it* (``--widths`` on the command line, ``widths`` in Python), the value received and what is
allowed; the CLI prints it and exits with status 2.

Two spellings of each kind:

* **Python values** (:func:`integer`, :func:`integers`, :func:`prime`, :func:`real`, :func:`seed`, ...): the
  type is part of the value.  An integer is an ``int`` or a numpy integer; ``bool`` is not an integer, and a
  float is refused even when it is integral (``3.0``): a float where a size belongs is almost always a
  computation that went wrong upstream (``2.9`` would otherwise be read as ``2``), and one rule is easier to
  state than "integral floats only".
* **Text** (:func:`parse_integer`, :func:`parse_integers`, :func:`parse_prime`, :func:`parse_real`,
  :func:`memory`): ASCII decimal only.  ``int()`` also reads ``'١'`` and ``'５'``, ``float()`` also reads
  ``'nan'``, ``'1_0'`` and ``'infinity'``; a command line is one spelling of its model, so all of those are
  refused.

Sizes are checked before anything proportional to them is built: :func:`integers` refuses a sequence longer
than ``max_length`` before reading its entries, and :func:`parse_integer` refuses more than
:data:`MAX_DIGITS` digits before converting them.

Paths: :func:`output_file` (checked before the work starts: its directory must exist and be a directory, the
path must not be a directory), :func:`output_directory` (may be created, but nothing on its way may be a file),
:func:`input_file` (exists and is a regular file).  Files are written by :func:`algebra.files.write_atomic`, so
a failed write leaves no half-written file.

Examples
--------
>>> integer(3, "width", minimum=1), parse_integer("12", "--n")
(3, 12)
>>> integer(2.9, "width")
Traceback (most recent call last):
...
algebra.errors.InputError: invalid width=2.9: expected an integer (not a float)
>>> parse_integer("５", "--n", minimum=1)
Traceback (most recent call last):
...
algebra.errors.InputError: invalid --n='５': expected an integer >= 1 in ASCII digits
"""

from __future__ import annotations

import json
import math
import numbers
import os
import re
from pathlib import Path

import numpy as np

from algebra.errors import InputError

__all__ = [
    "MAX_DIGITS", "SEED_LIMIT",
    "integer", "integers", "parse_integer", "parse_integers",
    "prime", "parse_prime", "is_prime",
    "real", "parse_real",
    "memory", "seed",
    "output_file", "output_directory", "input_file", "json_object",
    "settings", "choice", "text", "sequence",
]

#: Most digits an integer written as text may have (Python's own ``int()`` refuses past 4300 with a
#: ``ValueError`` that is not ours; no size this package accepts needs more than a few dozen).
MAX_DIGITS = 1000
#: Seeds are non-negative integers below this bound: what ``numpy.random.SeedSequence`` accepts and a signed
#: 64-bit integer (a certificate's JSON, a torch generator) holds.
SEED_LIMIT = 2**63

_INTEGER = re.compile(r"[+-]?[0-9]+")
_REAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _range_text(minimum, maximum) -> str:
    if minimum is not None and maximum is not None:
        return f"an integer in [{minimum}, {maximum}]"
    if minimum is not None:
        return f"an integer >= {minimum}"
    if maximum is not None:
        return f"an integer <= {maximum}"
    return "an integer"


# -- integers ------------------------------------------------------------------------------------------


def integer(value, argument: str, *, minimum: int | None = None, maximum: int | None = None,
            allowed: str | None = None) -> int:
    """An ``int`` (or numpy integer) in ``[minimum, maximum]``; ``bool`` and every float (``3.0`` too) refused.

    Parameters
    ----------
    value : object
        What the caller passed.
    argument : str
        The argument as the caller wrote it (``"width"``, ``"--width"``).
    minimum, maximum : int, optional
        Inclusive bounds.
    allowed : str, optional
        The message's "expected ..." (default: the range).

    Examples
    --------
    >>> integer(np.int64(4), "k", minimum=1)
    4
    >>> integer(True, "k")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid k=True: expected an integer (not a bool)
    >>> integer(0, "k", minimum=1, maximum=9)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid k=0: expected an integer in [1, 9]
    """
    what = allowed or _range_text(minimum, maximum)
    if isinstance(value, (bool, np.bool_)):
        raise InputError(argument, value, f"{what} (not a bool)")
    if not isinstance(value, (int, np.integer)):
        kind = "a float" if isinstance(value, (float, np.floating)) else type(value).__name__
        raise InputError(argument, value, f"{what} (not {kind})" if kind == "a float" else what)
    n = int(value)
    if (minimum is not None and n < minimum) or (maximum is not None and n > maximum):
        raise InputError(argument, value, what)
    return n


def parse_integer(value, argument: str, *, minimum: int | None = None, maximum: int | None = None,
                  allowed: str | None = None) -> int:
    """An integer written in ASCII decimal digits (optional sign, surrounding blanks ignored), in range.

    An ``int`` is accepted as it is (:func:`integer`), so a default that is already an integer passes.

    Examples
    --------
    >>> parse_integer(" -3 ", "--r"), parse_integer("12", "--n", minimum=1)
    (-3, 12)
    >>> parse_integer("١", "--n")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --n='١': expected an integer in ASCII digits
    >>> parse_integer("9" * 2000, "--n")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --n='2000 digits': expected an integer of at most 1000 digits
    """
    what = allowed or _range_text(minimum, maximum)
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return integer(value, argument, minimum=minimum, maximum=maximum, allowed=allowed)
    if not isinstance(value, str):
        raise InputError(argument, value, f"{what} in ASCII digits")
    t = value.strip()
    if not _INTEGER.fullmatch(t):
        raise InputError(argument, value, f"{what} in ASCII digits")
    if len(t.lstrip("+-")) > MAX_DIGITS:
        raise InputError(argument, f"{len(t.lstrip('+-'))} digits", f"an integer of at most {MAX_DIGITS} digits")
    n = int(t)
    if (minimum is not None and n < minimum) or (maximum is not None and n > maximum):
        raise InputError(argument, value, what)
    return n


def _entries_text(minimum, min_length) -> str:
    count = "" if min_length <= 1 else f"at least {min_length} "
    kind = ("integers" if minimum is None else "non-negative integers" if minimum == 0 else
            "positive integers" if minimum == 1 else f"integers >= {minimum}")
    return f"{count}{kind}"


def integers(values, argument: str, *, minimum: int | None = None, maximum: int | None = None,
             min_length: int = 1, max_length: int | None = None, allowed: str | None = None) -> tuple:
    """A sequence of :func:`integer` entries -> a tuple of ``int``; its length is checked before any entry.

    A string is not a sequence of integers here (``"34"`` is not ``(3, 4)``; text goes through
    :func:`parse_integers`).

    Examples
    --------
    >>> integers([2, np.int32(3)], "widths", minimum=1, min_length=2)
    (2, 3)
    >>> integers([2.9, 3, 2.2], "widths", minimum=1)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid widths=[2.9, 3, 2.2]: expected a sequence of positive integers
    >>> integers(range(10**9), "widths", max_length=101)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid widths='1000000000 entries': expected at most 101 entries
    """
    what = allowed or f"a sequence of {_entries_text(minimum, min_length)}"
    if isinstance(values, (str, bytes, dict)) or isinstance(values, (int, float, bool, np.generic)):
        raise InputError(argument, values, what)
    try:
        n = len(values)
    except TypeError:
        n = None
    if n is not None and max_length is not None and n > max_length:
        raise InputError(argument, f"{n} entries", f"at most {max_length} entries")
    try:
        items = tuple(values) if n is not None or max_length is None else \
            tuple(v for _, v in zip(range(max_length + 1), values))
    except TypeError:
        raise InputError(argument, values, what) from None
    if max_length is not None and len(items) > max_length:
        raise InputError(argument, f"more than {max_length} entries", f"at most {max_length} entries")
    if len(items) < min_length:
        raise InputError(argument, values, what)
    try:
        return tuple(integer(v, argument, minimum=minimum, maximum=maximum) for v in items)
    except InputError:
        raise InputError(argument, values, what) from None


def parse_integers(text, argument: str, *, minimum: int | None = None, maximum: int | None = None,
                   min_length: int = 1, max_length: int | None = None, allowed: str | None = None) -> tuple:
    """``"3,4,1"`` -> ``(3, 4, 1)``: :func:`parse_integer` entries separated by commas; the number of entries
    is checked before any is converted.

    Examples
    --------
    >>> parse_integers("0, 2", "--layers", minimum=0)
    (0, 2)
    >>> parse_integers("1,٢", "--layers")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --layers='1,٢': expected integers separated by commas
    """
    if allowed is None:
        allowed = f"{_entries_text(minimum, min_length)} separated by commas"
    if not isinstance(text, str):
        raise InputError(argument, text, allowed)
    if max_length is not None and text.count(",") >= max_length:
        raise InputError(argument, f"{text.count(',') + 1} entries", f"at most {max_length} entries")
    parts = text.split(",")
    if len(parts) < min_length:
        raise InputError(argument, text, allowed)
    try:
        return tuple(parse_integer(p, argument, minimum=minimum, maximum=maximum) for p in parts)
    except InputError:
        raise InputError(argument, text, allowed) from None


# -- primes --------------------------------------------------------------------------------------------

# Miller-Rabin with these bases is exact below 3.3 * 10**24 (Sorenson and Webster 2015).
_MR_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_MR_LIMIT = 3317044064679887385961981


def is_prime(n: int) -> bool:
    """Exact primality of ``0 <= n < 3.3 * 10**24`` (deterministic Miller-Rabin); larger ``n`` is refused.

    Examples
    --------
    >>> [p for p in range(20) if is_prime(p)], is_prime(2**61 - 1)
    ([2, 3, 5, 7, 11, 13, 17, 19], True)
    """
    if n < 2:
        return False
    if n >= _MR_LIMIT:
        raise InputError("n", n, f"an integer below {_MR_LIMIT} (where this primality test is exact)")
    for p in _MR_BASES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in _MR_BASES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime_text(below) -> str:
    return "a prime >= 2" if below is None else f"a prime below {below}"


def prime(value, argument: str, *, below: int | None = None, allowed: str | None = None) -> int:
    """A prime ``int`` (below ``below`` when given; never above the exact range of :func:`is_prime`).

    Examples
    --------
    >>> prime(7, "p")
    7
    >>> prime(9, "p")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid p=9: expected a prime >= 2
    """
    what = allowed or _prime_text(below)
    n = integer(value, argument, allowed=what)
    if not 2 <= n < min(below or _MR_LIMIT, _MR_LIMIT) or not is_prime(n):
        raise InputError(argument, value, what)
    return n


def parse_prime(value, argument: str, *, below: int | None = None, allowed: str | None = None) -> int:
    """:func:`prime` of text in ASCII digits (or of an ``int``).

    Examples
    --------
    >>> parse_prime("101", "--prime", below=2**21)
    101
    >>> parse_prime("100", "--prime", below=2**21)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --prime='100': expected a prime below 2097152
    """
    what = allowed or _prime_text(below)
    n = parse_integer(value, argument, allowed=what)
    try:
        prime(n, argument, below=below, allowed=what)
    except InputError:
        raise InputError(argument, value, what) from None
    return n


# -- reals ---------------------------------------------------------------------------------------------


def _interval_text(low, high, low_open, high_open) -> str:
    if low is not None and high is not None:
        return f"a number in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f"a number {'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f"a number {'<' if high_open else '<='} {high:g}"
    return "a finite number"


def _inside(v: float, low, high, low_open, high_open) -> bool:
    return (math.isfinite(v) and (low is None or (v > low if low_open else v >= low))
            and (high is None or (v < high if high_open else v <= high)))


def real(value, argument: str, *, low: float | None = None, high: float | None = None, low_open: bool = False,
         high_open: bool = False, allowed: str | None = None) -> float:
    """A finite real number (``int``, ``float``, numpy scalar, ``Fraction``; not ``bool``, not text) in bounds.

    Examples
    --------
    >>> real(1, "lr", low=0, low_open=True)
    1.0
    >>> real(float("nan"), "eps", low=0, high=1)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid eps=nan: expected a number in [0, 1]
    """
    what = allowed or _interval_text(low, high, low_open, high_open)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.integer, np.floating)):
        raise InputError(argument, value, what)
    try:
        v = float(value)
    except (OverflowError, ValueError):
        raise InputError(argument, value, what) from None
    if not _inside(v, low, high, low_open, high_open):
        raise InputError(argument, value, what)
    return v


def parse_real(value, argument: str, *, low: float | None = None, high: float | None = None,
               low_open: bool = False, high_open: bool = False, allowed: str | None = None) -> float:
    """A finite real number written in ASCII decimal (``0.25``, ``1e-3``) in bounds; a Python number as
    :func:`real`.

    Examples
    --------
    >>> parse_real("1e-3", "--lr", low=0, low_open=True)
    0.001
    >>> parse_real("nan", "--eps", low=0, high=1, low_open=True, high_open=True)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --eps='nan': expected a number in (0, 1) in ASCII digits
    >>> parse_real("1e308", "--beta", low=0, high=1e6)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --beta='1e308': expected a number in [0, 1e+06]
    """
    what = allowed or _interval_text(low, high, low_open, high_open)
    if not isinstance(value, str):
        return real(value, argument, low=low, high=high, low_open=low_open, high_open=high_open, allowed=allowed)
    t = value.strip()
    if not _REAL.fullmatch(t) or len(t) > MAX_DIGITS:
        raise InputError(argument, value, f"{what} in ASCII digits")
    v = float(t)  # the pattern has no nan/inf; an overflow to inf is refused by _inside
    if not _inside(v, low, high, low_open, high_open):
        raise InputError(argument, value, what)
    return v


# -- memory sizes and seeds ----------------------------------------------------------------------------


def memory(value, argument: str = "--max-memory") -> int:
    """Bytes from a non-negative int or text with an optional binary suffix (``K``, ``M``, ``G``, ``T``; ``B``,
    ``iB`` allowed), below ``2**63``.

    Examples
    --------
    >>> memory("8G"), memory("512MiB"), memory(1000), memory("1.5k")
    (8589934592, 536870912, 1000, 1536)
    >>> memory("٨G")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --max-memory='٨G': expected bytes, e.g. 8G, 512M or 1000000
    >>> memory(-1, "max_memory")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid max_memory=-1: expected bytes, e.g. 8G, 512M or 1000000
    """
    allowed = "bytes, e.g. 8G, 512M or 1000000"
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        if not 0 <= value < 2**63:
            raise InputError(argument, value, allowed)
        return int(value)
    if not isinstance(value, str):
        raise InputError(argument, value, allowed)
    t = value.strip().upper().removesuffix("B").removesuffix("I")
    scale = 1
    if t[-1:] and t[-1] in "KMGT":
        scale, t = 1024 ** ("KMGT".index(t[-1]) + 1), t[:-1]
    if not _REAL.fullmatch(t) or t.startswith(("+", "-")) or len(t) > 40:
        raise InputError(argument, value, allowed)
    number = float(t) * scale
    if not 0 <= number < 2**63:
        raise InputError(argument, value, allowed)
    return int(number)


def seed(value, argument: str = "seed") -> int:
    """A seed: an integer in ``[0, 2**63)`` (:data:`SEED_LIMIT`), what :class:`numpy.random.SeedSequence` and a
    signed 64-bit field both hold.

    Examples
    --------
    >>> seed(0), seed(np.uint32(7))
    (0, 7)
    >>> seed(-1)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid seed=-1: expected an integer in [0, 2**63)
    """
    return integer(value, argument, minimum=0, maximum=SEED_LIMIT - 1, allowed="an integer in [0, 2**63)")


# -- paths ---------------------------------------------------------------------------------------------


def _path(value, argument: str, what: str) -> Path:
    if isinstance(value, (str, os.PathLike)) and not isinstance(value, bytes):
        p = os.fspath(value)
        if isinstance(p, str) and p.strip() and "\x00" not in p:
            return Path(p)
    raise InputError(argument, value, what)


def output_file(value, argument: str, *, suffixes: tuple | None = None) -> Path:
    """A file to write, checked before the work starts: a non-empty path whose directory exists (and is a
    directory) and which is not itself a directory, whose name is not blank; with ``suffixes`` (``(".png",
    ".pdf")``), its suffix is one of them (a plot's format is read from it).  Write it with
    :func:`algebra.files.write_atomic`.

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> output_file(f"{d}/c.json", "--certificate").name
    'c.json'
    >>> output_file("", "--certificate")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --certificate='': expected a file path (not empty)
    >>> output_file(f"{d}/missing/c.json", "--certificate")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --certificate='.../missing/c.json': expected a file in an existing directory (.../missing does not exist)
    >>> output_file(f"{d}/fit.out", "--plot", suffixes=(".png", ".pdf", ".svg"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --plot='.../fit.out': expected a file name ending in .png, .pdf or .svg
    """
    p = _path(value, argument, "a file path (not empty)")
    if p.is_dir():
        raise InputError(argument, str(value), "a file path, not a directory")
    if not p.name.strip():
        raise InputError(argument, str(value), "a file path (the file name is blank)")
    if suffixes is not None and (p.suffix.lower() not in suffixes or not p.stem.strip()):
        names = ", ".join(suffixes[:-1]) + " or " + suffixes[-1] if len(suffixes) > 1 else suffixes[0]
        raise InputError(argument, str(value), f"a file name ending in {names}")
    parent = p.parent
    if not parent.exists():
        raise InputError(argument, str(value), f"a file in an existing directory ({parent} does not exist)")
    if not parent.is_dir():
        raise InputError(argument, str(value), f"a file in a directory ({parent} is not a directory)")
    return p


def output_directory(value, argument: str) -> Path:
    """A directory to write into: it may not exist yet (it is created with its parents), but neither it nor
    anything on its way may be a file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "f").write_text("x")
    >>> output_directory(d / "new" / "run", "--out") == d / "new" / "run"
    True
    >>> output_directory(d / "f" / "run", "--out")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --out='.../f/run': expected a directory path (.../f is a file)
    """
    p = _path(value, argument, "a directory path (not empty)")
    for q in (p, *p.parents):
        if q.exists():
            if not q.is_dir():
                raise InputError(argument, str(value), f"a directory path ({q} is a file)")
            break
    return p


def input_file(value, argument: str) -> Path:
    """A file to read: it exists and is not a directory.

    Examples
    --------
    >>> input_file("/nonexistent/x.json", "CERT")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid CERT='/nonexistent/x.json': expected an existing file (it does not exist)
    """
    p = _path(value, argument, "a file path (not empty)")
    if not p.exists():
        raise InputError(argument, str(value), "an existing file (it does not exist)")
    if p.is_dir():
        raise InputError(argument, str(value), "a file, not a directory")
    return p


def json_object(value, argument: str, *, max_bytes: int) -> dict:
    """The JSON object (a ``dict``) a file holds: :func:`input_file`, at most ``max_bytes`` (checked before
    reading), UTF-8, parsed, and an object at the top (a list, a number or text is refused).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "c.json").write_text('{"kind": "rank"}')
    >>> json_object(d / "c.json", "CERT", max_bytes=100)
    {'kind': 'rank'}
    >>> _ = (d / "l.json").write_text('[1, 2]')
    >>> json_object(d / "l.json", "CERT", max_bytes=100)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid CERT='.../l.json': expected a JSON object (the file holds a list)
    >>> json_object(d / "c.json", "CERT", max_bytes=10)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid CERT='.../c.json': expected a file of at most 10 bytes
    """
    p = input_file(value, argument)
    if p.stat().st_size > max_bytes:
        raise InputError(argument, str(value), f"a file of at most {max_bytes:,} bytes")
    try:
        data = json.loads(p.read_bytes().decode("utf-8"))
    except OSError as exc:
        raise InputError(argument, str(value), f"a readable file ({exc.strerror or type(exc).__name__})") from None
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise InputError(argument, str(value), f"a JSON object ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise InputError(argument, str(value), f"a JSON object (the file holds a {type(data).__name__})")
    return data


# -- settings objects, enums, names --------------------------------------------------------------------


def settings(value, argument: str, cls, *, default=None):
    """An instance of ``cls`` (``None`` -> ``default``, or ``cls()`` when no default is given).  A dict is refused,
    naming the parameter: build the object, ``cls(**{...})``, so that its own checks run.

    Examples
    --------
    >>> from fractions import Fraction
    >>> settings(None, "settings", Fraction)
    Fraction(0, 1)
    >>> settings({"a": 1}, "settings", Fraction)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid settings={'a': 1}: expected a Fraction (a dict is not one: pass Fraction(**{...}))
    """
    if value is None:
        return cls() if default is None else default
    if isinstance(value, cls):
        return value
    hint = f" (a dict is not one: pass {cls.__name__}(**{{...}}))" if isinstance(value, dict) else ""
    raise InputError(argument, value, f"a {cls.__name__}{hint}")


def choice(value, argument: str, options) -> str:
    """One of ``options`` (strings), exactly as written.

    Examples
    --------
    >>> choice("sample", "mode", ("auto", "sample"))
    'sample'
    >>> choice(b"auto", "mode", ("auto", "sample"))
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid mode=b'auto': expected one of auto, sample
    """
    options = tuple(options)
    if not isinstance(value, str) or value not in options:
        raise InputError(argument, value, "one of " + ", ".join(map(str, options)))
    return value


def text(value, argument: str, allowed: str = "text") -> str:
    """A ``str`` where a name or an expression is expected (a function, a number or bytes is refused).

    Examples
    --------
    >>> text("t^2", "activations")
    't^2'
    >>> text(abs, "activations", "an activation polynomial, e.g. 't^2'")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid activations=<built-in function abs>: expected an activation polynomial, e.g. 't^2'
    """
    if not isinstance(value, str):
        raise InputError(argument, value, allowed)
    return value



def sequence(value, argument: str, allowed: str = "a list of items") -> tuple:
    """The items of a list-like ``value`` (a list, tuple or other iterable; not a string, bytes, a mapping or None).

    A single string where a list of strings is expected is refused rather than read character by character.

    Examples
    --------
    >>> sequence(["x^2", "y"], "generators")
    ('x^2', 'y')
    >>> sequence(None, "generators", "a list of polynomials")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid generators=None: expected a list of polynomials
    >>> sequence("x^2", "generators", "a list of polynomials")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid generators='x^2': expected a list of polynomials
    """
    if value is None or isinstance(value, (str, bytes, dict)):
        raise InputError(argument, value, allowed)
    try:
        return tuple(value)
    except TypeError:
        raise InputError(argument, value, allowed) from None
