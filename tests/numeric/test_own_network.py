"""Tests for algebra.numeric.own_network: the one-call LLC of a user's module, exact references, twins."""

from fractions import Fraction

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import algebra  # noqa: E402
from algebra.errors import InputError  # noqa: E402
from algebra.numeric.own_network import deep_linear_reference, exact_twin, half_squared_error, linear_layers  # noqa: E402
from algebra.slt.formulas import deep_linear_network  # noqa: E402


def _fitted_rank2(n=4000, seed=0, bias=False):
    """nn.Sequential(Linear(4, 3), Linear(3, 4)) fitted by LBFGS to a rank-2 teacher plus unit noise."""
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, 4, generator=g, dtype=torch.float64)
    T = torch.randn(4, 2, generator=g, dtype=torch.float64) @ torch.randn(2, 4, generator=g, dtype=torch.float64)
    Y = X @ T.T + torch.randn(n, 4, generator=g, dtype=torch.float64)
    net = torch.nn.Sequential(torch.nn.Linear(4, 3, bias=bias), torch.nn.Linear(3, 4, bias=bias)).double()
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(0.3 * torch.randn(p.shape, generator=g, dtype=torch.float64))
    opt = torch.optim.LBFGS(net.parameters(), lr=1, max_iter=500, tolerance_grad=1e-14, tolerance_change=1e-16,
                            history_size=50, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = half_squared_error(net(X), Y)
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    return net, X, Y


def test_rank2_two_layer_module_reports_both_targets():
    """Population: Aoyagi-Watanabe at the teacher's rank 2 (7, m = 2); empirical: the minimiser's product has
    rank 3 exactly (flint), a regular point of the rank-3 matrices: (3 (4 + 4) - 9) / 2 = 15/2."""
    net, _, _ = _fitted_rank2()
    ref = deep_linear_reference(net, n=4000)
    assert ref["rank_numerical"] == 2 and ref["rank_exact"] == 3
    assert ref["population"]["lambda"] == Fraction(7) and ref["population"]["multiplicity"] == 2
    assert ref["empirical"]["lambda"] == Fraction(15, 2) and ref["empirical"]["local_at_w_star"]
    assert "certified" in ref["empirical"]["derivation"] and "not certified" not in ref["empirical"]["derivation"]
    assert ref["population"]["lambda"] == deep_linear_network([4, 3, 4], 2).lam


def test_bias_patterns():
    net, _, _ = _fitted_rank2(n=500, bias=True)
    ref = deep_linear_reference(net)
    assert ref["empirical"]["lambda"] == deep_linear_network([4, 3, 4], ref["rank_exact"]).lam + 2  # + d_L/2
    hidden_only = torch.nn.Sequential(torch.nn.Linear(4, 3, bias=True), torch.nn.Linear(3, 4, bias=False))
    ref = deep_linear_reference(hidden_only)
    assert ref["population"] is None and ref["empirical"] is None and "not covered" in ref["covered"]


class _HiddenTanh(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Linear(3, 2, bias=False), torch.nn.Linear(2, 3, bias=False)

    def forward(self, x):
        return self.b(torch.tanh(self.a(x)))


class _PlainStack(_HiddenTanh):
    def forward(self, x):
        return self.b(self.a(x))


def test_recognition():
    L = torch.nn.Linear
    assert len(linear_layers(torch.nn.Sequential(L(3, 2), L(2, 4, bias=False), L(4, 1)))) == 3
    assert linear_layers(torch.nn.Sequential(L(3, 2), torch.nn.ReLU(), L(2, 3))) is None
    assert linear_layers(_HiddenTanh()) is None  # only Linear leaves, but the forward is not their composition
    assert len(linear_layers(_PlainStack())) == 2
    assert linear_layers(torch.nn.Sequential(L(3, 2), torch.nn.Conv1d(1, 1, 1))) is None


def test_exact_twin_is_at_an_exact_minimum_of_the_stated_rank():
    net, X, Y, lam = exact_twin([5, 4, 3, 6], 200, seed=1)
    assert float(half_squared_error(net(X), Y).detach()) == 0.0
    ref = deep_linear_reference(net)
    assert ref["rank_numerical"] == ref["empirical"]["rank"] == 1 and ref["layer_ranks"] == [1, 1, 1]
    assert ref["rank_exact"] > 1 and "not certified" in ref["empirical"]["derivation"]  # rounding: full exact rank
    assert lam == deep_linear_network([5, 4, 3, 6], 1).lam == ref["population"]["lambda"]


def test_check_settings_deterministic_and_refuses_bad_input():
    kw = dict(nbeta=50.0, gamma=1.0, step_size=1e-3, batch_size=32, draws=40, chains=3, n=300, seed=5)
    a = algebra.check_settings([3, 2, 3], **kw)
    b = algebra.check_settings([3, 2, 3], **kw)
    assert [r["estimate"] for r in a["rows"]] == [r["estimate"] for r in b["rows"]]
    c = algebra.check_settings([3, 2, 3], **{**kw, "seed": 6})
    assert [r["estimate"] for r in a["rows"]] != [r["estimate"] for r in c["rows"]]
    assert a["rows"][0]["exact"] == str(deep_linear_network([3, 2, 3], 1).lam)
    for name, value in (("step_size", 0.0), ("chains", 1), ("n", 0), ("module_or_widths", [3])):
        with pytest.raises(InputError, match=name):
            algebra.check_settings(**{"module_or_widths": [3, 2, 3], **kw, name: value})


def test_llc_refuses_bad_input():
    net = torch.nn.Linear(2, 1)
    X, Y = torch.randn(10, 2), torch.randn(10, 1)
    with pytest.raises(InputError, match="module"):
        algebra.llc("net", half_squared_error, (X, Y))
    with pytest.raises(InputError, match="loss_fn"):
        algebra.llc(net, None, (X, Y))
    with pytest.raises(InputError, match="data"):
        algebra.llc(net, half_squared_error, (X, Y[:5]))
    with pytest.raises(InputError, match="sampler"):
        algebra.llc(net, half_squared_error, (X, Y), sampler="hmc")
    with pytest.raises(InputError, match="seed"):
        algebra.llc(net, half_squared_error, (X, Y), seed=-1)


def test_non_minimum_is_suspect_with_that_reason_first():
    """A linear regression moved off its least-squares point: the gradient shift is the first reason."""
    g = torch.Generator().manual_seed(0)
    X = torch.randn(300, 2, generator=g, dtype=torch.float64)
    Y = X @ torch.tensor([[1.0], [-2.0]], dtype=torch.float64) + 0.1 * torch.randn(300, 1, generator=g,
                                                                                  dtype=torch.float64)
    net = torch.nn.Linear(2, 1, bias=False).double()
    with torch.no_grad():
        net.weight.copy_(torch.tensor([[1.5, -1.0]], dtype=torch.float64))
    before = net.weight.detach().clone()
    res = algebra.llc(net, half_squared_error, (X, Y), progress=False, seed=3)
    assert res.verdict == "suspect" and res.reasons[0].startswith("w* is not a minimum")
    assert torch.equal(net.weight, before) and net.weight.dtype == torch.float64
    assert res.target == "empirical" and res.reference["empirical"]["lambda"] == Fraction(1)
    assert np.isfinite(res.estimate) and res.settings["nbeta"] == pytest.approx(300 / np.log(300))


def test_recorded_step_and_gathered_reference_give_the_eager_draws():
    """The step replayed from its recorded graph, with L_b(w*) gathered from per-sample losses at w*, gives the
    draws of the eager step that evaluates L_b(w*) by a forward pass (noisy targets: L_b(w*) != 0), both while
    the preconditioner adapts and once it is frozen."""
    from algebra.numeric.own_network import _Sampler

    net, X, _, _ = exact_twin([4, 3, 4], 300, seed=2)
    Y = net(X).detach() + 0.3 * torch.randn(300, 4, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    runs = []
    for eager in (False, True):
        s = _Sampler(net, half_squared_error, (X, Y), batch_size=32, device=torch.device("cpu"), seed=4, chains=3,
                     nbeta=50.0, gamma=1.0, precondition=True, bar=None)
        if eager:
            s.step.fallback, s.data.star_losses = "test: eager", None
        else:
            assert s.data.star_losses is not None
        ch = s.start()
        runs.append(np.concatenate([ch.run(1e-3, 100, adapt=True)[0], ch.run(1e-3, 70, adapt=False)[0]], axis=1))
        assert eager or (s.step.fallback is None and len(s.step.traces) == 2)  # adapting and frozen
    assert runs[0].shape == (3, 170) and np.all(runs[0] != 0)
    np.testing.assert_allclose(runs[0], runs[1], rtol=1e-8, atol=1e-12)


def test_cli_check_settings_prints_each_twin_and_refuses_bad_options(capsys):
    from algebra.cli import main

    argv = ["llc", "check-settings", "--widths", "3,2,3", "--nbeta", "50", "--gamma", "1", "--step-size", "1e-3",
            "--batch-size", "32", "--draws", "40", "--chains", "3", "--n", "300", "--seed", "5"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    lib = algebra.check_settings([3, 2, 3], nbeta=50.0, gamma=1.0, step_size=1e-3, batch_size=32, draws=40, chains=3,
                                 n=300, seed=5)
    twin_lines = [line.split() for line in text.splitlines() if line.split() and line.split()[0] in ("0", "1")]
    assert [int(t[0]) for t in twin_lines] == [0, 1]
    for r, t in zip(lib["rows"], twin_lines):  # the library's relative error and Laplace value, as printed
        assert t[2] == "7/2" and t[6] == f"{100 * r['relative_error']:+.1f}%" and t[7] == f"{r['laplace']:.4g}"
    assert main(argv + ["--json"]) == 0
    assert [r["estimate"] for r in __import__("json").loads(capsys.readouterr().out)["rows"]] == [
        r["estimate"] for r in lib["rows"]]
    for flag, value in (("--chains", "1"), ("--draws", "4"), ("--widths", "3")):
        i = argv.index(flag) if flag in argv else None
        bad = argv[:i + 1] + [value] + argv[i + 2:]
        assert main(bad) == 2
        assert flag in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(argv[:argv.index("--nbeta") + 1] + ["-5"] + argv[argv.index("--nbeta") + 2:])
    assert "--nbeta" in capsys.readouterr().err


def test_lanczos_quadrature_agrees_with_the_dense_spectrum(monkeypatch):
    """Above DENSE_MAX the Laplace value, rank and extreme eigenvalues come from Lanczos probes; on a twin small
    enough for the dense Hessian both routes are compared (the quadrature within 4 of its standard errors)."""
    from algebra.numeric import own_network as on
    from algebra.numeric.torch_backend import TorchModel

    net, X, Y, lam = exact_twin([10, 12, 8], 400, seed=3, rank=2)
    tm = TorchModel(net, half_squared_error, (X, Y))
    nbeta, gamma = 400 / np.log(400), 0.5
    dense = on._curvature(tm, nbeta, gamma, 0)
    monkeypatch.setattr(on, "DENSE_MAX", 10)
    slq = on._curvature(tm, nbeta, gamma, 0)
    assert dense["spectrum"]["method"] == "dense" and slq["spectrum"]["method"] == "slq"
    assert abs(slq["laplace"] - dense["laplace"]) <= 4 * slq["laplace_stderr"] + 1e-9
    assert slq["top"] == pytest.approx(dense["top"], rel=1e-6)  # the largest Ritz value converges first
    assert slq["lowest"] >= dense["lowest"] - 1e-9  # a Ritz value never passes the spectrum's end
    assert abs(slq["spectrum"]["rank_estimate"] - dense["spectrum"]["rank"]) <= 0.25 * dense["spectrum"]["rank"]
    assert np.all(slq["diag"] >= 0) and slq["diag"].shape == dense["diag"].shape
