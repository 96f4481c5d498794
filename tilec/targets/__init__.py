"""Targets by name. Each target folder has compiler.py (stages) and runtime.py (load + launch)."""

from __future__ import annotations


def get_target(name: str):
    """The compiler module for a target name: "cpu", "sm_80"/"sm_90a" (NVIDIA), "gfx942" (AMD)."""
    if name == "cpu":
        from .cpu import compiler
    elif name.startswith("sm_"):
        from .nvidia import compiler
    elif name.startswith("gfx"):
        from .amd import compiler
    else:
        raise ValueError(f"unknown target '{name}' (expected cpu, sm_80, sm_90a, gfx942, ... or interpreter)")
    return compiler
