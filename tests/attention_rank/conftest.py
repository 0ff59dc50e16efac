"""Shared helpers for the attention_rank tests."""

import hashlib
import importlib
import json

import pytest


def _canonical(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


@pytest.fixture
def independent_check():
    """Run a payload through the project's independent checker (skips when absent).

    The payload is wrapped in the minimal certificate envelope the checker reads
    (schema_version, kind, claim, payload, sha256); the lead's emitter adds the rest.
    """
    checker = pytest.importorskip("algebra.checker")
    # the module that defines check() (the checker's single kernel module)
    check = importlib.import_module(checker.check.__module__)

    def run(payload, text="attention approximation-rank payload"):
        body = {"schema_version": getattr(check, "SCHEMA_VERSION", 1), "kind": "interval_inequality",
                "claim": {"text": text, "relation": payload.get("relation"), "bound": payload.get("bound")},
                "payload": json.loads(json.dumps(payload))}
        body["sha256"] = hashlib.sha256(_canonical(body)).hexdigest()
        try:
            check.check(body)
            return True
        except checker.Reject:
            return False

    return run
