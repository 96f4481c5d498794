"""Ahead-of-time kernels: `tilec-compile` writes an artifact folder, `tilec.load` launches it without MLIR.

    tilec-compile kernels.py:add_kernel --signature "*fp32:16,*fp32:16,*fp32:16,i32" --constexpr BLOCK=1024 \
        --target cpu -o build/add
    # in the deployed program (no compiler needed: no MLIR, no ptxas):
    add = tilec.load("build/add")
    add[(tilec.cdiv(n, 1024),)](x, y, out, n)

The folder holds `manifest.json` (name, target, argument types, options, hashes) and one file per stage
of `compiled.asm`; the runtime reads only the manifest and the binary (`so`, `cubin`/`ptx`, `hsaco`).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import os
import shutil
import sys
import uuid
from pathlib import Path

from tilec.errors import CompilationError

from . import cache


def load(path):
    """A launchable CompiledKernel from an artifact folder (or its manifest.json)."""
    folder = Path(path)
    if folder.name == cache.MANIFEST:
        folder = folder.parent
    if not (folder / cache.MANIFEST).exists():
        raise cache.ArtifactError(f"{folder}: no {cache.MANIFEST} here (not a tilec-compile output folder)")
    return cache.read_artifact(folder)


def save(kernel, out) -> Path:
    """Writes `kernel` as an artifact into `out` (a new or empty folder, or an earlier artifact)."""
    out = Path(out)
    if out.exists():
        if not out.is_dir():
            raise cache.ArtifactError(f"{out} exists and is not a folder")
        if any(out.iterdir()) and not (out / cache.MANIFEST).exists():
            raise cache.ArtifactError(
                f"{out} is not empty and not a tilec artifact: refusing to overwrite it"
            )
    tmp = out.parent / f".{out.name}.tmp-{uuid.uuid4().hex}"
    out.parent.mkdir(parents=True, exist_ok=True)
    cache.write_artifact(tmp, kernel)
    if out.exists():
        shutil.rmtree(out)
    os.rename(tmp, out)
    return out


def _constexpr_value(text: str):
    from tilec.language import core

    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    name = text.removeprefix("tl.").removeprefix("tilec.language.")
    aliases = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64"}
    try:
        return core.dtype_from_signature(aliases.get(name, name))
    except ValueError:
        return text  # a plain string constexpr


def _load_kernel(spec: str):
    from tilec.jit_function import JITFunction

    if ":" not in spec:
        raise SystemExit(f"tilec-compile: expected path/to/file.py:kernel_name, got '{spec}'")
    path, _, name = spec.rpartition(":")
    if not os.path.exists(path):
        raise SystemExit(f"tilec-compile: {path}: no such file")
    module_name = f"_tilec_aot_{Path(path).stem}"
    loader = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(loader)
    sys.modules[module_name] = module
    sys.path.insert(0, str(Path(path).resolve().parent))
    loader.loader.exec_module(module)
    fn = getattr(module, name, None)
    while fn is not None and not isinstance(fn, JITFunction) and hasattr(fn, "fn"):
        fn = fn.fn  # through @autotune / @heuristics wrappers to the @jit function
    if not isinstance(fn, JITFunction):
        raise SystemExit(f"tilec-compile: {path} has no @tilec.jit function '{name}'")
    return fn


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="tilec-compile", description="Compile a @tilec.jit kernel ahead of time into an artifact folder."
    )
    parser.add_argument("kernel", help="path/to/file.py:kernel_name")
    parser.add_argument(
        "--signature",
        "-s",
        required=True,
        help='run-time argument types, e.g. "*fp32:16,*fp32:16,i32": ":16" lets the kernel assume a pointer '
        "(or integer) divisible by 16, which vectorizes its memory accesses; a bare pointer type assumes "
        "nothing, as in Triton's AOT compiler",
    )
    parser.add_argument("--constexpr", "-c", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--target", "-t", default="cpu", help="cpu, sm_80, sm_90a, ..., gfx942, gfx1100, ...")
    parser.add_argument("--num-warps", type=int, default=4)
    parser.add_argument("--num-stages", type=int, default=3)
    parser.add_argument("-o", "--out", required=True, help="the artifact folder to write")
    args = parser.parse_args(argv)

    from tilec.compiler import compile as compile_kernel

    constexprs = {}
    for item in args.constexpr:
        name, eq, value = item.partition("=")
        if not eq:
            parser.error(f"--constexpr expects NAME=VALUE, got '{item}'")
        constexprs[name.strip()] = _constexpr_value(value.strip())
    try:
        fn = _load_kernel(args.kernel)
        kernel = compile_kernel(
            fn,
            args.signature,
            constexprs,
            target=args.target,
            num_warps=args.num_warps,
            num_stages=args.num_stages,
            pointer_divisibility=1,  # as Triton's AOT: '*fp32' assumes nothing, '*fp32:16' 16 bytes
        )
        out = save(kernel, args.out)
    except (CompilationError, cache.ArtifactError, TypeError, ValueError) as e:
        print(f"tilec-compile: error: {e}", file=sys.stderr)
        return 1
    print(f"{out}: {kernel.name} for {kernel.target} ({', '.join(sorted(kernel.asm))})")
    return 0


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
