"""The checker's trusted core: what every certificate's verdict rests on (docs/certificate-format.md).

A referee reads this file and the one plug-in of the kind in question (``rank.py`` with ``model.py``,
``formula.py``, ``attention.py``, ``cnn.py``, ``representation.py``, ``local_rank.py``, ``block_rank.py``);
nothing else decides a single file's verdict.  Imports only the standard library and ``python-flint`` (modular arithmetic falls back
to pure Python when it is absent).  In order:

* reading a file: a regular file of at most :data:`MAX_FILE_BYTES`, strict JSON (no duplicate key, no
  ``NaN``/``Infinity``) -- :func:`read_certificate`;
* typed, canonical readers (one spelling per value: :func:`big_int`, :func:`fraction`, :func:`exact_number`,
  :func:`fields`, :func:`block_fields`, :func:`canonical_or_refuse`) and sparse polynomials;
* exact arithmetic: Miller--Rabin, random primes, elimination, ``det``/``rank``/``solve`` modulo a prime;
* the budget (:func:`charge`) and the seal (:func:`digest`: sha256 of canonical JSON);
* the kind registry (:func:`register_kind`; the plug-ins register when the package loads, this module imports
  none of them) and the verdict: :func:`check_verdict` checks the seal and the fields, has the kind's plug-in
  derive the claim from the data, compares it key for key with the file's (:func:`compare_claim`) and judges
  the user's recorded ``claimed`` against the proven range (:func:`judge_claimed`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import secrets
import stat
from fractions import Fraction

try:
    import flint
except ImportError:  # pragma: no cover - exercised by the fallback test
    flint = None

SCHEMA_VERSION = 1
KINDS = ("rank_lower_bound", "rank_upper_bound", "dimension", "defect", "formula", "interval_inequality",
         "attention_rank", "score_representation", "local_rank", "block_rank")
SZ_BITS = 200  # Schwartz-Zippel points live in GF(q) for a fresh random prime q in [2^200, 2^201)
MAX_FILE_BYTES = 32 * 2**20
MAX_PARAMS = 4096
MAX_SIDE = 4096  # widths, inputs, outputs, samples, rows
MAX_TERMS = 200_000
MAX_MATRIX = 4 * 10**6  # entries of any matrix the checker builds (Jacobian rows, fields, gradients)
MAX_DEGREE = 256
MAX_DIGITS = 400
# Canonical spellings (docs/certificate-format.md, "Canonical specs"): ASCII digits only (``[0-9]`` in a
# character class is ASCII; ``str.isdigit`` and ``int`` accept other scripts' digits and are never applied to
# file text unchecked), no sign on counts, no leading zero, no ``-0``; fractions in lowest terms.
_DEC = re.compile(r"0|[1-9][0-9]{0,%d}" % (MAX_DIGITS - 1))
_INT = re.compile(r"0|-?[1-9][0-9]{0,%d}" % (MAX_DIGITS - 1))
_FRAC = re.compile(r"(0|-?[1-9][0-9]{0,%d})(/[1-9][0-9]{0,%d})?" % (MAX_DIGITS - 1, MAX_DIGITS - 1))
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
# real numbers (:func:`exact_number`): an integer (``_INT``), a reduced ratio, a decimal, a binary64 in hex
_RATIO = re.compile(r"-?[1-9][0-9]{0,%d}/[1-9][0-9]{0,%d}" % (MAX_DIGITS - 1, MAX_DIGITS - 1))
_DECIMAL = re.compile(r"-?(0|[1-9][0-9]{0,%d})\.[0-9]{0,%d}[1-9]" % (MAX_DIGITS - 1, MAX_DIGITS - 1))
_HEX = re.compile(r"-?0x[01](\.[0-9a-f]{1,13})?p[+-][0-9]{1,4}")
ENVELOPE = ("schema_version", "kind", "claim")  # the fields every certificate has ...
OPTIONAL = ("sha256", "tool", "source")  # ... and may have (sha256 checked here; tool, source: informational)


class Reject(Exception):
    """The certificate does not prove its claim (the message says why)."""


def need(condition, message: str) -> None:
    if not condition:
        raise Reject(message)


# -- typed readers ----------------------------------------------------------------
def get(obj, key, kind, what=None):
    need(isinstance(obj, dict), f"{what or 'certificate'} is not an object")
    need(key in obj, f"missing field {key!r}")
    value = obj[key]
    ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
    need(ok, f"field {key!r} has the wrong type")
    return value


def small_int(v, lo, hi, what) -> int:
    need(isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi, f"{what} must be an integer in [{lo}, {hi}]")
    return v


def _shown(v) -> str:
    text = json.dumps(v, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


def big_int(s, what) -> int:
    need(isinstance(s, str) and _INT.fullmatch(s) is not None,
         f"{what} must be a canonical decimal integer string (ASCII digits, no leading zero, no '+' or '-0'), "
         f"not {_shown(s)}")
    return int(s)


def fraction(s, what) -> Fraction:
    need(isinstance(s, str) and _FRAC.fullmatch(s) is not None,
         f"{what} must be a canonical exact 'p' or 'p/q' string (ASCII digits, no leading zero), not {_shown(s)}")
    num, _, den = s.partition("/")
    value = Fraction(int(num), int(den or 1))
    need(str(value) == s, f"{what} must be in lowest terms with a denominator above 1 (write {value}), not {_shown(s)}")
    return value


def key_int(key, lo, hi, what) -> int:
    """An integer object key: canonical ASCII decimal (``"1"``, never ``"01"``, ``"+1"`` or ``"١"``) in ``[lo, hi]``."""
    need(isinstance(key, str) and _DEC.fullmatch(key) is not None and lo <= int(key) <= hi,
         f"{what} key must be a canonical ASCII decimal in [{lo}, {hi}], not {_shown(key)}")
    return int(key)


def fields(obj, allowed, what, required=()) -> dict:
    """``obj`` is an object with no field outside ``allowed`` and every field of ``required``."""
    need(isinstance(obj, dict), f"{what} is not an object")
    extra = sorted(set(obj) - set(allowed))
    need(not extra, f"{what} has unknown field(s) {_shown(extra)} (allowed: {', '.join(sorted(allowed))})")
    missing = sorted(set(required) - set(obj))
    need(not missing, f"{what} lacks field(s) {', '.join(missing)}")
    return obj


def int_list(v, lo, hi, what, length=None) -> list:
    need(isinstance(v, list) and len(v) <= MAX_PARAMS * 4, f"{what} must be a list")
    need(length is None or len(v) == length, f"{what} must have length {length}")
    return [small_int(x, lo, hi, what) for x in v]


def index_set(v, lo, hi, what, length=None) -> list:
    """A set of indices, spelled canonically: strictly increasing integers in ``[lo, hi]``."""
    out = int_list(v, lo, hi, what, length)
    need(all(a < b for a, b in zip(out, out[1:])), f"{what} must be strictly increasing (a sorted set, no repeats)")
    return out


def canonical_or_refuse(spec, canonical, what) -> None:
    """Refuse ``spec`` unless it is spelled exactly as its canonical form (compared as canonical JSON,
    so ``1`` and ``true`` differ)."""
    mine = json.dumps(canonical, sort_keys=True, ensure_ascii=True)
    theirs = json.dumps(spec, sort_keys=True, ensure_ascii=True)
    at = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
    need(mine == theirs, f"{what} is not in canonical form at character {at}: the file has "
         f"...{theirs[max(at - 30, 0):at + 40]}..., canonical is ...{mine[max(at - 30, 0):at + 40]}...")



# -- canonical blocks, budgets and real numbers (the ball-arithmetic and exact kinds) ----------------
def block_fields(obj, what: str, required, optional=()) -> dict:
    """``obj`` when it is an object with the fields ``required`` and maybe some of ``optional``, nothing else.

    Examples
    --------
    >>> block_fields({"a": 1}, "block", {"a"}, {"b"})
    {'a': 1}
    >>> block_fields({"a": 1, "c": 2}, "block", {"a"}, {"b"})
    Traceback (most recent call last):
    ...
    algebra.checker.core.Reject: block must have the fields ['a'] (optional ['b']); unknown or missing: ['c']
    """
    need(isinstance(obj, dict), f"{what} is not an object")
    allowed = set(required) | set(optional)
    bad = sorted(set(required) - set(obj)) + sorted(k for k in obj if k not in allowed)
    need(not bad, f"{what} must have the fields {sorted(required)}" + (f" (optional {sorted(optional)})" if optional else "")
         + f"; unknown or missing: {[k[:40] for k in bad[:5]]}")
    return obj


def charge(work: list, cost: int, what: str, limit: int) -> None:
    """Take ``cost`` steps from the budget ``work = [steps left]`` before they are done; refuse past ``limit``."""
    work[0] -= cost
    need(work[0] >= 0, f"{what} would take the check past {limit} steps")


def _short_hex(v: float) -> str:
    mantissa, _, exponent = v.hex().partition("p")
    return mantissa.rstrip("0").rstrip(".") + "p" + exponent


def exact_number(s, what: str = "number", *, hex_form: str = "short"):
    """Read an exact real in its canonical spelling: hex float -> ``float`` (exact binary64), else ``Fraction``.

    The spellings (one per value and form): a binary64 with ``float.hex``'s trailing zero digits
    dropped (``hex_form="short"``, the default: ``0x1.8p-1``, zero ``0x0p+0``) or exactly as
    ``float.hex`` writes it (``hex_form="full"``: ``0x1.8000000000000p-1``, the form the
    ``score_representation`` producer writes), never a negative zero;
    an integer without sign on zero or leading zeros; a reduced ``p/q`` with ``q > 1``; a decimal
    without leading or trailing zeros.  A hex string that does not denote its binary64 exactly is
    refused, not rounded.

    Examples
    --------
    >>> exact_number("0x1.8p-1"), exact_number("-7/2"), exact_number("0.1")
    (0.75, Fraction(-7, 2), Fraction(1, 10))
    >>> exact_number("1e400")
    Traceback (most recent call last):
    ...
    algebra.checker.core.Reject: number must be a canonical hex float, decimal, integer or reduced p/q, not '1e400'
    >>> exact_number("2/4")
    Traceback (most recent call last):
    ...
    algebra.checker.core.Reject: number must be a reduced p/q, not '2/4'
    """
    need(isinstance(s, str) and 0 < len(s) <= 2 * MAX_DIGITS, f"{what} must be a short string")
    if _HEX.fullmatch(s):
        try:
            v = float.fromhex(s)
        except OverflowError:
            raise Reject(f"{what}: {s!r} is not a finite binary64") from None
        want = (_short_hex if hex_form == "short" else float.hex)(abs(v) if v == 0 else v)
        need(s == want, f"{what}: {s!r} is not the canonical spelling of a binary64 (write {want!r})")
        return v
    if _INT.fullmatch(s):
        return Fraction(int(s))
    if _RATIO.fullmatch(s):
        num, den = (int(x) for x in s.split("/"))
        x = Fraction(num, den)
        need(den > 1 and x.denominator == den, f"{what} must be a reduced p/q, not {s!r}")
        return x
    need(_DECIMAL.fullmatch(s) is not None,
         f"{what} must be a canonical hex float, decimal, integer or reduced p/q, not {s[:40]!r}")
    return Fraction(s)



# -- sparse polynomials: [[[[var, exp], ...], "c"], ...], canonical (sorted, nonzero terms) ---------------------
def poly(v, nvars, what, budget) -> list:
    """Sparse polynomial ``[[[[var, exp], ...], "c"], ...]`` -> ``[(((var, exp), ...), Fraction)]``."""
    need(isinstance(v, list), f"{what} must be a list of terms")
    budget[0] -= len(v)
    need(budget[0] >= 0, f"more than {MAX_TERMS} polynomial terms")
    out = []
    for t in v:
        need(isinstance(t, list) and len(t) == 2 and isinstance(t[0], list), f"{what}: malformed term")
        budget[0] -= len(t[0])
        need(budget[0] >= 0, f"more than {MAX_TERMS} polynomial terms and factors")
        mono = []
        for pair in t[0]:
            need(isinstance(pair, list) and len(pair) == 2, f"{what}: malformed monomial")
            mono.append((small_int(pair[0], 0, nvars - 1, f"{what} variable"), small_int(pair[1], 1, MAX_DEGREE, f"{what} exponent")))
        need(all(a[0] < b[0] for a, b in zip(mono, mono[1:])) and sum(e for _, e in mono) <= MAX_DEGREE,
             f"{what}: a monomial's variables must be strictly increasing, of total degree <= {MAX_DEGREE}")
        c = fraction(t[1], f"{what} coefficient")
        need(c != 0, f"{what}: a term has coefficient 0 (canonical polynomials list nonzero terms only)")
        need(not out or out[-1][0] < tuple(mono), f"{what}: terms must be sorted by monomial, each monomial once")
        out.append((tuple(mono), c))
    return out


def poly_json(p) -> list:
    """The canonical JSON spelling of a parsed polynomial."""
    return [[[list(pair) for pair in mono], str(c)] for mono, c in p]


def poly_degree(p) -> int:
    return max((sum(e for _, e in m) for m, _ in p), default=0)


def poly_mod(p, values, m) -> int:
    total = 0
    for mono, c in p:
        need(c.denominator % m != 0, "a coefficient denominator vanishes modulo the prime")
        t = c.numerator * pow(c.denominator, -1, m)
        for i, e in mono:
            t = t * pow(values[i], e, m) % m
        total += t
    return total % m


def poly_value_grad(p, values, m, nvars) -> tuple:
    """``(p(values), {i: dp/dv_i(values)})`` modulo ``m`` for the variables ``i < nvars``, in one pass over the
    terms: each term's partial derivatives come from prefix and suffix products of its factors, so a term of
    ``k`` factors costs ``O(k)`` modular powers (not ``O(k^2)``)."""
    total, grad = 0, {}
    for mono, c in p:
        coef = residue(c, m)
        powers = [pow(values[i], e, m) for i, e in mono]
        prefix = [1]
        for x in powers:
            prefix.append(prefix[-1] * x % m)
        total += coef * prefix[-1]
        suffix = 1
        for k in range(len(mono) - 1, -1, -1):
            i, e = mono[k]
            if i < nvars:
                d = coef * e * pow(values[i], e - 1, m) * prefix[k] % m * suffix % m
                grad[i] = (grad.get(i, 0) + d) % m
            suffix = suffix * powers[k] % m
    return total % m, grad


# -- arithmetic modulo m ------------------------------------------------------------
def is_prime(n: int, rounds: int = 40) -> bool:
    """Miller–Rabin: deterministic (fixed bases) for ``n < 3.3e24``, else ``rounds`` random bases
    (a composite then passes with probability ``<= 4^-rounds``)."""
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    if n < 2 or any(n % b == 0 for b in small):
        return n in small
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    bases = small if n < 3 * 10**24 else [2 + secrets.randbelow(n - 3) for _ in range(rounds)]
    for a in bases:
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


_PRIMORIAL = math.prod(n for n in range(3, 2000, 2) if all(n % d for d in range(3, int(n**0.5) + 1, 2)))


def random_prime(bits: int = SZ_BITS) -> int:
    """A random (probable) prime in ``[2^bits, 2^(bits+1))``, unpredictable to the certificate's author."""
    while True:
        n = secrets.randbits(bits) | (1 << bits) | 1
        if math.gcd(n, _PRIMORIAL) == 1 and is_prime(n):
            return n


def _eliminate(A, m, ncols):
    """Row-reduce a copy of ``A`` (lists of ints mod m) on its first ``ncols`` columns -> (rows, pivots, det)."""
    A = [[x % m for x in row] for row in A]
    pivots, det, r = [], 1, 0
    for c in range(ncols):
        k = next((i for i in range(r, len(A)) if A[i][c]), None)
        if k is None:
            det = 0
            continue
        if k != r:
            A[r], A[k], det = A[k], A[r], -det
        inv = pow(A[r][c], -1, m)
        det = det * A[r][c] % m
        A[r] = [x * inv % m for x in A[r]]
        for i in range(len(A)):
            if i != r and A[i][c]:
                f = A[i][c]
                A[i] = [(x - f * y) % m for x, y in zip(A[i], A[r])]
        pivots.append(c)
        r += 1
    return A, pivots, det % m


def _flint(A, m):
    if m < 2**64:
        return flint.nmod_mat(len(A), len(A[0]), [x % m for row in A for x in row], m)
    return flint.fmpz_mod_mat([[x % m for x in row] for row in A], flint.fmpz_mod_ctx(m))


def det_mod(A, m) -> int:
    if not A:
        return 1
    return int(_flint(A, m).det()) if flint is not None else _eliminate(A, m, len(A))[2]


def rank_mod(A, m) -> int:
    if not A or not A[0]:
        return 0
    return int(_flint(A, m).rank()) if flint is not None else len(_eliminate(A, m, len(A[0]))[1])


def solve_mod(A, B, m):
    """``A^-1 B`` for square ``A`` modulo the prime ``m``; ``None`` when ``A`` is singular."""
    n = len(A)
    if flint is not None:
        try:
            X = _flint(A, m).solve(_flint(B, m))
        except ZeroDivisionError:
            return None
        return [[int(X[i, j]) for j in range(len(B[0]))] for i in range(n)]
    R, pivots, _ = _eliminate([a + b for a, b in zip(A, B)], m, n)
    return [row[n:] for row in R] if len(pivots) == n else None


def residue(c: Fraction, m: int) -> int:
    need(c.denominator % m != 0, "a coefficient denominator vanishes modulo the prime")
    return c.numerator * pow(c.denominator, -1, m) % m


# -- the seal -------------------------------------------------------------------------------------
def digest(obj) -> str:
    """sha256 of the canonical JSON bytes of ``obj`` (what the certificate's hash is taken over)."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()).hexdigest()


# -- the kind registry: each plug-in names the function that derives its kind's claim, the fields a file of that
# kind may have besides the informational ones, and the quantity a recorded ``claimed`` is about
_INFORMATIONAL = ("schema_version", "kind", "claim", "sha256", "source", "tool", "seed")
KINDS_DERIVED, CERT_FIELDS, QUANTITY = {}, {}, {}


def register_kind(kind: str, derive, allowed, quantity=None) -> None:
    """Make ``derive(cert, notes) -> claim`` the reader of ``kind`` (one of :data:`KINDS`); ``allowed``: its fields;
    ``quantity``: ``"rank"`` (a JSON integer) or ``"lambda"`` (a fraction) when a file may record ``claimed``."""
    assert kind in KINDS and kind not in KINDS_DERIVED, kind  # a programming error, never file data
    KINDS_DERIVED[kind], CERT_FIELDS[kind] = derive, tuple(allowed) + (("claimed",) if quantity else ())
    if quantity:
        QUANTITY[kind] = quantity


# -- reading a file: regular, bounded, strict JSON -------------------------------------------------
def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    need(len(set(keys)) == len(keys), "duplicate key in a JSON object")
    return dict(pairs)


def _bad_constant(name):
    raise Reject(f"JSON constant {name} is not allowed")


def read_regular(path: str) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``MAX_FILE_BYTES`` (a FIFO or device is never
    read: it is opened non-blocking and refused by its ``fstat``)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        need(stat.S_ISREG(os.fstat(fd).st_mode), "not a regular file (a FIFO, device or socket is not read)")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)
    need(len(data) <= MAX_FILE_BYTES, f"file larger than {MAX_FILE_BYTES} bytes")
    return data


def parse_json(data: bytes):
    """Strict JSON: UTF-8, no duplicate key, no ``NaN`` or ``Infinity``; :class:`Reject` otherwise."""
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicates, parse_constant=_bad_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise Reject(f"not valid JSON ({type(exc).__name__})") from None


def check_path(path: str) -> tuple:
    """``(ok, reason, certificate or None, judgement or None)`` of the file at ``path``; never raises (an
    unexpected error is a refusal that says so)."""
    try:
        cert = parse_json(read_regular(path))
        reason, judgement = check_verdict(cert)
        return True, reason, cert, judgement
    except Reject as exc:
        return False, str(exc), None, None
    except OSError as exc:
        return False, f"cannot read the file ({exc.strerror})", None, None
    except (RecursionError, MemoryError, OverflowError, ValueError, TypeError, ArithmeticError) as exc:
        return False, f"malformed certificate ({type(exc).__name__})", None, None
    except Exception as exc:  # noqa: BLE001 - one file's failure never stops the others' verdicts
        return False, f"internal checker error ({type(exc).__name__}): not verified", None, None


def check_file(path: str) -> tuple:
    """``(True, reason)`` when the file verifies, ``(False, reason)`` otherwise; never raises."""
    return check_path(path)[:2]


def check_file_verdict(path: str) -> tuple:
    """``(ok, reason, judgement)``: :func:`check_file`, and the checker's judgement of the claim the file records
    (:func:`check_verdict`; ``None`` when it records none or does not verify)."""
    ok, reason, _, judgement = check_path(path)
    return ok, reason, judgement


# -- the verdict ---------------------------------------------------------------------------------
def compare_claim(claim, derived) -> None:
    """The file's claim must be exactly the derived one (text included)."""
    for key in sorted(set(claim) | set(derived)):
        mine, theirs = json.dumps(derived.get(key), sort_keys=True), json.dumps(claim.get(key), sort_keys=True)
        at = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
        need(mine == theirs, f"claim.{key} differs from what the data prove at character {at}: the file has "
             f"...{theirs[max(at - 40, 0):at + 60]}..., the checker derives ...{mine[max(at - 40, 0):at + 60]}...")


def derive_claim(cert, notes=None) -> dict:
    """The claim the kind's plug-in derives from the certificate's data (the seal and the file's own claim are
    not read): what a producer writes into ``claim``; :class:`Reject` when the data prove nothing."""
    need(isinstance(cert, dict), "the file is not a JSON object")
    kind = get(cert, "kind", str)
    need(kind in KINDS_DERIVED, f"unknown kind {_shown(kind)}")
    derived = KINDS_DERIVED[kind](cert, [] if notes is None else notes)
    need(isinstance(derived, dict), f"internal: no claim derived for kind {kind!r}")  # every kind derives its claim
    return derived


def check(cert) -> str:
    """Check a parsed certificate; return the reason it holds, raise :class:`Reject` otherwise."""
    return check_verdict(cert)[0]


def check_verdict(cert) -> tuple:
    """``(reason, judgement)``: :func:`check`, and the judgement of the user's claim the file records
    (:func:`read_claimed`), or ``None`` when it records none: ``{"quantity", "relation", "value", "lower",
    "upper", "verdict"}``, the verdict ``confirmed``, ``refuted`` or ``out of reach`` judged against the bounds
    ``lower <= quantity <= upper`` the checker derived (:func:`judge_claimed`)."""
    need(isinstance(cert, dict), "the file is not a JSON object")
    need(get(cert, "schema_version", int) == SCHEMA_VERSION, f"unsupported schema_version (this checker reads {SCHEMA_VERSION})")
    body = {k: v for k, v in cert.items() if k != "sha256"}
    need(get(cert, "sha256", str) == digest(body), "sha256 does not match the content")
    kind = get(cert, "kind", str)
    need(kind in KINDS and kind in KINDS_DERIVED, f"unknown kind {_shown(kind)}")
    fields(cert, _INFORMATIONAL + CERT_FIELDS[kind], f"a {kind} certificate", ("claim",))
    claim, notes = get(cert, "claim", dict), []
    get(claim, "text", str, "claim")
    derived = derive_claim(cert, notes)
    compare_claim(claim, derived)
    notes.append("claim derived and re-rendered")
    judgement = judge_claimed(read_claimed(cert, kind), kind, derived)
    if judgement is not None:
        j, inf = judgement, lambda x, sign: sign + "inf" if x is None else x  # noqa: E731
        notes.append(f"claimed {j['quantity']} {j['relation']} {j['value']}: {j['verdict']} (proven: "
                     f"{inf(j['lower'], '-')} <= {j['quantity']} <= {inf(j['upper'], '')})")
    if "source" in cert:
        notes.append("source: informational, not checked")
    return "; ".join(notes), judgement


# -- the user's claim, recorded as data (``claimed``): the verdict is derived here, never read -------------
CLAIMED_RELATIONS = ("==", ">=", "<=")
MAX_CLAIMED = 2**63 - 1


def read_claimed(cert, kind):
    """``(relation, value)`` of the ``claimed`` member ``{"relation": "==" | ">=" | "<=", "value": v}`` (``None``
    without one): the user's claim about the generic rank (rank kinds: ``v`` a JSON integer in ``[0, 2^63)``) or
    lambda (``formula``: ``v`` a canonical fraction string).  Nothing else is read: a verdict or a text in it is
    refused as an unknown field."""
    if "claimed" not in cert:
        return None
    block = fields(get(cert, "claimed", dict), ("relation", "value"), "claimed", ("relation", "value"))
    rel = get(block, "relation", str, "claimed")
    need(rel in CLAIMED_RELATIONS, f"claimed.relation must be one of {', '.join(CLAIMED_RELATIONS)}, not {_shown(rel)}")
    if QUANTITY[kind] == "lambda":
        return rel, fraction(get(block, "value", str, "claimed"), "claimed.value")
    return rel, small_int(block["value"], 0, MAX_CLAIMED, "claimed.value")


def judge_claimed(claimed, kind, derived):
    """``{"quantity", "relation", "value", "lower", "upper", "verdict"}`` for ``claimed = (relation, value)``
    (``None`` for ``None``): ``lower <= quantity <= upper`` is the range the derived claim proves (``None``: no
    bound that side; a rank is at least 0), the verdict ``confirmed`` when every value in it satisfies the
    claim, ``refuted`` when none does, ``out of reach`` otherwise."""
    if claimed is None:
        return None
    (rel, v), drel = claimed, derived["relation"]
    lam = QUANTITY[kind] == "lambda"
    proven = fraction(derived["value"], "value") if lam else derived["value"]
    lo = proven if drel in ("==", ">=") else (None if lam else 0)
    hi = proven if drel in ("==", "<=") else None
    below, above = lo is not None and v < lo, hi is not None and v > hi  # v outside the proven range
    if rel == "==":
        verdict = "confirmed" if lo == hi == v else "refuted" if below or above else "out of reach"
    elif rel == ">=":
        verdict = "confirmed" if lo is not None and lo >= v else "refuted" if above else "out of reach"
    else:
        verdict = "confirmed" if hi is not None and hi <= v else "refuted" if below else "out of reach"
    spell = lambda x: str(x) if isinstance(x, Fraction) else x  # noqa: E731 - as the file spells it
    return {"quantity": QUANTITY[kind], "relation": rel, "value": spell(v),
            "lower": spell(lo), "upper": spell(hi), "verdict": verdict}
