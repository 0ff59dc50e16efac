"""Secant varieties via Terracini: known cases, identities, certified defects, CLI."""

import json
from math import comb

import numpy as np
import pytest

from algebra.cli import main
from algebra.errors import InputError
from algebra.exact.field import PrimeField
from algebra.exact.rank import rank_mod_p
from algebra.engine import dimension
from algebra.engine import upper_bound
from algebra.geometry.secant import (
    flattening_upper_bound,
    flattenings,
    pooled_flattening_bound,
    secant_dimension,
    sweep_quadratic,
    sweep_veronese,
)
from algebra.models.segre_veronese import SecantMap, segre, segre_veronese, veronese
from algebra.models import MLP, quadratic_network, shallow_network
from tests.known_dimensions import AH_EXCEPTIONS, alexander_hirschowitz

P = 1048573


@pytest.mark.slow  # over 5 s of a two-worker default run (issue 21, item 5)
def test_alexander_hirschowitz_sweep_exact():
    """n <= 6, degree <= 5, k up to filling: exactly the AH exceptions and the quadric cases are defective."""
    results = sweep_veronese(6, 5)
    found = set()
    for r in results:
        n, d = r.variety["factors"][0], r.variety["degrees"][0]
        assert r.lower_bound <= r.upper_bound <= r.expected_dimension
        assert r.dimension == alexander_hirschowitz(n, d, r.k), (n, d, r.k)
        assert r.certified, (n, d, r.k, r.upper_bound_reason)
        if r.defective:
            found.add((n, d, r.k))
    quadrics = {(n, 2, k) for n in range(1, 7) for k in range(2, n)}
    assert found == set(AH_EXCEPTIONS) | quadrics
    # every (n, d) was swept until the secant fills
    last = {}
    for r in results:
        last[(r.variety["factors"][0], r.variety["degrees"][0])] = r
    assert all(r.lower_bound == r.ambient_dimension for r in last.values())


@pytest.mark.parametrize("n,d,k", sorted(AH_EXCEPTIONS) + [(4, 2, 2), (3, 3, 4), (2, 5, 3), (4, 3, 5)])
def test_routes_agree_with_shallow_network(n, d, k):
    """Terracini on the Veronese cone, the shallow network, and the AH formula agree."""
    r = secant_dimension(veronese(n, d), k)
    assert r.dimension == dimension(shallow_network(n, d, k)).lower_bound == alexander_hirschowitz(n, d, k)


@pytest.mark.parametrize("X", [veronese(3, 3), segre((2, 3, 3)), segre_veronese((3, 4), (1, 2)), segre_veronese((2, 2), (2, 2))])
def test_symmetry_upper_bound_is_the_expected_dimension(X):
    """The symmetry rung gives min(k dim cone X, ambient); the certified dimension never exceeds it."""
    cone = sum(X.factors) - (len(X.factors) - 1)
    assert dimension(X).dimension == cone and dimension(X).certified
    F = PrimeField(P)
    for k in range(1, 6):
        S = SecantMap(X, k)
        theta = S.random_point(np.random.default_rng(k))
        assert upper_bound(S, theta, F)[0] == min(k * cone, X.ambient_dimension()) == S.expected_dimension()
        res = dimension(S)
        assert res.certified and res.upper_bound <= S.expected_dimension()
        if res.upper_bound < S.expected_dimension():  # a defect: certified by the general fallback
            assert res.rung == "cramer"


@pytest.mark.parametrize("X", [veronese(3, 4), veronese(4, 3), segre_veronese((3, 4), (1, 2)), segre((2, 2, 2, 2))])
def test_flattenings_have_their_atom_rank(X):
    """rank L(atom) equals the stated bound at random atoms (so rank L <= k rho on sigma_k)."""
    F = PrimeField(P)
    rng = np.random.default_rng(1)
    for flat in flattenings(X):
        theta = rng.integers(-99, 99, size=X.parameter_count)
        y = X.forward(theta, np.zeros((1, 0), dtype=np.int64), F)[0]
        assert rank_mod_p(flat.matrix(y, F), P) == flat.atom_rank, flat.name


def test_flattening_bound_is_sound_and_sharp():
    X = veronese(4, 4)
    cat = next(f for f in flattenings(X) if f.name == "catalecticant (2)|(2)")
    info = flattening_upper_bound(X, 9, cat)
    assert info["rank_at_point"] == 9 and info["upper_bound"] == 34
    assert flattening_upper_bound(X, 10, cat)["upper_bound"] is None  # not informative
    assert secant_dimension(X, 9).lower_bound == 34


@pytest.mark.parametrize("n,k", [(3, 1), (4, 2), (5, 3), (6, 4)])
def test_quadric_secants_certified_by_catalecticant(n, k):
    r = secant_dimension(veronese(n, 2), k)
    assert r.certified and r.dimension == k * n - comb(k, 2)
    assert r.status == ("defective (certified)" if k >= 2 else "non-defective")


@pytest.mark.slow  # over 5 s of a two-worker default run (issue 21, item 5)
def test_quadratic_network_grid_fast():
    """Every lower-bound drop in a small grid is a certified defect, and the neural model agrees."""
    results = sweep_quadratic(5, 4, 8)
    bad = [r for r in results if r.defective]
    assert all(r.certified and r.upper_bound < r.expected_dimension for r in bad)
    assert all(r.certified for r in results)
    found = {(r.variety["factors"][1], r.variety["factors"][0], r.k) for r in bad}
    # p = 1 is the quadric case: defective exactly for 2 <= K < d
    assert {c for c in found if c[1] == 1} == {(d, 1, K) for d in range(1, 6) for K in range(2, d)}
    assert (4, 3, 5) in found
    for d, p, K in [(4, 3, 5), (3, 2, 2), (5, 4, 3)]:
        r = next(x for x in results if x.variety["factors"] == [p, d] and x.k == K)
        assert dimension(quadratic_network(d, p, K)).lower_bound == r.lower_bound


@pytest.mark.slow
def test_quadratic_network_grid_full():
    results = sweep_quadratic(8, 6, 12)
    bad = {(r.variety["factors"][1], r.variety["factors"][0], r.k) for r in results if r.defective}
    assert all(r.certified for r in results)
    assert {(4, 3, 5), (3, 6, 5), (4, 5, 6), (6, 3, 8), (8, 3, 11)} <= bad
    assert all(p == 1 or (d, p, K) in {(4, 3, 5), (3, 6, 5), (4, 5, 6), (6, 3, 8), (8, 3, 11)} for d, p, K in bad)


def test_pooled_flattenings_certify_segre_p1_4():
    r = secant_dimension(segre((2, 2, 2, 2)), 3)
    assert (r.dimension, r.expected_dimension, r.certified) == (14, 15, True)
    info = pooled_flattening_bound(segre((2, 2, 2, 2)), 3, target=r.dimension)
    assert info["upper_bound"] == r.dimension and len(info["flattenings"]) >= 2


@pytest.mark.parametrize("X,k", [(veronese(3, 4), 5), (veronese(4, 2), 2), (segre_veronese((3, 4), (1, 2)), 5)])
def test_flattenings_and_the_cramer_rung_prove_the_same_defect(X, k):
    """Two independent proofs (deterministic flattenings, Schwartz-Zippel Cramer fields) of one defect."""
    r = secant_dimension(X, k)
    assert r.certified and r.defective
    assert pooled_flattening_bound(X, k, target=r.dimension)["upper_bound"] == r.dimension


def test_general_atom_model():
    """Any model can be the atom: the sum of k one-neuron cones is the width-k network."""
    atom = MLP((3, 1, 1), "t^4")
    assert dimension(SecantMap(atom, 5)).lower_bound == dimension(shallow_network(3, 4, 5)).lower_bound == 14


def test_bad_input():
    with pytest.raises(InputError):
        secant_dimension(veronese(3, 3), 0)


def test_cli_secant_json(capsys):
    assert main(["secant", "--variety", "veronese", "--n", "3", "--degree", "4", "--k", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("dimension", "expected_dimension", "defect", "lower_bound", "upper_bound", "certified"):
        assert key in out
    assert (out["dimension"], out["expected_dimension"], out["defect"], out["certified"]) == (14, 15, 1, True)
    assert main(["secant", "--variety", "segre-veronese", "--factors", "3,4", "--degrees", "1,2", "--k", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["lower_bound"], out["upper_bound"], out["expected_dimension"]) == (29, 29, 30)
    assert main(["secant", "--variety", "segre", "--factors", "2,2,2", "--k", "2"]) == 0
    assert "certified: yes" in capsys.readouterr().out


def test_cli_secant_bad_input(capsys):
    assert main(["secant", "--variety", "veronese", "--n", "3", "--k", "2"]) == 2
    assert "--degree" in capsys.readouterr().err
    assert main(["secant", "--variety", "segre-veronese", "--factors", "3,4", "--degrees", "1", "--k", "2"]) == 2
    assert main(["secant", "--variety", "veronese", "--n", "40", "--degree", "12", "--k", "2"]) == 2
    assert "coordinates" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["secant", "--variety", "veronese", "--n", "0", "--degree", "2", "--k", "2"])
    assert exc.value.code == 2


def test_cli_secant_table(tmp_path, capsys):
    args = ["secant-table", "--variety", "veronese", "--n-max", "3", "--degree-max", "4", "--out", str(tmp_path), "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["defective"] == 2
    md = (tmp_path / "veronese_n3_deg4.md").read_text()
    assert "| veronese | 3 | 4 | 5 |" in md
    assert (tmp_path / "veronese_n3_deg4.csv").read_text().count("\n") == out["cases"] + 1
    assert main(["secant-table", "--variety", "quadratic", "--d-max", "4", "--p-max", "3", "--k-max", "5",
                 "--out", str(tmp_path)]) == 0
    err = capsys.readouterr()
    assert "4 defective" in err.out
    assert "quadratic-network secants" in err.err  # the tqdm progress bar


def test_cli_polynomial_atom(capsys):
    """A user parametrization as the atom: the twisted cubic's secant fills P^3."""
    args = ["secant", "--variety", "polynomial", "--polynomials", "a^3", "a^2*b", "a*b^2", "b^3", "--parameters", "a,b",
            "--k", "2", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["dimension"], out["atom_dimension"], out["expected_dimension"], out["certified"]) == (4, 2, 4, True)
    assert main(["secant", "--variety", "polynomial", "--k", "1"]) == 2
