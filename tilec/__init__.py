"""tilec: an MLIR-based multi-target tile compiler. Kernels in Triton's language, one source for
NVIDIA, AMD and the CPU.

    import tilec
    import tilec.language as tl

    @tilec.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr): ...
    add[(tilec.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)

The public names are imported on first use, so that `import tilec`, the command-line tools' help and
`python -m tilec.<module>` start without loading the language, NumPy's dtypes or MLIR.
"""

import importlib

from . import _source_texts
from ._version import __version__

_source_texts.install()  # kernels made by exec from text compile too

# public name -> (module, attribute in it; None: the module itself)
_PUBLIC = {
    "language": ("tilec.language", None),
    "runtime": ("tilec.runtime", None),
    "testing": ("tilec.testing", None),
    "load": ("tilec.aot", "load"),
    "Config": ("tilec.autotuner", "Config"),
    "autotune": ("tilec.autotuner", "autotune"),
    "heuristics": ("tilec.autotuner", "heuristics"),
    "ArtifactError": ("tilec.cache", "ArtifactError"),
    "CompiledKernel": ("tilec.compiler", "CompiledKernel"),
    "compile": ("tilec.compiler", "compile"),
    "aggregate": ("tilec.language.aggregates", "aggregate"),
    "constexpr_function": ("tilec.language.aggregates", "constexpr_function"),
    "CompilationError": ("tilec.errors", "CompilationError"),
    "InterpreterError": ("tilec.errors", "InterpreterError"),
    "PerformanceWarning": ("tilec.errors", "PerformanceWarning"),
    "JITFunction": ("tilec.jit_function", "JITFunction"),
    "jit": ("tilec.jit_function", "jit"),
    "TensorDescriptor": ("tilec.tensor_descriptor", "TensorDescriptor"),
}


def __getattr__(name: str):
    try:
        module_name, attribute = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module 'tilec' has no attribute '{name}'") from None
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value  # later reads are plain attribute reads
    return value


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC))


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
    "testing",
]
