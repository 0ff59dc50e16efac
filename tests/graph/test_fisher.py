"""Score-space Fisher, isotypic projectors and Assumption 1 (algebra.graph.fisher)."""

from fractions import Fraction

import numpy as np
import pytest

from algebra.graph.attention import make_design
from algebra.graph.fisher import (_arb_quadratic_form, _ldl_positive, decide_assumption1, fisher_report,
                                  quadratic_form, score_space)
from algebra.graph.groups import parse_graph

# small designs: regular actions (Cayley graphs, abelian and not), a non-regular
# automorphism group with unequal visible sets (the path P_4), and S_5 on Petersen
DESIGNS = [
    ("cyclic:4", dict(d=2, k=1, r=1, num_draws=1)),
    ("dihedral:4", dict(d=3, k=2, r=1, num_draws=1)),
    ("symmetric:3", dict(d=3, k=2, r=2, num_draws=1)),
    ("edges:0-1,1-2,2-3", dict(d=2, k=2, r=1, num_draws=2)),
    ("hypercube:2", dict(d=2, k=2, r=0, num_draws=2, radius=2)),
]


@pytest.fixture(scope="module", params=DESIGNS, ids=[d[0] for d in DESIGNS])
def space(request):
    spec, kw = request.param
    return score_space(make_design(parse_graph(spec), seed=1, **kw))


def test_projector_identities_and_commutation(space):
    res = space.check_identities(seed=3)
    assert all(v < 1e-12 for v in res.values()), res


def test_dense_projectors_on_a_small_space():
    """Form Pi_rho densely: orthogonal idempotents, Hermitian, summing to I; F commutes with rho(g)."""
    S = score_space(make_design(parse_graph("cyclic:3"), 2, 1, 1, num_draws=1))
    n = S.perms.shape[1]
    I = np.eye(n)
    P = [S.project(a, I) for a in range(S.table.num_irreps)]
    F = S.fisher(I)
    for a, Pa in enumerate(P):
        assert np.allclose(Pa @ Pa, Pa) and np.allclose(Pa.conj().T, Pa)
        assert np.isclose(np.trace(Pa).real, S.table.degrees[a] * S.multiplicities()[a])
        for b in range(a):
            assert np.allclose(Pa @ P[b], 0)
    assert np.allclose(sum(P), I)
    for g in range(S.table.group.order):
        R = S.act(g, I)
        assert np.allclose(R.T @ R, I)  # a permutation matrix
        assert np.allclose(F @ R, R @ F)  # (14)
    # F_score: PSD, kernel = the row-constant vectors (softmax shift invariance, eq. 11)
    ev = np.linalg.eigvalsh(F)
    assert ev.min() > -1e-15 and np.sum(ev > 1e-12) == n - S.p.shape[0]


def test_score_Q_equals_orbit_reduced_Q(space):
    assert np.allclose(space.Q(), quadratic_form(space.design), atol=1e-14)


def test_only_the_trivial_component_carries_Q(space):
    """J_C dC is Gamma-invariant (Gamma acts trivially on C), so Q_rho = 0 unless rho is trivial."""
    Q = space.Q()
    triv = space.Q_rho(0)
    assert np.allclose(triv, Q, atol=1e-14)
    for a in range(1, space.table.num_irreps):
        assert np.abs(space.Q_rho(a)).max() < 1e-14
        assert space.fisher_trace(a) > 0  # while F_score itself lives in every component


def test_multiplicities_sum_to_the_dimension(space):
    mult = space.multiplicities()
    assert sum(d * m for d, m in zip(space.table.degrees, mult)) == space.dim


@pytest.mark.parametrize("spec,d,k,r", [("cyclic:8", 4, 2, 1), ("dihedral:5", 4, 3, 1), ("torus:3x3", 3, 2, 1),
                                        ("symmetric:3", 3, 3, 3), ("petersen", 3, 2, 2)])
def test_assumption1_certified_on_default_designs(spec, d, k, r):
    D = make_design(parse_graph(spec), d, k, r, seed=0, num_draws=1 if spec == "petersen" else None)
    a1 = decide_assumption1(D)
    assert a1.holds and a1.rank == d * d and a1.kernel is None
    assert isinstance(a1.alpha_lower, Fraction) and 0 < a1.alpha_lower <= a1.lambda_min


def test_certificate_can_fail():
    """The ball LDL^T refuses an alpha above the smallest eigenvalue."""
    D = make_design(parse_graph("cyclic:5"), 2, 1, 1, seed=0)
    lam = float(np.linalg.eigvalsh(quadratic_form(D))[0])
    import flint

    Q = _arb_quadratic_form(D)
    assert _ldl_positive(Q, flint.arb(0.99 * lam))
    assert not _ldl_positive(Q, flint.arb(1.01 * lam))
    # the arb enclosure contains the float matrix
    Qf = quadratic_form(D)
    assert all(Q[i, j].contains(flint.arb(float(Qf[i, j]))) or abs(float(Q[i, j].mid()) - Qf[i, j]) < 1e-15
               for i in range(4) for j in range(4))


@pytest.mark.parametrize("kw,zero", [(dict(radius=0), False), (dict(features="constant"), False)])
def test_bad_designs_fail_with_an_exact_kernel(kw, zero):
    D = make_design(parse_graph("cyclic:6"), 3, 2, 1, seed=0, **kw)
    a1 = decide_assumption1(D)
    assert not a1.holds and a1.rank < 9 and a1.alpha_lower is None
    dC = np.array([float(v) for v in a1.kernel])
    assert np.linalg.norm(dC) > 0
    assert abs(dC @ quadratic_form(D) @ dC) < 1e-14
    assert a1.kernel_logits_zero is zero


def test_kernel_in_the_span_of_features():
    """Features in a 2-dim subspace of R^3: dC with (h^T dC h' = 0 for all h, h') is an exact kernel
    whose logit change is zero (mechanism Pi_rho J dC = 0 in every component)."""
    D = make_design(parse_graph("cyclic:5"), 3, 2, 1, seed=0)
    feats = D.features.copy()
    feats[..., 2] = 0.0
    from algebra.graph.attention import AttentionDesign

    D2 = AttentionDesign(D.graph, 3, 2, 1, 1, feats, D.visible, D.bias, D.pair_orbit, D.A_star, D.B_star,
                         0.0, "gaussian", 0)
    a1 = decide_assumption1(D2)
    assert not a1.holds and a1.rank == 4 and a1.kernel_logits_zero is True
    rep = fisher_report(D2, with_identities=False)
    assert {c["mechanism"] for c in rep["components"]} == {"Pi_rho J dC = 0"}


def test_report_mechanisms_for_zero_radius():
    rep = fisher_report(make_design(parse_graph("dihedral:3"), 2, 1, 1, radius=0, seed=0))
    assert rep["assumption1_holds"] is False
    mech = [c["mechanism"] for c in rep["components"]]
    assert mech[0].startswith("row-constant shift") and set(mech[1:]) == {"Pi_rho J dC = 0"}
    assert all(c["rank_Q_rho"] == 0 for c in rep["components"])


def test_oversized_score_space_is_refused_before_allocating(monkeypatch):
    import algebra.graph.fisher as fisher
    from algebra.errors import ResourceError

    monkeypatch.setattr(fisher, "MAX_PERM_ENTRIES", 1000)
    with pytest.raises(ResourceError):
        score_space(make_design(parse_graph("cyclic:6"), 2, 1, 1, seed=0))
