"""The package's layers point one way: the core imports only itself (and the standard
library), the hand kernel only the core, the evaluator the kernel and the core, the review
those and nothing above (not the bots, the arena or the faces); and no two modules import
each other, directly or round a circle. Imports are read from the sources (inside
functions and type-checking blocks too), not run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "ginrummy"

CORE = {"actions", "cards", "equity", "exits", "fairness", "files", "hand", "heuristics",
        "i18n", "knowledge", "match", "melds", "options", "ratings", "record", "scoring",
        "view"}
"""The top-level modules of the rules and their records, what every player may reason
with (``heuristics``), and the sentences' translations (``i18n``: the standard library's
gettext), which the review's words use too."""

LAYERS = [CORE, {"kernel"}, {"evaluator"}, {"review"}]
"""From the bottom up: a module may import from its own layer and those below."""


def module_name(path: Path) -> str:
    parts = ["ginrummy", *path.relative_to(SRC).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in SRC.rglob("*.py")}


def imports(name: str) -> set[str]:
    """The package's modules that module ``name`` imports, anywhere in its source."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES]
            targets = subs + ([base] if len(subs) < len(node.names) else [])
        else:
            continue
        for t in targets:
            while t and t not in MODULES:
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def layer(name: str) -> int | None:
    """The layer of a module (its top-level module or package), None above them all."""
    top = name.split(".")[1] if "." in name else ""
    return next((i for i, group in enumerate(LAYERS) if top in group), None)


@pytest.mark.parametrize("name", sorted(n for n in MODULES if layer(n) is not None))
def test_a_module_imports_nothing_above_its_layer(name: str) -> None:
    mine = layer(name)
    assert mine is not None
    above = sorted(t for t in imports(name) if (layer(t) is None or layer(t) > mine))
    assert above == [], f"{name} imports {above}, above its layer"


def test_no_import_circles() -> None:
    """Tarjan's strongly connected components of the import graph: each is one module."""
    graph = {n: imports(n) for n in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert circles == []


def test_the_layers_are_read_as_the_sources_say() -> None:
    """The reading itself: a module known to import upward would be caught (the evaluator
    imports the kernel; the bots import the evaluator, which is below them)."""
    assert "ginrummy.kernel" in imports("ginrummy.evaluator")
    assert "ginrummy.evaluator" in imports("ginrummy.bots.expert")
    assert layer("ginrummy.bots.expert") is None and layer("ginrummy.kernel.solver") == 1
