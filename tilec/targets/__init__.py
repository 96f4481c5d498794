"""The targets. Each one is a folder with target.py (its `Target`: see base.py), compiler.py (its
stages) and runtime.py (load + launch), and one line in TARGETS below."""

from __future__ import annotations

from .amd.target import AmdTarget, wavefront_size
from .base import Stage, Target
from .cpu.target import CpuTarget
from .interpreter.target import InterpreterTarget
from .nvidia.target import NvidiaTarget

TARGETS: list[Target] = [
    CpuTarget(),
    NvidiaTarget(),  # sm_80, sm_90a, ...
    AmdTarget(),  # gfx942, gfx1100, ...
    InterpreterTarget(),
]

__all__ = [
    "TARGETS",
    "Stage",
    "Target",
    "load_passes",
    "pipeline_text",
    "register",
    "target_for",
    "target_family",
    "wavefront_size",
]


def register(target: Target) -> Target:
    """Adds a target (first, so that it may claim names another target matches); returns it."""
    TARGETS.insert(0, target)
    return target


def load_passes() -> None:
    """Registers every target's own passes (tilec.passes.REGISTRY then holds all of tilec's)."""
    import importlib

    for target in TARGETS:
        if target.passes:
            importlib.import_module(target.passes)


def target_for(arch: str) -> Target:
    """The target compiling for `arch` ("cpu", "sm_90a", "gfx942", "interpreter", ...)."""
    for target in TARGETS:
        if target.matches(arch):
            return target
    raise ValueError(f"unknown target '{arch}' (expected cpu, sm_80, sm_90a, gfx942, ... or interpreter)")


def target_family(arch: str) -> str:
    """ "cpu", "nvidia" (sm_80, sm_90a, ...), "amd" (gfx942, gfx1100, ...), "interpreter", ..."""
    return target_for(arch).name


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


def pipeline_text(arch: str, options) -> str:
    """A target's pipeline for `arch` and `options` (tilec.compiler.Options) as tilec-opt prints it:
    each stage's passes one per line, steps outside MLIR as comments."""
    from tilec.passes.pipeline import split_top_level

    target = target_for(arch)
    lines = [
        f"// {arch} ({target.name}): num_warps={options.num_warps} num_stages={options.num_stages} "
        f"debug={int(options.debug)} enable_fp_fusion={int(options.enable_fp_fusion)}"
    ]
    for stage in target.pipeline(arch, options):
        if stage.pipeline:
            lines.append(f"{stage.name}:")
            lines.extend(f"  {element}" for element in split_top_level(stage.pipeline))
        else:
            lines.append(f"  // {stage.name}: {stage.does}")
    return "\n".join(lines) + "\n"
