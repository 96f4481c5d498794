"""Pieces every tile lowering needs (CPU and GPU): operand groups, combiner cloning, atomics' tables."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm

from tilec.dialects import contract, tile

from .base import PassError

# tile.atomic_rmw kinds -> llvm.atomicrmw operations (floats use fmax/fmin for max/min).
RMW_OPS = {
    "add": "add",
    "fadd": "fadd",
    "max": "max",
    "min": "min",
    "umax": "umax",
    "umin": "umin",
    "and": "_and",
    "or": "_or",
    "xor": "_xor",
    "xchg": "xchg",
}
FLOAT_RMW_OPS = {"max": "fmax", "min": "fmin", "add": "fadd"}


DYNAMIC_INDEX = -2147483648  # llvm.getelementptr's marker for a dynamic index


def rmw_op(kind: str, element: ir.Type):
    name = FLOAT_RMW_OPS.get(kind, RMW_OPS[kind]) if isinstance(element, ir.FloatType) else RMW_OPS[kind]
    return getattr(llvm.AtomicBinOp, name)


def ordering(sem: str):
    table = {
        "relaxed": llvm.AtomicOrdering.monotonic,
        "acquire": llvm.AtomicOrdering.acquire,
        "release": llvm.AtomicOrdering.release,
        "acq_rel": llvm.AtomicOrdering.acq_rel,
    }
    if sem not in table:
        raise PassError(f"unknown memory semantics '{sem}'")
    return table[sem]


def semantics_of(op: ir.Operation) -> str:
    return ir.StringAttr(op.attributes["sem"]).value if "sem" in op.attributes else "acq_rel"


def segments(op: ir.Operation) -> dict:
    """A tile op's operands grouped by name (mask/other may be absent)."""
    return tile.operand_segments(op, tile.SPECS[op.name[5:]])


def without_mask(op: ir.Operation, value=lambda v: v) -> ir.Operation:
    """A copy of the tile load/store/atomic `op` without its mask and `other`, at the insertion
    point; `value` maps each operand kept (identity by default)."""
    seg = segments(op)
    kept = [value(v) for name, values in seg.items() if name not in ("mask", "other") for v in values]
    attrs = {name: op.attributes[name] for name in op.attributes}
    attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get(
        [0 if name in ("mask", "other") else len(values) for name, values in seg.items()]
    )
    return ir.Operation.create(
        op.name, results=[r.type for r in op.results], operands=kept, attributes=attrs, loc=op.location
    )


def zero(t: ir.Type) -> ir.Value:
    if isinstance(t, ir.FloatType):
        return arith.ConstantOp(t, 0.0).result
    if str(t).startswith("!llvm.ptr"):
        return llvm.ZeroOp(t).result
    return arith.ConstantOp(t, 0).result


def clone_combiner(block: ir.Block, lhs: list[ir.Value], rhs: list[ir.Value]) -> list[ir.Value]:
    """Clones a reduce/scan combiner at the insertion point with its arguments bound to lhs + rhs;
    returns the values it yields. Booleans carried as i8 are narrowed back to i1 on the way in."""
    values = []
    for arg, v in zip(list(block.arguments), [*lhs, *rhs]):
        values.append(arith.trunci(arg.type, v) if v.type != arg.type and str(arg.type) == "i1" else v)
    mapping = dict(zip(list(block.arguments), values))
    for inner in block.operations:
        inner = inner.operation
        if inner.name == "gpu.yield":
            return [mapping.get(v, v) for v in inner.operands]
        clone = inner.clone()
        for i, v in enumerate(list(clone.operands)):
            if v in mapping:
                clone.operands[i] = mapping[v]
        for old, new in zip(inner.results, clone.results):
            mapping[old] = new
    raise PassError("combiner region without gpu.yield")


def drop_grid_dependency_control(module_op: ir.Operation) -> None:
    """Erases the grid-dependency-control statements of a module (their results are never used)."""
    found = []

    def visit(op):
        op = op.operation if hasattr(op, "operation") else op
        if op.name == "tile.inline_asm" and contract.GRID_DEPENDENCY_CONTROL in op.attributes:
            found.append(op)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    for op in found:
        op.erase()
