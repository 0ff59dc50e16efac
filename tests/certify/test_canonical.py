"""Canonical bytes, hashes, byte-identical re-emission, atomic writes."""

from __future__ import annotations

import os

import pytest

from algebra.certify import canonical
from algebra.certify.canonical import content_hash, render, seal, write_atomic
from algebra.certify.rank import dimension_certificate
from algebra.models import LightningAttention, quadratic_network


def test_same_inputs_and_seed_give_identical_bytes():
    a = render(dimension_certificate(quadratic_network(3, 2, 3), seed=5).certificate)
    b = render(dimension_certificate(quadratic_network(3, 2, 3), seed=5).certificate)
    c = render(dimension_certificate(quadratic_network(3, 2, 3), seed=6).certificate)
    assert a == b and a != c


def test_hash_covers_everything_but_itself():
    cert = dimension_certificate(LightningAttention(2, 1, 2)).certificate
    assert cert["sha256"] == content_hash(cert)
    changed = dict(cert, seed=cert["seed"] + 1)
    assert content_hash(changed) != cert["sha256"]
    assert seal(changed)["sha256"] == content_hash(changed)


def test_key_order_does_not_matter():
    assert canonical.canonical_bytes({"b": [1], "a": {"d": 1, "c": 2}}) == canonical.canonical_bytes(
        {"a": {"c": 2, "d": 1}, "b": [1]})


def test_atomic_write_leaves_old_file_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "c.json"
    write_atomic(target, b"old")

    def boom(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, b"new content")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]
