"""The ``local_rank`` kind decides Theorem F.1's hypotheses and its work by the checker's own rules (issue 32, item 5).

Lambda is derived only where the exact training loss is 0 (a proven global minimiser of ``L_n >= 0``) and
the rank is locally constant; no file field (a tolerance) can change that; the work budget charges the size
of every exact integer and refuses hostile files before it builds them.
"""

import json
import resource
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from algebra.certify.canonical import render, seal
from algebra.certify.local_rank import local_rank_certificate
from algebra.checker import Reject, check
from algebra.checker.local_rank import (
    MAX_MINOR,
    MAX_P,
    MAX_PARAMETERS,
    MAX_WORK,
    derive_local_rank_claim,
    render_local_rank_claim,
    scale_bits,
    work_plan,
)
from algebra.grokking.task import modular_addition

#: p = 2, K = 1, training pairs (0, 0) -> 0 and (0, 1) -> 1: W = [0, 0, 1, 0], V = [1, -1] fits them exactly
#: (H = 1 on the first pair, 0 on the second, so Y_hat differs by e_0 - e_1 between them, as Y does)
ZERO_LOSS = (2, 1, [0, 0], [0, 1], [0.0, 0.0, 1.0, 0.0, 1.0, -1.0])
#: p = 2, K = 1 on (0, 0), (0, 1), (1, 0): H = 0, 1, 1 and V = e_1 - e_0 fit them exactly, at a rank 3 < 4
ZERO_LOSS_SINGULAR = (2, 1, [0, 0, 1], [0, 1, 0], [0.0, 1.0, 0.0, 1.0, -1.0, 1.0])
HUGE, TINY = "0x1.fffffffffffffp+1023", "0x0.0000000000001p-1022"  # the largest binary64 and the least subnormal


def _resealed(cert, edit):
    c = json.loads(json.dumps(cert))
    edit(c)
    return seal(c)


def _exact_centred_residual(p, K, a, b, theta):
    """``(Y - Y_hat) P_perp`` with Fractions, from the network's definition (not the checker's code)."""
    th = [Fraction(x) for x in theta]
    W = [th[r * K:(r + 1) * K] for r in range(2 * p)]
    V = [th[2 * p * K + j * K: 2 * p * K + (j + 1) * K] for j in range(p)]
    R = []
    for x, y in zip(a, b):
        h = [W[x][k] + W[p + y][k] for k in range(K)]
        R.append([(1 if j == (x + y) % p else 0) - sum(V[j][k] * h[k] ** 2 for k in range(K)) for j in range(p)])
    mean = [sum(r[j] for r in R) / len(R) for j in range(p)]
    return [[r[j] - mean[j] for j in range(p)] for r in R]


@pytest.fixture(scope="module")
def minimiser():
    return local_rank_certificate(*ZERO_LOSS).certificate


@pytest.fixture(scope="module")
def trained_like():
    t = modular_addition(5, 0.6, seed=3)
    theta = np.random.default_rng(5).standard_normal(30) / 3
    return local_rank_certificate(5, 2, t.a[t.train], t.b[t.train], theta).certificate


def test_lambda_is_half_the_rank_exactly_at_a_zero_loss_point(minimiser):
    assert all(x == 0 for row in _exact_centred_residual(*ZERO_LOSS) for x in row)
    c = minimiser["claim"]
    tr = c["maps"]["train"]
    assert (c["minimiser"], c["critical"], c["train_loss_at_most"], c["gradient_norm_at_most"]) == (True, True, "0", "0")
    assert tr["locally_constant"] and (tr["lower"], c["lambda"], c["multiplicity"]) == (2, "1", 1)
    assert c["hypothesis_fails"] is None and "tolerance" not in c and "tolerance" not in minimiser
    assert "L_n = 0 exactly" in check(minimiser)


def test_zero_loss_without_a_constant_rank_gives_bounds_only():
    assert all(x == 0 for row in _exact_centred_residual(*ZERO_LOSS_SINGULAR) for x in row)
    c = local_rank_certificate(*ZERO_LOSS_SINGULAR).certificate["claim"]
    assert c["minimiser"] is True and c["lambda"] is None and c["multiplicity"] is None
    assert (c["maps"]["train"]["lower"], c["maps"]["train"]["upper"]) == (3, 4)
    assert c["lambda_bounds"] == ["3/2", "5/2"] and c["hypothesis_fails"] == [
        "the training map's rank is not certified locally constant (its bounds differ)"]


@pytest.mark.parametrize("tolerance", ["1e3", "1e-5", "0", 1000])
def test_a_tolerance_field_is_refused_whatever_its_value(trained_like, minimiser, tolerance):
    for cert in (trained_like, minimiser):
        bad = _resealed(cert, lambda c: c.__setitem__("tolerance", tolerance))
        with pytest.raises(Reject, match=r'unknown field\(s\) \["tolerance"\]'):
            check(bad)
        with pytest.raises(Reject, match=r"unknown or missing: \['tolerance'\]"):  # the plug-in refuses it on its own
            derive_local_rank_claim(bad, [])


def test_a_point_one_ulp_from_a_minimiser_gets_no_lambda():
    """An arbitrarily small positive L_n proves no minimum: no tolerance makes it one."""
    p, K, a, b, theta = ZERO_LOSS
    theta = list(theta)
    theta[4] = float(np.nextafter(1.0, 2.0))
    c = local_rank_certificate(p, K, a, b, theta).certificate["claim"]
    assert c["minimiser"] is False and c["critical"] is False and c["lambda"] is None and c["lambda_bounds"] is None
    assert c["maps"]["train"]["locally_constant"] and 0 < float(c["train_loss_at_most"]) < 1e-30
    assert c["hypothesis_fails"] == [f"not a proven minimiser of L_n (Theorem F.1 needs L_n(w*) = min L_n, proven from "
                                     f"the file's data only where L_n = 0): 0 < L_n <= {c['train_loss_at_most']}"]


def test_a_forged_lambda_at_a_nonzero_loss_point_is_refused(trained_like):
    c = trained_like["claim"]
    assert c["minimiser"] is False and c["lambda"] is None and c["maps"]["train"]["locally_constant"]

    def forge(x):
        cl = x["claim"]
        cl.update(minimiser=True, critical=True, hypothesis_fails=None, multiplicity=1,
                  **{"lambda": str(Fraction(cl["maps"]["train"]["lower"], 2))})
        cl["text"] = render_local_rank_claim(cl)
    with pytest.raises(Reject, match=r"claim\.(critical|hypothesis_fails|lambda|minimiser) differs"):
        check(_resealed(trained_like, forge))


def test_a_resealed_edit_of_one_coordinate_is_rederived_honestly(minimiser):
    """Moving one weight of the minimiser off it: the sealed claim (lambda = 1) is refused; derived afresh, the
    edited file's claim has no lambda."""
    bad = _resealed(minimiser, lambda c: c["network"]["theta"].__setitem__(2, "0x1.8p+0"))
    with pytest.raises(Reject, match="differs"):
        check(bad)
    again = derive_local_rank_claim(bad, [])
    assert again["minimiser"] is False and again["lambda"] is None
    fixed = _resealed(bad, lambda c: c.__setitem__("claim", again))
    assert "L_n > 0" in check(fixed)


def test_the_work_plan_charges_the_integers_sizes():
    assert scale_bits([1.5, float.fromhex(TINY)]) == (1074, 1075)
    assert scale_bits([float.fromhex(HUGE), float.fromhex(TINY)]) == (1074, 2098)
    minors = {"train": 100, "all": 100, "fields": 20}
    small, huge = work_plan(7, 8, 40, 60, 61, minors), work_plan(7, 8, 40, 1074, 2098, minors)
    assert huge["gradient"] > 100 * small["gradient"] and huge["scaling theta"] > small["scaling theta"]
    assert huge["minor train"] > small["minor train"]  # reducing 2098-bit integers modulo the prime


# -- worst files of the kind at the documented limits, checked in a child under a CPU limit ---------------------
def _limited():
    resource.setrlimit(resource.RLIMIT_CPU, (120, 121))  # far above any expected use: the test cannot hang


def _checked_in_child(path):
    run = subprocess.run([sys.executable, "-m", "algebra.checker", str(path)], capture_output=True, text=True,
                         preexec_fn=_limited, timeout=600)
    assert run.returncode in (0, 1), run.stderr[-2000:]  # not killed by the CPU limit
    return run.stdout


def _worst(p, K, n_train, minor, theta):
    P = 3 * p * K
    train = [[i // p, i % p] for i in range(n_train)]
    side = min(minor, n_train * p, P)
    fside = min(2 * K, P)
    cert = {"schema_version": 1, "kind": "local_rank", "claim": {"text": "anything"},
            "network": {"p": p, "width": K, "train": train, "theta": [theta(i) for i in range(P)]},
            "witnesses": {"prime": "1048573", "train": {"rows": list(range(side)), "cols": list(range(side))},
                          "all": {"rows": list(range(side)), "cols": list(range(side))},
                          "fields": {"rows": list(range(fside)), "cols": list(range(fside))}}}
    return seal(cert)


def _alternating(i):
    return (HUGE if i % 3 else "-" + HUGE) if i % 2 else TINY


@pytest.mark.slow  # writes and parses a 6 MB file of 200,000 parameters (~15 s)
def test_the_largest_file_with_extreme_entries_is_refused_before_any_integer_is_built(tmp_path):
    K = MAX_PARAMETERS // (3 * MAX_P)
    path = tmp_path / "worst.json"
    path.write_bytes(render(_worst(MAX_P, K, MAX_P * MAX_P, MAX_MINOR, _alternating)))
    out = _checked_in_child(path)
    assert "NOT VERIFIED" in out and f"work units, more than {MAX_WORK}" in out and "2098-bit integers" in out


def test_extreme_entries_past_the_budget_are_refused_before_any_work(tmp_path):
    path = tmp_path / "extreme.json"
    path.write_bytes(render(_worst(31, 40, 480, 4096, _alternating)))
    out = _checked_in_child(path)
    assert "NOT VERIFIED: checking this file would take" in out and "2098-bit integers" in out
    assert "the largest phase, gradient" in out


def _spent(notes_text):
    spent, projected = notes_text.split("; work ")[1].split(" units")[0].split(" of ")
    return int(spent), int(projected)


def test_a_small_extreme_point_is_verified_within_the_budget():
    t = modular_addition(5, 0.6, seed=3)
    theta = [float.fromhex(_alternating(i)) for i in range(30)]
    cert = local_rank_certificate(5, 2, t.a[t.train], t.b[t.train], theta).certificate
    assert cert["claim"]["about"]["scale_bits"] == 1074 and cert["claim"]["lambda"] is None
    notes = []
    derive_local_rank_claim(cert, notes)
    spent, limit = _spent(notes[-1])
    assert limit == MAX_WORK and 0 < spent <= MAX_WORK and notes[-1].endswith(f"(projected {spent})")


@pytest.mark.slow  # the producer's witness search at this degenerate point takes ~12 s
def test_an_extreme_point_is_verified_within_the_budget_in_a_child(tmp_path):
    t = modular_addition(13, 0.5, seed=0)
    theta = [float.fromhex(_alternating(i)) for i in range(3 * 13 * 8)]
    cert = local_rank_certificate(13, 8, t.a[t.train], t.b[t.train], theta, self_check=False).certificate
    path = tmp_path / "extreme.json"
    path.write_bytes(render(cert))
    out = _checked_in_child(path)
    assert ": VERIFIED (" in out
    spent, limit = _spent(out)
    assert limit == MAX_WORK and 10**7 < spent <= MAX_WORK  # the 2098-bit gradient is charged at its size
