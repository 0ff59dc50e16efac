"""Dependencies point one way: models -> exact -> engine -> geometry; no import cycle."""

import ast
from pathlib import Path

import algebra

ROOT = Path(algebra.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, *, top_level_only: bool) -> set:
    """Modules of ``algebra`` imported by a file (optionally only at module level, which is what can cycle)."""
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    out = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("algebra"):
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("algebra"))
    return out


def _graph(packages) -> dict:
    modules = {_module_name(p): p for pkg in packages for p in (ROOT / pkg).rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        graph[name] = {m for m in _imports(path, top_level_only=True) if m in modules and m != name}
    return graph


def test_the_engine_imports_no_analysis():
    """Nothing in algebra/engine imports geometry, slt, certify, checker, numeric (not even lazily)."""
    banned = ("algebra.geometry", "algebra.slt", "algebra.certify", "algebra.checker", "algebra.numeric", "algebra.cli")
    for path in (ROOT / "engine").rglob("*.py"):
        bad = [m for m in _imports(path, top_level_only=False) if m.startswith(banned)]
        assert not bad, (path.name, bad)


def test_no_import_cycle():
    """Module-level imports among models, exact, engine and geometry form no cycle (a cycle is what broke before:
    the engine imported geometry.proximity, which imported the engine)."""
    graph = _graph(["models", "exact", "engine", "geometry"])
    assert "algebra.engine" in graph["algebra.geometry.secant"]  # the graph sees real edges
    assert "algebra.engine.bottleneck" in graph["algebra.engine.dimension"]
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in graph[node]:
            if state.get(nxt) == "open":
                raise AssertionError("import cycle: " + " -> ".join(stack + [node, nxt]))
            if nxt not in state:
                visit(nxt, stack + [node])
        state[node] = "done"

    for node in graph:
        if node not in state:
            visit(node, [])


def test_the_old_engine_location_is_gone():
    assert not (ROOT / "geometry" / "dimension.py").exists()
    assert not (ROOT / "geometry" / "geometry_commands.py").exists()
