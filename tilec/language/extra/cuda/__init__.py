"""`triton.language.extra.cuda`'s place in tilec: `libdevice` (the same functions as
`tl.extra.libdevice`) and Triton's NVIDIA helpers: `num_warps()` / `num_threads()` (the launch's, as
compile-time constants, on every target), `globaltimer()` (the GPU's nanosecond clock, int64) and
`smid()` (the index of the SM running the program, int32). The last two read PTX special registers,
so they run on NVIDIA GPUs only; elsewhere they are compile errors that say so. `gdc_wait()` and
`gdc_launch_dependents()` (programmatic dependent launch) are PTX's griddepcontrol on sm_90 and newer
and nothing elsewhere. They matter for launches with `launch_pdl=True`, which start a kernel early
(NVIDIA sm_90+) once the kernel before it has called gdc_launch_dependents() in every program; other
launches start after the previous kernel ends, so the wait returns at once."""

from tilec.dialects import contract

from ... import builtins as _builtins
from ... import core as _core
from ...builtins import builtin
from .. import libdevice

__all__ = [
    "gdc_launch_dependents",
    "gdc_wait",
    "globaltimer",
    "libdevice",
    "num_threads",
    "num_warps",
    "smid",
]


@builtin
def num_warps():
    """The launch's `num_warps`, a compile-time constant (the kernel is compiled per value)."""
    return _builtins.state.launch_num_warps


@builtin
def num_threads():
    """Threads per program on an NVIDIA GPU: `num_warps() * 32`, a compile-time constant."""
    return _builtins.state.launch_num_warps * 32


@builtin
def globaltimer():
    """The GPU's global nanosecond timer (PTX `%globaltimer`), int64; not a pure value: each call
    reads it anew."""
    return _builtins.inline_asm_elementwise(
        "mov.u64 $0, %globaltimer;", "=l", [], dtype=_core.int64, is_pure=False, pack=1
    )


@builtin
def smid():
    """The index of the streaming multiprocessor running this program (PTX `%smid`), int32."""
    return _builtins.inline_asm_elementwise(
        "mov.u32 $0, %smid;", "=r", [], dtype=_core.int32, is_pure=True, pack=1
    )


def _grid_dependency_control(statement: str) -> None:
    from mlir import ir

    done = _builtins.inline_asm_elementwise(
        f"{statement} // $0", "=r", [], dtype=_core.int32, is_pure=False, pack=1
    )
    done.handle.owner.attributes[contract.GRID_DEPENDENCY_CONTROL] = ir.UnitAttr.get()


@builtin
def gdc_wait():
    """Waits until the grids this one depends on programmatically have finished and their memory is
    visible (PTX `griddepcontrol.wait`, sm_90+); nothing on other targets, where no such dependency
    exists. Triton's `tl.extra.cuda.gdc_wait`."""
    _grid_dependency_control("griddepcontrol.wait;")


@builtin
def gdc_launch_dependents():
    """Lets the grids that depend on this one programmatically start (PTX
    `griddepcontrol.launch_dependents`, sm_90+); nothing on other targets. Triton's
    `tl.extra.cuda.gdc_launch_dependents`."""
    _grid_dependency_control("griddepcontrol.launch_dependents;")
