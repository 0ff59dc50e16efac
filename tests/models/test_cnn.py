"""Polynomial CNNs: forward against a loop reference, exact Jacobians, symmetries, linear-CNN dimensions, M2 cross-check."""

from __future__ import annotations

import shutil
import subprocess
from fractions import Fraction

import numpy as np
import pytest

from algebra.errors import InputError
from algebra.exact.field import DEFAULT_PRIME, PrimeField, RationalField
from algebra.exact.rank import rank_mod_p, rank_over_q
from algebra.models.cnn import CNN, cnn_from_text, end_to_end_filter_size, parse_shape

try:  # the engine moves to algebra.engine; either location serves
    from algebra.engine import dimension
except ImportError:  # pragma: no cover - before the move
    from algebra.geometry.dimension import dimension

MODELS = [
    ("linear 1-D", lambda: CNN(8, [3, 2, 4], activations="t")),
    ("strided channels bias", lambda: CNN(7, [3, 2], channels=(2, 3, 2), strides=[2, 1], activations="t^2+t", bias=True)),
    ("2-D dense cubic", lambda: CNN((5, 6), [(2, 3), (2, 2)], channels=(1, 2, 1), activations="t^3", dense=2, bias=True)),
    ("2-D linear gauge", lambda: CNN((6, 6), [(3, 3), (2, 2)], channels=(1, 2, 2), strides=[(1, 2), 1], activations="t", dense=1)),
    ("mixed activations", lambda: CNN(9, [2, 3, 2], channels=(1, 3, 2, 2), strides=[2, 1, 1], activations=["t^2", "2*t"])),
    ("inactive channel", lambda: CNN(6, [2, 2], channels=(1, 3, 1), activations="t^2", inactive={1: [1]})),
    ("figure 6", lambda: CNN(3, [2], activations="t^2", dense=1)),
    ("2-D strided outputs", lambda: CNN((5, 5), [(2, 2), (2, 2)], channels=(2, 2, 2), strides=[(2, 1), 1],
                                        activations="t^2 + 1", bias=True)),
]
IDS = [m[0] for m in MODELS]


def _reference_forward(model: CNN, theta, x) -> list:
    """The network by its definition, with nested loops over channels, positions and taps (over Q)."""
    blocks = model.unpack(np.array([Fraction(int(v)) for v in theta], dtype=object))
    c = model.effective_channels
    a = np.array([Fraction(int(v)) for v in x], dtype=object).reshape((c[0],) + model.input_shape)
    for l in range(1, model.n_layers + 1):
        W, k, s = blocks[f"W{l}"], model.filters[l - 1], model.strides[l - 1]
        out_shape = tuple((n - kk) // ss + 1 for n, kk, ss in zip(a.shape[1:], k, s))
        z = np.empty((c[l],) + out_shape, dtype=object)
        for co in range(c[l]):
            for p in np.ndindex(out_shape):
                total = blocks[f"b{l}"][co] if model.bias else Fraction(0)
                for ci in range(c[l - 1]):
                    for u in np.ndindex(k):
                        total += W[(co, ci) + u] * a[(ci,) + tuple(ss * pp + uu for ss, pp, uu in zip(s, p, u))]
                z[(co,) + p] = total
        if l in model.activated:
            cs = model.activations[model.activated.index(l)]
            z = np.vectorize(lambda v: sum(Fraction(q) * v**i for i, q in enumerate(cs)), otypes=[object])(z)
        a = z
    flat = a.ravel()
    if model.dense:
        flat = blocks["D"].dot(flat) + (blocks["bD"] if model.bias else 0)
    return list(flat)


@pytest.mark.parametrize("name, make", MODELS, ids=IDS)
def test_forward_matches_loop_reference_and_prime_field(name, make):
    model = make()
    rng = np.random.default_rng(1)
    theta, X = model.random_point(rng, bound=6), model.random_inputs(rng, 3, bound=6)
    out = model.forward(theta, X, RationalField())
    assert out.shape == (3, model.n_outputs)
    for i in range(3):
        assert list(out[i]) == _reference_forward(model, theta, X[i])
    p = 101
    modp = model.forward(theta, X, PrimeField(p))
    assert modp.tolist() == [[int(v) % p for v in row] for row in out]


@pytest.mark.parametrize("name, make", MODELS, ids=IDS)
def test_jacobian_is_the_exact_derivative(name, make):
    """Column j equals d/dt f(theta + t e_j) at 0, by exact Lagrange differentiation on deg+1 nodes."""
    model = make()
    Q = RationalField()
    rng = np.random.default_rng(2)
    theta, X = model.random_point(rng, bound=5), model.random_inputs(rng, 2, bound=5)
    J = model.jacobian(theta, X, Q)
    assert J.shape == (2 * model.n_outputs, model.parameter_count)
    deg = max(model.degree, 1) + 1  # degree in one parameter is at most deg_x + 1 here
    nodes = list(range(-(deg // 2) - 1, deg // 2 + 2))
    weights = []
    for i, ti in enumerate(nodes):
        others = [t for t in nodes if t != ti]
        denom = np.prod([Fraction(ti - t) for t in others])
        total = sum(np.prod([Fraction(-t) for m, t in enumerate(others) if m != k]) for k in range(len(others)))
        weights.append(Fraction(total) / denom)
    for j in range(model.parameter_count):
        deriv = 0
        for w, t in zip(weights, nodes):
            th = theta.astype(object)
            th[j] += t
            deriv = deriv + model.forward(th, X, Q).ravel() * w
        assert list(deriv) == list(J[:, j]), j


@pytest.mark.parametrize("name, make", MODELS, ids=IDS)
def test_symmetry_fields_are_independent_kernel_witnesses(name, make):
    """J X_j = 0 at a random point on many samples, and the fields have full rank there."""
    model = make()
    F = PrimeField(DEFAULT_PRIME)
    rng = np.random.default_rng(3)
    theta = model.random_point(rng)
    X = model.random_inputs(rng, 12)
    S = model.symmetry_fields(theta, F)
    assert S.shape == (model.symmetry_count(), model.parameter_count)
    assert len(model.symmetry_names()) == (len([a for a in model.activations if sum(1 for c in a if c) == 1]))
    if S.shape[0]:
        J = model.jacobian(theta, X, F)
        assert not np.any(F.matmul(J, S.T))
        assert rank_mod_p(S, F.p) == S.shape[0]


def test_a_wrong_field_is_caught():
    """The kernel test above can fail: the rescaling with the wrong exponent leaves J X != 0."""
    model = CNN(6, [2, 2], activations="t^3")
    F = PrimeField(DEFAULT_PRIME)
    rng = np.random.default_rng(0)
    theta, X = model.random_point(rng), model.random_inputs(rng, 5)
    S = model.symmetry_fields(theta, F)
    bad = S[0].copy()
    bad[2:] = F.mul(bad[2:], pow(3, -1, F.p) * 2 % F.p)  # -2 W2 instead of -3 W2
    assert np.any(F.matmul(model.jacobian(theta, X, F), bad[:, None]))


# -- linear CNNs (Kohn, Merkh, Montufar, Trager 2022) ------------------------------------------------

#: (filters, strides): the dimension is 1 + sum(k_l - 1) in every case; the end-to-end filter has
#: that many taps only when the strides are 1 (filling), more otherwise (a lower-dimensional set).
LINEAR_CASES = [
    ((2,), None), ((3,), None), ((2, 2), None), ((3, 2, 4), None), ((2, 2, 2, 2), None), ((5, 3), None),
    ((4, 4, 4), None), ((2, 3, 2, 3, 2), None),
    ((2, 2), (2, 2)), ((3, 2, 4), (2, 2, 2)), ((3, 2, 4), (1, 2, 2)), ((5, 3), (2, 2)), ((4, 4, 4), (3, 1, 1)),
]


@pytest.mark.parametrize("filters, strides", LINEAR_CASES, ids=[f"{f}-{s}" for f, s in LINEAR_CASES])
def test_linear_cnn_dimension_formula(filters, strides):
    n = end_to_end_filter_size(filters, strides) + 2  # two or more output positions
    res = dimension(CNN(n, filters, strides=strides, activations="t"))
    formula = 1 + sum(k - 1 for k in filters)
    assert res.certified and res.dimension == formula
    filling = end_to_end_filter_size(filters, strides) == formula
    assert filling == (strides is None or all(s == 1 for s in strides[:-1]) or len(filters) == 1)


@pytest.mark.parametrize("filters, strides", [((3, 2, 4), None), ((2, 3), (2, 1)), ((2, 2, 3), (2, 3, 1))])
def test_linear_cnn_is_one_convolution_with_the_product_filter(filters, strides):
    """w_1(x) w_2(x^{s_1}) ...: the forward pass equals one strided correlation with that filter."""
    strides = strides or (1,) * len(filters)
    n = end_to_end_filter_size(filters, strides) + 5
    model = CNN(n, filters, strides=strides, activations="t")
    rng = np.random.default_rng(4)
    theta, X = model.random_point(rng, bound=9), model.random_inputs(rng, 2, bound=9)
    ws = [w.ravel().astype(np.int64) for w in model.unpack(theta).values()]
    e2e, step = ws[0], 1
    for w, s in zip(ws[1:], strides[:-1]):
        step *= s
        dilated = np.zeros((len(w) - 1) * step + 1, dtype=np.int64)
        dilated[::step] = w
        e2e = np.convolve(e2e, dilated)
    assert len(e2e) == end_to_end_filter_size(filters, strides)
    total_stride = int(np.prod(strides))
    out = model.forward(theta, X, RationalField())
    for x, row in zip(X, out):
        expect = [int(np.dot(e2e, x[total_stride * p : total_stride * p + len(e2e)])) for p in range(len(row))]
        assert [int(v) for v in row] == expect


def test_ambient_counts_the_monomials_that_occur():
    """Stride 3 skips x_2 and x_5, and no monomial spans two windows: 6 monomials, not binom(7, 2)."""
    m = CNN(6, [2], strides=[3], activations="t^2", dense=1)
    assert m.receptive_fields() == [[0, 1, 3, 4]]
    assert m.ambient_dimension() == 6
    res = dimension(m)
    assert res.certified and res.dimension == 3


@pytest.mark.parametrize("name, make", [m for m in MODELS if m[0] != "2-D dense cubic"], ids=[i for i in IDS if i != "2-D dense cubic"])
def test_ambient_contains_the_span(name, make):
    """Outputs at many random parameters span at most the ambient space (equality where the support is reached)."""
    model = make()
    F = PrimeField(DEFAULT_PRIME)
    rng = np.random.default_rng(6)
    amb = model.ambient_dimension()
    X = model.random_inputs(rng, amb + 8)
    rows = [model.forward(model.random_point(rng), X, F).ravel() for _ in range(amb + 8)]
    span = rank_mod_p(np.array(rows), F.p)
    assert span <= amb
    if name in ("figure 6", "linear 1-D", "strided channels bias", "inactive channel"):
        assert span == amb


def test_dimension_over_q_agrees_with_mod_p():
    m = CNN(5, [2, 2], channels=(1, 2, 1), activations="t^2+t", bias=True)
    assert dimension(m, prime=None).dimension == dimension(m).dimension


# -- input validation --------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, argument", [
    (dict(input="8", filters="9"), "--filters"),
    (dict(input="8", filters="3,2", strides="1,0"), "--strides"),
    (dict(input="٨", filters="3"), "--input"),
    (dict(input="8", filters="3,²"), "--filters"),
    (dict(input="8", filters="3,2", channels="1,2"), "--channels"),
    (dict(input="8", filters="3,2", channels="1,٢,1"), "--channels"),
    (dict(input="8", filters="3,2", strides="1"), "--strides"),
    (dict(input="8", filters="3x3"), "--filters"),
    (dict(input="6x6", filters="3x3,5x5"), "--filters"),
    (dict(input="8", filters="3,2", activation="t^2;t^3"), "--activation"),
    (dict(input="8", filters="3,2", activation="x^2"), "--activation"),
    (dict(input="8", filters="3,2", channels="1,2,1", inactive="1:0,1:1"), "--inactive"),
    (dict(input="8", filters="3,2", inactive="2:0"), "--inactive"),
])
def test_bad_text_names_the_argument(kwargs, argument):
    with pytest.raises(InputError) as info:
        cnn_from_text(**kwargs)
    assert info.value.argument == argument


def test_bad_constructor_arguments():
    for kwargs, argument in [
        (dict(input_shape=0, filters=[1]), "input_shape"),
        (dict(input_shape=(2, 2, 2), filters=[1]), "input_shape"),
        (dict(input_shape=4, filters=[]), "filters"),
        (dict(input_shape=4, filters=[2], strides=[True]), "strides"),
        (dict(input_shape=4, filters=[2], channels=(1, 0)), "channels"),
        (dict(input_shape=4, filters=[2], dense=0), "dense"),
        (dict(input_shape=4, filters=[2], bias=1), "bias"),
        (dict(input_shape=4, filters=[2, 2], activations=["t", "t"]), "activations"),
    ]:
        with pytest.raises(InputError) as info:
            CNN(**kwargs)
        assert info.value.argument == argument, kwargs
    assert parse_shape("6X6") == (6, 6)


def test_two_d_text_and_spec():
    m = cnn_from_text("6x6", "3x3,2x2", channels="1,2,1", strides="1,1", activation="t^2", bias=True)
    assert m.input_shape == (6, 6) and m.output_shape == (3, 3) and m.n_inputs == 36 and m.n_outputs == 9
    assert m.spec()["channels"] == [1, 2, 1] and m.spec()["bias"] is True
    sub = cnn_from_text("8", "3,2", channels="1,3,1", inactive="1:2")
    assert sub.effective_channels == (1, 2, 1) and sub.spec()["inactive"] == {"1": [2]}


# -- independent cross-checks: sympy here, Macaulay2 where installed -------------------------------------

#: Small polynomial CNNs for the cross-checks (specs written out, not built by the code under test).
CROSS_CHECK = [
    CNN(3, [2], activations="t^2", dense=1),
    CNN(4, [2, 2], activations="t^2"),
    CNN(5, [3, 2], activations="t^2"),
    CNN(4, [2, 2], activations="t^3"),
    CNN(4, [2], channels=(1, 2), activations="t^2", dense=1),
    CNN(5, [2, 2], channels=(1, 2, 1), activations="t^2"),
    CNN(5, [2, 2], strides=[2, 1], activations="t^2", dense=1),
    CNN(4, [2, 2], activations="t^2+t"),
    CNN(3, [2], activations="t^2", dense=1, bias=True),
    CNN((3, 3), [(2, 2)], activations="t^2", dense=1),
    CNN((3, 3), [(2, 2), (2, 2)], activations="t^2"),
    CNN(4, [2, 2], channels=(2, 1, 1), activations="t^2"),
]


def _network_program(spec: dict) -> tuple:
    """The network as straight-line code from its spec: ``(P, N, assignments, outputs)``.

    Assignments are ``(name, "lin", [(param, source)], bias_param)`` or
    ``(name, "act", coefficients, source)``; parameters are 0-based indices
    into the documented layout, sources are input names ``x{i}`` or earlier names.
    """
    shape, ch, L = tuple(spec["input"]), spec["channels"], len(spec["filters"])
    cur = {(c, p): f"x{c * int(np.prod(shape)) + i}" for c in range(ch[0]) for i, p in enumerate(np.ndindex(shape))}
    k, prog = 0, []
    for l in range(1, L + 1):
        f, s = tuple(spec["filters"][l - 1]), tuple(spec["strides"][l - 1])
        out = tuple((n - a) // b + 1 for n, a, b in zip(shape, f, s))
        wbase = k
        k += ch[l] * ch[l - 1] * int(np.prod(f))
        bbase = k if spec["bias"] else None
        k += ch[l] if spec["bias"] else 0
        nxt = {}
        for co in range(ch[l]):
            for p in np.ndindex(out):
                terms, idx = [], wbase + co * ch[l - 1] * int(np.prod(f))
                for ci in range(ch[l - 1]):
                    for u in np.ndindex(f):
                        terms.append((idx, cur[(ci, tuple(a * b + c for a, b, c in zip(s, p, u)))]))
                        idx += 1
                name = f"z{l}c{co}p{'q'.join(map(str, p))}"
                prog.append((name, "lin", terms, None if bbase is None else bbase + co))
                if l < L or spec["dense"]:
                    prog.append(("a" + name[1:], "act", _coeffs_of(spec["activations"][l - 1]), name))
                    name = "a" + name[1:]
                nxt[(co, p)] = name
        cur, shape = nxt, out
    outputs = [cur[(c, p)] for c in range(ch[L]) for p in np.ndindex(shape)]
    if spec["dense"]:
        feats, outs = outputs, []
        dbase = k
        k += spec["dense"] * len(feats)
        bbase = k if spec["bias"] else None
        k += spec["dense"] if spec["bias"] else 0
        for o in range(spec["dense"]):
            prog.append((f"y{o}", "lin", [(dbase + o * len(feats) + q, v) for q, v in enumerate(feats)],
                         None if bbase is None else bbase + o))
            outs.append(f"y{o}")
        outputs = outs
    return k, ch[0] * int(np.prod(tuple(spec["input"]))), prog, outputs


def _coeffs_of(text: str) -> list:
    from algebra.models.polynomial import parse_univariate

    return parse_univariate(text)


def _sympy_dimension(spec: dict, seed: int) -> int:
    """Rank of the coefficient Jacobian at a random integer point, with sympy and flint (exact over Q)."""
    sympy = pytest.importorskip("sympy")
    P, N, prog, outputs = _network_program(spec)
    t = sympy.symbols(f"t0:{P}")
    x = sympy.symbols(f"x0:{N}")
    env = {f"x{i}": x[i] for i in range(N)}
    for name, kind, data, extra in prog:
        if kind == "lin":
            e = sum(t[j] * env[src] for j, src in data)
            env[name] = e + (t[extra] if extra is not None else 0)
        else:
            env[name] = sum(sympy.Rational(c.numerator, c.denominator) * env[extra] ** i for i, c in enumerate(data))
    rows = []
    for o in outputs:
        poly = sympy.Poly(sympy.expand(env[o]), *x)
        rows += [c for c in poly.coeffs()]
    rng = np.random.default_rng(seed)
    point = {s: int(v) for s, v in zip(t, rng.integers(-10**6, 10**6, size=P))}
    J = np.array([[sympy.diff(c, s).subs(point) for s in t] for c in rows], dtype=object)
    return rank_over_q(np.array([[Fraction(int(sympy.Rational(v).p), int(sympy.Rational(v).q)) for v in r] for r in J],
                                dtype=object))


def macaulay2_script(spec: dict, seed: int) -> str:
    """A Macaulay2 script computing the dimension independently: the CNN written out from its spec, the
    coefficient Jacobian by M2's ``coefficients`` and ``jacobian``, its rank over QQ at a random point."""
    P, N, prog, outputs = _network_program(spec)
    t = lambda j: f"t_{j + 1}"  # noqa: E731
    names = {f"x{i}": f"x_{i + 1}" for i in range(N)}
    lines = [f"-- neuroalgebra CNN cross-check: {spec}", f"R = QQ[t_1..t_{P}, x_1..x_{N}];"]
    for name, kind, data, extra in prog:
        if kind == "lin":
            expr = " + ".join(f"{t(j)}*{names[src]}" for j, src in data) + (f" + {t(extra)}" if extra is not None else "")
        else:
            expr = " + ".join(f"({c.numerator}/{c.denominator})*{names[extra]}^{i}" for i, c in enumerate(data) if c)
        names[name] = name
        lines.append(f"{name} = {expr};")
    rng = np.random.default_rng(seed)
    point = ", ".join(f"{int(v)}_QQ" for v in rng.integers(-10**6, 10**6, size=P)) + ", 0_QQ" * N
    lines += [
        f"F = matrix{{{{{', '.join(outputs)}}}}};",
        f"C = last coefficients(F, Variables => {{{', '.join(f'x_{i + 1}' for i in range(N))}}});",
        "J = jacobian matrix{flatten entries C};",
        f"phi = map(QQ, R, {{{point}}});",
        "J0 = matrix apply(entries J, row -> apply(row, e -> phi e));",
        "r = rank J0;",
        'print("dimension: " | toString r);',
        "exit 0",
    ]
    return "\n".join(lines) + "\n"


def test_program_reproduces_the_model():
    """The cross-checks' straight-line program (from the spec alone) computes what the model computes."""
    for model in CROSS_CHECK[:4] + [MODELS[1][1](), MODELS[2][1]()]:
        P, N, prog, outputs = _network_program(model.spec())
        assert (P, N) == (model.parameter_count, model.n_inputs)
        rng = np.random.default_rng(5)
        theta, X = model.random_point(rng, bound=4), model.random_inputs(rng, 2, bound=4)
        for x, row in zip(X, model.forward(theta, X, RationalField())):
            env = {f"x{i}": Fraction(int(v)) for i, v in enumerate(x)}
            for name, kind, data, extra in prog:
                if kind == "lin":
                    env[name] = sum(int(theta[j]) * env[s] for j, s in data) + (int(theta[extra]) if extra is not None else 0)
                else:
                    env[name] = sum(c * env[extra] ** i for i, c in enumerate(data))
            assert [env[o] for o in outputs] == list(row)


@pytest.mark.parametrize("model", CROSS_CHECK, ids=lambda m: str(m.spec()["input"]) + str(m.spec()["filters"]))
def test_sympy_coefficient_rank_agrees(model):
    res = dimension(model)
    assert res.certified
    assert _sympy_dimension(model.spec(), seed=11) == res.dimension


@pytest.mark.slow  # a peer CAS: the default run's length must not depend on which programs a machine has
@pytest.mark.skipif(shutil.which("M2") is None, reason="Macaulay2 is not installed")
@pytest.mark.parametrize("model", CROSS_CHECK, ids=lambda m: str(m.spec()["input"]) + str(m.spec()["filters"]))
def test_macaulay2_agrees(model, tmp_path):
    res = dimension(model)
    path = tmp_path / "cnn.m2"
    path.write_text(macaulay2_script(model.spec(), seed=13))
    out = subprocess.run(["M2", "--script", str(path)], capture_output=True, text=True, timeout=300).stdout
    assert f"dimension: {res.dimension}" in out, out[-500:]
    assert res.certified


def test_macaulay2_script_shape():
    """What the skipped test would run: every program line is an assignment, outputs and point are complete."""
    model = CROSS_CHECK[5]
    text = macaulay2_script(model.spec(), seed=13)
    P, N, prog, outputs = _network_program(model.spec())
    assert f"R = QQ[t_1..t_{P}, x_1..x_{N}];" in text
    point = next(line for line in text.splitlines() if line.startswith("phi = map(QQ, R, {"))
    assert point.split("{")[1].count(",") == P + N - 1
    assert text.count(" = ") == len(prog) + 7 and f"F = matrix{{{{{', '.join(outputs)}}}}};" in text


# -- the command line (`neuroalgebra dim cnn`) ------------------------------------------------------


def _cli(argv, capsys):
    from algebra.cli import main

    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("filters", ["2", "3,2", "3,2,4", "2,2,2,2", "5,3", "4,4,4"])
def test_dim_cnn_certifies_the_linear_formula(filters, capsys):
    import json

    ks = [int(k) for k in filters.split(",")]
    n = end_to_end_filter_size(ks) + 3
    rc, out, _ = _cli(["dim", "cnn", "--input", str(n), "--filters", filters, "--activation", "t", "--json"], capsys)
    res = json.loads(out)
    assert rc == 0 and res["certified"] and res["dimension"] == 1 + sum(k - 1 for k in ks)


def test_dim_cnn_has_the_keys_of_every_family(capsys):
    import json

    rc, out, _ = _cli(["dim", "cnn", "--input", "6x6", "--filters", "3x3,2x2", "--channels", "1,2,1", "--activation",
                       "t^2", "--bias", "--json"], capsys)
    cnn = json.loads(out)
    rc2, out2, _ = _cli(["dim", "qk", "--d", "3", "--k", "2", "--json"], capsys)  # also certified by the symmetry rung
    qk = json.loads(out2)
    assert rc == rc2 == 0 and cnn["rung"] == qk["rung"] == "symmetry" and set(cnn) == set(qk)
    assert cnn["model"]["family"] == "cnn" and cnn["certified"] and cnn["dimension"] == 27


@pytest.mark.parametrize("argv, argument", [
    (["--input", "8", "--filters", "9"], "--filters"),
    (["--input", "8", "--filters", "3,2", "--strides", "1,0"], "--strides"),
    (["--input", "٨", "--filters", "3"], "--input"),
    (["--input", "8", "--filters", "3,٢"], "--filters"),
    (["--input", "8", "--filters", "3,2", "--channels", "1,2"], "--channels"),
    (["--input", "8", "--filters", "3", "--dense", "0"], "--dense"),
])
def test_dim_cnn_bad_input_exits_2_naming_the_argument(argv, argument, capsys):
    try:
        rc, _, err = _cli(["dim", "cnn"] + argv, capsys)
    except SystemExit as exc:  # argparse's own type errors
        rc, err = exc.code, capsys.readouterr().err
    assert rc == 2 and f"invalid {argument}=" in err


def test_ambient_bounds_bracket_the_count_on_random_networks():
    # the cheap (low, high) a refusal reads before any receptive field is built must bracket the exact count
    import random

    from algebra.models.cnn import CNN

    rng = random.Random(7)
    checked = 0
    for _ in range(150):
        nd, L = rng.choice((1, 2)), rng.randint(1, 3)
        shape = tuple(rng.randint(4, 9) for _ in range(nd))
        filters = [tuple(rng.randint(1, 3) for _ in range(nd)) for _ in range(L)]
        strides = [tuple(rng.randint(1, 2) for _ in range(nd)) for _ in range(L)]
        dense = rng.choice((None, 1, 2))
        acts = ";".join(rng.choice(("t^2", "t+t^2", "t^3", "t", "2", "t^2+1")) for _ in range(L if dense else L - 1))
        one = (lambda v: v if nd == 2 else v[0])
        try:
            m = CNN(one(shape), [one(f) for f in filters], channels=tuple(rng.randint(1, 2) for _ in range(L + 1)),
                    strides=[one(s) for s in strides], activations=acts or "t^2", dense=dense, bias=rng.random() < 0.3)
        except InputError:
            continue
        low, high = m.ambient_bounds()
        assert low <= m.ambient_dimension() <= high, (shape, filters, strides, dense, acts)
        checked += 1
    assert checked > 50
