"""The CPU target: tile IR -> linalg/tensor -> bufferized loops -> LLVM -> native code (ExecutionEngine).

Stages (names used in `compiled.asm` and TILEC_DUMP_IR):
    tile     the frontend's tile IR
    linalg   after tile-cpu-grid and convert-tile-to-linalg (pointers are i64 addresses)
    llvm     the LLVM dialect module handed to the ExecutionEngine
The grid loop is compiled code (`tile-cpu-grid`); the runtime splits the grid across cores.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tilec.targets.stages import run_stage

TILE_TO_LINALG = "tile-canonicalize,tile-cpu-grid,convert-tile-to-linalg,canonicalize,cse"
BUFFERIZE = (
    "linalg-fuse-elementwise-ops,"
    "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map "
    "allow-return-allocs-from-loops},"
    "buffer-deallocation-pipeline,canonicalize,tile-cpu-widen-bool-buffers"
)
TO_LLVM = (
    "tile-cpu-atomics,convert-linalg-to-loops,expand-strided-metadata,lower-affine,convert-scf-to-cf,"
    "finalize-memref-to-llvm,convert-math-to-llvm,convert-math-to-libm,convert-arith-to-llvm,"
    "convert-index-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts"
)


@dataclass(frozen=True)
class Stage:
    name: str
    pipeline: str


def stages() -> list[Stage]:
    """The CPU pipeline, readable as a list."""
    return [
        Stage("linalg", TILE_TO_LINALG),
        Stage("bufferized", BUFFERIZE),
        Stage("llvm", TO_LLVM),
    ]


def lower(module: ir.Module, kernel_name: str, asm: dict) -> None:
    """Runs every stage on `module` in place, recording each stage's IR in `asm`."""

    for stage in stages():
        run_stage(module, kernel_name, "CPU", stage.name, stage.pipeline, asm)
        if stage.name == "linalg" and "tile.prints" in module.operation.attributes:
            prints = [
                ir.StringAttr(a).value for a in ir.ArrayAttr(module.operation.attributes["tile.prints"])
            ]
            asm.setdefault("_prints", prints)
        if stage.name == "linalg" and "tile.asserts" in module.operation.attributes:
            messages = [
                ir.StringAttr(a).value for a in ir.ArrayAttr(module.operation.attributes["tile.asserts"])
            ]
            asm.setdefault("_asserts", messages)
        if stage.name == "bufferized":
            _reject_bool_buffers(module, kernel_name)


def _reject_bool_buffers(module: ir.Module, kernel_name: str) -> None:
    """MLIR's memref-to-LLVM lowering aborts the process on i1 buffers: refuse them cleanly instead."""
    from tilec.python.errors import CompilationError

    text = module.operation.get_asm()
    if "xi1>" in text and "memref<" in text:
        for line in text.splitlines():
            if "memref<" in line and "xi1>" in line.split("memref<", 1)[1].split(">", 1)[0] + ">":
                raise CompilationError(
                    kernel_name,
                    0,
                    0,
                    "the CPU target cannot keep a tensor of booleans in memory here "
                    "(a loop-carried or stored mask); convert it with .to(tl.int8)",
                )


def compile(kernel, module: ir.Module) -> None:
    """Lowers the tile module to native code and attaches a launcher to `kernel`."""
    from . import runtime

    lower(module, kernel.name, kernel.asm)
    kernel.metadata["prints"] = kernel.asm.pop("_prints", [])
    kernel.metadata["asserts"] = kernel.asm.pop("_asserts", [])
    kernel._launcher = runtime.Launcher(kernel, module)
