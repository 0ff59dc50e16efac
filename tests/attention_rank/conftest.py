"""Shared helpers for the attention_rank tests."""

import pytest

from algebra.certify.canonical import seal
from algebra.checker import Reject, check


@pytest.fixture
def independent_check():
    """Run an ``interval_inequality`` payload through the independent checker.

    The payload is wrapped in the minimal sealed certificate envelope the checker reads
    (schema_version, kind, claim = the payload's relation and bound, payload).
    """

    def run(payload, text="attention approximation-rank payload"):
        body = {"schema_version": 1, "kind": "interval_inequality",
                "claim": {"text": text, "relation": payload.get("relation"), "bound": payload.get("bound")},
                "payload": payload}
        try:
            check(seal(body))
            return True
        except Reject:
            return False

    return run
