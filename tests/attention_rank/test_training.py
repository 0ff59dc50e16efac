"""Lightning vs softmax training: gradients, model identities, Figure 5."""

import numpy as np
import pytest

from algebra.attention_rank import training as T
from algebra.errors import InputError


def _params(rng):
    return {name: rng.normal(size=2) for name in ("k", "q", "v")}


@pytest.mark.parametrize("model", ["lightning", "softmax"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradients_match_finite_differences(model, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(9, 2, 2))
    h = rng.normal(size=(9, 2))
    p = _params(rng)
    loss, g = T.loss_and_grad(p, X, h, model)
    fwd = T.lightning_forward if model == "lightning" else T.softmax_forward
    assert loss == pytest.approx(float(((fwd(p, X) - h) ** 2).sum() / 9))
    step = 1e-6
    for name in p:
        for i in range(2):
            plus = {k: v.copy() for k, v in p.items()}
            minus = {k: v.copy() for k, v in p.items()}
            plus[name][i] += step
            minus[name][i] -= step
            fd = (T.loss_and_grad(plus, X, h, model)[0] - T.loss_and_grad(minus, X, h, model)[0]) / (2 * step)
            assert g[name][i] == pytest.approx(fd, rel=1e-6, abs=1e-8)


def test_lightning_is_psi_of_symmetrized_S():
    # Lemma D.8: (v^T X X^T k) q^T X = (sum_j x_j^T S x_j) q^T X with S = sym(v k^T)
    rng = np.random.default_rng(4)
    p = _params(rng)
    X = rng.normal(size=(6, 2, 2))
    S = 0.5 * (np.outer(p["v"], p["k"]) + np.outer(p["k"], p["v"]))
    psi = np.einsum("nds,de,nes->n", X, S, X)[:, None] * np.einsum("d,nds->ns", p["q"], X)
    np.testing.assert_allclose(T.lightning_forward(p, X), psi, rtol=1e-12)


def test_softmax_columns_are_convex_combinations():
    rng = np.random.default_rng(5)
    p = _params(rng)
    X = rng.normal(size=(7, 2, 2))
    z = np.einsum("d,nds->ns", p["v"], X)
    f = T.softmax_forward(p, X)
    assert np.all(f <= z.max(axis=1, keepdims=True) + 1e-12)
    assert np.all(f >= z.min(axis=1, keepdims=True) - 1e-12)


def test_initialization_and_target_spectra():
    rng = np.random.default_rng(0)
    X, h, p = T._setup(rng, 16)
    S0 = 0.5 * (np.outer(p["v"], p["k"]) + np.outer(p["k"], p["v"]))
    np.testing.assert_allclose(sorted(np.linalg.eigvalsh(S0)), [-0.05, 1.0], atol=1e-12)
    assert np.linalg.norm(p["q"]) == pytest.approx(1.0)


def test_training_reduces_loss_and_is_reproducible():
    a = T.train_run("softmax", 3, steps=40, n_inputs=64)
    b = T.train_run("softmax", 3, steps=40, n_inputs=64)
    assert a["ratio"] == b["ratio"]
    assert a["loss"][-1] < a["loss"][0]
    with pytest.raises(InputError):
        T.train_run("other", 0, steps=2)


def test_small_figure5_shows_lightning_collapse(tmp_path):
    res = T.figure5(runs=6, steps=300, n_inputs=128, seed=1)
    light, soft = res["models"]["lightning"], res["models"]["softmax"]
    assert light["median"][0] == pytest.approx(0.05)
    assert light["final_median"] < 1e-3
    assert len(light["runs"]) == 6 and len(light["median"]) == 301
    pytest.importorskip("matplotlib")
    T.plot_figure5(res, tmp_path / "f5.png")
    assert (tmp_path / "f5.png").stat().st_size > 1000
