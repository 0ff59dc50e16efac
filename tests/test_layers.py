"""One direction of imports (issue 21): every import inside ``algebra/``, in-function ones included, follows an
edge of :data:`LAYERS` or :data:`ANALYSIS_EDGES`, and no two files import each other in a cycle.

Building blocks sit low, composition on top::

    errors, files -> exact -> models -> {engine, sweep} -> analyses -> claims -> certify -> cli

Claims are data the catalogue (in ``certify``) judges, so they sit below it (the issue's example order had them
above; the catalogue importing its claims is the one direction that needs no probing).  A package may import
anything in a lower layer; analyses import each other only along
:data:`ANALYSIS_EDGES`; the checker imports nothing of ours (any layer may import it, it is a leaf), and what
the library imports of it is only its public entry points (:data:`CHECKER_PUBLIC`: the names of
``algebra.checker.__all__``), never a module or helper inside it (issue 33 item 1).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

import algebra
import algebra.checker

ROOT = Path(algebra.__file__).parent

#: package (or top-level module) -> layer; the root ``algebra/__init__.py`` and ``errors`` are the bottom
LAYERS = {"errors": 0, "(root)": 0, "files": 0, "inputs": 0, "version": 0, "exact": 1, "models": 2, "engine": 3, "sweep": 3,
          "geometry": 4, "slt": 4, "numeric": 4, "graph": 4, "grokking": 4, "attention_rank": 4,
          "claims": 5, "certify": 6, "cli": 7, "api": 7, "__main__": 8}
#: the only imports between analyses (same layer): what each one builds on; in layer 0, ``inputs`` (the one door
#: for every input) raises the errors of ``errors``
ANALYSIS_EDGES = {("(root)", "errors"), ("(root)", "version"), ("inputs", "errors"), ("graph", "slt"), ("graph", "numeric"), ("grokking", "numeric"), ("grokking", "slt"),
                  ("numeric", "slt")}
CHECKER = "checker"
#: what the rest of ``algebra`` may import of the checker: the package and the names of its ``__all__``
CHECKER_PUBLIC = {"algebra.checker"} | {f"algebra.checker.{name}" for name in algebra.checker.__all__}
#: the one upward edge: the root resolves its public names from ``algebra.api`` (the top layer, beside ``cli``)
#: inside a module ``__getattr__`` (PEP 562), so ``import algebra`` itself loads only layer 0, and nothing below
#: imports the root (``__version__`` lives in ``algebra.version``), so the edge closes no cycle.
#: :func:`test_the_root_imports_the_api_only_on_attribute_access` holds the root to that.
LAZY_EDGES = {("(root)", "api")}


TOP = {p.stem for p in ROOT.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()} - {"__init__"}


def _package(module: str) -> str:
    """The package (or top-level module) a dotted name belongs to; ``algebra.__version__`` is the root's."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in TOP else "(root)"


@functools.lru_cache(maxsize=None)
def _parsed(root: Path) -> tuple:
    return tuple(sorted(_scan(root).items()))


def module_imports(root: Path = ROOT) -> dict:
    """``{module: {imported algebra module, ...}}`` over every file, imports inside functions included (parsed
    once per run; callers get fresh sets)."""
    return {name: set(found) for name, found in _parsed(root)}


def _scan(root: Path) -> dict:
    out = {}
    for path in root.rglob("*.py"):
        rel = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(rel[:-1] if rel[-1] == "__init__" else rel)
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("algebra"):
                found.add(node.module)
                found.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("algebra"))
        out[name] = found
    return out


def violations(imports: dict) -> list:
    """``(importer, imported, why)`` for every import against the table."""
    bad = []
    for src, targets in imports.items():
        a = _package(src)
        for tgt in targets:
            b = _package(tgt)
            if a == b:
                continue
            if a == CHECKER:
                bad.append((src, tgt, "the checker imports nothing of the code it checks"))
            elif b == CHECKER:
                if tgt not in CHECKER_PUBLIC:
                    bad.append((src, tgt, "a checker internal: import only algebra.checker's public names (__all__)"))
            elif a not in LAYERS or b not in LAYERS:
                bad.append((src, tgt, f"package {a if a not in LAYERS else b} has no layer in LAYERS"))
            elif (a, b) in LAZY_EDGES:
                continue
            elif LAYERS[b] > LAYERS[a]:
                bad.append((src, tgt, f"upward: {a} (layer {LAYERS[a]}) imports {b} (layer {LAYERS[b]})"))
            elif LAYERS[b] == LAYERS[a] and (a, b) not in ANALYSIS_EDGES:
                bad.append((src, tgt, f"sideways: {a} -> {b} is not in ANALYSIS_EDGES"))
    return sorted(bad)


def file_cycles(imports: dict) -> list:
    """Strongly connected sets of two or more files (Tarjan), in-function imports counted."""
    modules = set(imports)
    graph = {m: {t for t in imports[m] if t in modules and t != m} for m in modules}
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for m in sorted(modules):
        if m not in index:
            visit(m)
    return out


def test_every_import_follows_the_layer_table():
    assert violations(module_imports()) == []


def test_no_file_imports_in_a_cycle():
    assert file_cycles(module_imports()) == []


@pytest.mark.parametrize("package", sorted(p for p in LAYERS if p not in ("(root)", "__main__")))
def test_an_upward_import_planted_in_any_package_is_caught(package):
    """Plant ``import algebra.cli`` (the top) in each package (``cli`` itself: an import of the checker's
    code from the checker's side is the other direction), and the table refuses it."""
    imports = module_imports()
    planted = dict(imports)
    if package == "cli":
        planted["algebra.checker.planted"] = {"algebra.cli"}
    else:
        planted[f"algebra.{package}.planted"] = {"algebra.cli"}
    assert len(violations(planted)) == len(violations(imports)) + 1


@pytest.mark.parametrize("planted", ["algebra.checker.core", "algebra.checker.core.need", "algebra.checker.attention",
                                     "algebra.checker.files.scan", "algebra.checker.Model", "algebra.checker.kernel"])
def test_a_planted_import_of_a_checker_internal_is_caught(planted):
    """The library reaches the checker through its public names only: ``from algebra.checker.core import need``
    (scanned as the module and the name), ``import algebra.checker.attention``, a private name of the package
    or a module that is gone are each refused; the public entry points are not."""
    imports = module_imports()
    caught = dict(imports, **{"algebra.certify.planted": {planted}})
    assert violations(caught) == sorted(violations(imports) + [("algebra.certify.planted", planted, "a checker internal: "
                                                                 "import only algebra.checker's public names (__all__)")])
    public = dict(imports, **{"algebra.certify.planted": {"algebra.checker", "algebra.checker.derive_claim"}})
    assert violations(public) == violations(imports)


def test_a_planted_cycle_is_caught():
    imports = {"algebra.exact.a": {"algebra.exact.b"}, "algebra.exact.b": {"algebra.exact.a"}}
    assert file_cycles(imports) == [["algebra.exact.a", "algebra.exact.b"]]


def _root_imports(tree) -> tuple:
    """``(module-level algebra imports, algebra imports inside functions)`` of a parsed root ``__init__``."""
    top, inner = set(), set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("algebra"):
            top.add(node.module)
        elif isinstance(node, ast.Import):
            top.update(a.name for a in node.names if a.name.startswith("algebra"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for sub in ast.walk(node):
                if isinstance(sub, ast.ImportFrom) and sub.module and sub.module.startswith("algebra"):
                    inner.update(f"{sub.module}.{a.name}" for a in sub.names)
                elif isinstance(sub, ast.Import):
                    inner.update(a.name for a in sub.names if a.name.startswith("algebra"))
    return top, inner


def test_the_root_imports_the_api_only_on_attribute_access():
    """``import algebra`` loads layer 0 only; ``algebra.api`` is reached from ``__getattr__`` alone."""
    top, inner = _root_imports(ast.parse((ROOT / "__init__.py").read_text()))
    assert {_package(m) for m in top} <= {"errors", "version"}
    assert {_package(m) for m in inner} == {"api"}


def test_a_module_level_api_import_in_the_root_is_caught():
    top, _ = _root_imports(ast.parse("from algebra.api import dimension\n"))
    assert not {_package(m) for m in top} <= {"errors", "version"}
