"""Exact character tables and their orthogonality (algebra.graph.characters)."""

import numpy as np
import pytest

from algebra.graph.characters import (CharacterTable, burnside_dixon, character_table, prime_one_mod,
                                      verify_orthogonality)
from algebra.graph.groups import (cyclic_group, dihedral_group, hypercube_group, parse_graph, parse_group,
                                  symmetric_group, torus_group)

# (spec, number of classes, sorted degrees): known tables
KNOWN = [
    ("cyclic:1", 1, [1]),
    ("cyclic:7", 7, [1] * 7),
    ("torus:2x4", 8, [1] * 8),
    ("hypercube:3", 8, [1] * 8),
    ("dihedral:3", 3, [1, 1, 2]),
    ("dihedral:4", 5, [1, 1, 1, 1, 2]),
    ("dihedral:9", 6, [1, 1, 2, 2, 2, 2]),
    ("symmetric:3", 3, [1, 1, 2]),
    ("symmetric:4", 5, [1, 1, 2, 3, 3]),
    ("petersen", 7, [1, 1, 4, 4, 5, 5, 6]),  # Aut = S_5
]


def _group(spec):
    return parse_graph(spec).group if spec == "petersen" else parse_group(spec)


@pytest.mark.parametrize("spec,classes,degrees", KNOWN)
def test_known_tables_are_verified(spec, classes, degrees):
    t = character_table(_group(spec))
    assert t.num_irreps == classes
    assert sorted(t.degrees) == degrees
    rep = verify_orthogonality(t)
    assert rep["verified"] and rep["rows"] and rep["columns"] and rep["degree_sum"]


@pytest.mark.parametrize("spec", ["cyclic:12", "torus:3x4", "hypercube:3", "dihedral:5", "dihedral:8"])
def test_closed_form_and_dixon_agree(spec):
    """Both routes give the same set of characters (the set is Galois-stable, so the
    embedding Dixon picks does not matter)."""
    G = parse_group(spec)
    closed = character_table(G, method="closed")
    dixon = character_table(G, method="dixon")
    assert closed.conductor == dixon.conductor
    rows = lambda t: sorted(tuple(t.multiplicities[a].ravel().tolist()) for a in range(t.num_irreps))
    assert rows(closed) == rows(dixon)


def test_values_against_numerics():
    """Exact values evaluated numerically satisfy the orthogonality relations in floats too."""
    for G in (cyclic_group(6), dihedral_group(5), symmetric_group(4), torus_group(2, 3), hypercube_group(2)):
        t = character_table(G)
        X = t.values()
        h = np.array(t.class_sizes)
        assert np.allclose((X * h) @ X.conj().T, G.order * np.eye(t.num_irreps))
        # values on elements are class functions and the trivial character is first
        assert np.allclose(t.on_elements()[0], 1.0)


def test_cyclic_values_are_roots_of_unity():
    t = character_table(cyclic_group(8))
    assert t.value_text(1, 1) == "E(8)"
    assert t.value_text(4, 1) == "-1"
    assert t.value_text(2, 1) == "E(8)^2"


def test_dihedral_cosines():
    t = character_table(dihedral_group(5))
    vals = t.values()
    rho = [a for a, n in enumerate(t.names) if n.startswith("rho")]
    r_class = parse_group("dihedral:5").class_of[1]
    got = sorted(vals[a, r_class].real for a in rho)
    assert np.allclose(got, sorted(2 * np.cos(2 * np.pi * h / 5) for h in (1, 2)))


@pytest.mark.parametrize("tamper", ["swap_value", "duplicate_row", "drop_eigenvalue"])
def test_tampered_tables_are_rejected(tamper):
    t = character_table(symmetric_group(4))
    m = t.multiplicities.copy()
    if tamper == "swap_value":
        m[3, 1], m[4, 1] = m[4, 1].copy(), m[3, 1].copy()
    elif tamper == "duplicate_row":
        m[4] = m[3]
    else:
        nz = np.argwhere(m[2, 2] > 0)[0][0]
        m[2, 2, nz] -= 1
    bad = CharacterTable(t.group, t.conductor, m, t.names, "tampered")
    assert not verify_orthogonality(bad)["verified"]


def test_dixon_is_deterministic_in_its_seed():
    G = symmetric_group(4)
    a, b = burnside_dixon(G, seed=1), burnside_dixon(G, seed=2)
    assert np.array_equal(a.multiplicities, b.multiplicities)


def test_prime_one_mod():
    for N, above in ((1, 10), (12, 100), (60, 14400)):
        p = prime_one_mod(N, above)
        assert p > above and (p - 1) % N == 0


def test_json_shape():
    js = character_table(dihedral_group(4)).to_json()
    assert js["order"] == 8 and len(js["classes"]) == 5 and len(js["irreps"]) == 5
    assert js["irreps"][-1]["character"][0] == "2"


@pytest.mark.slow
def test_every_family_up_to_order_200():
    """The full sweep: every built-in family, every size with order <= 200."""
    specs = [f"cyclic:{n}" for n in range(1, 201)]
    specs += [f"dihedral:{n}" for n in range(3, 101)]
    specs += [f"torus:{n}x{m}" for n in range(2, 21) for m in range(n, 101) if n * m <= 200]
    specs += [f"hypercube:{k}" for k in range(1, 8)]
    specs += [f"symmetric:{n}" for n in range(1, 6)]
    for spec in specs:
        t = character_table(parse_group(spec))
        assert verify_orthogonality(t)["verified"], spec
    for spec in ("petersen", "edges:0-1,1-2,2-3,3-4,4-0,0-5,1-5,2-5,3-5,4-5"):  # Aut(Petersen), Aut(wheel) = D_5
        assert verify_orthogonality(character_table(parse_graph(spec).group))["verified"], spec


@pytest.mark.slow
def test_dixon_agrees_with_closed_forms_on_larger_groups():
    for spec in ("cyclic:60", "dihedral:30", "torus:6x10", "hypercube:6"):
        G = parse_group(spec)
        rows = lambda t: sorted(tuple(t.multiplicities[a].ravel().tolist()) for a in range(t.num_irreps))
        assert rows(character_table(G, method="closed")) == rows(character_table(G, method="dixon")), spec
