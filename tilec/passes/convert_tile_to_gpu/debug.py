"""Device-side print and assert."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlir import ir
from mlir.dialects import arith, gpu, scf

from tilec.dialects import tile

from ..base import ops_named
from ..gpu_vendor import Vendor
from .common import const_i32, is_float, scalar_type

if TYPE_CHECKING:
    from .lowering import KernelLowering


def lower_print(self: KernelLowering, op):
    """tl.device_print on NVIDIA: one `gpu.printf` (vprintf) line per element, by the one thread that
    owns it: `pid (x, y, z) idx (i, j) <prefix><value>`, as the CPU target and the interpreter print."""
    self.vendor.check_print(op)
    prefix = ir.StringAttr(op.attributes["prefix"]).value.replace("%", "%%")
    as_hex = "hex" in op.attributes and ir.BoolAttr(op.attributes["hex"]).value
    pids = [
        arith.index_cast(i32_type(), gpu.BlockIdOp(d).result)
        for d in (gpu.Dimension.x, gpu.Dimension.y, gpu.Dimension.z)
    ]
    head = "pid (%d, %d, %d)"
    if not op.operands:
        _once(self, None, lambda: gpu.PrintfOp(f"{head} {prefix}\n", pids))
        return
    value = op.operands[0]
    shape = tile.shape_of(value.type)
    elem = scalar_type(value.type)
    if not shape:
        _once(
            self,
            None,
            lambda: gpu.PrintfOp(
                f"{head} idx () {prefix}{_conversion(elem, as_hex)}\n",
                [*pids, _printable(self.scalar(value), elem)],
            ),
        )
        return
    layout = self.layout_for(shape, tile.element_of(value.type))
    idx = "(" + ", ".join(["%d"] * len(shape)) + ("," if len(shape) == 1 else "") + ")"
    fmt = f"{head} idx {idx} {prefix}{_conversion(elem, as_hex)}\n"
    for r, coord in zip(self.regs(value, layout), self.coords(layout)):
        _once(self, layout, lambda r=r, coord=coord: gpu.PrintfOp(fmt, [*pids, *coord, _printable(r, elem)]))


def lower_assert(self: KernelLowering, op):
    """tl.device_assert on NVIDIA: `cf.assert` per element, which becomes __assertfail (the kernel stops
    with a device-side assertion, as in Triton); the message carries the kernel's source location."""
    self.vendor.check_assert(op)
    from mlir.dialects import cf

    message = _assert_message(op)
    cond = op.operands[0]
    shape = tile.shape_of(cond.type)
    if not shape:
        cf.AssertOp(_truthy(self.scalar(cond)), message)
        return
    layout = self.layout_of_inputs(cond) or self.layout_for(shape, tile.element_of(cond.type))
    regs = self.regs(cond, layout)
    ok = _truthy(regs[0])
    for r in regs[1:]:
        ok = arith.andi(ok, _truthy(r))
    cf.AssertOp(ok, message)


def _assert_message(op) -> str:
    from tilec import diagnostics

    file, line, col = diagnostics.file_location(op.location)
    return (f"{file}:{line}:{col}: " if file else "") + ir.StringAttr(op.attributes["message"]).value


def lower_combiner_asserts(vendor: Vendor, gfn) -> None:
    """Device assertions inside reduce/scan combiners (a checked combine function) were cloned with
    the combiner wherever it runs, on values already lowered to scalars: each becomes a cf.assert."""
    from mlir.dialects import cf

    for op in ops_named(gfn.operation, "tile.assert"):
        vendor.check_assert(op)
        with op.location, ir.InsertionPoint(op):
            cf.AssertOp(_truthy(op.operands[0]), _assert_message(op))
        op.erase()


def _truthy(v: ir.Value) -> ir.Value:
    if str(v.type) == "i1":
        return v
    if is_float(v.type):
        return arith.cmpf(arith.CmpFPredicate.UNE, v, arith.ConstantOp(v.type, 0.0).result)
    return arith.cmpi(arith.CmpIPredicate.ne, v, arith.ConstantOp(v.type, 0).result)


def _once(self: KernelLowering, layout, emit) -> None:
    """Runs `emit` on one thread per element: the owner among replicas, thread 0 for scalars."""
    cond = (
        arith.cmpi(arith.CmpIPredicate.eq, self.tid, const_i32(0))
        if layout is None
        else self.replica_predicate(layout)
    )
    if cond is None:
        emit()
        return
    branch = scf.IfOp(cond)
    with ir.InsertionPoint(branch.then_block):
        emit()
        scf.YieldOp([])


def i32_type() -> ir.Type:
    return ir.IntegerType.get_signless(32)


def _conversion(elem: ir.Type, as_hex: bool) -> str:
    if is_float(elem):
        return "%f"
    bits = ir.IntegerType(elem).width
    if as_hex:
        return "0x%llx" if bits > 32 else "0x%x"
    return "%lld" if bits > 32 else "%d"


def _printable(v: ir.Value, elem: ir.Type) -> ir.Value:
    """vprintf's arguments: floats as f64 (C's promotion), integers as i32 or i64."""
    if is_float(elem):
        return arith.extf(ir.F64Type.get(), v) if str(elem) != "f64" else v
    bits = ir.IntegerType(elem).width
    if bits < 32:
        return arith.extsi(i32_type(), v) if bits > 1 else arith.extui(i32_type(), v)
    return v


def widen(v: ir.Value, t: ir.Type) -> ir.Value:
    if v.type == t:
        return v
    if is_float(t) and is_float(v.type):
        return arith.extf(t, v)
    if is_float(t):
        return arith.sitofp(t, v)
    return arith.extsi(t, v)
