"""The layers of DESIGN.md: each folder imports only the folders before it, never the reverse.

A lower layer that reaches up (say ``gm`` importing ``eval``) makes the library impossible to
use without the layers above it; this test names the file and the import that does it.
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ORDER = ["rulesets", "pipelines", "gm", "eval", "ui"]


def _our_imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [(node.lineno, name.split(".")[0]) for name in names if name.split(".")[0] in ORDER]
    return found


@pytest.mark.parametrize("layer", ORDER)
def test_layer_imports_only_earlier_layers(layer):
    allowed = set(ORDER[: ORDER.index(layer) + 1])
    offences = [
        f"{path.relative_to(ROOT)}:{line} imports {top}"
        for path in sorted((ROOT / layer).rglob("*.py"))
        for line, top in _our_imports(path)
        if top not in allowed
    ]
    assert not offences, "layer rule broken:\n" + "\n".join(offences)
