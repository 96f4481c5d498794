"""tile-cpu-grid: turns a tile kernel into a host function that runs a range of program instances.

On the CPU one call runs many program instances in a loop, so the grid loop lives in compiled code and
the runtime splits the grid across cores (one call per core, each over its own range).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, func, scf

from tilec.dialects import contract
from tilec.passes.base import PassError, TilePass

PROGRAM_SUFFIX = "_program"
GRID_ARGS = ("pid_begin", "pid_end", "grid_x", "grid_y", "grid_z", "status")


@dataclass(frozen=True)
class CpuGridPass(TilePass):
    """Wrap each kernel in a grid loop: program ids become arguments of a per-program function.

    func @k(%x: !tile.ptr<f32>) { "tile.program_id"() {axis = 0} ... }
      =>  func private @k_program(%x, %pid_x, %pid_y, %pid_z, %nx, %ny, %nz, %status) { ... }
          func @k(%x, %begin: i64, %end: i64, %gx: i32, %gy: i32, %gz: i32, %status: i64) {
            scf.for %i = %begin to %end { call @k_program(%x, %i % %gx, ...) } }
    """

    name: ClassVar[str] = "tile-cpu-grid"

    def run(self, module: ir.Module) -> None:
        kernels = contract.kernels(module)
        if not kernels:
            raise PassError("no function marked tile.kernel in the module")
        for kernel in kernels:
            _wrap(module, kernel)


def _wrap(module: ir.Module, kernel) -> None:
    i32, i64 = ir.IntegerType.get_signless(32), ir.IntegerType.get_signless(64)
    name = ir.StringAttr(kernel.attributes["sym_name"]).value
    block = kernel.regions[0].blocks[0]
    user_types = [a.type for a in block.arguments]
    loc = kernel.location
    extra = [block.add_argument(i32, loc) for _ in range(6)]
    block.add_argument(i64, loc)  # status: where device assertions report failures
    pid, nprog = extra[:3], extra[3:]

    def replace(op):
        op = op.operation
        if op.name in ("tile.program_id", "tile.num_programs"):
            axis = ir.IntegerAttr(op.attributes["axis"]).value
            source = pid if op.name == "tile.program_id" else nprog
            op.results[0].replace_all_uses_with(source[axis])
            op.erase()
        return ir.WalkResult.ADVANCE

    for op in list(_walk(kernel.operation)):
        replace(op)
    program_type = ir.FunctionType.get(user_types + [i32] * 6 + [i64], [])
    kernel.attributes["function_type"] = ir.TypeAttr.get(program_type)
    kernel.attributes["sym_name"] = ir.StringAttr.get(name + PROGRAM_SUFFIX)
    kernel.attributes["sym_visibility"] = ir.StringAttr.get("private")
    arg_attrs = kernel.attributes["arg_attrs"] if "arg_attrs" in kernel.attributes else None
    if arg_attrs is not None:
        extra_attrs = [ir.DictAttr.get({})] * 7
        kernel.attributes["arg_attrs"] = ir.ArrayAttr.get(list(ir.ArrayAttr(arg_attrs)) + extra_attrs)
    kernel.attributes[contract.STATUS_ARG] = ir.IntegerAttr.get(i32, len(user_types) + 6)
    del kernel.attributes[contract.KERNEL]

    with loc, ir.InsertionPoint(module.body):
        grid_types = user_types + [i64, i64, i32, i32, i32, i64]
        wrapper = func.FuncOp(name, (grid_types, []))
        wrapper.attributes[contract.KERNEL] = ir.UnitAttr.get()
        wrapper.attributes[contract.GRID_ENTRY] = ir.UnitAttr.get()
        if arg_attrs is not None:
            wrapper.attributes["arg_attrs"] = ir.ArrayAttr.get(
                list(ir.ArrayAttr(arg_attrs)) + [ir.DictAttr.get({})] * len(GRID_ARGS)
            )
        entry = wrapper.add_entry_block()
    args = list(entry.arguments)
    user_args, (begin, end, gx, gy, gz, status_arg) = args[: len(user_types)], args[len(user_types) :]
    with loc, ir.InsertionPoint(entry):
        one = arith.ConstantOp(i64, 1).result
        loop = scf.ForOp(begin, end, one)
        with ir.InsertionPoint(loop.body):
            linear = loop.induction_variable
            gx64, gy64 = arith.extui(i64, gx), arith.extui(i64, gy)
            x = arith.trunci(i32, arith.remui(linear, gx64))
            rest = arith.divui(linear, gx64)
            y = arith.trunci(i32, arith.remui(rest, gy64))
            z = arith.trunci(i32, arith.divui(rest, gy64))
            func.CallOp(
                [],
                ir.FlatSymbolRefAttr.get(name + PROGRAM_SUFFIX),
                user_args + [x, y, z, gx, gy, gz, status_arg],
            )
            scf.YieldOp([])
        func.ReturnOp([])


def _walk(root: ir.Operation):
    ops = []

    def visit(op):
        ops.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return ops
