"""Types, constants and small value builders every part of the GPU lowering uses."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm

from tilec.dialects import tile

SMEM = "__tilec_smem"  # the global every kernel of the module takes its shared memory from
REGION_ALIGN = 1024  # shared-memory regions start on 1024 bytes: the span of a swizzle pattern


def gptr() -> ir.Type:
    return ir.Type.parse("!llvm.ptr<1>")


def sptr() -> ir.Type:
    return ir.Type.parse("!llvm.ptr<3>")


def scalar_type(t: ir.Type) -> ir.Type:
    """The per-thread type of one element: pointers become !llvm.ptr<1>."""
    e = tile.element_of(t)
    return gptr() if tile.is_ptr(e) else e


def byte_width(t: ir.Type) -> int:
    if tile.is_ptr(t) or str(t).startswith("!llvm.ptr"):
        return 8
    if str(t) == "i1":
        return 1
    return max(1, t.width // 8)


def const_i32(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), v).result


def is_float(t) -> bool:
    return isinstance(t, ir.FloatType)


def ptr_cast(v: ir.Value, result: ir.Type) -> ir.Value:
    """Pointers are opaque !llvm.ptr<1> here: a cast between pointer types is the value itself."""
    if tile.is_ptr(result):
        return v if str(v.type).startswith("!llvm.ptr") else llvm.IntToPtrOp(gptr(), v).result
    return llvm.PtrToIntOp(result, v).result
