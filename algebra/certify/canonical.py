"""Canonical serialization, content hashes and atomic writes of certificates.

The *canonical bytes* of a JSON value are ``json.dumps`` with sorted keys,
no insignificant whitespace and ASCII escapes.  A certificate's ``sha256`` is
the hex digest of the canonical bytes of the certificate without its
``sha256`` field; the file itself is written with sorted keys and a
one-space indent, so the same inputs and seed give a byte-identical file.
Exact integers that can be large (points, inputs, primes) and rationals are
strings (``"-12"``, ``"3/4"``); counts and indices are JSON integers.
"""

from __future__ import annotations

import hashlib
import json
import os
from fractions import Fraction
from pathlib import Path  # noqa: F401 - kept for callers' annotations

from algebra.files import write_atomic

__all__ = ["canonical_bytes", "content_hash", "seal", "render", "write_atomic", "exact"]


def canonical_bytes(obj) -> bytes:
    """Canonical JSON bytes (sorted keys, compact, ASCII).

    Examples
    --------
    >>> canonical_bytes({"b": 1, "a": [2, "x"]})
    b'{"a":[2,"x"],"b":1}'
    """
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def content_hash(cert: dict) -> str:
    """sha256 of the canonical bytes of ``cert`` without its ``sha256`` field."""
    body = {k: v for k, v in cert.items() if k != "sha256"}
    return hashlib.sha256(canonical_bytes(body)).hexdigest()


def seal(cert: dict) -> dict:
    """Return a copy of ``cert`` with its ``sha256`` set.

    Examples
    --------
    >>> c = seal({"kind": "x"})
    >>> c["sha256"] == content_hash(c)
    True
    """
    out = {k: v for k, v in cert.items() if k != "sha256"}
    out["sha256"] = content_hash(out)
    return out


def exact(value) -> str:
    """An exact integer or rational as a string: ``"7"``, ``"-3/4"``.

    Examples
    --------
    >>> exact(Fraction(6, 8)), exact(-5)
    ('3/4', '-5')
    """
    f = Fraction(value)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def render(cert: dict) -> bytes:
    """The file bytes: sorted keys, one-space indent, trailing newline."""
    return (json.dumps(cert, sort_keys=True, indent=1, ensure_ascii=True) + "\n").encode()
