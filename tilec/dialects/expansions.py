"""Expansions of one tile op into others that the language writes with its own operations: tl.sort's
bitonic network, float64 math as series, float `%` by exact steps. The passes that apply them
(tile-expand-sort, tile-expand-float64-math, tile-exact-float-remainder) find them here by family and
op name, so passes do not import the language and the language does not import passes.

An expansion is `build(op) -> ir.Value`: it builds the replacement of `op`'s one result before `op`
(the pass replaces the uses and erases `op`). tilec.language registers its expansions when imported,
which the compiler and tilec-opt do before they run passes.
"""

from __future__ import annotations

from collections.abc import Callable

SORT = "sort"
FLOAT64_MATH = "float64-math"
FLOAT_REMAINDER = "float-remainder"

_REGISTRY: dict[str, dict[str, Callable]] = {}


def register(family: str, op_name: str, build: Callable) -> None:
    taken = _REGISTRY.setdefault(family, {})
    if op_name in taken and taken[op_name] is not build:
        raise ValueError(f"an expansion of {op_name} in family '{family}' is registered already")
    taken[op_name] = build


def family(name: str) -> dict[str, Callable]:
    """The op name -> expansion table of one family (empty until tilec.language is imported: the
    compiler and tilec-opt import it before they run passes)."""
    return _REGISTRY.get(name, {})
