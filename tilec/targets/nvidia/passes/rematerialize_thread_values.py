"""gpu-rematerialize-thread-values: values a thread computes from its thread id are recomputed inside
a loop that contains another loop, instead of being kept in registers across the inner loop.

A persistent matmul walks its output tiles in an outer loop around the K loop. Every per-thread
address and mask offset (a row's offset in A, a copy's slot in shared memory, the epilogue's
columns) depends on the thread id alone, so LLVM's loop-invariant code motion computes them once,
before the outer loop, and they stay live through every K loop: on sm_90a, 128x256x64 on 8 warps,
248 registers instead of the plain kernel's 209. Here the thread id a loop body uses is read again
in it (an inline `mov.u32 %tid.x`, which LLVM cannot hoist), and the pure ops between the id and
each use are cloned next to their users: once per stretch of the body between inner loops, so that
what the epilogue needs is computed after the K loop, not carried through it.

    %t = gpu.thread_id x;  %o = arith.muli %t, %c8          (entry)
    scf.for %tile ... { ... use(%o) ...; scf.for %k ... {...}; ... use(%o) ... }
      =>  scf.for %tile ... { %t1 = <tid.x>; %o1 = arith.muli %t1, %c8; ... use(%o1) ...;
                              scf.for %k ... {...}; %t2 = <tid.x>; %o2 = ...; ... use(%o2) ... }
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, llvm

from tilec.passes.base import TilePass, defining_op, ops_in_order, ops_named

_LOOPS = ("scf.for", "scf.while")
# Pure ops a thread-derived value may pass through and be cloned from (a handful of ALU
# instructions each; none reads memory).
_PURE_PREFIXES = ("arith.", "index.")
_PURE_OPS = {"llvm.getelementptr", "llvm.ptrtoint", "llvm.inttoptr", "llvm.bitcast", "llvm.mlir.constant"}
_THREAD_ID_ASM = "mov.u32 $0, %tid.x;"


def _pure(op: ir.Operation) -> bool:
    return not op.regions and (op.name.startswith(_PURE_PREFIXES) or op.name in _PURE_OPS)


def _inside(op: ir.Operation, ancestor: ir.Operation) -> bool:
    while op is not None:
        if op == ancestor:
            return True
        op = op.parent
    return False


def _has_inner_loop(loop: ir.Operation) -> bool:
    return any(inner != loop for name in _LOOPS for inner in ops_named(loop, name))


def _thread_derived(fn: ir.Operation) -> set:
    """Results of gpu.thread_id x and of pure ops with a thread-derived operand (walk order is
    dominance order within a block, and definitions dominate uses)."""
    derived: set = set()

    def visit(op):
        op = op.operation if hasattr(op, "operation") else op
        if op.name == "gpu.thread_id" and str(op.attributes["dimension"]) == "#gpu<dim x>":
            derived.update(op.results)
        elif (
            op.name == "llvm.inline_asm"
            and ir.StringAttr(op.attributes["asm_string"]).value == _THREAD_ID_ASM
        ):
            derived.update(op.results)
        elif _pure(op) and any(v in derived for v in op.operands):
            derived.update(op.results)
        return ir.WalkResult.ADVANCE

    fn.walk(visit, ir.WalkOrder.PRE_ORDER)
    return derived


@dataclass(frozen=True)
class RematerializeThreadValuesPass(TilePass):
    """Recompute thread-id-derived values inside loops that contain loops, instead of keeping them live."""

    name: ClassVar[str] = "gpu-rematerialize-thread-values"
    checks_tile_ops: ClassVar[bool] = False  # (runs on IR whose tile ops are lowered)

    def run(self, module: ir.Module) -> None:
        for fn in ops_named(module.operation, "gpu.func"):
            loops = [op for name in _LOOPS for op in ops_named(fn, name) if _has_inner_loop(op)]
            # outer loops first: an inner loop then clones from the outer loop's copies
            loops.sort(key=_depth)
            derived = _thread_derived(fn)  # grows with the copies, which the inner loops then clone
            for loop in loops:
                _rematerialize(loop, derived)


def _depth(op: ir.Operation) -> int:
    depth = 0
    while op.parent is not None:
        op, depth = op.parent, depth + 1
    return depth


def _rematerialize(loop: ir.Operation, derived: set) -> None:
    for region in loop.regions:
        for block in region.blocks:
            copies: dict = {}  # value defined outside the loop -> its copy in this stretch of the block
            for op in list(block.operations):
                op = op.operation
                _redirect(op, loop, derived, copies, ir.InsertionPoint(op))
                if op.name in _LOOPS:
                    copies = {}  # after an inner loop: recompute rather than carry through it


def _redirect(root: ir.Operation, loop: ir.Operation, derived: set, copies: dict, point) -> None:
    for user in ops_in_order(root):
        for i, value in enumerate(list(user.operands)):
            if value in derived:
                defining = defining_op(value)
                if defining is not None and not _inside(defining, loop):
                    user.operands[i] = _copy(value, loop, derived, copies, point)


def _copy(value: ir.Value, loop: ir.Operation, derived: set, copies: dict, point) -> ir.Value:
    found = copies.get(value)
    if found is not None:
        return found
    op = defining_op(value)
    with point, op.location:
        if op.name == "gpu.thread_id" or op.name == "llvm.inline_asm":
            tid = llvm.InlineAsmOp(
                ir.IntegerType.get_signless(32), [], _THREAD_ID_ASM, "=r", has_side_effects=True
            )
            new = (
                tid.result
                if op.name == "llvm.inline_asm"
                else arith.index_cast(ir.IndexType.get(), tid.result)
            )
            derived.add(tid.result)
            derived.add(new)
            copies[value] = new
            return new
        operands = [
            _copy(v, loop, derived, copies, point)
            if v in derived and defining_op(v) is not None and not _inside(defining_op(v), loop)
            else v
            for v in op.operands
        ]
        clone = op.clone(point)
        for i, v in enumerate(operands):
            clone.operands[i] = v
    for old, new in zip(op.results, clone.results):
        derived.add(new)
        copies[old] = new
    return copies[value]
