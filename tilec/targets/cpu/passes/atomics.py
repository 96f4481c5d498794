"""tile-cpu-atomics: defines the atomic helpers that convert-tile-to-linalg calls.

They are declared during the tile lowering and defined only after bufferization, because buffer
deallocation refuses ops with unknown memory effects (llvm.atomicrmw and llvm.cmpxchg).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import func, llvm

from tilec.dialects import contract
from tilec.passes.base import PassError, TilePass
from tilec.passes.lowering_common import RMW_OPS, rmw_op
from tilec.passes.lowering_common import ordering as lc_ordering

INTEGER_ONLY = {"umax", "umin", "and", "or", "xor", "cas"}  # llvm.cmpxchg takes integers only


@dataclass(frozen=True)
class CpuAtomicsPass(TilePass):
    """Give bodies to the `@__tilec_atomic_*` declarations: llvm.atomicrmw / llvm.cmpxchg on the address.

    func.func private @__tilec_atomic_add_acq_rel_i32(i64, i32) -> i32 attributes {tile.atomic = ...}
      =>  { %p = llvm.inttoptr %a; %old = llvm.atomicrmw add %p, %v acq_rel; return %old }
    """

    name: ClassVar[str] = "tile-cpu-atomics"

    def run(self, module: ir.Module) -> None:
        for op in module.body.operations:
            op = op.operation
            if op.name != "func.func" or contract.ATOMIC not in op.attributes or len(op.regions[0].blocks):
                continue
            kind, sem = _helper_kind(op)
            _check_signature(op, kind)
            _define(op, kind, sem)


def _helper_kind(op: ir.Operation) -> tuple[str, str]:
    """The helper's `tile.atomic = {kind = ..., sem = ...}` (a hand-written declaration may lack them)."""
    attr = op.attributes[contract.ATOMIC]
    fields = {}
    if isinstance(attr, ir.DictAttr):
        for key in ("kind", "sem"):
            if key in attr and isinstance(attr[key], ir.StringAttr):
                fields[key] = attr[key].value
    if len(fields) != 2:
        raise PassError("tile.atomic must be a dictionary with string entries 'kind' and 'sem'", op)
    if fields["kind"] not in RMW_OPS and fields["kind"] != "cas":
        known = ", ".join([*RMW_OPS, "cas"])
        raise PassError(f"unknown atomic kind '{fields['kind']}' (known: {known})", op)
    try:
        lc_ordering(fields["sem"])
    except PassError as e:
        raise PassError(e.message, op) from None
    return fields["kind"], fields["sem"]


def _check_signature(op: ir.Operation, kind: str) -> None:
    """(i64 address, value) -> value, or (i64, expected, desired) -> value for cas, on a scalar."""
    ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
    values = 2 if kind == "cas" else 1
    expected = f"(i64, {', '.join(['T'] * values)}) -> T"
    inputs, results = list(ftype.inputs), list(ftype.results)
    if len(inputs) != values + 1 or len(results) != 1 or str(inputs[0]) != "i64":
        raise PassError(f"atomic helper '{kind}' must have the type {expected}, got {ftype}", op)
    element = results[0]
    if any(t != element for t in inputs[1:]):
        raise PassError(f"atomic helper '{kind}' must have the type {expected} (one T), got {ftype}", op)
    integer = isinstance(element, ir.IntegerType)
    if not integer and not isinstance(element, ir.FloatType):
        raise PassError(f"atomic helper '{kind}' works on a scalar integer or float, got {element}", op)
    if kind in INTEGER_ONLY and not integer:
        raise PassError(f"atomic helper '{kind}' works on integers only, got {element}", op)
    if kind == "fadd" and integer:
        raise PassError(f"atomic helper 'fadd' works on floats only, got {element}", op)


def _define(op: ir.Operation, kind: str, sem: str) -> None:
    ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
    elem = ftype.results[0]
    block = op.regions[0].blocks.append(*ftype.inputs)
    del op.attributes["sym_visibility"]
    op.attributes["sym_visibility"] = ir.StringAttr.get("private")
    ordering = lc_ordering(sem)
    with op.location, ir.InsertionPoint(block):
        ptr = llvm.IntToPtrOp(ir.Type.parse("!llvm.ptr"), block.arguments[0]).result
        if kind == "cas":
            # cmpxchg's failure ordering may not be release-flavoured.
            failure = llvm.AtomicOrdering.monotonic if sem in ("release", "acq_rel", "relaxed") else ordering
            pair = llvm.AtomicCmpXchgOp(ptr, block.arguments[1], block.arguments[2], ordering, failure).result
            old = llvm.ExtractValueOp(elem, pair, [0]).result
        else:
            old = llvm.AtomicRMWOp(rmw_op(kind, elem), ptr, block.arguments[1], ordering).result
        func.ReturnOp([old])
