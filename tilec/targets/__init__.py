"""Targets by name. Each target folder has compiler.py (stages) and runtime.py (load + launch)."""

from __future__ import annotations


def target_family(name: str) -> str:
    """ "cpu", "nvidia" (sm_80, sm_90a, ...), "amd" (gfx942, gfx1100, ...) or "interpreter"."""
    if name in ("cpu", "interpreter"):
        return name
    if name.startswith("sm_"):
        return "nvidia"
    if name.startswith("gfx"):
        return "amd"
    raise ValueError(f"unknown target '{name}' (expected cpu, sm_80, sm_90a, gfx942, ... or interpreter)")


def wavefront_size(arch: str) -> int:
    """Threads per wave of an AMD GPU: 64 on CDNA (gfx9xx), 32 on RDNA (gfx10xx and later)."""
    return 64 if arch.startswith("gfx9") else 32


def get_target(name: str):
    """The compiler module for a target name: "cpu", "sm_80"/"sm_90a" (NVIDIA), "gfx942" (AMD)."""
    family = target_family(name)
    if family == "cpu":
        from .cpu import compiler
    elif family == "nvidia":
        from .nvidia import compiler
    elif family == "amd":
        from .amd import compiler
    else:
        raise ValueError("the interpreter has no compiler stages: it runs the tile IR itself")
    return compiler


def kernel_arg_ctype(t):
    """The ctypes type a GPU kernel parameter of tilec type `t` is passed as (pointers as 64-bit
    addresses), shared by the NVIDIA and AMD launchers."""
    import ctypes

    if t.is_ptr():
        return ctypes.c_uint64
    if t.is_floating():
        return ctypes.c_float if t.primitive_bitwidth == 32 else ctypes.c_double
    return {1: ctypes.c_bool, 8: ctypes.c_int8, 16: ctypes.c_int16, 32: ctypes.c_int32, 64: ctypes.c_int64}[
        t.primitive_bitwidth
    ]
