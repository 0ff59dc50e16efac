"""Dimension certificates after the split of ``dimension_certificate`` (issue 21, item 4).

``dimension_certificate`` was split into the engine run, the witness blocks, the kind/claim choice
and the self-check loop, and ``dimension_with_certificate`` added (one engine run, printed and
certified).  The split was checked byte for byte on the 332 committed dimension-type certificates
that ``from_spec`` rebuilds, and on 226 in-memory runs against a copy of the single function;
these tests keep a table of both.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from algebra.certify.canonical import render, seal
from algebra.certify.questions import dimension_with_certificate
from algebra.certify.rank import certificate_mode, dimension_certificate
from algebra.models.registry import from_spec
from algebra.errors import CertificateError, ResourceError
from algebra.models import MLP, PolynomialMap, QueryKey, quadratic_network, shallow_network
from algebra.models.cnn import CNN
from algebra.models.segre_veronese import SecantMap, veronese

CERTIFICATES = Path(__file__).resolve().parents[2] / "certificates"

COMMITTED = [  # one per (kind, family, upper witness) the committed files hold
    "proximity-b10-F.json",                           # dimension, mlp, cramer
    "grokking-cor42-d2-p1-K1.json",                   # dimension, mlp, symmetry fields
    "grokking-cor42-d3-p6-K5.json",                   # defect, mlp, cramer
    "grokking-cor42-d3-p1-K2.json",                   # defect, mlp, symmetry fields
    "proximity-attention-single-d2-dp1.json",         # dimension, attention, ambient
    "proximity-attention-single-rank-d4-a2-dp2.json",  # dimension, attention, cramer
    "proximity-attention-multi-d2-dp1-t3.json",       # dimension, attention, symmetry fields
    "graph-a1-cyclic8-d4-k2-r1-radius0.json",         # dimension, polynomial map, cramer
    "graph-thm1-rank-d2-k1.json",                     # dimension, qk, symmetry fields
    "graph-thm1-rank-d2-k2.json",                     # dimension, qk, ambient
    "ah-exception-n3-d4-k5.json",                     # dimension, mlp at sample inputs, cramer
]


@pytest.mark.parametrize("name", COMMITTED)
def test_emitter_reproduces_the_committed_certificate(name):
    """From the file's own model, seed, prime and source, the emitter writes the file's bytes."""
    raw = (CERTIFICATES / name).read_bytes()
    c = json.loads(raw)
    claimed = c["claim"]["value"] + 1 if c["kind"] == "defect" else None  # a defect needs a claim above the rank
    e = dimension_certificate(from_spec(c["model"]), seed=c["seed"], prime=int(c["point"]["prime"]),
                              source=c.get("source"), claimed=claimed)
    assert e.kind == c["kind"]
    assert render(seal(dict(e.certificate, tool=c["tool"]))) == raw  # the tool's version is the file's


EMITTED = {  # kinds and routes the committed files do not hold; recorded from the single function
    "upper-bound-fields": (lambda: shallow_network(3, 4, 5), dict(witnesses="fields", claimed=15),
                           ("rank_upper_bound", 14, 15, "out of reach", "d3a2e2f1e1a711ae")),
    "equations": (lambda: QueryKey(3, 1), dict(witnesses="equations"), ("dimension", 5, 5, "confirmed", "4c2d3517f1904fcc")),
    "lower-bound-only": (lambda: QueryKey(3, 2), dict(upper=False, claimed=8),
                         ("rank_lower_bound", 8, None, "out of reach", "35cce46ba9746096")),
    "hypothesis-fails": (lambda: quadratic_network(3, 1, 2), dict(claimed=6, assumes_nondefective=True),
                         ("defect", 5, 5, "hypothesis fails", "d5e6daed8a833b70")),
    "user-map-inputs": (lambda: PolynomialMap(["a*x^2 + b*x*y", "a*b*y^2"], parameters=["a", "b"], inputs=["x", "y"]),
                        dict(seed=3), ("dimension", 2, 2, "confirmed", "9ce868e3abfae32a")),
    "secant-polynomial-map": (lambda: SecantMap(veronese(3, 4), 5), dict(claimed=15),
                              ("defect", 14, 14, "refuted", "2056a4a2f04e2f27")),
    "cnn": (lambda: CNN(3, [2], activations="t^2", dense=1), dict(claimed=3, prime=101),
            ("dimension", 3, 3, "confirmed", "b67d6c9f1def02c1")),
}


@pytest.mark.parametrize("case", sorted(EMITTED))
def test_emitted_certificates_match_the_recorded_ones(case):
    """Kind, bounds, verdict and the sha256 of the file's content (all but the tool and the seal)."""
    make, options, expected = EMITTED[case]
    e = dimension_certificate(make(), **options)
    body = {k: v for k, v in e.certificate.items() if k not in ("tool", "sha256")}
    assert (e.kind, e.lower, e.upper, e.verdict, hashlib.sha256(render(body)).hexdigest()[:16]) == expected


def test_a_point_that_does_not_verify_moves_to_the_next_seed(monkeypatch):
    """Only the self-check's failure moves on: seeds 0 and 1 refused, seed 2 written; too few attempts raise."""
    import algebra.certify.rank as rank

    real = rank.self_check_verdict

    def fussy(cert):
        if cert["seed"] < 2:
            raise CertificateError(f"not generic at seed {cert['seed']}")
        return real(cert)

    monkeypatch.setattr(rank, "self_check_verdict", fussy)
    e = dimension_certificate(QueryKey(3, 2))
    assert e.certificate["seed"] == 2
    assert render(e.certificate) == render(dimension_certificate(QueryKey(3, 2), seed=2).certificate)
    with pytest.raises(CertificateError, match="after 2 seeds: not generic at seed 1"):
        dimension_certificate(QueryKey(3, 2), attempts=2)
    # a reused engine run serves the first attempt only: the next seed runs the engine afresh
    from algebra.engine import dimension

    reused = dimension(QueryKey(3, 2), seed=1, witness=True)
    e = dimension_certificate(QueryKey(3, 2), seed=1, result=reused)
    assert e.certificate["seed"] == 2 and e.certificate["point"]["theta"] != [str(v) for v in reused.theta]
    assert e.certificate["point"]["theta"] == [str(v) for v in dimension(QueryKey(3, 2), seed=2, witness=True).theta]


# -- dimension_with_certificate: one engine run, printed and certified ----------------------------
def _count_engine_runs(monkeypatch) -> list:
    import algebra.engine

    calls, original = [], algebra.engine.dimension

    def counting(*args, **kwargs):
        calls.append(kwargs.get("mode"))
        return original(*args, **kwargs)

    monkeypatch.setattr(algebra.engine, "dimension", counting)
    return calls


@pytest.mark.parametrize("make", [lambda: MLP((2, 3, 2, 1), "t^2+t", bias=True), lambda: QueryKey(4, 2)],
                         ids=["mlp-sample", "qk-auto"])
def test_dimension_with_certificate_certifies_its_one_run(tmp_path, monkeypatch, make):
    """One engine run; the file is byte for byte the certificate a fresh run at that seed gives,
    and the result is the engine's run in the certificate's mode with its witness."""
    from algebra.checker import check_file
    from algebra.engine import dimension

    model = make()
    fresh = dimension_certificate(model, seed=4)
    expected = dimension(model, mode=certificate_mode(model), seed=4, witness=True).to_json()
    calls = _count_engine_runs(monkeypatch)
    res, e = dimension_with_certificate(model, tmp_path / "d.json", seed=4)
    assert calls == [certificate_mode(model)]
    assert (tmp_path / "d.json").read_bytes() == render(e.certificate) == render(fresh.certificate)
    assert check_file(str(tmp_path / "d.json"))[0]
    got = res.to_json()
    assert {k: v for k, v in got.items() if k != "seconds"} == {k: v for k, v in expected.items() if k != "seconds"}
    assert e.lower == res.lower_bound and e.upper == res.upper_bound


def test_dimension_with_certificate_runs_twice_only_for_a_run_the_certificate_cannot_use(tmp_path, monkeypatch):
    """Another mode or over Q: the result is that run (no witness unless asked), the certificate makes its own."""
    calls = _count_engine_runs(monkeypatch)
    model = MLP((2, 3, 1), "t^2")
    res, e = dimension_with_certificate(model, tmp_path / "c.json", mode="coefficient")
    assert calls == ["coefficient", "sample"] and res.mode == "coefficient" and res.witness is None
    assert e.lower == res.lower_bound and e.kind == "dimension"
    calls.clear()
    res, e = dimension_with_certificate(model, tmp_path / "q.json", over_q=True, witness=True)
    assert calls == ["auto", "sample"] and res.prime is None and res.witness is None  # over Q: no modular minor
    assert json.loads((tmp_path / "q.json").read_text())["point"]["prime"] == e.certificate["point"]["prime"]


def test_dimension_with_certificate_writes_a_lower_bound_when_that_is_all_and_nothing_when_refused(tmp_path, monkeypatch):
    import algebra.certify.questions as questions

    real = questions.dimension_certificate

    def no_upper(model, **kw):
        if kw.get("upper", True):
            raise CertificateError("the Cramer identity failed at every seed")
        return real(model, **kw)

    monkeypatch.setattr(questions, "dimension_certificate", no_upper)
    res, e = dimension_with_certificate(QueryKey(3, 2), tmp_path / "l.json")
    assert res.certified and e.kind == "rank_lower_bound" and "only the lower bound" in e.note
    with pytest.raises(ResourceError, match="max_memory"):
        dimension_with_certificate(MLP((30, 60, 60, 1), "t^2"), tmp_path / "big.json", max_memory="1M")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["l.json"]
