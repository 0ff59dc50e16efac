"""Proximity bias toward CNN subnetworks: Figure 6, inactive channels, the sweep, the catalogue claims."""

from __future__ import annotations

import numpy as np
import pytest

from algebra.engine import dimension
from algebra.errors import InputError
from algebra.exact.field import DEFAULT_PRIME, PrimeField, RationalField
from algebra.geometry.cnn_proximity import (
    FIGURE6_SUBNETWORKS,
    NO_BIAS,
    _decide,
    cnn_proximity,
    cnn_sweep,
    differential_map,
    differential_rank,
    figure6,
    figure6_model,
    polynomial_map,
    pruned_proximity,
    subnetwork_evidence,
    subnetwork_point,
    write_cnn_sweep,
)
from algebra.models import MLP, PolynomialMap
from algebra.models.cnn import CNN


def test_figure6_no_bias_toward_any_pruned_weight():
    """Appendix C on Figure 6: dim F = 3 in a 5-dimensional H, each F' has dim 2, and d phi keeps rank 3 on it."""
    results = figure6()
    assert set(results) == set(FIGURE6_SUBNETWORKS)
    for name, r in results.items():
        assert r.dim_full["certified"] and r.dim_full["lower_bound"] == 3 and r.dim_full["ambient_dimension"] == 5
        assert r.dim_sub["certified"] and r.dim_sub["lower_bound"] == 2, name
        assert r.rank == 3 and r.rank_is_dim_f and r.verdict == NO_BIAS, name


def test_figure6_rank_through_the_explicit_differential():
    """The rank at e = 0 by the CNN's Jacobian equals the dimension of the written-out differential map."""
    model = figure6_model()
    theta = np.array([2, 3, 5, 0])
    r, _ = differential_rank(model, theta, target=3)
    d = dimension(differential_map(model, theta))
    assert d.certified and d.dimension == r == 3
    assert dimension(differential_map(model, np.array([2, 3, 0, 0]))).dimension == 2  # c = e = 0: only the dc, de columns


def test_polynomial_map_is_the_network():
    model = CNN(4, [2, 2], channels=(1, 2, 1), activations="t^2+t", bias=True)
    pm = polynomial_map(model)
    assert isinstance(pm, PolynomialMap) and pm.parameter_count == model.parameter_count
    rng = np.random.default_rng(0)
    theta, X = model.random_point(rng, bound=9), model.random_inputs(rng, 3, bound=9)
    Q = RationalField()
    assert pm.forward(theta, X, Q).tolist() == model.forward(theta, X, Q).tolist()
    assert (pm.jacobian(theta, X, Q) == model.jacobian(theta, X, Q)).all()


def test_subnetwork_point_computes_the_subnetwork():
    """At the point, the full network's function is the submodel's (inactive channels contribute nothing)."""
    full = CNN(6, [2, 2], channels=(1, 3, 2), activations="t^3", dense=2, bias=True)
    sub = CNN(6, [2, 2], channels=(1, 3, 2), activations="t^3", dense=2, bias=True, inactive={1: [1], 2: [0]})
    theta = subnetwork_point(full, sub.inactive, np.random.default_rng(1))
    fb, parts = full.unpack(theta), []
    keep1, keep2 = [0, 2], [1]
    npos = 4
    for name, _ in sub.param_blocks():
        b = fb[name]
        if name == "W1":
            b = b[keep1]
        elif name == "b1":
            b = b[keep1]
        elif name == "W2":
            b = b[keep2][:, keep1]
        elif name == "b2":
            b = b[keep2]
        elif name == "D":
            b = b.reshape(2, 2, npos)[:, keep2].reshape(2, -1)
        parts.append(np.asarray(b).ravel())
    theta_sub = np.concatenate(parts)
    X = full.random_inputs(np.random.default_rng(2), 4, bound=20)
    F = PrimeField(DEFAULT_PRIME)
    assert (full.forward(theta, X, F) == sub.forward(theta_sub, X, F)).all()
    blocks = full.unpack(theta)
    assert blocks["W1"][1].any() and not blocks["W2"][:, 1].any()  # incoming filter random, outgoing weights zero
    assert not blocks["D"].reshape(2, 2, npos)[:, 0].any()


def test_inactive_channel_no_bias_and_rank_bounds():
    model = CNN(4, [2], channels=(1, 2), activations="t^2", dense=1)
    r = cnn_proximity(model, {1: [0]})
    assert r.dim_full["certified"] and r.dim_sub["certified"]
    assert r.dim_sub["lower_bound"] < r.rank <= r.dim_full["upper_bound"]
    assert r.verdict == NO_BIAS
    j = r.to_json()
    assert j["rank_at_subnetwork"] == r.rank and j["subnetwork"] == {"inactive": {"1": [0]}}


def test_rank_can_stay_below_dim_f():
    """Filter 3 on 5 inputs: the inactive channel adds its 3 outgoing directions, not its filter: rank 8 < dim F = 10."""
    r = cnn_proximity(CNN(5, [3], channels=(1, 2), activations="t^2", dense=1), {1: [0]})
    assert (r.dim_full["lower_bound"], r.dim_sub["upper_bound"], r.rank) == (10, 5, 8)
    assert not r.rank_is_dim_f and r.verdict == NO_BIAS


def test_equal_dimensions_give_proximity_bias():
    """One position, 3 channels: every binary quadric already with 2 channels (as the MLP (2, 3, 1))."""
    r = cnn_proximity(CNN(2, [2], channels=(1, 3), activations="t^2", dense=1), {1: [2]})
    assert r.dim_full["lower_bound"] == r.dim_sub["lower_bound"] == 3
    assert r.verdict == "proximity bias"


def test_decision_table():
    def d(lo, up):
        return {"lower_bound": lo, "upper_bound": up, "certified": lo == up}

    assert _decide(d(5, 5), d(3, 3), 4)[1] == NO_BIAS
    assert _decide(d(5, 5), d(3, 3), 3)[1] == "undecided"
    assert _decide(d(5, 5), d(3, 4), 4)[1] == "undecided"  # dim F' might be 4
    assert _decide(d(5, 5), d(5, 5), 5)[1] == "proximity bias"
    assert _decide(d(5, 6), d(5, 5), 5)[1] == "undecided"


def test_bad_arguments():
    model = figure6_model()
    for pruned in ({"W9": [0]}, {"W1": [2]}, {"D": [True]}, {"W1": []}):
        with pytest.raises(InputError) as info:
            pruned_proximity(model, pruned)
        assert info.value.argument == "pruned"
    with pytest.raises(InputError):
        cnn_proximity(MLP((2, 2, 1)), {1: [0]})
    with pytest.raises(InputError):
        cnn_proximity(CNN(4, [2], channels=(1, 2), dense=1, inactive={1: [0]}), {1: [1]})
    with pytest.raises(InputError):
        pruned_proximity(MLP((2, 2, 1)), {"W1": [0]})


def test_fast_sweep_and_table(tmp_path):
    rows = cnn_sweep(fast=True)
    assert len(rows) == 3
    for r in rows:
        assert r["verdict"] in (NO_BIAS, "proximity bias", "undecided")
        lo = int(str(r["dim_F_sub"]).split("..")[-1])
        assert r["rank"] > lo if r["verdict"] == NO_BIAS else True
    counts = write_cnn_sweep(rows, tmp_path / "s.csv", tmp_path / "s.md", command="test")
    assert sum(counts.values()) == 3
    text = (tmp_path / "s.md").read_text()
    assert "Produced by `test`" in text and text.count("\n| ") == 4
    assert (tmp_path / "s.csv").read_text().splitlines()[0].startswith("input,filters,channels")


def test_subnetwork_evidence_is_the_sweeps_verdict():
    """What the certify side records next to a subnetwork certificate is cnn_proximity's verdict, as data."""
    m = CNN(4, [2], channels=(1, 2), activations="t^2", dense=1)
    e, r = subnetwork_evidence(m, {1: [0]}), cnn_proximity(m, {1: [0]})
    assert e["verdict"] == r.verdict == NO_BIAS and e["text"].startswith(NO_BIAS)
    assert f"rank at a random point of F' = {r.rank})" in e["text"]


def test_notebook_09_runs(tmp_path):
    from tests.notebook_runner import execute_notebook

    _, text = execute_notebook("09_cnn.ipynb", tmp_path)
    assert "strides [2, 2, 2]      dim  7 (certified True, formula 7)  end-to-end filter 17  filling: False" in text
    assert "strides [1, 1, 1]      dim  7 (certified True, formula 7)  end-to-end filter  7  filling: True" in text
    assert text.count("rank d phi at F' = 3") == 4 and "normal spaces sweep <= 4 of 5" in text
    assert "3 cases; {\"no proximity bias (rank of the differential at a random point of F')\": 3}" in text
    assert "dim F = 19..19 (certified True, rung cramer)" in text


def test_proximity_cnn_command(capsys, tmp_path):
    import json

    from algebra.cli import main

    argv = ["proximity", "cnn", "--input", "4", "--filters", "2", "--channels", "1,2", "--activation", "t^2", "--dense",
            "1", "--inactive", "1:0"]
    assert main(argv + ["--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["verdict"] == NO_BIAS and res["rank_at_subnetwork"] == 7 and res["dim_F_sub"]["upper_bound"] == 4
    assert main(argv) == 0
    assert "verdict: no proximity bias" in capsys.readouterr().out
    with pytest.raises(SystemExit) as info:  # --inactive is required
        main(argv[:-2])
    assert info.value.code == 2 and "--inactive" in capsys.readouterr().err
    assert main(argv[:-1] + ["2:0"]) == 2 and "invalid --inactive=" in capsys.readouterr().err
    assert main(["proximity", "cnn-sweep", "--fast", "--out", str(tmp_path), "--no-progress", "--scheduler", "serial",
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["cases"] == 3 and (tmp_path / "cnn_proximity.md").exists()


def test_too_large_network_refused_before_its_receptive_fields():
    # the ambient count is bracketed from the shapes: the refusal builds no field per input position
    # (it built a million frozensets first: ~600 MiB traced, 1.35 GiB resident)
    import tracemalloc

    from algebra.errors import InputError
    from algebra.geometry.cnn_proximity import cnn_proximity
    from algebra.models.cnn import CNN

    model = CNN(10**6, [3], channels=(1, 2), dense=1)
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as exc:
            cnn_proximity(model, {1: [0]})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert exc.value.argument == "model" and "MAX_JACOBIAN_ENTRIES" in exc.value.allowed
    assert peak < 16 * 2**20, f"{peak / 2**20:.0f} MiB traced before the refusal"
