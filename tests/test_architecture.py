"""The layers of docs/architecture.md: each folder of npu_lint imports only the layers below it.

Every import counts, also the ones inside functions (a lazy import is still a dependency)."""
from __future__ import annotations

import ast

from conftest import REPO

PACKAGE = REPO / "npu_lint"
# Lowest first. `generate` holds offline tools: it may read knowledge and core, and run the
# ast-only analyses that also serve at lint time (library summaries); the CLI's `explain`
# renders a rule page with it.
LAYERS = ("core", "knowledge", "config", "analysis", "checks", "engine", "run", "frontends")
ALLOWED = {layer: set(LAYERS[:index]) for index, layer in enumerate(LAYERS)}
ALLOWED["generate"] = {"core", "knowledge", "analysis"}
ALLOWED["frontends"].add("generate")


def _layer_of(path) -> str | None:
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else None  # npu_lint/__init__.py and __main__ stand on top


def _imported_layers(path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("npu_lint."):
            yield node.lineno, node.module.split(".")[1]
        elif isinstance(node, ast.ImportFrom) and node.level:
            yield node.lineno, "<relative>"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("npu_lint."):
                    yield node.lineno, alias.name.split(".")[1]


def test_every_folder_is_a_known_layer():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(ALLOWED)


def test_each_layer_imports_only_layers_below_it():
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        layer = _layer_of(path)
        if layer is None:
            continue
        for line, imported in _imported_layers(path):
            if imported != layer and imported not in ALLOWED[layer]:
                wrong.append(f"{path.relative_to(REPO)}:{line} ({layer}) imports {imported}")
    assert not wrong, "\n".join(wrong)
