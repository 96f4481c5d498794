"""OpSpec: one op's operands, results, attributes, regions, docs and verifier, from which its IRDL
definition and its page in docs/dialect.md are generated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mlir import ir

from .types import DIALECT


class VerifyError(Exception):
    """A tile op broke a rule IRDL cannot express. Carries the op for its location."""

    def __init__(self, op: ir.Operation, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


@dataclass(frozen=True)
class Operand:
    name: str
    kind: str = "single"  # single | optional | variadic
    constraint: str = "irdl.any"


@dataclass(frozen=True)
class OpSpec:
    name: str
    doc: str
    example: str
    operands: tuple[Operand, ...] = ()
    results: tuple[Operand, ...] = ()
    attributes: tuple[str, ...] = ()  # required attributes (IRDL checks presence)
    optional_attributes: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()
    pure: bool = True  # no side effects: tile passes may CSE and erase it
    verify: Callable[[ir.Operation], None] | None = field(default=None, compare=False)

    @property
    def full_name(self) -> str:
        return f"{DIALECT}.{self.name}"

    def irdl(self) -> str:
        lines = [f"  irdl.operation @{self.name} {{"]
        counter = iter(range(1000))

        def section(keyword: str, values: Sequence[Operand]) -> None:
            if not values:
                return
            names = []
            for v in values:
                var = f"%c{next(counter)}"
                lines.append(f"    {var} = {v.constraint}")
                kind = "" if v.kind == "single" else f"{v.kind} "
                names.append(f"{v.name}: {kind}{var}")
            lines.append(f"    irdl.{keyword}({', '.join(names)})")

        section("operands", self.operands)
        section("results", self.results)
        if self.attributes:
            entries = []
            for a in self.attributes:
                var = f"%c{next(counter)}"
                lines.append(f"    {var} = irdl.any")
                entries.append(f'"{a}" = {var}')
            lines.append(f"    irdl.attributes {{{', '.join(entries)}}}")
        if self.regions:
            names = []
            for r in self.regions:
                var = f"%c{next(counter)}"
                lines.append(f"    {var} = irdl.region")
                names.append(f"{r}: {var}")
            lines.append(f"    irdl.regions({', '.join(names)})")
        lines.append("  }")
        return "\n".join(lines)


# every op by its name without the dialect prefix (ops.py fills it; verifiers look up their op)
SPECS: dict[str, OpSpec] = {}
