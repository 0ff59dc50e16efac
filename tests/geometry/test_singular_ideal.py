"""``singular --ideal``: the singular locus of the reduced variety of a user's ideal, hypotheses checked (issue 32).

One table of ideals with known singular loci runs through every route: the API on the sympy route, the API on the
Singular route, and the command line.  Loci are compared as varieties (mutual radical membership), never as text.

Rows marked as literature cross-checks carry values Macaulay2 gives (``singularLocus``, ``isCM``) and that are
classical: the cusp and node (origin), Whitney's umbrella (the z-axis), determinantal varieties (Bruns and Vetter,
*Determinantal Rings*, Thm. 2.6 / Prop. 1.6: Sing of the rank <= r matrices is the rank <= r - 1 ones; Eagon and
Northcott: they are Cohen-Macaulay), the cone over the twisted cubic (its vertex) and two planes meeting in a point
of A^4 (radical and equidimensional, but not Cohen-Macaulay: Hartshorne's connectedness theorem).
"""

import json

import pytest
import sympy

from algebra.cli import main
from algebra.errors import InputError, ResourceError
from algebra.geometry import singular as sing
from algebra.geometry.singular import ideal_singular_locus, same_zero_set

HAS_SINGULAR = sing._find_singular() is not None
needs_singular = pytest.mark.skipif(not HAS_SINGULAR, reason="the Singular binary is not installed")

#: name -> (generators, variables, expected locus (generators of an ideal with the same zero set; "1" is empty),
#: radical, equidimensional, decided by sympy alone)
TABLE = {
    "cusp": (["x^2 - y^3"], None, "x, y", True, True, True),
    "node": (["y^2 - x^2*(x + 1)"], None, "x, y", True, True, True),
    "circle": (["x^2 + y^2 - 1"], None, "1", True, True, True),
    "elliptic-curve": (["y^2 - x^3 + x"], None, "1", True, True, True),
    "two-lines-over-Q": (["x^2 + y^2"], None, "x, y", True, True, True),   # two complex lines through 0
    "double-point": (["x^2"], "x", "1", False, True, True),
    "double-line": (["x^2"], "x,y", "1", False, True, True),
    "double-circle": (["(x^2 + y^2 - 1)^2"], None, "1", False, True, True),
    "line-and-double-line": (["x^2*y"], None, "x, y", False, True, True),
    "coordinate-planes": (["x*y*z"], None, "x*y, x*z, y*z", True, True, True),
    "whitney-umbrella": (["x^2 - y^2*z"], None, "x, y", True, True, True),
    "double-umbrella": (["(x^2 - y^2*z)^2"], None, "x, y", False, True, True),
    "quadric-cone": (["x*z - y^2"], None, "x, y, z", True, True, True),
    "cubic-cone": (["z*x^2 - z*y^2 - x^3"], None, "x, y", True, True, True),
    "A2-surface": (["x^2 + y^2 + z^3"], None, "x, y, z", True, True, True),
    "fat-point": (["x^2", "y"], "x,y", "1", False, True, True),
    "four-points": (["x^2 - 1", "y^2 - 1"], None, "1", True, True, True),
    "empty": (["x", "x - 1"], None, "1", True, True, True),
    "twisted-cubic": (["y - x^2", "z - x^3"], None, "1", True, True, True),
    "smooth-ci-circle": (["x^2 + y^2 + z^2 - 1", "x + y + z"], None, "1", True, True, True),
    "sliced-cone": (["x^2 + y^2 - z^2", "z - 1"], None, "1", True, True, True),     # a circle at height 1
    "determinantal-2x3": (["a*e - b*d", "a*f - c*d", "b*f - c*e"], None, "a, b, c, d, e, f", True, True, True),
    "determinantal-2x3-shifted": (["(a-1)*e - b*d", "(a-1)*f - c*d", "b*f - c*e"], None, "a - 1, b, c, d, e, f",
                                  True, True, True),
    "twisted-cubic-cone": (["x*z - y^2", "x*w - y*z", "y*w - z^2"], None, "w, x, y, z", True, True, True),
    "three-axes": (["x*y", "x*z", "y*z"], None, "x, y, z", True, True, True),
    "three-lines-at-(0,0,1)": (["x*y", "x*(z - 1)", "y*(z - 1)"], None, "x, y, z - 1", True, True, True),
    # the hypotheses fail or sympy cannot decide them: Singular's route
    "double-line-in-space": (["x^2", "y"], "x,y,z", "1", False, True, False),   # a complete intersection, not radical
    "embedded-point": (["x^2", "x*y"], None, "1", False, True, False),
    "plane-and-line": (["x*z", "y*z"], None, "x, y, z", True, False, False),
    "plane-and-cuspidal-curve": (["z^2 - z", "(z - 1)*(x^2 - y^3)"], None, "x, y, z", True, False, False),
    "two-planes-in-A4": (["x*z", "x*w", "y*z", "y*w"], None, "w, x, y, z", True, True, False),
    "line-and-point": (["x*y", "y^2 - y"], None, "1", True, False, False),
}


def _sym(texts, names):
    """Text back into sympy through the toolkit's own parser (never sympify)."""
    from algebra.models.polynomial import parse_polynomial

    xs = sympy.symbols(names)
    return [sing._to_sympy(parse_polynomial(t, variables=tuple(names)), xs) for t in texts]


def _assert_locus(r, expected):
    names = r["variables"]
    got = _sym(r["locus_ideal"], names)
    target = [sympy.Integer(1)] if expected == "1" else _sym(expected.split(","), names)
    assert same_zero_set(got, target, names), (r["locus_ideal"], expected)
    assert (r["singular_locus"] == "empty") == (expected == "1")
    assert (r["locus_dimension"] == -1) == (expected == "1")


@pytest.mark.parametrize("name", TABLE)
def test_the_sympy_route(name):
    gens, variables, expected, radical, equidim, by_sympy = TABLE[name]
    r = ideal_singular_locus(gens, variables, method="sympy")
    hyp = r["hypotheses"]
    if by_sympy:
        assert r["route"] == "sympy"
        assert (hyp["radical"]["holds"], hyp["equidimensional"]["holds"]) == (radical, equidim)
        _assert_locus(r, expected)
    else:  # out of reach, naming a hypothesis that is false or undecided, and never a wrong "holds"
        assert r["singular_locus"] == "out of reach" and r["locus_ideal"] is None and r["route"] is None
        assert hyp["radical"]["holds"] in (radical, None) and hyp["equidimensional"]["holds"] in (equidim, None)
        assert (hyp["radical"]["holds"], hyp["equidimensional"]["holds"]) != (True, True)
        assert "method='sympy' does not call Singular" in r["reason"]


@needs_singular
@pytest.mark.parametrize("name", TABLE)
def test_the_singular_route_agrees(name):
    gens, variables, expected, radical, equidim, _ = TABLE[name]
    r = ideal_singular_locus(gens, variables, method="singular")
    assert r["route"] == ("sympy" if expected == "1" and r["variety_empty"] else "singular")
    assert r["hypotheses"]["radical"]["holds"] is radical
    assert r["hypotheses"]["equidimensional"]["holds"] is equidim
    _assert_locus(r, expected)


@needs_singular
@pytest.mark.parametrize("name", [n for n, row in TABLE.items() if not row[5]])
def test_auto_hands_undecided_ideals_to_singular(name):
    gens, variables, expected, radical, equidim, _ = TABLE[name]
    r = ideal_singular_locus(gens, variables)
    assert r["route"] == "singular" and "Singular" in r["hypotheses"]["radical"]["how"]
    assert (r["hypotheses"]["radical"]["holds"], r["hypotheses"]["equidimensional"]["holds"]) == (radical, equidim)
    _assert_locus(r, expected)


@pytest.mark.parametrize("name", ["plane-and-line", "embedded-point", "double-line-in-space"])
def test_without_singular_the_answer_is_out_of_reach(name, monkeypatch):
    monkeypatch.setattr(sing, "_find_singular", lambda: None)
    gens, variables, *_ = TABLE[name]
    r = ideal_singular_locus(gens, variables)
    assert r["singular_locus"] == "out of reach" and r["locus_ideal"] is None
    assert "Singular is not installed" in r["reason"]
    failed = [k for k, h in r["hypotheses"].items() if h["holds"] is not True]
    assert failed and all(k in r["reason"] for k in failed)


def test_without_singular_the_cli_says_out_of_reach(monkeypatch, capsys):
    monkeypatch.setattr(sing, "_find_singular", lambda: None)
    assert main(["singular", "--ideal", "x*z", "y*z"]) == 0
    out = capsys.readouterr().out
    assert "out of reach" in out and "Singular is not installed" in out and "equidimensional: not decided" in out


@pytest.mark.parametrize("name", ["cusp", "double-line", "determinantal-2x3", "double-line-in-space",
                                  "plane-and-line", "two-planes-in-A4"])
def test_the_cli_gives_the_api_answer(name, capsys):
    gens, variables, expected, radical, equidim, by_sympy = TABLE[name]
    if not by_sympy and not HAS_SINGULAR:
        pytest.skip("the Singular binary is not installed")
    argv = ["singular", "--ideal", *gens] + (["--variables", variables] if variables else [])
    assert main(argv + ["--json"]) == 0
    (report,) = json.loads(capsys.readouterr().out)
    assert report == ideal_singular_locus(gens, variables)
    _assert_locus(report, expected)
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert f"radical: {'yes' if radical else 'no'}" in text
    assert f"equidimensional: {'yes' if equidim else 'no'}" in text


def test_the_dimension_is_computed_not_the_number_of_generators():
    r = ideal_singular_locus(["a*e - b*d", "a*f - c*d", "b*f - c*e"])     # three generators, codimension 2
    assert (r["dimension"], r["codim"]) == (4, 2)
    r = ideal_singular_locus(["x^2"], "x,y")
    assert (r["dimension"], r["codim"]) == (1, 1)


def test_codim_is_checked_against_the_computed_one():
    assert ideal_singular_locus(["a*e - b*d", "a*f - c*d", "b*f - c*e"], codim=2)["codim"] == 2
    with pytest.raises(InputError) as exc:
        ideal_singular_locus(["a*e - b*d", "a*f - c*d", "b*f - c*e"], codim=3)
    assert exc.value.argument == "--codim" and "which is 2" in str(exc.value)
    with pytest.raises(InputError) as exc:
        ideal_singular_locus(["x", "x - 1"], codim=1)
    assert exc.value.argument == "--codim" and "empty" in str(exc.value)


def test_the_jacobian_route_alone_would_be_wrong_on_a_non_equidimensional_union():
    """The plane z = 1 with a cuspidal curve in z = 0: the codimension-1 Jacobian ideal misses the cusp."""
    gens = ["z^2 - z", "(z - 1)*(x^2 - y^3)"]
    xs = sympy.symbols("x y z")
    exprs = _sym(gens, ["x", "y", "z"])
    naive = sympy.groebner(exprs + sing._jacobian_ideal(exprs, xs, 1), *xs, order="grevlex")
    assert list(naive.exprs) == [1]                # the naive locus is empty: it misses the cusp (0, 0, 0)
    r = ideal_singular_locus(gens, method="sympy")
    assert r["singular_locus"] == "out of reach"


def test_cohen_macaulay_test_on_known_rings():
    x, y, z, w = sympy.symbols("x y z w")
    gb = lambda *g: sympy.groebner(list(g), x, y, z, w, order="grevlex")   # noqa: E731
    assert sing._cohen_macaulay(gb(x * z - y**2, x * w - y * z, y * w - z**2), [x, y, z, w])[0]      # ACM curve
    assert not sing._cohen_macaulay(gb(x * z, x * w, y * z, y * w), [x, y, z, w])[0]             # two planes
    assert not sing._cohen_macaulay(gb(x**2, x * y), [x, y, z, w])[0]                            # embedded prime


@pytest.mark.parametrize("gens, n", [
    ([(2, 0), (1, 1)], 2), ([(1, 1, 0), (1, 0, 1), (0, 1, 1)], 3), ([(3, 0, 0), (1, 2, 0), (0, 1, 4), (2, 1, 1)], 3),
])
def test_hilbert_numerator_counts_standard_monomials(gens, n):
    """HS = N(t) / (1 - t)^n against a direct count of the monomials outside the ideal, degree by degree."""
    from itertools import product

    N = sing._hilbert_numerator(gens, n)
    series = sympy.series(sum(a * sympy.Symbol("t") ** k for k, a in enumerate(N)) / (1 - sympy.Symbol("t")) ** n,
                          sympy.Symbol("t"), 0, 8).removeO()
    for deg in range(8):
        count = sum(1 for e in product(range(deg + 1), repeat=n) if sum(e) == deg
                    and not any(all(a >= b for a, b in zip(e, g)) for g in gens))
        assert series.coeff(sympy.Symbol("t"), deg) == count


@pytest.mark.parametrize("gens, kwargs, argument", [
    (["x^7 - y"], {}, "--ideal"),
    (["a+b+c+d+e+f+g"], {}, "--ideal"),  # no --variables given: the generators are blamed
    (["x"] * 7, {}, "--ideal"),
    (["x^2 - y^3"], {"codim": 3}, "--codim"),
    (["__import__('os')"], {}, "generator 1"),
    (["x^2", "y^2", "z^2", "w^2", "u^2", "v^2"], {}, "--ideal"),           # 20 x 20 = 400 minors > 100
    (["x^3 + y^3 + z^3 + x*y*z", "x^3 - y^2*z", "y^3 - x*z^2", "z^3 - x*y", "w^3"], {}, "--ideal"),  # work 715
    (["x^5 + y^5 + z^5 + x*y*z + 1"], {}, "--ideal"),                      # Jacobian Bezout 80 > 64
    (["x^2 - y^3"], {"method": "magma"}, "--method"),
    (["x^2 - y^3"], {"timeout": 0}, "--timeout"),
])
def test_refusals_name_the_argument(gens, kwargs, argument):
    with pytest.raises(InputError) as exc:
        ideal_singular_locus(gens, **kwargs)
    assert exc.value.argument == argument


def test_limits_are_checked_before_any_groebner_basis(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("a Groebner basis was computed")

    monkeypatch.setattr(sympy, "groebner", boom)
    with pytest.raises(InputError):
        ideal_singular_locus(["x^3 + y^3 + z^3 + x*y*z", "x^3 - y^2*z", "y^3 - x*z^2", "z^3 - x*y", "w^3"])


@needs_singular
def test_a_singular_timeout_is_a_resource_error(monkeypatch):
    import subprocess

    def slow(*args, **kwargs):
        raise subprocess.TimeoutExpired(args[0], kwargs["timeout"])

    monkeypatch.setattr(subprocess, "run", slow)
    with pytest.raises(ResourceError, match="--timeout"):
        ideal_singular_locus(["x*z", "y*z"], timeout=1)


def test_singular_input_is_built_from_parsed_terms():
    from algebra.models.polynomial import parse_generators

    polys, names = parse_generators(["x^2*y - 3/2*z"])
    script = sing._singular_script(polys, len(names))
    assert "ring r = 0, (v1,v2,v3), dp;" in script
    assert "ideal I = (-3/2)*v3^1+(1/1)*v1^2*v2^1;" in script


def test_cli_exit_codes(capsys):
    assert main(["singular", "--ideal", "x^2-y^3", "--variables", "x,y,z"]) == 0
    assert "Q[x, y, z]" in capsys.readouterr().out
    assert main(["singular", "--ideal", "x^2-y^3", "--codim", "5"]) == 2
    assert "--codim" in capsys.readouterr().err
    assert main(["singular", "--ideal", "x^2-y^3", "--codim", "2"]) == 2
    assert "which is 1" in capsys.readouterr().err
