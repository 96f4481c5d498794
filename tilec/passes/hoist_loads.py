"""tile-hoist-loads: issue loads as early as their operands and earlier writes allow.

A load written after a reduction (layernorm's weights) otherwise waits for the reduction's barriers
before it even starts; hoisted, its latency overlaps the reduction. A load moves up together with the
pure ops that compute its operands, never above an op that may write memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from tilec.dialects import tile

from .base import TilePass

_WRITES = {"tile.store", "tile.atomic_rmw", "tile.atomic_cas", "tile.print", "func.call"}


def _writes(op: ir.Operation) -> bool:
    # an inline asm statement not declared pure may do anything, memory writes included
    return op.name in _WRITES or (op.name == "tile.inline_asm" and "pure" not in op.attributes)


def may_write(op: ir.Operation) -> bool:
    if _writes(op):
        return True
    found = []

    def visit(inner):
        inner = inner.operation if hasattr(inner, "operation") else inner
        if _writes(inner):
            found.append(inner)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner.operation.walk(visit)
                if found:
                    return True
    return False


def is_pure(op: ir.Operation) -> bool:
    if op.regions:
        return False
    return tile.is_pure(op) and op.name != "tile.load" or op.name.startswith(("arith.", "math."))


@dataclass(frozen=True)
class HoistLoadsPass(TilePass):
    """Move each non-volatile tile.load (with the pure ops computing its operands) up to the last write.

    %s = "tile.reduce"(%x) ...;  %p = "tile.addptr"(%w, %r);  %v = "tile.load"(%p)
      =>  %p = "tile.addptr"(%w, %r);  %v = "tile.load"(%p);  %s = "tile.reduce"(%x) ...
    """

    name: ClassVar[str] = "tile-hoist-loads"

    def run(self, module: ir.Module) -> None:
        blocks = []

        def collect(op):
            op = op.operation if hasattr(op, "operation") else op
            for region in op.regions:
                blocks.extend(region.blocks)
            return ir.WalkResult.ADVANCE

        module.operation.walk(collect)
        for block in blocks:
            _hoist_in_block(block)


def _hoist_in_block(block: ir.Block) -> None:
    ops = [op.operation for op in block.operations]
    for index, op in enumerate(ops):
        if op.name != "tile.load" or "volatile" in op.attributes:
            continue
        # The load and the in-block pure ops its operands need, in program order.
        cone, pending = [], [op]
        in_block = {o: i for i, o in enumerate(ops)}  # Operations hash by identity of the op
        seen = set()
        while pending:
            cur = pending.pop()
            if cur in seen:
                continue
            seen.add(cur)
            cone.append(cur)
            for v in cur.operands:
                owner = v.owner
                if isinstance(owner, ir.Block):
                    continue
                dep = owner.operation if hasattr(owner, "operation") else owner
                if dep not in in_block:
                    continue  # defined outside this block: available everywhere in it
                if dep is not op and not is_pure(dep):
                    continue  # stays where it is; the cone cannot rise above it
                pending.append(dep)
        cone_ids = set(cone)
        # Earliest position: just after the last op before the load that writes memory or defines a
        # value the cone uses without being part of it.
        limit = -1
        used = _uses(cone)
        for i in range(index):
            other = ops[i]
            if other in cone_ids:
                continue
            if may_write(other):
                limit = i
                continue
            if any(r in used for r in other.results):
                limit = i
        first = next((i for i in range(limit + 1, index) if ops[i] not in cone_ids), None)
        if first is None:
            continue  # already as early as it can be
        anchor = ops[first]
        for c in sorted(cone, key=lambda o: in_block[o]):
            if in_block[c] > first:
                c.move_before(anchor)
        ops = [o.operation for o in block.operations]


def _uses(cone) -> set:
    values = set()
    for c in cone:
        for v in c.operands:
            values.add(v)
    return values
