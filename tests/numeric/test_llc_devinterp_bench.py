"""CI smoke test of benchmarks/llc_devinterp.py: `prepare` runs end to end on tiny models."""

import importlib.util
import json
import pathlib

import numpy as np
import pytest

from algebra.claims.llc_suites import SUITE
from algebra.numeric.suite import SuiteEntry

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "llc_devinterp.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("llc_devinterp", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# one tiny model of each composite kind the suite uses (factor product, flattened QK,
# quadratic network, polynomial map)
TINY = (SuiteEntry("rrr", (2, 2, 1, 1)), SuiteEntry("qk", (2, 2, 1)),
        SuiteEntry("quadratic", (2, 1, 2)), SuiteEntry("poly", ("x*y",)))


def test_prepare_writes_data_our_model_reads_back(bench, tmp_path):
    index = bench.prepare(str(tmp_path), entries=TINY, n=500)
    assert json.loads((tmp_path / "index.json").read_text()) == index
    for item in index:
        z = np.load(item["path"])
        model = bench._model_from_data(item, z)
        C = model.composite.matrix(model.w_star[None])[0]
        direct = 0.5 * np.mean(np.sum((z["Y"].astype(float) - z["X"].astype(float) @ C.T) ** 2, axis=1))
        assert np.isclose(model.loss(model.w_star[None])[0], direct)
        assert model.dim == item["num_params"]


def test_prepare_covers_every_suite_family(bench):
    """Every family of the suite has a torch composite spec (the crash the issue reports)."""
    from algebra.claims.llc_suites import build_composite

    for e in SUITE:
        assert bench._torch_spec(build_composite(e.family, e.args))["kind"] in ("factors", "quadratic", "poly")


def test_torch_net_matches_the_numpy_composite(bench, tmp_path):
    torch = pytest.importorskip("torch")
    index = bench.prepare(str(tmp_path), entries=TINY, n=200)
    for item in index:
        z = np.load(item["path"])
        model = bench._model_from_data(item, z)
        net = bench.torch_net(torch, z)
        X = torch.tensor(z["X"][:10])
        C = model.composite.matrix(model.w_star[None])[0]
        assert np.allclose(net(X).detach().numpy(), z["X"][:10] @ C.T, atol=1e-4)


def test_torch_net_gradient_under_functional_call_matches_the_numpy_model(bench, tmp_path):
    """Every parameter of the benchmark module gets its gradient when sampled through
    ``torch.func.functional_call`` (a sliced ParameterList used to freeze all factors but the first)."""
    torch = pytest.importorskip("torch")
    from algebra.numeric.torch_backend import _FlatModule

    index = bench.prepare(str(tmp_path), entries=TINY + (SuiteEntry("dln", ((2, 2, 2, 1), 1)),), n=300)
    for item in index:
        z = np.load(item["path"])
        model = bench._model_from_data(item, z)
        flat = _FlatModule(bench.torch_net(torch, z).double(), bench.half_sse)
        W = np.stack([model.w_star + 0.1, model.w_star - 0.05])
        _, g = flat.loss_and_grad(torch.tensor(W), torch.tensor(model.X), torch.tensor(model.Y))
        expect = model.loss_and_grad(W)[1]
        assert np.allclose(g.numpy(), expect, rtol=1e-6, atol=1e-8), item["name"]


def test_report_rewrites_only_between_its_markers(bench, tmp_path):
    md = tmp_path / "B.md"
    md.write_text("head\n<!-- t -->\nold table\n<!-- /t -->\ntail\n")
    bench.replace_between_markers(str(md), "t", "| new |", "cmd --write")
    text = md.read_text()
    assert text.startswith("head\n<!-- t -->\nWritten by `cmd --write`") and text.endswith("| new |\n<!-- /t -->\ntail\n")
    assert "old table" not in text
    with pytest.raises(SystemExit, match="markers"):
        bench.replace_between_markers(str(md), "missing", "x", "cmd")
