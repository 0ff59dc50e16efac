"""Shared helpers for the attention_rank tests."""

import pytest

from algebra.certify.canonical import seal
from algebra.checker import Reject, check


@pytest.fixture
def independent_check():
    """Run an ``interval_inequality`` payload through the independent checker.

    The payload is wrapped in the minimal sealed certificate envelope the checker reads
    (schema_version, kind, payload, and the claim such a payload would prove: the program's
    sha256, its target, relation and bound, rendered by the checker).
    """
    from algebra.checker.attention import render_interval_claim
    from algebra.checker.core import digest

    def run(payload):
        claim = {"about": {"payload_sha256": digest(payload), "target": payload.get("target")},
                 "relation": payload.get("relation"), "value": payload.get("bound")}
        try:
            claim["text"] = render_interval_claim(claim)
        except (KeyError, TypeError):
            return False
        body = {"schema_version": 1, "kind": "interval_inequality", "claim": claim, "payload": payload}
        try:
            check(seal(body))
            return True
        except Reject:
            return False

    return run
