"""Permutation groups given by generators (issue 25, item 5): ``graph irreps --group generators:...``."""

import json

import pytest

from algebra.cli import main
from algebra.errors import InputError, ResourceError
from algebra.graph.characters import character_table, verify_orthogonality
from algebra.graph.groups import MAX_ORDER, parse_group, parse_permutation, permutation_group

#: generators -> the group's order and number of classes, independently by sympy's combinatorics
CASES = ["(0,1,2,3);(0,2)", "(0,1,2);(0,1)", "(0,1)(2,3);(0,2)(1,3)", "(0,1,2,3,4);(1,4)(2,3)",
         "(0,1,2,3,4,5);(0,1)", "(0,1,2)(3,4,5);(0,3)(1,4)(2,5)", "()"]


@pytest.mark.parametrize("text", CASES)
def test_order_and_classes_agree_with_sympy(text):
    from sympy.combinatorics import Permutation, PermutationGroup as SympyGroup

    G = permutation_group(text)
    gens = [Permutation([tuple(int(x) for x in c.split(",")) for c in g.strip("()").split(")(")] if g != "()" else [],
                        size=G.degree) for g in text.split(";")]
    H = SympyGroup(gens)
    assert G.order == H.order()
    assert len(G.classes) == len(H.conjugacy_classes())
    assert len(set(G.elements)) == G.order


@pytest.mark.parametrize("text", CASES[:4])
def test_the_character_table_of_a_generated_group_is_verified(text):
    table = character_table(permutation_group(text))
    assert verify_orthogonality(table)["verified"]
    assert sum(d * d for d in table.degrees) == table.group.order


def test_image_tuples_and_cycles_give_the_same_group():
    assert set(permutation_group([(1, 2, 0), (1, 0, 2)]).elements) == set(permutation_group("(0,1,2);(0,1)").elements)


@pytest.mark.parametrize("text", ["(0,1)(1,2)", "(0,1", "(a,b)", "(0,1,1)", "(0,64)", "(0,-1)", "(0,١)"])
def test_malformed_cycles_are_refused_naming_the_argument(text):
    with pytest.raises(InputError) as exc:
        parse_permutation(text)
    assert exc.value.argument == "generators"


def test_a_group_above_the_order_limit_is_refused_during_the_closure():
    with pytest.raises(ResourceError, match=f"more than {MAX_ORDER} elements"):
        permutation_group("(0,1,2,3,4,5,6,7);(0,1)")   # S_8, 40320 elements
    with pytest.raises(InputError):
        permutation_group(";".join(["(0,1)"] * 17))


def test_graph_irreps_takes_generators(capsys):
    assert main(["graph", "irreps", "--group", "generators:(0,1,2,3);(0,2)", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["order"] == 8 and out["orthogonality"]["verified"]
    assert parse_group("generators:(0,1,2,3);(0,2)").order == 8


def test_graph_irreps_refuses_bad_generators_with_exit_2(capsys):
    assert main(["graph", "irreps", "--group", "generators:(0,1)(1,2)"]) == 2
    assert "disjoint cycles" in capsys.readouterr().err
    assert main(["graph", "irreps", "--group", "generators:(0,1,2,3,4,5,6,7);(0,1)"]) == 2
    assert "order at most" in capsys.readouterr().err
