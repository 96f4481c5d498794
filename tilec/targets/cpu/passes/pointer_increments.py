"""tile-cpu-pointer-increments: a pointer tile a loop advances by one scalar becomes a scalar offset.

    for k (p = p0):  x = load(p); ...; yield p + splat(s)
      =>  for k (o = 0):  p = p0 + splat(o); x = load(p); ...; yield o + s     (o in i64)

On the CPU target a pointer tile is a buffer of i64 addresses: carried through a loop (a matmul's
`a_ptrs += BLOCK_K`) it is read, advanced element by element and written back every iteration, and
each load goes through addresses read from memory, one element at a time. With the carried value a
scalar, the tile's addresses are `p0 + o` computed where they are loaded: elementwise fusion folds
`p0`'s index arithmetic into the load and tile-cpu-pointer-offsets makes consecutive addresses
visible to LLVM, which loads vectors. The original carried value is left yielding itself (dead;
canonicalize drops it). Offsets are summed in i64, as the addresses were.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, scf

from tilec.dialects import tile
from tilec.passes.base import TilePass, ops_named


@dataclass(frozen=True)
class CpuPointerIncrementsPass(TilePass):
    """Carry a scalar offset instead of a pointer tile advanced by a scalar each iteration."""

    name: ClassVar[str] = "tile-cpu-pointer-increments"

    def run(self, module: ir.Module) -> None:
        for loop in list(ops_named(module.operation, "scf.for")):
            increments = _increments(loop)
            if increments:
                _rewrite(loop, increments)


def _increments(loop: ir.Operation) -> dict:
    """{carried index: the scalar its pointer tile advances by each iteration}."""
    body = loop.regions[0].blocks[0]
    yielded = list(list(body.operations)[-1].operands)
    out = {}
    for j, arg in enumerate(list(body.arguments)[1:]):
        if not tile.shape_of(arg.type) or not tile.is_ptr(tile.element_of(arg.type)):
            continue
        owner = yielded[j].owner
        if isinstance(owner, ir.Block) or owner.operation.name != "tile.addptr":
            continue
        ptr, offset = owner.operation.operands
        if ptr != arg or isinstance(offset.owner, ir.Block):
            continue
        if offset.owner.operation.name == "tile.splat":
            out[j] = offset.owner.operation.operands[0]
        elif isinstance(constant := tile.splat_constant(offset), ir.IntegerAttr):
            out[j] = constant  # made a scalar before the loop (_rewrite)
    return out


def _rewrite(loop: ir.Operation, increments: dict) -> None:
    body = loop.regions[0].blocks[0]
    args = list(body.arguments)[1:]
    inits = list(loop.operands)[3:]
    i64 = ir.IntegerType.get_signless(64)
    old_yield = list(body.operations)[-1]
    advanced = sorted(increments)  # carried indices, in the order of their new i64 offsets
    with loop.location, ir.InsertionPoint(loop):
        zero = arith.constant(i64, 0)
        steps = {
            j: arith.constant(i64, s.value) if isinstance(s, ir.IntegerAttr) else s
            for j, s in increments.items()
        }
        # the new loop: the old carried values, then one i64 offset per advanced pointer tile
        new = scf.ForOp(*list(loop.operands)[:3], inits + [zero] * len(advanced))
    new_body = new.body
    new_args = list(new.inner_iter_args)
    offsets = dict(zip(advanced, new_args[len(inits) :]))
    finals = dict(zip(advanced, list(new.results)[len(inits) :]))
    with loop.location, ir.InsertionPoint(new_body):
        anchor = arith.constant(i64, 0).owner
    body.arguments[0].replace_all_uses_with(new.induction_variable)
    for j, (old, arg) in enumerate(zip(args, new_args)):
        if j not in increments:
            old.replace_all_uses_with(arg)
    with loop.location, ir.InsertionPoint(anchor):
        for j in increments:
            args[j].replace_all_uses_with(_advanced(inits[j], offsets[j]))
    for op in [o.operation for o in body.operations][:-1]:
        op.move_before(anchor)
    with loop.location, ir.InsertionPoint(anchor):
        nexts = [arith.addi(offsets[j], _to_i64(steps[j])) for j in advanced]
        # the old yield's operands as they are now: a carried value yielded unchanged (`yield %arg`)
        # was the old block argument, replaced above by the new one
        current = list(old_yield.operands)
        kept = [new_args[j] if j in increments else v for j, v in enumerate(current)]
        scf.YieldOp(kept + nexts)
    anchor.erase()
    with loop.location, ir.InsertionPoint(loop):  # right after the new loop
        for j, old in enumerate(loop.results):
            after = _advanced(inits[j], finals[j]) if j in finals else new.results[j]
            old.replace_all_uses_with(after)
    loop.erase()


def _advanced(base: ir.Value, offset: ir.Value) -> ir.Value:
    """base + offset elements, for every pointer of the tile `base`."""
    return tile.addptr(base, tile.splat(offset, tile.shape_of(base.type)))


def _to_i64(value: ir.Value) -> ir.Value:
    i64 = ir.IntegerType.get_signless(64)
    return value if value.type == i64 else arith.extsi(i64, value)
