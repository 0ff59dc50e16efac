"""Exact sparse polynomials and a safe text parser for them.

Polynomials given as text (CLI arguments, activation functions, certificate
files) are *parsed* by a small recursive-descent parser; nothing is ever
passed to ``eval``, ``exec`` or ``sympy.sympify``.  The grammar is::

    expr   := term (("+" | "-") term)*
    term   := unary (("*" | "/") unary)*        # "/" only by a nonzero constant
    unary  := ("+" | "-") unary | power
    power  := atom (("^" | "**") INTEGER)?
    atom   := NUMBER | NAME | "(" expr ")"

NUMBER is a decimal integer or a finite decimal (``0.5`` is exactly 1/2);
NAME is ``[A-Za-z_][A-Za-z0-9_]*``.  Juxtaposition (``2x``) is rejected.
Exponents are limited to :data:`MAX_EXPONENT` and the number of terms to
:data:`MAX_TERMS`, the variables to :data:`MAX_VARIABLES` and the term pairs of one product to
:data:`MAX_PRODUCT_PAIRS` (checked before the product is expanded), so hostile input can exhaust neither memory
nor time.

A polynomial is represented as a ``dict`` mapping exponent tuples to
:class:`fractions.Fraction` coefficients, over an explicit tuple of variable
names (class :class:`~algebra.exact.polynomial.Polynomial`, which lives in
:mod:`algebra.exact.polynomial` with the polynomial field and is re-exported
here).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Iterable

from algebra.errors import InputError
import algebra.inputs as inputs
from algebra.exact.polynomial import MAX_TERMS, Polynomial

__all__ = [
    "MAX_EXPONENT",
    "MAX_PRODUCT_PAIRS",
    "MAX_TERMS",
    "MAX_TEXT",
    "MAX_VARIABLES",
    "Polynomial",
    "parse_generators",
    "parse_names",
    "parse_polynomial",
    "parse_univariate",
]

MAX_EXPONENT = 64
MAX_TEXT = 100_000
MAX_DEPTH = 100
#: Most distinct variables of one parsed polynomial: exponents are stored densely (terms x variables), so
#: 5,000 variables of 5,000 terms would be 25 million entries (and the parser quadratic in the variables).
MAX_VARIABLES = 256
#: Most term pairs one product may multiply (``len(a) * len(b)``), checked before it is expanded: a product whose
#: result fits :data:`MAX_TERMS` may still take ``20,000**2`` Fraction products (``(1+x+y)^64 * (1+x+y)^64``
#: multiplies 4.6 million pairs into 8,385 terms, half a minute).  A million pairs take a few seconds.
MAX_PRODUCT_PAIRS = 1_000_000

_TOKEN = re.compile(
    r"\s*(?:(?P<num>[0-9]+(?:\.[0-9]+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>\*\*|[-+*/^()]))"
)


class _Parser:
    def __init__(self, text: str, variables: tuple | None, argument: str):
        self.text = text
        self.argument = argument
        self.tokens = self._tokenize(text)
        self.pos = 0
        self.fixed = variables is not None
        self.names: list = list(variables) if variables is not None else []
        if len(self.names) > MAX_VARIABLES:
            raise InputError(argument, f"{len(self.names)} variables", f"at most {MAX_VARIABLES} variables (MAX_VARIABLES)")

    def _fail(self, what: str):
        raise InputError(self.argument, self.text, what)

    def _tokenize(self, text: str) -> list:
        tokens = []
        i = 0
        while i < len(text):
            if text[i].isspace():
                i += 1
                continue
            m = _TOKEN.match(text, i)
            if not m or m.end() == i:
                self._fail(f"a polynomial; unexpected character {text[i]!r} at position {i}")
            kind = m.lastgroup
            if kind == "num" and len(m.group(kind)) > inputs.MAX_DIGITS:  # int() refuses past 4300 digits with its own error
                self._fail(f"numbers of at most {inputs.MAX_DIGITS} digits")
            tokens.append((kind, m.group(kind)))
            i = m.end()
        return tokens

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else (None, None)

    def take(self):
        tok = self.peek()
        self.pos += 1
        return tok

    # The parse produces dict-polynomials over a growing variable list; they
    # are padded to the final variable tuple at the end.
    def parse(self) -> tuple:
        if not self.tokens:
            self._fail("a non-empty polynomial")
        node = self.expr(0)
        if self.pos != len(self.tokens):
            self._fail(f"a polynomial; unexpected {self.peek()[1]!r}")
        return node

    def expr(self, depth: int):
        if depth > MAX_DEPTH:
            self._fail(f"a polynomial nested at most {MAX_DEPTH} levels deep")
        node = self.term(depth)
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            rhs = self.term(depth)
            node = _padd(node, rhs if op == "+" else _pscale(rhs, -1))
        return node

    def term(self, depth: int):
        node = self.unary(depth)
        while self.peek()[1] in ("*", "/"):
            op = self.take()[1]
            rhs = self.unary(depth)
            if op == "*":
                node = _pmul(node, rhs, self)
            else:
                if any(any(e) for e in rhs) or not rhs:
                    self._fail("division only by a nonzero constant")
                node = _pscale(node, 1 / next(iter(rhs.values())))
        return node

    def unary(self, depth: int):
        if depth > MAX_DEPTH:
            self._fail(f"a polynomial nested at most {MAX_DEPTH} levels deep")
        if self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            node = self.unary(depth + 1)
            return node if op == "+" else _pscale(node, -1)
        return self.power(depth)

    def power(self, depth: int):
        base = self.atom(depth)
        if self.peek()[1] in ("^", "**"):
            self.take()
            kind, val = self.take()
            if kind != "num" or "." in val:
                self._fail("a non-negative integer exponent after ^")
            k = int(val)
            if k > MAX_EXPONENT:
                self._fail(f"exponents at most {MAX_EXPONENT}")
            # the largest exponent of a variable in base^k is k times its largest in base: refuse before expanding
            if k * max((max(e) for e in base if e), default=0) > MAX_EXPONENT * 8:
                self._fail(f"degrees at most {MAX_EXPONENT * 8}")
            result = {(): Fraction(1)}
            for _ in range(k):
                result = _pmul(result, base, self)
            return result
        return base

    def atom(self, depth: int):
        kind, val = self.take()
        if kind == "num":
            return {(): Fraction(val)} if Fraction(val) else {}
        if kind == "name":
            if val not in self.names:
                if self.fixed:
                    self._fail(f"a polynomial in the variables {', '.join(self.names)} (got {val!r})")
                if len(self.names) >= MAX_VARIABLES:  # the value shown is the count, not the (long) text
                    raise InputError(self.argument, f"a polynomial in more than {MAX_VARIABLES} variables",
                                     f"at most {MAX_VARIABLES} variables (MAX_VARIABLES)")
                self.names.append(val)
            i = self.names.index(val)
            return {tuple([0] * i + [1]): Fraction(1)}
        if val == "(":
            node = self.expr(depth + 1)
            if self.take()[1] != ")":
                self._fail("a closing parenthesis")
            return node
        self._fail(f"a number, a variable or '(' (got {val!r})")


def _norm(e: tuple) -> tuple:
    """Strip trailing zeros so exponent tuples of different lengths compare."""
    e = list(e)
    while e and e[-1] == 0:
        e.pop()
    return tuple(e)


def _padd(a: dict, b: dict) -> dict:
    out = dict(a)
    for e, c in b.items():
        s = out.get(e, 0) + c
        if s:
            out[e] = s
        else:
            out.pop(e, None)
    return out


def _pscale(a: dict, c) -> dict:
    c = Fraction(c)
    return {e: v * c for e, v in a.items()} if c else {}


def _top_degrees(a: dict, n: int) -> list:
    """Each variable's largest exponent in ``a`` (``n`` variables)."""
    top = [0] * n
    for e in a:
        for i, k in enumerate(e):
            if k > top[i]:
                top[i] = k
    return top


def _pmul(a: dict, b: dict, parser: _Parser) -> dict:
    # Both bounds come from the factors, before any term is multiplied: the number of term pairs, and each
    # variable's degree (the largest of a product's exponents is the sum of the factors' largest).
    if len(a) * len(b) > MAX_PRODUCT_PAIRS:
        parser._fail(f"products of at most {MAX_PRODUCT_PAIRS:,} term pairs (MAX_PRODUCT_PAIRS; "
                     f"this one multiplies {len(a):,} x {len(b):,} terms)")
    n = max((len(e) for e in (*a, *b)), default=0)
    top_a, top_b = _top_degrees(a, n), _top_degrees(b, n)
    if any(x + y > MAX_EXPONENT * 8 for x, y in zip(top_a, top_b)):
        parser._fail(f"degrees at most {MAX_EXPONENT * 8}")
    pad = (0,) * n
    bs = [((e2 + pad)[:n], c2) for e2, c2 in b.items()]
    out: dict = {}
    for e1, c1 in a.items():
        e1 = (e1 + pad)[:n]
        for e2, c2 in bs:
            e = _norm(tuple(map(int.__add__, e1, e2)))
            s = out.get(e, 0) + c1 * c2
            if s:
                out[e] = s
            else:
                out.pop(e, None)
        if len(out) > MAX_TERMS:
            parser._fail(f"a polynomial with at most {MAX_TERMS} terms")
    return out


def parse_polynomial(
    text: str, variables: Iterable[str] | None = None, *, argument: str = "polynomial"
) -> Polynomial:
    """Parse ``text`` into a :class:`Polynomial` without evaluating code.

    Parameters
    ----------
    text : str
        The polynomial, e.g. ``"x^2*y^4 + z^6"`` or ``"t^3 + t/2"``.
    variables : iterable of str, optional
        The allowed variables, in order.  When omitted, the variables are the
        names that occur, sorted alphabetically.
    argument : str
        Name used in error messages (e.g. ``"--activation"``).

    Raises
    ------
    InputError
        On any text that is not a polynomial in the allowed variables.

    Examples
    --------
    >>> parse_polynomial("x^2*y^2").terms
    {(2, 2): Fraction(1, 1)}
    >>> parse_polynomial("(a+b)^2 - a*a").to_text()
    '2*a*b + b^2'
    >>> parse_polynomial("__import__('os')")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid polynomial="__import__('os')": expected a polynomial; unexpected character "'" at position 11
    >>> parse_polynomial("sin(t)", variables=["t"], argument="--activation")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --activation='sin(t)': expected a polynomial in the variables t (got 'sin')
    """
    if not isinstance(text, str):
        raise InputError(argument, text, "a polynomial given as text")
    if len(text) > MAX_TEXT:
        raise InputError(argument, text[:40] + "...", f"text of at most {MAX_TEXT} characters")
    fixed = tuple(variables) if variables is not None else None
    parser = _Parser(text, fixed, argument)
    raw = parser.parse()
    names = parser.names
    if fixed is None:
        order = sorted(names)
    else:
        order = list(fixed)
    n = len(order)
    perm = [order.index(v) for v in names]
    terms = {}
    for e, c in raw.items():
        full = [0] * n
        for i, k in enumerate(e):
            full[perm[i]] += k
        terms[tuple(full)] = c
    return Polynomial(tuple(order), terms)


def parse_univariate(text: str, *, variable: str = "t", argument: str = "--activation") -> list:
    """Parse a univariate polynomial into its coefficient list ``[c0, c1, ...]``.

    Examples
    --------
    >>> parse_univariate("t^3 + t")
    [Fraction(0, 1), Fraction(1, 1), Fraction(0, 1), Fraction(1, 1)]
    >>> parse_univariate("3")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --activation='3': expected a non-constant polynomial in t
    """
    poly = parse_polynomial(text, variables=(variable,), argument=argument)
    if poly.degree < 1:
        raise InputError(argument, text, f"a non-constant polynomial in {variable}")
    return poly.coefficients_univariate()


def parse_names(names, *, argument: str = "parameters") -> tuple:
    """Variable names given as one comma-separated text (``"a,c,d"``) or as a sequence of names.

    The one parser of name lists: ``PolynomialMap(..., parameters="a,c,d")``, ``--parameters``,
    ``--inputs`` and ``--variables`` read their names here, so a text is never split into characters.

    Parameters
    ----------
    names : str or sequence of str
        ``"a, c, d"`` (commas; spaces around a name are dropped) or ``["a", "c", "d"]``.
    argument : str
        The argument (or option) named when the names are refused.

    Returns
    -------
    tuple of str

    Raises
    ------
    InputError
        An empty name between two commas, or a name that is not one variable of the polynomial language.

    Examples
    --------
    >>> parse_names("a, c,d")
    ('a', 'c', 'd')
    >>> parse_names(["a", "c"])
    ('a', 'c')
    >>> parse_names("a,,c")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid parameters='a,,c': expected comma-separated variable names ([A-Za-z_][A-Za-z0-9_]*)
    >>> parse_names(",".join(f"v{i}" for i in range(5002)), argument="--variables")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --variables='5002 names': expected at most 256 names (MAX_VARIABLES)
    >>> parse_names("x,x", argument="--variables")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --variables='x,x': expected distinct names ('x' appears twice)
    """
    if isinstance(names, str):
        if len(names) > MAX_TEXT:
            raise InputError(argument, names[:40] + "...", f"text of at most {MAX_TEXT} characters")
        if names.count(",") >= MAX_VARIABLES:  # counted in the text, before any name is read
            raise InputError(argument, f"{names.count(',') + 1} names", f"at most {MAX_VARIABLES} names (MAX_VARIABLES)")
        items = tuple(v.strip() for v in names.split(",")) if names.strip() else ()
    else:
        try:
            count = len(names)
        except TypeError:
            raise InputError(argument, names, "variable names: a comma-separated text or a sequence of str") from None
        if count > MAX_VARIABLES:
            raise InputError(argument, f"{count} names", f"at most {MAX_VARIABLES} names (MAX_VARIABLES)")
        items = tuple(str(v) for v in names)
    allowed = "comma-separated variable names ([A-Za-z_][A-Za-z0-9_]*)"
    for v in items:
        if not (v.isascii() and v.isidentifier()):
            raise InputError(argument, names, allowed)
    if len(set(items)) < len(items):
        twice = next(v for i, v in enumerate(items) if v in items[:i])
        raise InputError(argument, names, f"distinct names ({twice!r} appears twice)")
    return items


def parse_generators(texts, variables_text: str | None = None) -> tuple:
    """Generator polynomials given as text (command lines, suite entries), over one variable order.

    The one parser for generator lists (``rlct ideal``, ``llc poly`` and the
    ``poly`` entries of :mod:`algebra.numeric.suite`).  ``variables_text``
    (``--variables``, e.g. ``"x,y"``) fixes the order; by default the
    variables that occur, sorted.

    Returns
    -------
    (list of Polynomial, tuple of str)

    Examples
    --------
    >>> gens, names = parse_generators(["x^2*y", "y^2"])
    >>> [g.to_text() for g in gens], names
    (['x^2*y', 'y^2'], ('x', 'y'))
    >>> parse_generators(["x*y"], "x")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid generator 1='x*y': expected a polynomial in the variables x (got 'y')
    """
    texts = list(texts)
    if variables_text:
        variables = parse_names(variables_text, argument="--variables")
    else:
        names = set()
        for i, text in enumerate(texts):
            names |= set(parse_polynomial(text, argument=f"generator {i + 1}").variables)
        variables = tuple(sorted(names))
    gens = [parse_polynomial(t, variables, argument=f"generator {i + 1}") for i, t in enumerate(texts)]
    return gens, variables
