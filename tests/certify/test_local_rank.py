"""The basin-selection judge (algebra.certify.local_rank): phases, verdicts and the catalogue entry."""

import hashlib
from pathlib import Path

import pytest

from algebra.certify.catalogue import JUDGES
from algebra.certify.local_rank import basin_table, basin_verdict, judge_basin
from algebra.claims.grokking import basin_claims
from algebra.claims.records import BasinClaim
from algebra.errors import CertificateError
from algebra.grokking.checkpoints import _render, write_basin_checkpoints
from algebra.grokking.runs import PRESETS, train


def _row(group, ph, lam, rank=20, fails=None):
    return {"group": group, "phase": ph, "lambda": lam, "maps": {"train": {"lower": rank, "upper": rank, "locally_constant": True}},
            "hypothesis_fails": fails}


def test_verdicts_compare_only_within_one_training_set():
    # a lower lambda on another training set is no evidence: nothing comparable -> out of reach
    assert basin_verdict([_row("a", "memorising", "10"), _row("b", "generalising", "8")])[0] == "out of reach"
    assert basin_verdict([_row("a", "memorising", "10"), _row("a", "generalising", "8")])[0] == "confirmed"
    assert basin_verdict([_row("a", "memorising", "10"), _row("a", "generalising", "10")])[0] == "refuted"
    assert basin_verdict([_row("a", "memorising", "8"), _row("a", "generalising", "10")])[0] == "out of reach"
    v, why = basin_verdict([_row("a", "memorising", None, fails=["not critical"]), _row("a", "generalising", "8")])
    assert v == "out of reach" and "not critical" in why and "equal" in why


def test_the_catalogue_has_the_claim_and_its_judge():
    (c,) = basin_claims(fast=False)
    assert isinstance(c, BasinClaim) and JUDGES[BasinClaim] is not None and basin_claims(fast=True) == []
    assert Path(c.checkpoints).is_file() and len(c.sha256) == 64 and c.location.startswith("Abstract")


def _claim(path, sha256):
    return BasinClaim("x", "grokking-basin-selection-llc", "Abstract", "s", str(path), sha256)


def test_checkpoints_whose_exact_phase_is_not_their_role_are_out_of_reach_without_a_file(tmp_path):
    run = train(tmp_path / "run", PRESETS["tiny"])
    ck = write_basin_checkpoints(run, tmp_path / "ck.json")
    swapped = _render(ck.config, ck.epochs, {"memorising": ck.thetas["generalising"],
                                             "generalising": ck.thetas["memorising"]})
    (tmp_path / "swapped.json").write_bytes(swapped)
    emitted, why, fields = judge_basin(_claim(tmp_path / "swapped.json", hashlib.sha256(swapped).hexdigest()), 0, {})
    assert emitted is None and fields == {}
    assert why.startswith("the committed memorising checkpoint (epoch 500) is generalising by its exact accuracies")


def test_a_tampered_checkpoints_file_is_refused_naming_it(tmp_path):
    (c,) = basin_claims(fast=False)
    data = Path(c.checkpoints).read_bytes().replace(b'"0x1.', b'"0x1.0', 1)
    (tmp_path / "ck.json").write_bytes(data)
    with pytest.raises(CertificateError, match=r"checkpoints file .*ck\.json: sha256 .* is not the recorded"):
        judge_basin(_claim(tmp_path / "ck.json", c.sha256), 0, {})


@pytest.mark.slow  # trains the tiny preset and certifies two checkpoints (~20 s)
def test_the_judge_certifies_a_grokking_run(tmp_path):
    run = train(tmp_path / "run", PRESETS["tiny"])
    ck = write_basin_checkpoints(run, tmp_path / "ck.json")
    emitted, why, fields = judge_basin(_claim(ck.path, ck.sha256), 0, {})
    c = emitted.certificate["claim"]
    assert why is None and emitted.kind == "local_rank" and c["maps"]["train"]["locally_constant"]
    assert emitted.certificate["source"]["epoch"] == ck.epochs["generalising"] == 625
    assert emitted.verdict in ("confirmed", "refuted", "out of reach") and "memorising epoch 500" in fields["proven"]


def test_table_renders_ranks_and_lambda():
    row = {**_row("a", "memorising", "722"), "p": 17, "train_fraction": 0.5, "weight_decay": 0.0, "seed": 0,
           "epoch": 25, "train_acc": 1.0, "val_acc": 0.1, "gradient_norm_at_most": "1.00e-2", "wd_theta": 0.0,
           "train_loss_at_most": "1.00e-3", "lambda_bounds": None, "llc_sgld": 30.0, "llc_sgld_se": 2.0, "k_eff": 32}
    row["maps"]["all"] = {"lower": 30, "upper": 31}
    text = basin_table([row])
    assert "| 20 / 30..31 |" in text and "722 (m = 1)" in text


def test_the_sgld_premise_claim_reads_the_basin_checkpoints_and_has_its_judge():
    from algebra.claims.grokking import sgld_premise_claims
    from algebra.claims.records import EstimatePremiseClaim

    (basin,), (premise,) = basin_claims(fast=False), sgld_premise_claims(fast=False)
    assert isinstance(premise, EstimatePremiseClaim) and JUDGES[EstimatePremiseClaim] is not None
    assert (premise.checkpoints, premise.sha256) == (basin.checkpoints, basin.sha256)
    assert "Appendix B.1" in premise.location and "local minimizer" in premise.premise


def test_the_premise_fails_only_where_the_exact_gradient_is_nonzero():
    from algebra.certify.local_rank import premise_hypotheses

    moving = {"phase": "memorising", "epoch": 5, "critical": False, "minimiser": False,
              "gradient_norm_at_most": "1.00e-3", "train_loss_at_most": "1.00e-4"}
    solved = dict(moving, phase="generalising", critical=True, minimiser=True)
    stuck = dict(moving, critical=True)  # critical with L_n > 0: a saddle or a minimum, the file cannot say
    hyps, undecided = premise_hypotheses([moving, solved, stuck])
    assert [h["holds"] for h in hyps] == [False, True] and len(undecided) == 1
    assert "not a critical point" in hyps[0]["detail"] and "global minimiser" in hyps[1]["detail"]


@pytest.mark.slow  # trains the tiny preset and certifies two checkpoints (~20 s)
def test_the_premise_judge_reads_the_checkers_gradient(tmp_path):
    from algebra.certify.local_rank import judge_estimate_premise
    from algebra.claims.records import EstimatePremiseClaim

    run = train(tmp_path / "run", PRESETS["tiny"])
    ck = write_basin_checkpoints(run, tmp_path / "ck.json")
    claim = EstimatePremiseClaim("y", "grokking-basin-selection-llc", "Appendix B.1", "s", str(ck.path), ck.sha256,
                                 "the premise")
    emitted, why, fields = judge_estimate_premise(claim, 0, {})
    c = emitted.certificate["claim"]
    assert why is None and emitted.certificate["source"]["epoch"] == ck.epochs["memorising"]
    failed = [h for h in fields["hypotheses"] if not h["holds"]]
    assert failed and (emitted.verdict == "hypothesis fails") == (c["critical"] is False)
    assert not c["critical"] and emitted.verdict == "hypothesis fails" and "the premise" in emitted.note
    # the checker's index rule derives the same row from the file's own claim
    from algebra.checker.index import row_mismatch

    row = {"id": "y", "kind": "local_rank", "verdict": emitted.verdict, "proven": fields["proven"],
           "hypotheses": fields["hypotheses"], "section": "claims"}
    assert row_mismatch(row, {"kind": "local_rank", "claim": c}) is None
