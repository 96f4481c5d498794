"""tilec: an MLIR-based multi-target tile compiler. Kernels in Triton's language, one source for
NVIDIA, AMD and the CPU.

    import tilec
    import tilec.language as tl

    @tilec.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr): ...
    add[(tilec.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
"""

from . import language, runtime
from .aot import load
from .autotuner import Config, autotune, heuristics
from .cache import ArtifactError
from .compiler import CompiledKernel, compile
from .language.aggregates import aggregate, constexpr_function
from .python.errors import CompilationError, InterpreterError, PerformanceWarning
from .python.jit import VERSION as __version__
from .python.jit import JITFunction, jit
from .python.tensor_descriptor import TensorDescriptor


def cdiv(a: int, b: int) -> int:
    """Ceiling division for grid sizes on the host."""
    return -(-a // b)


def next_power_of_2(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


_allocator = None


def set_allocator(allocator) -> None:
    """Triton's hook for the global scratch memory its in-kernel tensor descriptors need (they build
    TMA maps on the device); ported code calls it before such kernels. tilec's in-kernel descriptors
    become address arithmetic and need no scratch: the allocator, a callable (size, alignment,
    stream) -> buffer as in Triton, is kept (`tilec._allocator`) and not called."""
    global _allocator
    if allocator is not None and not callable(allocator):
        raise TypeError(f"tilec.set_allocator takes a callable (size, alignment, stream), got {allocator!r}")
    _allocator = allocator


__all__ = [
    "__version__",
    "ArtifactError",
    "CompilationError",
    "Config",
    "CompiledKernel",
    "InterpreterError",
    "JITFunction",
    "PerformanceWarning",
    "TensorDescriptor",
    "aggregate",
    "autotune",
    "cdiv",
    "compile",
    "constexpr_function",
    "heuristics",
    "jit",
    "language",
    "load",
    "next_power_of_2",
    "runtime",
    "set_allocator",
]
