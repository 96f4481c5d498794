"""The import graph of tilec/ by layer: every import statement (module-level and inside functions)
between modules of different layers, and the layer cycles they make.

    python tools/import_graph.py            # edges between layers, with one example each; cycles
    python tools/import_graph.py --all      # every import behind each edge

Layers, lowest first: base (errors, knobs, timing, diagnostics, lazy imports), ir (dialects,
analysis), frontend (the language and the code generator), passes, targets, driver (compiler, cache,
jit, runtime, autotuner, tools). A layer imports only layers below it, and the front end and the
passes not each other (MAY_IMPORT), so the layers form no cycle (test_layering checks both; the exit
status is 1 when an import breaks the rule).
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "tilec"

BASE = {"tilec", "tilec._lazy", "tilec._version", "tilec._source_texts", "tilec.knobs", "tilec.timing",
        "tilec.diagnostics", "tilec.errors", "tilec.elf_files"}  # fmt: skip
LAYERS = ("base", "ir", "frontend", "passes", "targets", "driver")
# what each layer may import: the front end and the passes both build on the IR alone
MAY_IMPORT = {
    "base": set(),
    "ir": {"base"},
    "frontend": {"base", "ir"},
    "passes": {"base", "ir"},
    "targets": {"base", "ir", "frontend", "passes"},
    "driver": {"base", "ir", "frontend", "passes", "targets"},
}


def layer_of(module: str) -> str:
    if module in BASE:
        return "base"
    part = module.split(".")[1] if module.count(".") else ""
    return {"dialects": "ir", "analysis": "ir", "language": "frontend", "frontend": "frontend",
            "passes": "passes", "targets": "targets"}.get(part, "driver")  # fmt: skip


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path):
    """(imported module, line) of every import statement in the file, relative ones resolved."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:  # `from tilec import knobs` imports the module tilec.knobs
                candidate = f"{module}.{alias.name}"
                known = (ROOT.parent / candidate.replace(".", "/")).with_suffix(".py").exists() or (
                    ROOT.parent / candidate.replace(".", "/") / "__init__.py"
                ).exists()
                yield (candidate if known else module), node.lineno


def layer_edges() -> dict[tuple[str, str], list[str]]:
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(ROOT.rglob("*.py")):
        source = module_name(path)
        for target, line in imports(path):
            if target == "tilec" or target.startswith("tilec."):
                a, b = layer_of(source), layer_of(target)
                if a != b:
                    edges[(a, b)].append(f"{source}:{line} -> {target}")
    return edges


def forbidden(edges) -> list[str]:
    """The imports from a layer of a layer it may not import (MAY_IMPORT)."""
    return [f for (a, b), found in edges.items() if b not in MAY_IMPORT[a] for f in found]


def cycles(edges, layers) -> list[list[str]]:
    """Every simple cycle among `layers` (by their direct edges)."""
    graph = {a: sorted({b for (x, b) in edges if x == a and b in layers}) for a in layers}
    found = []

    def walk(path):
        for nxt in graph[path[-1]]:
            if nxt == path[0]:
                found.append(path + [nxt])
            elif nxt not in path and nxt > path[0]:
                walk(path + [nxt])

    for start in sorted(layers):
        walk([start])
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="list every import behind each edge")
    args = parser.parse_args(argv)
    edges = layer_edges()
    for (a, b), found in sorted(edges.items(), key=lambda e: (LAYERS.index(e[0][0]), LAYERS.index(e[0][1]))):
        print(f"{a:9s} -> {b:9s} {len(found):4d}  e.g. {found[0]}")
        if args.all:
            print("".join(f"    {f}\n" for f in found), end="")
    up = forbidden(edges)
    loops = cycles(edges, set(LAYERS))
    print("imports a layer may not make:", "".join(f"\n    {f}" for f in up) or "none")
    print("cycles between layers:", " ; ".join(" -> ".join(c) for c in loops) or "none")
    return 1 if up or loops else 0


if __name__ == "__main__":
    sys.exit(main())
