"""All claims in one list: one base class, one judge per kind, and a list that fails to build fails the run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import algebra.claims
from algebra.claims import AH, PAPERS, catalogue
from algebra.claims.records import Claim, DimensionClaim
from algebra.errors import ClaimError
from algebra.models import QueryKey


def test_every_claim_is_a_claim_of_a_declared_paper():
    claims = catalogue.claims(fast=True)
    assert all(isinstance(c, Claim) for c in claims)
    assert {c.paper for c in claims} == set(PAPERS) | {AH}
    assert all(c.source == {"id": c.id, "paper": c.paper, "location": c.location, "statement": c.statement}
               for c in claims)


def test_every_claim_type_has_a_judge():
    from algebra.certify.catalogue import JUDGES

    kinds = {type(c) for c in catalogue.claims(fast=True)}
    assert kinds <= set(JUDGES) and all(issubclass(t, Claim) for t in JUDGES)


def test_a_list_that_fails_to_build_fails_the_run_with_its_name(monkeypatch):
    def broken(fast):
        raise ValueError("no such design")

    monkeypatch.setattr(catalogue, "STATED", catalogue.STATED + (broken,))
    with pytest.raises(ClaimError, match=r"claim tests\.claims\.test_catalogue\.broken\(fast=True\): .*no such design"):
        catalogue.claims(fast=True)
    monkeypatch.setattr(catalogue, "STATED", ())
    monkeypatch.setattr(catalogue, "FOUND", (broken,))  # found lists too: nothing is skipped quietly
    with pytest.raises(ClaimError, match="broken"):
        catalogue.claims(fast=True)


def test_a_stated_id_twice_is_refused_and_a_found_one_is_the_stated_claim(monkeypatch):
    one = DimensionClaim("x-1", PAPERS[2], "Theorem 1", "s", QueryKey(3, 2), 8)
    again = DimensionClaim("x-1", PAPERS[2], "Theorem 1", "another statement", QueryKey(3, 2), 8)
    monkeypatch.setattr(catalogue, "FOUND", (lambda fast: [again],))
    monkeypatch.setattr(catalogue, "STATED", (lambda fast: [one],))
    assert catalogue.claims(fast=True) == [one]
    monkeypatch.setattr(catalogue, "STATED", (lambda fast: [one], lambda fast: [again]))
    with pytest.raises(ClaimError, match="claim x-1: built twice"):
        catalogue.claims(fast=True)


def test_a_task_for_an_unknown_claim_fails_with_its_id():
    from algebra.certify.catalogue import _certify_item

    with pytest.raises(ClaimError, match="claim no-such-claim: not a claim of the fast catalogue"):
        _certify_item({"id": "no-such-claim", "fast": True, "seed": 0})


def test_claims_import_no_certify_and_no_cli():
    """Claims sit below the catalogue that judges them (in-function imports counted)."""
    root = Path(algebra.claims.__file__).parent
    bad = []
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            bad += [(path.name, n) for n in names if n.startswith(("algebra.certify", "algebra.cli"))]
    assert bad == []
