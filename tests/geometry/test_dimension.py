"""Every route (coefficient mode, sample mode, mod p, over Q, float SVD) agrees on the known table."""

import numpy as np
import pytest

from algebra.errors import InputError, ResourceError
from algebra.exact.field import FloatField
from algebra.exact.rank import rank_float
from algebra.geometry.dimension import dimension
from algebra.models import MLP, QueryKey, shallow_network

from tests.known_dimensions import KNOWN

IDS = [row[0] for row in KNOWN]


@pytest.mark.parametrize("name, make, known, tight", KNOWN, ids=IDS)
def test_mod_p_routes_agree_with_theorem(name, make, known, tight):
    model = make()
    res = dimension(model, seed=1)
    assert res.lower_bound == known
    assert res.lower_bound <= res.upper_bound <= min(res.ambient_dimension, res.parameter_count)
    if tight:
        assert res.certified and res.upper_bound == known
    if model.n_inputs:
        for mode in ("sample", "coefficient"):
            assert dimension(model, seed=2, mode=mode).lower_bound == known, mode


@pytest.mark.parametrize("name, make, known, tight", [r for r in KNOWN if r[1]().parameter_count <= 30], ids=[r[0] for r in KNOWN if r[1]().parameter_count <= 30])
def test_rank_over_q_agrees(name, make, known, tight):
    res = dimension(make(), seed=3, prime=None)
    assert res.prime is None and res.lower_bound == known


@pytest.mark.parametrize("name, make, known, tight", KNOWN, ids=IDS)
def test_float_svd_agrees(name, make, known, tight):
    model = make()
    rng = np.random.default_rng(4)
    theta = rng.standard_normal(model.parameter_count)
    M = 1 if model.n_inputs == 0 else 2 * model.ambient_dimension() // model.n_outputs + 2
    M = min(M, 200)
    X = rng.standard_normal((M, model.n_inputs)) if model.n_inputs else np.zeros((1, 0))
    J = model.jacobian(theta, X, FloatField())
    assert rank_float(J) == known


def test_result_fields_and_seed_reproducibility():
    a = dimension(shallow_network(3, 3, 3), seed=7, witness=True).to_json()
    b = dimension(shallow_network(3, 3, 3), seed=7, witness=True).to_json()
    a.pop("seconds"), b.pop("seconds")
    assert a == b
    for key in ("dimension", "lower_bound", "upper_bound", "certified", "ambient_dimension", "parameter_count",
                "expected_dimension", "mode", "prime", "seed", "seconds", "witness"):
        assert key in dimension(QueryKey(3, 2), witness=True).to_json()


def test_sample_mode_escalates_to_reach_the_bound():
    # too few samples cannot show the dimension; auto mode must grow M
    model = MLP((3, 4, 1), "t^2", bias=True)
    fixed = dimension(model, mode="sample", samples=3)
    auto = dimension(model, mode="sample")
    assert fixed.lower_bound <= 3 < auto.lower_bound == auto.upper_bound == 10


def test_bad_arguments_are_refused():
    with pytest.raises(InputError, match="mode"):
        dimension(QueryKey(2, 1), mode="exact")
    with pytest.raises(InputError, match="seed"):
        dimension(QueryKey(2, 1), seed=-1)
    with pytest.raises(InputError, match="prime"):
        dimension(QueryKey(2, 1), prime=15)
    with pytest.raises(ResourceError):
        dimension(MLP((200, 2000, 1), "t^2"), max_entries=10**6)


@pytest.mark.parametrize("name, make, known, tight", KNOWN, ids=IDS)
def test_independent_checker_agrees(name, make, known, tight):
    """The last route: a certificate of the known value, replayed by the checker that imports nothing of ours."""
    from algebra.certify.emit import dimension_certificate
    from algebra.checker import check

    e = dimension_certificate(make(), claimed=known)
    assert e.lower == known and e.verdict == "confirmed"
    reason = check(e.certificate)
    assert f"rank >= {known}" in reason
    if e.upper is not None:
        assert e.upper == known and f"rank <= {known}" in reason
