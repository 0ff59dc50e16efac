"""The engine's memory-proportionate routes: row sketch, Jacobian-vector products, and --max-memory.

Each test names the bug it catches: a sketch that is not ``R J`` (a model's
structured sketch drifting from its Jacobian), a sketch that would be reported
as a certificate when it fell short, a JVP that is not ``J v`` (a model whose
``forward`` disagrees with its ``jacobian``), a kernel test that passes a wrong
field, and a size that is allocated instead of refused.
"""

import numpy as np
import pytest

from algebra.cli import main
from algebra.engine import dimension
from algebra.engine.dimension import parse_memory
from algebra.engine.identities import ResidueField, jacobian_vector_product, kernel_fields_hold, random_prime
from algebra.errors import InputError, ResourceError
from algebra.exact.field import PrimeField
from algebra.grokking.references import DataRestrictedQuadratic
from algebra.grokking.task import modular_addition
from algebra.models import MLP, QueryKey, shallow_network

from tests.known_dimensions import KNOWN

Q = 1048573


def _data_model(p=7, K=3, f=1.0, seed=0):
    t = modular_addition(p, f, seed)
    return DataRestrictedQuadratic(p, K, t.a[t.train], t.b[t.train])


@pytest.mark.parametrize("limit", [2.0**52, 2.0**44], ids=["no-reduction", "reduced-between-chunks"])
def test_structured_sketch_is_R_times_the_jacobian_across_chunks(monkeypatch, limit):
    """Replays R chunk by chunk (49 samples: two chunks of 32 and 17) and compares with R @ J over GF(Q)."""
    monkeypatch.setattr(DataRestrictedQuadratic, "_SKETCH_LIMIT", limit)
    m = _data_model()
    F = PrimeField(Q)
    theta = m.random_point(np.random.default_rng(4))
    s = 40
    S = m.jacobian_sketch(theta, F, s, np.random.default_rng(5))
    rng, h, c = np.random.default_rng(5), Q // 2, m._SKETCH_CHUNK
    blocks = [rng.integers(-h, h + 1, size=(s, (min(m.n, i + c) - i) * m.p)) for i in range(0, m.n, c)]
    R = np.concatenate(blocks, axis=1)
    J = m.jacobian(theta, None, F)
    assert len(blocks) == 2 and R.shape == (s, J.shape[0])
    expected = np.zeros((s, J.shape[1]), dtype=np.int64)
    for i in range(0, J.shape[0], 100):  # exact: 100 products below 2^40 each stay below 2^63
        expected = (expected + (R[:, i:i + 100] % Q) @ J[i:i + 100]) % Q
    assert S.dtype == np.float64 and (S == expected).all()


def test_sketched_data_dimension_matches_the_unsketched_rank():
    """rank(R J) = rank(J) here, and the result says a sketch was used; witness=True never sketches."""
    m = _data_model()
    r = dimension(m, seed=2)
    w = dimension(m, seed=2, witness=True)
    assert r.sketch is not None and w.sketch is None
    assert r.sketch["rows"] < r.sketch["jacobian_rows"] == m.n_outputs
    assert r.to_json()["sketch"] == r.sketch and "sketch" not in w.to_json()
    assert r.certified and w.certified and r.dimension == w.dimension == 3 * m.K * m.p - 2 * m.K
    assert w.witness.rank == w.dimension


def test_generic_sketch_in_sample_mode_agrees_with_the_full_rank():
    """A tall sample Jacobian (20 outputs x 30 samples) goes through sketched_rank_mod_p; same certified value."""
    model = MLP((3, 4, 20), "t^2", bias=True)
    r = dimension(model, seed=1, mode="sample", samples=30)
    full = dimension(model, seed=1, mode="sample", samples=30, witness=True)
    assert r.sketch is not None and r.sketch["route"] == "sketched_rank_mod_p"
    assert r.lower_bound == full.lower_bound and r.certified == full.certified


def test_a_sketch_that_falls_short_is_retried_without_it(monkeypatch):
    """A deficient sketch must not end the search: the engine recomputes the unsketched rank and says so."""
    m = _data_model()
    original = DataRestrictedQuadratic.jacobian_sketch

    def short(self, theta, field, rows, rng):
        S = original(self, theta, field, rows, rng)
        S[-9:] = 0  # now rank(S) <= rows - 9 < the symmetry bound
        return S

    monkeypatch.setattr(DataRestrictedQuadratic, "jacobian_sketch", short, raising=True)
    r = dimension(m, seed=2)
    assert r.certified and r.dimension == 3 * m.K * m.p - 2 * m.K
    assert r.sketch is None and any("recomputed without a sketch" in n for n in r.notes)


@pytest.mark.parametrize("name, make, known, tight", KNOWN[:12], ids=[row[0] for row in KNOWN[:12]])
def test_jacobian_vector_product_is_J_v(name, make, known, tight):
    """The forward-only J v equals the Jacobian times v over a 200-bit field, for every family of the table."""
    model = make()
    rng = np.random.default_rng(7)
    G = ResidueField(random_prime(rng))
    theta = G.array([int(v) for v in rng.integers(-2**40, 2**40, model.parameter_count)])
    x = G.array(rng.integers(-50, 50, (1, model.n_inputs))).reshape(1, model.n_inputs)
    v = G.array([int(u) for u in rng.integers(-2**40, 2**40, model.parameter_count)])
    Jv = G.matmul(model.jacobian(theta, x, G), v[:, None]).ravel()
    assert (jacobian_vector_product(model, theta, x, v, G) == Jv).all()


class _WrongField(QueryKey):
    """QueryKey with one symmetry field replaced by a coordinate direction (not in ker J)."""

    def symmetry_fields(self, theta, field):
        S = super().symmetry_fields(theta, field).copy()
        S[0] = field.zeros(S.shape[1])
        S[0, 0] = field.scalar(1)
        return S


@pytest.mark.parametrize("threshold", [0, 10**12], ids=["jvp", "full-jacobian"])
def test_kernel_test_rejects_a_wrong_field_on_both_routes(monkeypatch, threshold):
    import algebra.engine.identities as identities

    monkeypatch.setattr(identities, "JVP_MIN_ENTRIES", threshold)
    assert kernel_fields_hold(QueryKey(4, 2), np.random.default_rng(0)).holds
    assert not kernel_fields_hold(_WrongField(4, 2), np.random.default_rng(0)).holds


def test_memory_limit_refuses_before_allocating_and_names_the_option():
    with pytest.raises(ResourceError, match="max-memory") as info:
        dimension(MLP((30, 60, 60, 1), "t^2"), max_memory=2**20)
    assert info.value.argument == "--max-memory"
    with pytest.raises(ResourceError, match="sketch"):  # the structured sketch is predicted too
        dimension(_data_model(), max_memory=10_000)
    assert dimension(MLP((3, 4, 1), "t^2"), max_memory="1G").certified
    with pytest.raises(InputError, match="max_memory") as bad:  # the API's parameter, as the caller wrote it
        dimension(QueryKey(2, 1), max_memory="lots")
    assert bad.value.argument == "max_memory"


def test_auto_mode_samples_when_the_coefficient_jacobian_would_not_fit():
    """330 monomials x 27 parameters: the coefficient Jacobian (~142 kB) is over the limit, the sample one is not."""
    model = shallow_network(8, 4, 3)
    full = dimension(model)
    assert full.mode == "coefficient"
    r = dimension(model, max_memory=100_000)
    assert r.mode == "sample" and r.certified and r.dimension == full.dimension
    with pytest.raises(ResourceError, match="max-memory"):
        dimension(model, mode="coefficient", max_memory=100_000)


@pytest.mark.parametrize("text, value", [("8G", 8 * 2**30), ("8GiB", 8 * 2**30), ("512m", 512 * 2**20),
                                         ("123", 123), (" 2K ", 2048), (0, 0)])
def test_parse_memory(text, value):
    assert parse_memory(text) == value


@pytest.mark.parametrize("bad", ["", "G", "-1G", "1e30T", "nan", True])
def test_parse_memory_refuses(bad):
    with pytest.raises(InputError, match="max-memory"):
        parse_memory(bad)


def test_cli_max_memory(capsys):
    assert main(["dim", "--max-memory", "1M", "mlp", "--widths", "30,60,60,1", "--activation", "t^2"]) == 2
    assert "--max-memory" in capsys.readouterr().err
    assert main(["grok", "dim", "--p", "5", "--width", "2", "--max-memory", "1K", "--no-coefficient-space"]) == 2
    assert "--max-memory" in capsys.readouterr().err
    assert main(["grok", "dim", "--p", "5", "--width", "2", "--max-memory", "1G", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"certified": true' in out and '"sketch"' in out


def test_few_rows_are_not_sketched():
    """Sample mode with about as many rows as the bound: the plain rank, equal to the coefficient-mode one."""
    model = shallow_network(3, 3, 4)
    r = dimension(model, mode="sample", seed=3)
    assert r.sketch is None and r.certified
    assert r.lower_bound == dimension(model, mode="coefficient", seed=3).lower_bound == 10


def test_jacobian_vector_product_of_the_data_restricted_map():
    """The grokking model's identity test runs through J v (its J is too large over a 200-bit field)."""
    model = _data_model(5, 2, 0.6)
    rng = np.random.default_rng(8)
    G = ResidueField(random_prime(rng))
    theta = G.array([int(v) for v in rng.integers(-2**40, 2**40, model.parameter_count)])
    v = G.array([int(u) for u in rng.integers(-2**40, 2**40, model.parameter_count)])
    x = np.zeros((1, 0), dtype=np.int64)
    Jv = G.matmul(model.jacobian(theta, x, G), v[:, None]).ravel()
    assert (jacobian_vector_product(model, theta, x, v, G) == Jv).all()


def test_cramer_rung_skipped_when_its_residue_jacobian_would_not_fit(monkeypatch):
    """Alexander-Hirschowitz (3, 4, 5) needs the Cramer rung; when its 200-bit Jacobian would not fit it is skipped.

    (Its 15 x 15 Jacobian is tiny; the bytes per 200-bit entry are raised so that the rank fits and the test does not.)
    """
    import importlib

    engine = importlib.import_module("algebra.engine.dimension")  # the package attribute is the function
    model = shallow_network(3, 4, 5)
    assert dimension(model, max_memory=60_000).rung == "cramer"
    monkeypatch.setattr(engine, "RESIDUE_BYTES_PER_ENTRY", 1000)
    r = dimension(model, max_memory=60_000)
    assert not r.certified and any("cramer rung skipped" in n and "--max-memory" in n for n in r.notes)
