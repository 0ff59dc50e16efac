"""Schwartz–Zippel identity tests: they pass true identities and catch false ones."""

import signal
from contextlib import contextmanager

import numpy as np
import pytest

from algebra.engine import dimension
from algebra.engine.identities import (
    ResidueField,
    cramer_fields_hold,
    failure_bound,
    image_equations_hold,
    kernel_fields_hold,
    random_prime,
)
from algebra.exact.field import PrimeField
from algebra.models import MLP, LightningAttention, QueryKey, quadratic_network
from algebra.models.segre_veronese import SecantMap, veronese


class WrongGauge(QueryKey):
    """A query-key model whose gauge fields have the wrong sign on B: not in ker J."""

    def symmetry_fields(self, theta, field):
        S = super().symmetry_fields(theta, field)
        half = self.d * self.k
        S[:, half:] = field.neg(S[:, half:])
        return S


class WrongRank(QueryKey):
    """Claims rank(A B^T) <= k - 1: its bordered minors do not vanish on the image."""

    def _rank_bound(self):
        return self.k - 1


@pytest.mark.parametrize("model", [QueryKey(4, 2), MLP((3, 4, 1), "t^2", bias=True), LightningAttention(3, 2, 2, rank=2),
                                   SecantMap(veronese(3, 2), 2), MLP((2, 3, 2), "t")], ids=str)
def test_built_in_fields_pass(model):
    check = kernel_fields_hold(model, np.random.default_rng(1))
    assert check.holds and check.failure_log2 >= 60


def test_a_wrong_field_is_caught_and_its_rung_dropped():
    assert not kernel_fields_hold(WrongGauge(4, 2), np.random.default_rng(0)).holds
    res = dimension(WrongGauge(4, 2))
    assert any("symmetry rung dropped" in n for n in res.notes)
    assert res.rung != "symmetry" and res.certified and res.dimension == 12  # another rung still proves it


def test_equations_pass_and_a_wrong_one_is_caught():
    assert image_equations_hold(QueryKey(4, 2), np.random.default_rng(0)).holds
    assert not image_equations_hold(WrongRank(4, 2), np.random.default_rng(0)).holds


def test_cramer_identity_fails_off_the_generic_rank():
    """A block from too few samples (rank 6 < 29) does not give kernel fields of J."""
    from algebra.exact.rank import rank_with_witness

    model = quadratic_network(4, 3, 5)
    F = PrimeField(1048573)
    rng = np.random.default_rng(0)
    theta = model.random_point(rng)
    for samples, expected in ((2, False), (12, True)):
        X = model.random_inputs(rng, samples)
        w = rank_with_witness(model.jacobian(theta, X, F), F.p)
        n_out = model.n_outputs

        def jacobians(th, x, G, X=X, w=w):
            return model.jacobian(th, X, G)[list(w.rows)], model.jacobian(th, x, G)

        check = cramer_fields_hold(model, jacobians, w.rows, w.cols, np.random.default_rng(1))
        assert check.holds is expected, (samples, w.rank, n_out)


def test_residue_field_agrees_with_the_prime_field():
    """Identity: the same Jacobian modulo a small prime through both field implementations."""
    model = MLP((3, 2, 2), "t^2 + 1/2*t", bias=True)
    rng = np.random.default_rng(3)
    theta, X = model.random_point(rng), model.random_inputs(rng, 4)
    a = model.jacobian(theta, X, PrimeField(101))
    b = model.jacobian(theta, X, ResidueField(101))
    assert a.tolist() == b.tolist()


def test_random_prime_is_prime_and_reproducible():
    import flint

    q = random_prime(np.random.default_rng(9))
    assert flint.fmpz(q).is_prime() and q.bit_length() == 201
    assert q == random_prime(np.random.default_rng(9))


def test_failure_bound_stays_below_2_to_the_minus_60():
    assert failure_bound(10**6) < 2.0**-119
    assert failure_bound(2**150, 2) < 2.0**-60 < failure_bound(2**150, 1)



@contextmanager
def _hang_guard(cpu_seconds):
    """Turn a hang into a failure (the bugs below looped forever).

    The limit is on this process's CPU time (``ITIMER_PROF``), which a loaded machine does not inflate as
    it does wall-clock time; it is a hang guard far above the work guarded (under 0.3 CPU-seconds), not a
    budget.
    """

    def fail(*_):
        raise AssertionError(f"hung: still running after {cpu_seconds} CPU-seconds")

    previous = signal.signal(signal.SIGPROF, fail)
    signal.setitimer(signal.ITIMER_PROF, cpu_seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def test_an_identity_too_high_to_test_is_refused_not_looped_on():
    """failure_bound(D) >= 1 once D + 1 >= 2^200: _points_needed used to loop forever."""
    from algebra.engine.identities import _points_needed
    from algebra.errors import ResourceError

    with _hang_guard(20):
        with pytest.raises(ResourceError, match="degree"):
            _points_needed(2**200)
        assert _points_needed(2**80) == 1


def test_a_chain_of_huge_joint_degree_skips_the_identity_rungs():
    """`dim mlp --widths 2,1,...,1 --activation t^64` (36 hidden layers, joint degree ~ 64^36) hung in the
    symmetry rung; the identity rungs are now skipped with a note and the bottleneck cut certifies."""
    with _hang_guard(60):
        r = dimension(MLP((2,) + (1,) * 36, "t^64"))
    assert (r.dimension, r.certified, r.rung) == (2, True, "bottleneck")
    assert any("joint degree" in n for n in r.notes)


def test_sparse_combination_equals_the_dense_product():
    """``c^T S`` from the nonzero entries only is the same vector as the dense product over G."""
    from algebra.engine.identities import _combine_rows, _random_vector

    G = ResidueField(random_prime(np.random.default_rng(4)))
    rng = np.random.default_rng(5)
    for shape, density in (((30, 50), 0.1), ((8, 20), 0.0), ((12, 9), 1.0)):
        S = _random_vector(rng, shape[0] * shape[1], G).reshape(shape)
        S[rng.random(shape) >= density] = 0
        c = _random_vector(rng, shape[0], G)
        assert (_combine_rows(c, S, G) == G.matmul(c[None, :], S)[0]).all()


@pytest.mark.parametrize("spec", [((3, 4, 1), "t^2", True), ((3, 4, 1), "t^2", False), ((2, 3, 3, 2), "t", True),
                                  ((3, 5, 4, 1), "t^2", True), ((3, 4, 4, 1), "2*t^3", True), ((2, 3, 2, 1), "t", False)],
                         ids=str)
def test_mlp_symmetry_combination_is_c_transpose_s(spec):
    """Identity: the MLP's combination of its fields equals c^T S of the fields it writes out, over GF(p) and the
    200-bit residue field the identity test uses."""
    from algebra.engine.identities import _combine_rows

    m = MLP(spec[0], spec[1], bias=spec[2])
    rng = np.random.default_rng(5)
    for G in (PrimeField(1048573), ResidueField(random_prime(rng))):
        theta = G.array(m.random_point(rng))
        S = m.symmetry_fields(theta, G)
        c = G.array(rng.integers(1, 10**6, S.shape[0]))
        assert S.shape[0] == m.symmetry_count()
        assert (np.asarray(m.symmetry_combination(theta, c, G)) == np.asarray(_combine_rows(c, S, G))).all()


def test_a_wrong_field_combination_is_caught():
    """The test reads the fields through ``symmetry_combination``: a combination off ker J must fail."""
    class Wrong(MLP):
        def symmetry_combination(self, theta, c, field):
            v = super().symmetry_combination(theta, c, field)
            v[0] = field.add(v[0], c[-1])  # one entry off: no longer in ker J
            return v

    m = Wrong((3, 4, 1), "t^2", bias=True)
    assert kernel_fields_hold(MLP((3, 4, 1), "t^2", bias=True), np.random.default_rng(0)).holds
    assert not kernel_fields_hold(m, np.random.default_rng(0)).holds


def test_residue_matmul_through_flint_equals_the_object_loop():
    """Above FLINT_MATMUL_MIN products the 200-bit matmul goes through fmpz_mat: the same residues as numpy's
    object loop; Fractions (never truncated) stay on numpy's loop."""
    from fractions import Fraction

    from algebra.engine.identities import FLINT_MATMUL_MIN

    rng = np.random.default_rng(2)
    G = ResidueField(random_prime(rng))
    a = G.array(rng.integers(0, 2**62, (30, 20)).astype(object) * (2**140 + 7))
    b = G.array(rng.integers(0, 2**62, (20, 25)).astype(object) * (2**130 + 3))
    assert 30 * 20 * 25 >= FLINT_MATMUL_MIN
    assert (G.matmul(a, b) == np.matmul(a, b) % G.p).all()
    f = a.copy()
    f[0, 0] = Fraction(1, 3)
    expected = np.array([[(Fraction(1, 3) * b[0, j] + sum(a[0, k] * b[k, j] for k in range(1, 20))) % G.p
                          for j in range(25)]], dtype=object)
    assert (G.matmul(f, b)[:1] == expected).all()
