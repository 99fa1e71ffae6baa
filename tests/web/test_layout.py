"""The web folder shows its parts: sub-packages by purpose, imports pointing one way.

docs/architecture.md draws the same picture; this test keeps the code and the drawing
from drifting apart (a new module goes into the package its purpose names).
"""

from __future__ import annotations

import ast
from pathlib import Path

import ginrummy.web

WEB = Path(ginrummy.web.__file__).parent

# Each layer may import from itself and the layers above it in this list (lower levels).
LAYERS: list[set[str]] = [
    {"errors", "guard", "checks", "workers", "metrics", "language"},
    {"store"},
    {"backends"},
    {"tables", "accounts"},
    {"computer", "online", "records", "reviews", "training"},
    {"site"},
    {"routes"},
    {"app"},
    {"server", "commands"},
]
LEVEL = {name: i for i, layer in enumerate(LAYERS) for name in layer}


def _part(module: list[str]) -> str | None:
    """The web part (sub-package or top module) a dotted module path belongs to."""
    if module[:2] != ["ginrummy", "web"] or len(module) < 3:
        return None
    return module[2]


def _imports(path: Path) -> list[list[str]]:
    """Every module path ``path`` imports from, relative imports resolved."""
    rel = list(path.relative_to(WEB.parent.parent).with_suffix("").parts)
    package = rel[:-1]
    found: list[list[str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                found.append(base + (node.module.split(".") if node.module else []))
            elif node.module:
                found.append(node.module.split("."))
        elif isinstance(node, ast.Import):
            found.extend(alias.name.split(".") for alias in node.names)
    return found


def _sources() -> list[Path]:
    return [p for p in WEB.rglob("*.py") if "migrations" not in p.relative_to(WEB).parts]


def test_every_part_is_placed_in_a_layer() -> None:
    parts = {p.relative_to(WEB).parts[0].removesuffix(".py") for p in _sources()}
    parts.discard("__init__")
    assert parts <= set(LEVEL), f"parts missing from LAYERS: {sorted(parts - set(LEVEL))}"


def test_parts_import_only_their_own_layer_or_below() -> None:
    wrong = []
    for path in _sources():
        me = path.relative_to(WEB).parts[0].removesuffix(".py")
        if me == "__init__":
            continue
        for module in _imports(path):
            other = _part(module)
            if other is None or other == me or other in {"migrations", "static"}:
                continue
            if LEVEL[other] > LEVEL[me]:
                wrong.append(f"{path.relative_to(WEB)} imports {'.'.join(module)}")
    assert not wrong, "imports that point up:\n" + "\n".join(wrong)


def test_at_most_a_dozen_modules_at_the_top() -> None:
    top = sorted(p.name for p in WEB.glob("*.py"))
    assert len(top) <= 12, top


def test_each_package_says_what_it_holds() -> None:
    for init in WEB.glob("*/__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and len(doc.split()) >= 8, f"{init.parent.name}/__init__.py needs a docstring"
