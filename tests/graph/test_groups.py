"""Groups as permutation groups and their graphs (algebra.graph.groups)."""

import networkx as nx
import numpy as np
import pytest

from algebra.errors import InputError, ResourceError
from algebra.graph.groups import (PermutationGroup, automorphism_group, cayley_graph, dihedral_group,
                                  parse_graph, parse_group, symmetric_group)

FAMILIES = ["cyclic:1", "cyclic:2", "cyclic:7", "torus:3x4", "hypercube:3", "dihedral:3", "dihedral:6",
            "symmetric:3", "symmetric:4"]

# Cayley graphs against networkx's named graphs (the same graph built independently)
NAMED = [
    ("cyclic:9", nx.cycle_graph(9)),
    ("torus:3x5", nx.grid_2d_graph(3, 5, periodic=True)),
    ("hypercube:4", nx.hypercube_graph(4)),
    ("dihedral:7", nx.circular_ladder_graph(7)),
]


@pytest.mark.parametrize("spec", FAMILIES)
def test_group_axioms(spec):
    G = parse_group(spec)
    T = G.table
    rng = np.random.default_rng(0)
    a, b, c = rng.integers(0, G.order, size=(3, 50))
    assert np.array_equal(T[T[a, b], c], T[a, T[b, c]])  # associativity
    assert np.array_equal(T[0], np.arange(G.order)) and np.array_equal(T[:, 0], np.arange(G.order))
    inv = np.array(G.inverse)
    assert np.all(T[np.arange(G.order), inv] == 0)
    # classes partition the group and are closed under conjugation
    assert sorted(x for cl in G.classes for x in cl) == list(range(G.order))
    for cl in G.classes:
        assert {int(T[T[g, cl[0]], inv[g]]) for g in range(G.order)} == set(cl)


@pytest.mark.parametrize("spec,named", NAMED)
def test_cayley_graph_matches_networkx_named_graph(spec, named):
    sg = parse_graph(spec)
    assert nx.is_isomorphic(sg.graph, named)
    assert sg.check_automorphisms()
    assert sg.group.order == sg.num_nodes  # regular action


def test_element_orders_and_exponent():
    G = symmetric_group(4)
    assert sorted(G.element_order(c[0]) for c in G.classes) == [1, 2, 2, 3, 4]
    assert G.exponent == 12
    assert dihedral_group(6).exponent == 6
    assert G.power(G.classes[-1][0], G.element_order(G.classes[-1][0])) == 0


def test_automorphism_groups_by_matcher():
    assert automorphism_group(nx.cycle_graph(6)).group.order == 12  # D_6
    pet = parse_graph("petersen")
    assert pet.group.order == 120 and len(pet.group.classes) == 7  # S_5
    assert pet.check_automorphisms()
    path = parse_graph("edges:0-1,1-2,2-3")
    assert path.group.order == 2 and path.check_automorphisms()


def test_visibility_radius():
    sg = parse_graph("cyclic:8")
    assert sg.visible(0)[3] == (3,)
    assert sg.visible(1)[0] == (0, 1, 7)
    assert len(sg.visible(4)[0]) == 8


def test_a_non_closed_set_is_rejected():
    with pytest.raises(InputError):
        PermutationGroup("bad", ((0, 1, 2), (1, 2, 0)))  # missing the square of the 3-cycle
    with pytest.raises(InputError):
        PermutationGroup("bad", ((1, 0),))  # identity not first


@pytest.mark.parametrize("spec", ["klein", "cyclic:x", "torus:3", "dihedral:2", "symmetric:-1", "", "edges:0-a"])
def test_bad_specifications(spec):
    with pytest.raises(InputError):
        parse_graph(spec)


def test_too_large_groups_are_refused_before_allocating():
    with pytest.raises(ResourceError):
        parse_group("hypercube:12")
    with pytest.raises(ResourceError):
        parse_group("symmetric:8")


def test_custom_generators():
    G = parse_group("cyclic:8")
    sg = cayley_graph(G, [2])  # generator 2 disconnects C_8 into two 4-cycles
    assert nx.number_connected_components(sg.graph) == 2
