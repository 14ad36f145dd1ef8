"""The layers of DESIGN.md: each folder imports only the folders before it, never the reverse.

A lower layer that reaches up (say ``gm`` importing ``eval``) makes the library impossible to
use without the layers above it; this test names the file and the import that does it.

Within the layers, two more rules keep the house easy to change:

- no import loops, between modules or between packages, counting the imports inside
  functions (a loop hidden in a function still means neither side can be read, tested or
  moved without the other). Imports under ``if TYPE_CHECKING:`` are for type hints only and
  do not count.
- no package imports another package's ``_private`` module: a package's public names are
  the ones its ``__init__`` re-exports.
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


# ---------------------------------------------------------------- the import graph


def _modules() -> dict[str, Path]:
    """Every module of the layers by dotted name (a package by its ``__init__.py``)."""
    out = {}
    for layer in ORDER:
        for path in sorted((ROOT / layer).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _type_checking_only(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _imports(name: str, path: Path) -> list[tuple[int, list[str]]]:
    """(line, dotted names) of every import in a module, at any depth, except type-checking ones.

    ``from a.b import c`` yields ``a.b.c`` when that is a module of ours, else ``a.b``; relative
    imports are made absolute.
    """
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: list[tuple[int, list[str]]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking_only(child):
                for rest in child.orelse:
                    visit_one(rest)
                continue
            visit_one(child)

    def visit_one(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.append((node.lineno, [alias.name for alias in node.names]))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append((node.lineno, [f"{module}.{alias.name}" if f"{module}.{alias.name}" in MODULES else module
                                        for alias in node.names]))
        visit(node)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return found


def _ours(dotted: str) -> str | None:
    """The module of ours a dotted name lives in (``gm.table.Session`` → ``gm.table``), or None."""
    while dotted and dotted not in MODULES:
        dotted = dotted.rpartition(".")[0]
    return dotted or None


def _edges() -> dict[str, dict[str, int]]:
    """module → {module it imports: the line of the first such import}."""
    graph: dict[str, dict[str, int]] = {name: {} for name in MODULES}
    for name, path in MODULES.items():
        for line, targets in _imports(name, path):
            for target in targets:
                module = _ours(target)
                if module is not None and module != name:
                    graph[name].setdefault(module, line)
    return graph


def _loops(graph: dict[str, dict[str, object]]) -> list[list[str]]:
    """The strongly connected parts of more than one node (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph.get(child, {}))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    part.append(top)
                    if top == node:
                        break
                if len(part) > 1:
                    loops.append(sorted(part))
    return loops


def _unit(module: str) -> str:
    """What a package-level loop is counted between: a layer's module or its whole sub-package."""
    return ".".join(module.split(".")[:2])


def _where(module: str, line: int) -> str:
    return f"{MODULES[module].relative_to(ROOT)}:{line}"


def test_no_import_loops_between_modules():
    graph = _edges()
    offences = [
        " ↔ ".join(part) + "\n" + "\n".join(
            f"    {_where(a, line)} imports {b}" for a in part for b, line in graph[a].items() if b in part)
        for part in _loops(graph)
    ]
    assert not offences, "import loops (move the shared piece down, or pass it in):\n" + "\n".join(offences)


def test_no_import_loops_between_packages():
    graph = _edges()
    units: dict[str, dict[str, tuple[str, int, str]]] = {}
    for a, targets in graph.items():
        units.setdefault(_unit(a), {})
        for b, line in targets.items():
            if _unit(a) != _unit(b):
                units[_unit(a)].setdefault(_unit(b), (a, line, b))
                units.setdefault(_unit(b), {})
    offences = [
        " ↔ ".join(part) + "\n" + "\n".join(
            f"    {_where(a, line)} imports {b}" for u in part for (a, line, b) in
            [edge for v, edge in units[u].items() if v in part])
        for part in _loops(units)
    ]
    assert not offences, "packages that import each other (one of them must not know the other):\n" + "\n".join(offences)


def test_no_package_imports_another_packages_private_module():
    offences = []
    for name, path in MODULES.items():
        own = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for line, targets in _imports(name, path):
            for target in targets:
                parts = target.split(".")
                if parts[0] not in ORDER:
                    continue
                private = next((i for i, part in enumerate(parts) if part.startswith("_") and not part.startswith("__")), None)
                if private is None:
                    continue
                owner = parts[:private]
                if own[: len(owner)] != owner:
                    offences.append(f"{path.relative_to(ROOT)}:{line} imports {'.'.join(parts[:private + 1])}")
    assert not offences, ("private modules used from another package (import the name from the package, "
                          "and re-export it there):\n" + "\n".join(sorted(set(offences))))


def test_the_loop_finder_finds_a_loop_hidden_in_a_function():
    assert _loops({"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}}) == [["a", "b", "c"]]
    assert _loops({"a": {"b": 1}, "b": {}}) == []
