"""Running one named stage of a target's pipeline, with failures reported at the user's source."""

from __future__ import annotations

from mlir import ir

from tilec.dialects import contract
from tilec.errors import CompilationError
from tilec.passes.pipeline import StepFailed, parse_pipeline, run_pipeline


def run_stage(
    module: ir.Module, kernel_name: str, target: str, stage: str, pipeline: str, asm: dict | None = None
):
    """Runs `pipeline` on `module`; records the IR in asm[stage] (which TILEC_DUMP_IR prints)."""
    from tilec.timing import timed

    try:
        with timed(stage, kernel_name):
            run_pipeline(module, parse_pipeline(pipeline))
    except StepFailed as e:
        d = e.diagnostics[0] if e.diagnostics else None
        file = d.file if d is not None and d.file else kernel_name
        line, col = (d.line or 0, d.col or 0) if d is not None else (0, 0)
        msg = d.message if d is not None else str(e)
        raise CompilationError(
            file, line, col, f"{target} stage '{stage}' failed in {e.step.name}: {msg}"
        ) from None
    if asm is not None:
        asm[stage] = module.operation.get_asm(enable_debug_info=False)


def shared_bytes(module: ir.Module) -> int:
    """The shared memory (NVIDIA) or LDS (AMD) the kernel needs, per program: convert-tile-to-gpu's
    `tilec.shared_bytes` on the gpu.func."""
    found = [0]

    def visit(op):
        if op.name == "gpu.func" and contract.SHARED_BYTES in op.attributes:
            found[0] = max(found[0], ir.IntegerAttr(op.attributes[contract.SHARED_BYTES]).value)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found[0]


def check_shared_memory(kernel_name: str, module: ir.Module, limit: int, memory: str, arch: str) -> int:
    """The shared memory (LDS) the kernel needs per program; a kernel needing more than `limit` stops
    here with an error at its definition, before the back end (AMD's ends the process on it) or the
    launch."""
    from tilec import diagnostics
    from tilec.passes.base import ops_named

    nbytes = shared_bytes(module)
    if nbytes > limit:
        where = diagnostics.at_op(next(iter(ops_named(module.operation, "gpu.func")), None), "")
        raise CompilationError(
            where.file or kernel_name,
            where.line or 0,
            where.col or 0,
            f"the kernel needs {nbytes} bytes of {memory} per program, more than the {limit} a program "
            f"may have on {arch}: use smaller blocks (a tl.dot that takes no matrix instruction, a "
            "reduction or a layout conversion of a large tile stages it there)",
        )
    return nbytes
