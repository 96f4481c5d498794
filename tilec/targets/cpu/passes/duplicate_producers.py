"""tile-cpu-duplicate-producers: a cheap elementwise computation used in several places is copied
for each use, so that elementwise fusion folds it into every consumer.

MLIR's linalg-fuse-elementwise-ops fuses a producer into its consumer only when the consumer is its
only user. A kernel's offsets (`offs = pid * BLOCK + tl.arange(0, BLOCK)`) feed its mask and every
pointer, so they were computed once into a buffer and read back by each load and store loop: LLVM
then saw addresses read from memory, not consecutive ones, and kept the loops scalar. Recomputing a
few integer operations per use costs less than the buffer; with them fused, a masked load's
address is an affine function of the loop index (vector loads; see tile-cpu-pointer-offsets).

Only integer generics are copied (offsets, pointers, masks: no loads, no calls, no float math),
all-parallel with one result and a short body, so the work repeated stays small.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from tilec.passes.base import TilePass, ops_named

_MAX_BODY_OPS = 12  # a few index computations, masks and pointer offsets
# A value used more often stays in its buffer. Layernorm's columns have 9 uses (the loads of x, w
# and b, the mask, the store, in both versions tile-cpu-version-masks makes): with a limit of 8
# they stay in a buffer, every access an indirect one, and the kernel runs at 5.4-11.4 GB/s on a
# 2-core host; copied, at 10.8-22.8 (bench/cpu.py). _MAX_COPIES bounds the copies of a module
# either way.
_MAX_USES = 32
# Not 64: a matmul versioned by tile-cpu-version-remainders has two copies of its body, and with 64
# the second copy found the budget spent (its tile copies read offsets back from buffers).
_MAX_COPIES = 128  # per module
_MAX_INLINED = 16  # generics evaluated in place of one extract
_PURE_PREFIXES = ("arith.", "linalg.index", "linalg.yield")


def _cheap_pure_generic(op: ir.Operation) -> bool:
    if op.name != "linalg.generic" or len(op.results) != 1:
        return False
    kinds = [str(k) for k in ir.ArrayAttr(op.attributes["iterator_types"])]
    if any("parallel" not in k for k in kinds):
        return False
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
    if maps[-1] != ir.AffineMap.get_identity(maps[-1].n_dims):
        return False  # an extract's indices are then not the iteration's
    if any(not isinstance(e, ir.AffineDimExpr | ir.AffineConstantExpr) for m in maps for e in m.results):
        return False
    body = op.regions[0].blocks[0]
    ops = list(body.operations)
    if len(ops) > _MAX_BODY_OPS:
        return False
    out_arg = body.arguments[len(body.arguments) - 1]
    if list(out_arg.uses):
        return False  # reads its output: not a pure function of its inputs
    return all(
        o.operation.name.startswith(_PURE_PREFIXES)
        and not o.operation.regions
        and all(_integer(r.type) for r in o.operation.results)
        for o in ops
    )


def _integer(t: ir.Type) -> bool:
    """Index arithmetic: integers (offsets, pointers as i64, masks) and indices, not float math,
    whose repetition would cost more than the buffer it saves."""
    return isinstance(t, ir.IntegerType | ir.IndexType)


@dataclass(frozen=True)
class CpuDuplicateProducersPass(TilePass):
    """%o = linalg.generic {offsets} used by %a and %b => one copy of it for %a, another for %b.

    %o = linalg.generic ... { index, addi }      %o1 = linalg.generic ... { index, addi }
    %m = linalg.generic ins(%o) { cmpi }    =>   %m = linalg.generic ins(%o1) { cmpi }
    %p = linalg.generic ins(%o) { muli, addi }   %o2 = ...; %p = linalg.generic ins(%o2) { ... }
    """

    name: ClassVar[str] = "tile-cpu-duplicate-producers"

    def run(self, module: ir.Module) -> None:
        generics = [op for op in ops_named(module.operation, "linalg.generic") if _cheap_pure_generic(op)]
        # Users before producers: copying a consumer adds uses to its producers, which are copied
        # in turn when their turn comes. Integer code that shares values at every step (Philox's
        # rounds) would be copied exponentially: a budget of copies bounds it.
        budget = _MAX_COPIES
        for op in reversed(generics):
            uses = [use for use in op.results[0].uses if use.owner.name == "linalg.generic"]
            if len(list(op.results[0].uses)) > _MAX_USES or len(uses) < 2 or len(uses) - 1 > budget:
                continue
            budget -= len(uses) - 1
            for use in uses[1:]:
                copy = op.clone(ir.InsertionPoint(op))
                use.owner.operands[use.operand_number] = copy.results[0]
        _inline_into_extracts(module)


def _inline_into_extracts(module: ir.Module) -> None:
    """tensor.extract %t[%i] of such a generic's result (a store's loop reads its pointers and mask
    so) => the generic's body computed for element %i, its inputs that are such generics in turn
    (each once per extract: shared values stay shared)."""
    extracts = [op for op in ops_named(module.operation, "tensor.extract") if _producer(op.operands[0])]
    for op in extracts:
        with op.location, ir.InsertionPoint(op):
            value = _element(_producer(op.operands[0]), list(op.operands)[1:], {}, [_MAX_INLINED])
        op.results[0].replace_all_uses_with(value)
        op.erase()


def _producer(value: ir.Value):
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    owner = owner.operation if hasattr(owner, "operation") else owner
    return owner if _cheap_pure_generic(owner) else None


def _element(generic: ir.Operation, indices: list, memo: dict, budget: list) -> ir.Value:
    """The generic's body evaluated at `indices` (of its iteration space), here; inputs made by
    such generics evaluated the same way (memo: one evaluation per generic and indices), up to
    `budget` generics, the others extracted from their tensors."""
    from mlir.dialects import tensor

    key = (generic, tuple(indices))
    if key in memo:
        return memo[key]
    budget[0] -= 1
    body = generic.regions[0].blocks[0]
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(generic.attributes["indexing_maps"])]
    inputs = list(generic.operands)[: len(body.arguments) - 1]
    mapping = {}
    for arg, source, m in zip(body.arguments, inputs, maps):
        at = [_index_of(e, indices) for e in m.results]
        producer = _producer(source)
        if producer is not None and budget[0] > 0:
            mapping[arg] = _element(producer, at, memo, budget)
        else:
            mapping[arg] = tensor.ExtractOp(source, at).result
    value = None
    for o in body.operations:
        o = o.operation
        if o.name == "linalg.yield":
            value = mapping.get(o.operands[0], o.operands[0])
            break
        if o.name == "linalg.index":
            mapping[o.results[0]] = indices[ir.IntegerAttr(o.attributes["dim"]).value]
            continue
        copy = o.clone()
        for i, operand in enumerate(copy.operands):
            if operand in mapping:
                copy.operands[i] = mapping[operand]
        for old, new in zip(o.results, copy.results):
            mapping[old] = new
    memo[key] = value
    return value


def _index_of(expr, indices: list) -> ir.Value:
    from mlir.dialects import arith

    if isinstance(expr, ir.AffineDimExpr):
        return indices[expr.position]
    return arith.ConstantOp(ir.IndexType.get(), expr.value).result
