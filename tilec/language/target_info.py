"""`tl.target_info` (Triton's `triton.language.target_info`): what the kernel is being compiled for,
as compile-time values, so that one source can take a path per target:

    from tilec.language.target_info import cuda_capability_geq

    if cuda_capability_geq(9, 0):      # decided while compiling; the other branch is not generated
        y = tl.inline_asm_elementwise("tanh.approx.f32 $0, $1;", "=r,r", [x], ...)
    else:
        y = portable_tanh(x)

`current_target()` is a `GPUTarget(backend, arch, warp_size)` (tilec.runtime's, as Triton's): backend
"cuda" (arch: compute capability as Triton writes it, 90 for sm_90a), "hip" (arch: "gfx942", ...),
"cpu" or "interpreter" (arch "host", warp_size 1). Outside a kernel's compilation there is no target: current_target() is None
and the tests are False. Triton's interpreter reports the GPU of the machine; tilec's reports
"interpreter", since GPU-only code (inline PTX) cannot run there.
"""

from __future__ import annotations

from . import builtins as _builtins
from .aggregates import constexpr_function

__all__ = [
    "cuda_capability_geq",
    "current_target",
    "is_cuda",
    "is_hip",
    "is_hip_cdna3",
    "is_hip_cdna4",
]


@constexpr_function
def current_target() -> tuple | None:
    """The target being compiled for, a GPUTarget (None outside a kernel's compilation)."""
    return _builtins.state.compile_target


@constexpr_function
def is_cuda() -> bool:
    """Compiling for an NVIDIA GPU."""
    target = current_target()
    return target is not None and target.backend == "cuda"


@constexpr_function
def cuda_capability_geq(major: int, minor: int = 0) -> bool:
    """Compiling for an NVIDIA GPU of compute capability (major, minor) or newer."""
    target = current_target()
    return target is not None and target.backend == "cuda" and target.arch >= major * 10 + minor


@constexpr_function
def is_hip() -> bool:
    """Compiling for an AMD GPU."""
    target = current_target()
    return target is not None and target.backend == "hip"


@constexpr_function
def is_hip_cdna3() -> bool:
    """Compiling for AMD CDNA3 (gfx942: MI300)."""
    target = current_target()
    return target is not None and target.arch == "gfx942"


@constexpr_function
def is_hip_cdna4() -> bool:
    """Compiling for AMD CDNA4 (gfx950: MI350)."""
    target = current_target()
    return target is not None and target.arch == "gfx950"
