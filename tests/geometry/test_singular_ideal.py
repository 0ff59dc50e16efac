"""``singular --ideal``: the singular locus of a user's own ideal (issue 25, item 5)."""

import json

import pytest
import sympy

from algebra.cli import main
from algebra.errors import InputError
from algebra.geometry.singular import ideal_singular_locus, same_zero_set

#: generators, codim -> the singular locus's zero set, as generators of an ideal with the same zeros
KNOWN = [
    (["x^2 - y^3"], None, "x, y"),                                          # cusp
    (["x^3"], None, "x"),                                                   # one variable, non-reduced: see the hypothesis
    (["x*z - y^2"], None, "x, y, z"),                                       # quadric cone (Figure 3)
    (["x^2 - y^2*z"], None, "x, y"),                                        # Whitney umbrella: the z-axis
    (["z*x^2 - z*y^2 - x^3"], None, "x, y"),                                # cubic cone (App. G.4(c)): the z-axis
    (["x*z - y^2", "x*w - y*z", "y*w - z^2"], 2, "w, x, y, z"),             # cone over the twisted cubic
    (["x^2 + y^2 - 1"], None, "1"),                                         # smooth circle
]


@pytest.mark.parametrize("gens, codim, zeros", KNOWN)
def test_known_singular_loci(gens, codim, zeros):
    r = ideal_singular_locus(gens, codim=codim)
    xs = sympy.symbols(r["variables"])
    basis = [sympy.Poly(_sym(g, r["variables"]), *xs).as_expr() for g in r["groebner"]]
    target = [sympy.Integer(1)] if zeros == "1" else [sympy.Symbol(v.strip()) for v in zeros.split(",")]
    assert same_zero_set(basis, target, r["variables"])
    assert (r["singular_locus"] == "empty") == (zeros == "1")


def _sym(text, names):
    """The canonical text back into sympy through the toolkit's own parser (never sympify)."""
    from algebra.geometry.singular import _to_sympy
    from algebra.models.polynomial import parse_polynomial

    return _to_sympy(parse_polynomial(text, variables=tuple(names)), sympy.symbols(names))


def test_the_ideal_route_agrees_with_the_named_example():
    from algebra.geometry.singular import symbolic_example

    assert symbolic_example("cone")["confirmed"]
    assert ideal_singular_locus(["x*z - y^2"])["singular_locus"] == "the origin"


def test_an_empty_variety_is_said():
    assert ideal_singular_locus(["x", "x - 1"], codim=1)["variety_empty"]


@pytest.mark.parametrize("gens, kwargs, argument", [
    (["x^7 - y"], {}, "--ideal"),
    (["a+b+c+d+e+f+g"], {}, "--variables"),
    (["x"] * 7, {}, "--ideal"),
    (["x^2 - y^3"], {"codim": 3}, "--codim"),
    (["__import__('os')"], {}, "generator 1"),
    (["x^2", "y^2", "z^2", "w^2", "u^2", "v^2"], {"codim": 3}, "--ideal"),   # 20 x 20 = 400 minors > 100
])
def test_refusals_name_the_argument(gens, kwargs, argument):
    with pytest.raises(InputError) as exc:
        ideal_singular_locus(gens, **kwargs)
    assert exc.value.argument == argument


def test_cli_json_and_exit_codes(capsys):
    assert main(["singular", "--ideal", "x^2-y^3", "--json"]) == 0
    (report,) = json.loads(capsys.readouterr().out)
    assert report["singular_locus"] == "the origin" and report["codim"] == 1
    assert main(["singular", "--ideal", "x^2-y^3", "--variables", "x,y,z"]) == 0
    assert "Q[x, y, z]" in capsys.readouterr().out
    assert main(["singular", "--ideal", "x^2-y^3", "--codim", "5"]) == 2
    assert "--codim" in capsys.readouterr().err
