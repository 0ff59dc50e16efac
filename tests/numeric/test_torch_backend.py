"""Tests for the optional torch backend (skipped without torch)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from algebra.numeric.torch_backend import sgld_llc  # noqa: E402


def _data(seed=0, n=2000, d=3):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, d, generator=g, dtype=torch.float64)
    net = torch.nn.Linear(d, 1, bias=False).double()
    with torch.no_grad():
        net.weight.copy_(torch.tensor([[1.0, -0.5, 2.0]], dtype=torch.float64))
    Y = net(X).detach() + torch.randn(n, 1, generator=g, dtype=torch.float64)
    # move the module to the least-squares minimiser (the reference point)
    with torch.no_grad():
        sol = torch.linalg.lstsq(X, Y).solution
        net.weight.copy_(sol.T)
    return net, X, Y


def half_mse(out, y):
    return 0.5 * ((out - y) ** 2).sum(dim=1).mean()


@pytest.mark.slow
def test_regular_linear_model_known_answer():
    """lambda = d/2 = 1.5; full batch, small step (SGLD bias ~ eps nbeta / 4 < 0.3%)."""
    net, X, Y = _data(n=20000)
    est = sgld_llc(net, half_mse, (X, Y), nbeta=200.0, gamma=1.0, step_size=2.5e-4,
                   num_chains=8, num_draws=1500, num_warmup=300, seed=0)
    assert abs(est.estimate - 1.5) < 4 * est.stderr + 0.02, (est.estimate, est.stderr)


def test_same_seed_identical_and_divergence_reported():
    net, X, Y = _data()
    kw = dict(nbeta=100.0, step_size=1e-3, num_chains=3, num_draws=20, batch_size=64)
    a = sgld_llc(net, half_mse, (X, Y), seed=4, **kw)
    b = sgld_llc(net, half_mse, (X, Y), seed=4, **kw)
    assert a.chain_estimates == b.chain_estimates
    # a step far beyond stability: every chain diverges, and the estimator refuses to average
    from algebra.errors import InputError

    with pytest.raises(InputError, match="all chains diverged"):
        sgld_llc(net, half_mse, (X, Y), nbeta=1e5, step_size=1.0, num_chains=2, num_draws=10)


@pytest.mark.slow
def test_agrees_with_numpy_backend():
    """Same model through both backends: estimates agree within their error bars."""
    from algebra.numeric.estimators import estimate_llc
    from algebra.numeric.models import RegressionModel, FactorProduct
    from algebra.numeric.samplers import sample

    net, X, Y = _data(seed=1)
    Xn, Yn = X.numpy(), Y.numpy()
    n = Xn.shape[0]
    model = RegressionModel("linear", FactorProduct((3, 1)), Xn.T @ Xn / n, Xn.T @ Yn / n,
                            float(np.sum(Yn**2) / n), n, net.weight.detach().numpy().ravel().copy())
    run = sample(model, method="sgld", nbeta=200.0, gamma=1.0, step_size=2.5e-4, num_chains=8,
                 num_draws=1500, num_warmup=300, seed=0)
    ours = estimate_llc(run)
    est = sgld_llc(net, half_mse, (X, Y), nbeta=200.0, gamma=1.0, step_size=2.5e-4, num_chains=8,
                   num_draws=1500, num_warmup=300, seed=0)
    assert abs(ours.estimate - est.estimate) < 4 * np.hypot(ours.stderr, est.stderr)


def test_accepts_a_dataloader():
    net, X, Y = _data(n=256)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, Y), batch_size=32,
                                         shuffle=False)
    est = sgld_llc(net, half_mse, loader, nbeta=50.0, step_size=1e-3, num_chains=2, num_draws=12)
    assert est.num_draws >= 8 and np.isfinite(est.estimate)
    assert est.settings["backend"] == "torch" and len(est.chain_spawn_keys) == 2


def test_torch_model_matches_the_numpy_model():
    """TorchModel (a user's module + data + loss) evaluates the same loss, gradient and exact
    Hessian-vector products as the numpy model of the same samples, chunked or not."""
    from algebra.numeric.models import FactorProduct, RegressionModel
    from algebra.numeric.torch_backend import TorchModel

    net, X, Y = _data(n=3000)
    w_star = net.weight.detach().numpy().ravel()
    ref = RegressionModel.from_samples("lin", FactorProduct((3, 1)), X.numpy(), Y.numpy(), w_star)
    W = w_star + 0.1 * np.random.default_rng(0).standard_normal((4, 3))
    for chunk in (None, 700):
        tm = TorchModel(net, half_mse, (X, Y), chunk=chunk)
        loss, grad = tm.loss_and_grad(W)
        ref_loss, ref_grad = ref.loss_and_grad(W)
        assert np.allclose(loss, ref_loss) and np.allclose(grad, ref_grad) and np.allclose(tm.loss(W), ref_loss)
        H = tm.hessian_vector(tm.w_star, np.eye(3))
        assert np.allclose(H, X.numpy().T @ X.numpy() / 3000)  # half MSE of a linear model: H = X^T X / n
    assert tm.n == 3000 and tm.dim == 3


@pytest.mark.slow
def test_torch_model_gets_the_calibrated_procedure():
    """calibrated_llc on a user's module: the same estimate, error bar and verdict machinery.
    n = 20000 caps nbeta at n h / 1000 = 20, one temperature, so the verdict says so; the estimate
    matches the exact tempered value 3/2 * 20/21 of a regular 3-parameter model (measured:
    1.430 +- 0.035 for 1.4286, 16 chains x 400 draws)."""
    from algebra.numeric.calibration import CalibrationSettings, calibrated_llc
    from algebra.numeric.torch_backend import TorchModel

    net, X, Y = _data(n=20000)
    tm = TorchModel(net, half_mse, (X, Y), chunk=5000)
    res = calibrated_llc(tm, settings=CalibrationSettings(num_chains=16, num_draws=400, num_warmup=200,
                                                          draws_growth=1.0), seed=0)
    nb = res.per_temperature[-1].nbeta
    exact = sum(nb * e / (2 * (nb * e + res.gamma)) for e in np.linalg.eigvalsh(tm.hessian_vector(tm.w_star, np.eye(3))))
    assert abs(res.estimate - exact) < 4 * res.stderr
    assert res.laplace[-1] == pytest.approx(exact, rel=1e-6)  # the Laplace reference is exact here
    assert res.verdict == "suspect" and any("too small" in r for r in res.reasons)


@pytest.mark.slow
def test_torch_model_empirical_target():
    """The same module's own-data coefficient (target='empirical'): no cap, d/2 = 3/2 at the least-squares
    point, as the TorchModel docstring's example."""
    from algebra.numeric.calibration import FAST, calibrated_llc
    from algebra.numeric.torch_backend import TorchModel

    net, X, Y = _data(n=2000)  # at the least-squares point
    res = calibrated_llc(TorchModel(net, half_mse, (X, Y)), settings=FAST, seed=0, target="empirical")
    assert res.target == "empirical" and not any("too small" in r for r in res.reasons)
    assert abs(res.estimate - 1.5) < 4 * res.stderr


def test_chain_noise_does_not_depend_on_the_number_of_chains():
    """Chain c's noise stream is child c of the seed, drawn in blocks: the same stream with 2 or
    5 chains, across block boundaries (block 64 here, 150 steps)."""
    from algebra.numeric.torch_backend import _ChainNoise

    def draws(chains):
        xi = _ChainNoise(np.random.SeedSequence(7).spawn(chains), 3, device="cpu", dtype=torch.float64)
        return torch.stack([xi.normal() for _ in range(150)])  # (steps, chains, P)

    two, five = draws(2), draws(5)
    assert torch.equal(two, five[:, :2])
    assert not torch.equal(five[:, 0], five[:, 1])
    assert abs(float(five.std()) - 1.0) < 0.05


def test_batched_gradient_is_each_chains_own():
    """Row c of the batched (vmap forward, autograd backward) gradient is the gradient of the
    module's loss at chain c's parameters, computed the plain way."""
    from algebra.numeric.torch_backend import _FlatModule

    net = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2)).double()
    g = torch.Generator().manual_seed(1)
    x = torch.randn(40, 3, generator=g, dtype=torch.float64)
    y = torch.randn(40, 2, generator=g, dtype=torch.float64)
    flat = _FlatModule(net, half_mse)
    W = flat.star + 0.3 * torch.randn(3, flat.star.numel(), generator=g, dtype=torch.float64)
    values, grads = flat.loss_and_grad(W, x, y)
    for c in range(3):
        with torch.no_grad():
            torch.nn.utils.vector_to_parameters(W[c], net.parameters())
        loss = half_mse(net(x), y)
        expect = torch.cat([t.reshape(-1) for t in torch.autograd.grad(loss, list(net.parameters()))])
        assert torch.allclose(values[c], loss) and torch.allclose(grads[c], expect)


def test_zero_noise_sgld_is_gradient_descent():
    """noise = 0, full batch: the chain is gradient descent on nbeta L + gamma/2 |w - w*|^2 started
    at w*, and draw t is L at the point after num_warmup + t + 1 steps, minus L(w*)."""
    net, X, Y = _data(n=500)
    with torch.no_grad():
        net.weight.add_(0.5)  # start away from the minimiser so the steps move
    nbeta, gamma, eps, warm, draws = 20.0, 3.0, 1e-2, 3, 12
    est = sgld_llc(net, half_mse, (X, Y), nbeta=nbeta, gamma=gamma, step_size=eps, noise=0.0,
                   num_chains=2, num_draws=draws, num_warmup=warm, burnin=0)
    w_star = net.weight.detach().clone()
    w, expect = w_star.clone(), []
    L = lambda w: half_mse(X @ w.T, Y)  # noqa: E731
    for t in range(warm + draws):
        w = w.requires_grad_(True)
        (g,) = torch.autograd.grad(L(w), w)
        w = (w - 0.5 * eps * (nbeta * g + gamma * (w - w_star))).detach()
        if t >= warm:
            expect.append(float(L(w) - L(w_star)))
    assert np.allclose(est.chain_estimates, nbeta * np.mean(expect), rtol=1e-9)


@pytest.mark.slow
def test_compiled_step_gives_the_same_chains():
    """compiled=True runs the same arithmetic through torch.compile: the same draws to rounding."""
    net, X, Y = _data(n=500)
    kw = dict(nbeta=50.0, step_size=1e-3, num_chains=2, num_draws=30, batch_size=32, seed=3)
    eager = sgld_llc(net, half_mse, (X, Y), **kw)
    compiled = sgld_llc(net, half_mse, (X, Y), compiled=True, **kw)
    assert np.allclose(eager.chain_estimates, compiled.chain_estimates, rtol=1e-8)
    assert compiled.settings["compiled"] and not eager.settings["compiled"]


def test_traced_step_gives_the_same_chains():
    """The default traced route replays the eager step's kernels: the same draws, minibatches and all."""
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1)).double()
    _, X, Y = _data(n=400)
    kw = dict(nbeta=50.0, step_size=1e-3, num_chains=3, num_draws=40, batch_size=32, seed=5)
    eager = sgld_llc(net, half_mse, (X, Y), route="eager", **kw)
    traced = sgld_llc(net, half_mse, (X, Y), **kw)
    assert traced.settings["route"] == "traced" and eager.settings["route"] == "eager"
    assert np.allclose(eager.chain_estimates, traced.chain_estimates, rtol=1e-10, atol=0)


class _Branchy(torch.nn.Module):
    """Python control flow on the data: a trace would bake in one branch."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 1, bias=False).double()

    def forward(self, x):
        return self.lin(x) if float(x[:, 0].sum()) > 0 else -self.lin(x)


def test_trace_refused_on_data_dependent_control_flow_falls_back_to_eager():
    _, X, Y = _data(n=400)
    kw = dict(nbeta=50.0, step_size=1e-3, num_chains=2, num_draws=30, batch_size=16, seed=2)
    net = _Branchy()
    traced = sgld_llc(net, half_mse, (X, Y), **kw)
    eager = sgld_llc(net, half_mse, (X, Y), route="eager", **kw)
    assert traced.settings["route"] == "eager"
    assert traced.settings["route_fallback"].startswith("trace failed")
    assert traced.chain_estimates == eager.chain_estimates


def test_unknown_route_is_refused():
    from algebra.errors import InputError

    net, X, Y = _data(n=100)
    with pytest.raises(InputError, match="route"):
        sgld_llc(net, half_mse, (X, Y), nbeta=10.0, route="fast")
