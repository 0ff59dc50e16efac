"""The JSON Schema of certificate files (``certificate.schema.json``, schema_version 1).

The schema describes the *shape* of a certificate; whether it proves its
claim is decided by the independent checker (:mod:`algebra.checker`).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from algebra.errors import CertificateError

__all__ = ["SCHEMA_PATH", "load_schema", "validate"]

SCHEMA_PATH = Path(__file__).with_name("certificate.schema.json")


@lru_cache(maxsize=1)
def _schema_text() -> str:
    return SCHEMA_PATH.read_text()


def load_schema() -> dict:
    """The schema as a dict (a fresh copy).

    Examples
    --------
    >>> load_schema()["properties"]["schema_version"]
    {'const': 1}
    """
    return json.loads(_schema_text())


def validate(cert: dict) -> None:
    """Raise :class:`CertificateError` if ``cert`` does not match the schema (needs ``jsonschema``).

    Examples
    --------
    >>> validate({"schema_version": 2})
    Traceback (most recent call last):
    ...
    algebra.errors.CertificateError: certificate does not match the schema: 'claim' is a required property
    """
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema())
    errors = sorted(validator.iter_errors(cert), key=lambda e: (list(e.path), e.message))
    if errors:
        raise CertificateError(f"certificate does not match the schema: {errors[0].message}")
