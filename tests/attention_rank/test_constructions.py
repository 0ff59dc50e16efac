"""Synthetic lower constructions (Appendices D, E) and their certificates."""

import math

import numpy as np
import pytest

from algebra.attention_rank import constructions as S
from algebra.attention_rank.certificates import attention_matrix, certified_range, check_interval_inequality
from algebra.checker import check
from algebra.attention_rank.geometry import exact_visible_dimension, visible_geometry
from algebra.errors import InputError


@pytest.mark.parametrize("d", [1, 2, 3, 4])
@pytest.mark.parametrize("c", [1, 2])
def test_cell_lemma_verifies_and_is_tight(d, c, independent_check):
    L = S.cell_width(d, 0.25, c=c)
    p = S.uniform_cell_payload(d, L, 0.25, c=c)
    assert check_interval_inequality(p)["verified"] and independent_check(p)
    if L > 1:  # one step narrower is refuted by both checkers
        q = S.uniform_cell_payload(d, L - 1, 0.25, c=c)
        assert not check_interval_inequality(q)["verified"] and not independent_check(q)


def test_cell_lemma_matches_direct_gaussian_mass():
    # the lemma's success fraction equals the discrete Gaussian cell mass (c = 1)
    d, L, eps = 2, 3, 0.25
    k = np.arange(-60, 61)
    g = np.exp(-k * k / 2.0)
    cell = g[np.abs(k) <= (L - 1) // 2].sum() ** d / g.sum() ** d
    margin = S._cell_margin_float(d, L, eps, 1) / g.sum() ** d
    assert margin == pytest.approx((1 - eps) * cell - (1 + eps) * (1 - cell))


def test_rational_sphere_points_exact():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    P = S.rational_sphere_points(X)
    assert all(sum(c * c for c in p) == 1 for p in P)
    assert np.abs(np.array(P, dtype=float) - X).max() < 1e-5


def test_sphere_construction_energy_condition():
    out = S.sphere_construction(3, 40.0, 0.25, seed=2)
    X, beta = out["points"], out["beta"]
    W = np.exp(-beta * (1 - X @ X.T))
    np.fill_diagonal(W, 0.0)
    assert W.sum(axis=1).max() <= out["delta"] * (1 + 1e-12)
    A = attention_matrix(X, X, beta)
    assert np.abs(A - np.eye(len(X))).sum(axis=1).max() < 1 - 0.25
    # same seed, same construction
    assert S.sphere_construction(3, 40.0, 0.25, seed=2)["M"] == out["M"]


def test_sphere_certificate_verifies():
    from algebra.certify.attention import sphere_certificate

    out = sphere_certificate(2, 300.0, 0.25, seed=1, max_M=16)
    cert = out["certificate"]
    assert out["M"] == 16 and certified_range(cert) == (16, None)
    assert check(cert)
    # the points are exact rationals on the sphere, stored as p/q, not rounded floats
    assert any("/" in x for x in cert["matrix"]["Q"]["data"])


def test_ball_counts_and_token_bracket():
    out = S.ball_construction(3, 1.0e5, 0.25)
    b = 1 / (2 * math.sqrt(3))
    per = 2 * math.floor((b * math.sqrt(1e5) - out["L"] / 2) / out["L"]) + 1
    assert out["M"] == per**3
    lo, hi = out["log10_tokens"]
    assert hi - lo == pytest.approx(math.log10(2))
    assert lo >= 1e5 / 8 / math.log(10)  # N0 >= e^{beta/8}
    with pytest.raises(InputError):
        S.ball_construction(0, 10.0, 0.25)


@pytest.mark.parametrize("r,s", [(1, 14), (2, 15)])
def test_interaction_instance(r, s):
    from algebra.certify.attention import interaction_certificate

    inst = interaction_certificate(r, s, 0.25)
    counts = S.interaction_construction(r, float(s * s), 0.25)
    assert inst["M"] == counts["M"] and len(inst["K"]) == counts["N"]
    Q = np.array(inst["Q"], dtype=float)
    K = np.array(inst["K"], dtype=float)
    assert np.all(np.linalg.norm(K, axis=1) ** 2 <= 5 / 16 + 1e-12)
    assert np.all(np.linalg.norm(Q, axis=1) ** 2 <= 1 / 2 + 1e-12)
    assert exact_visible_dimension(Q, K) == r
    g = visible_geometry(Q, K, beta=s * s)
    assert g["Gamma"] > 0
    cert = inst["certificate"]
    assert certified_range(cert) == (inst["M"], None) and check(cert)
    assert cert["claim"]["matrix"]["shape"] == [inst["M"], len(inst["K"])]


def test_fit_slope_recovers_power_law():
    b = np.geomspace(10, 1e4, 12)
    out = S.fit_slope(b, 7 * b**1.5 * np.exp(0.01 * np.sin(np.arange(12))))
    assert out["ci"][0] < 1.5 < out["ci"][1]
    with pytest.raises(InputError):
        S.fit_slope([1, 2], [1, 2])


def test_fast_slope_table_near_theory():
    t = S.slope_table(0.25, fast=True)
    for row in t["rows"]:
        tol = 0.15 if row["construction"] == "sphere" else 0.03
        assert abs(row["slope"] - row["theory"]) < tol, row["construction"]


def test_plot_slopes(tmp_path):
    pytest.importorskip("matplotlib")
    t = {"rows": [{"construction": "ball", "d": 1, "theory": 0.5, "beta": [1, 10, 100], "M": [1, 3, 10],
                   "slope": 0.5, "intercept": 0.0}]}
    path = S.plot_slopes(t, tmp_path / "s.png")
    assert (tmp_path / "s.png").stat().st_size > 1000 and path.endswith("s.png")


@pytest.mark.slow
def test_full_slope_table_closer_than_paper():
    t = S.slope_table(0.25)
    paper = {("sphere", 2): 0.504, ("sphere", 3): 1.012, ("sphere", 4): 1.381,
             ("ball", 1): 0.476, ("ball", 2): 0.951, ("ball", 3): 1.427, ("ball", 4): 1.903}
    for row in t["rows"]:
        key = (row["construction"], row["d"])
        if key in paper:
            assert abs(row["slope"] - row["theory"]) <= abs(paper[key] - row["theory"]) + 0.005, key
