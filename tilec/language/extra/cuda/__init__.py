"""`triton.language.extra.cuda`'s place in tilec: `libdevice` (the same functions as
`tl.extra.libdevice`) and Triton's NVIDIA helpers: `num_warps()` / `num_threads()` (the launch's, as
compile-time constants, on every target), `globaltimer()` (the GPU's nanosecond clock, int64) and
`smid()` (the index of the SM running the program, int32). The last two read PTX special registers,
so they run on NVIDIA GPUs only; elsewhere they are compile errors that say so."""

from ... import builtins as _builtins
from ... import core as _core
from ...builtins import builtin
from .. import libdevice

__all__ = ["globaltimer", "libdevice", "num_threads", "num_warps", "smid"]


@builtin
def num_warps():
    """The launch's `num_warps`, a compile-time constant (the kernel is compiled per value)."""
    return _builtins.launch_num_warps


@builtin
def num_threads():
    """Threads per program on an NVIDIA GPU: `num_warps() * 32`, a compile-time constant."""
    return _builtins.launch_num_warps * 32


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
