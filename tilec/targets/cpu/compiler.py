"""The CPU target: tile IR -> linalg/tensor -> bufferized loops -> LLVM -> native code (ExecutionEngine).

Stages (names used in `compiled.asm` and TILEC_DUMP_IR):
    tile     the frontend's tile IR
    linalg   after tile-cpu-grid and convert-tile-to-linalg (pointers are i64 addresses)
    bufferized  after elementwise fusion, dot vectorization and one-shot bufferization
    llvm     the LLVM dialect module
    llir     LLVM IR text (with the host-callback hooks of tl.device_print)
    so       a shared library: `opt -O3` and `llc` for the host CPU, linked by ld.lld (or cc)
The grid loop is compiled code (`tile-cpu-grid`); the runtime loads the library with ctypes (no MLIR
needed to run it) and splits the grid across cores.
"""

from __future__ import annotations

import functools
import math
import os
import platform
import re

from mlir import ir

from tilec.dialects import contract, tile
from tilec.errors import CompilationError
from tilec.targets.base import Stage
from tilec.targets.cpu import passes as _passes  # noqa: F401 - registers the passes the stages name
from tilec.targets.stages import run_stage
from tilec.targets.tools import ToolError, host_linker, llvm_tool, run_tool


def tile_to_linalg(debug: bool = False) -> str:
    """The first stage; with `debug`, every memory access is checked (tile-cpu-check-bounds)."""
    return (
        "tile-canonicalize,tile-lower-fp8,tile-cpu-pointer-increments,tile-cpu-version-remainders,"
        "tile-cpu-version-masks,"
        "tile-cpu-version-looped-masks,tile-cpu-expand-maps,"
        "tile-cpu-grid,"
        + ("tile-cpu-check-bounds," if debug else "")
        + "tile-cpu-safe-division,tile-cpu-saturating-conversions,"
        "convert-tile-to-linalg,canonicalize,cse"
    )


@functools.cache
def host_cpu_flags() -> frozenset:
    """This host's CPU feature flags (/proc/cpuinfo; empty where there is none)."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        flags = []
    return frozenset(flags)


def host_fp32_lanes() -> int:
    """fp32 values in one of this host's vector registers: 16 with AVX-512, 8 with AVX, else 4
    (SSE, NEON)."""
    flags = host_cpu_flags()
    return 16 if "avx512f" in flags else 8 if "avx" in flags else 4


def dot_block(lanes: int) -> tuple[int, int]:
    """(rows, cols) of the accumulator blocks tile-cpu-vectorize-dots holds in registers: 16 columns,
    and as many rows as make 8 vector accumulators (enough independent FMAs to cover their latency
    on two FMA units), which leaves room in the register file for B's row and A's broadcast. With
    AVX2 (16 registers) that is 4 x 16: 8 x 16 takes all 16 registers and spills (a 1024^3 fp32
    matmul about a sixth slower)."""
    return max(1, 8 * lanes // 16), 16


def bufferize(rows: int, cols: int) -> str:
    return (
        "tile-cpu-duplicate-producers,linalg-fuse-elementwise-ops,tile-cpu-pointer-offsets,"
        f"tile-cpu-vectorize-dots{{rows={rows} cols={cols}}},"
        "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map "
        "allow-return-allocs-from-loops},"
        "buffer-deallocation-pipeline,canonicalize,tile-cpu-widen-bool-buffers,tile-cpu-strided-copies"
    )


# convert-vector-to-scf fully unrolls the dots' 2-D vector transfers: otherwise it goes through a
# stack buffer allocated inside the loops, which grows the stack every iteration.
TO_LLVM = (
    "tile-cpu-atomics,convert-linalg-to-loops,convert-vector-to-scf{full-unroll=1},expand-strided-metadata,"
    "lower-affine,convert-scf-to-cf,convert-vector-to-llvm,convert-ub-to-llvm,finalize-memref-to-llvm,"
    "convert-math-to-llvm,convert-math-to-libm,convert-arith-to-llvm,convert-index-to-llvm,"
    "convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts"
)


def stages(debug: bool = False) -> list[Stage]:
    """The CPU pipeline, readable as a list."""
    return [
        Stage("linalg", tile_to_linalg(debug)),
        Stage("bufferized", bufferize(*dot_block(host_fp32_lanes()))),
        Stage("llvm", TO_LLVM),
    ]


def lower(module: ir.Module, kernel_name: str, asm: dict, debug: bool = False) -> None:
    """Runs every stage on `module` in place, recording each stage's IR in `asm`."""

    for stage in stages(debug):
        run_stage(module, kernel_name, "CPU", stage.name, stage.pipeline, asm)
        if stage.name == "linalg" and contract.PRINTS in module.operation.attributes:
            prints = [
                ir.StringAttr(a).value for a in ir.ArrayAttr(module.operation.attributes[contract.PRINTS])
            ]
            asm.setdefault("_prints", prints)
        if stage.name == "linalg" and contract.ASSERTS in module.operation.attributes:
            messages = [
                ir.StringAttr(a).value for a in ir.ArrayAttr(module.operation.attributes[contract.ASSERTS])
            ]
            asm.setdefault("_asserts", messages)
        if stage.name == "bufferized":
            _reject_bool_buffers(module, kernel_name)


def _reject_bool_buffers(module: ir.Module, kernel_name: str) -> None:
    """MLIR's memref-to-LLVM lowering aborts the process on i1 buffers: refuse them cleanly instead."""
    text = module.operation.get_asm()
    if "xi1>" in text and "memref<" in text:
        for line in text.splitlines():
            if "memref<" in line and "xi1>" in line.split("memref<", 1)[1].split(">", 1)[0] + ">":
                raise CompilationError(
                    kernel_name,
                    0,
                    0,
                    "the CPU target cannot keep a tensor of booleans in memory here "
                    "(a loop-carried or stored mask); convert it with .to(tl.int8)",
                )


HOOK_PREFIX = "__tilec_hook"


def host_triple() -> str:
    machine = platform.machine().lower()
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    return f"{arch}-unknown-linux-gnu"


# glibc's vector math library: where it is, LLVM's loop vectorizer calls its 4-, 8- or 16-wide
# exp, log, sin, cos, pow... (`_ZGVdN8v_expf`) instead of the scalar libm function per element.
_LIBMVEC_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64")


@functools.cache
def host_vector_math() -> str | None:
    """The path of glibc's libmvec on an x86-64 Linux host, else None (scalar math calls)."""
    if host_triple() != "x86_64-unknown-linux-gnu":
        return None
    for folder in _LIBMVEC_DIRS:
        path = os.path.join(folder, "libmvec.so.1")
        if os.path.exists(path):
            return path
    return None


# LLVM's libmvec table (`-vector-library=LIBMVEC`) maps sin, cos, exp, log and pow to their vector
# versions; exp2, log2, log10, exp10 and tanh (in libmvec since glibc 2.35) stay vector intrinsics,
# which llc splits into one libm call per element: Triton's attention spent a third of its time in
# scalar exp2f calls. After `opt`, such a call goes to libmvec's function of the same width, named by
# the x86 vector ABI (_ZGV<isa>N<lanes>v_<name>: b SSE, c AVX, d AVX2, e AVX-512), when the library
# has it.
_LIBMVEC_FUNCTIONS = re.compile(r"@llvm\.(exp2|log2|log10|exp10|tanh)\.v(\d+)f(32|64)\b")


# libmvec variants less accurate than tilec's math promises (2 ulp of float64 for erf): glibc 2.36's
# AVX-512 erff is off by 3.99 ulp at x = 3.6536 (erf there rounds to 1 - 3 ulp), where its AVX2 and
# SSE versions stay within 1.17 ulp on [-5, 5] (measured on an AVX-512 host). An AVX-512 host calls
# the 8-lane one instead.
_INACCURATE = frozenset({"_ZGVeN16v_erff"})


def _libmvec_symbol(name: str, lanes: int, bits: int, library: str) -> str | None:
    """libmvec's `lanes`-wide version of the libm function `name` (of f32 or f64 values), by the x86
    vector ABI's name, when this host can run it, the library has it and it is accurate enough;
    else None."""
    flags = host_cpu_flags()
    isa = {128: "b", 256: "d" if "avx2" in flags else "c", 512: "e"}.get(lanes * bits)
    if isa is None or (isa == "e" and "avx512f" not in flags) or (isa in "cd" and "avx" not in flags):
        return None
    symbol = f"_ZGV{isa}N{lanes}v_{name}"
    return symbol if symbol not in _INACCURATE and _has_symbol(library, symbol) else None


@functools.cache
def _has_symbol(library: str, symbol: str) -> bool:
    import ctypes

    try:
        return hasattr(ctypes.CDLL(library), symbol)
    except OSError:
        return False


def libmvec_calls(text: str, library: str) -> str:
    """`text` (optimized LLVM IR) with the vector intrinsics above calling libmvec's functions."""

    def swap(m: re.Match) -> str:
        name, lanes, bits = m.group(1), int(m.group(2)), int(m.group(3))
        symbol = _libmvec_symbol(name + ("f" if bits == 32 else ""), lanes, bits, library)
        return m.group(0) if symbol is None else "@" + symbol

    return _LIBMVEC_FUNCTIONS.sub(swap, text)


# libm functions the CPU lowering calls (convert-math-to-libm) that LLVM's libmvec table does not map
# either, so that a block's `tl.erf` (GELU) stayed one scalar erff call per element. Before `opt`,
# their calls are given the vector variants libmvec has (the `vector-function-abi-variant` call-site
# attribute, which the loop vectorizer reads, as LLVM's own table does), the variants declared and
# kept alive through llvm.compiler.used.
_LIBM_UNARY = ("erf", "erfc", "expm1", "log1p", "cbrt", "atan", "asin", "acos", "sinh", "cosh", "tan")
_LIBM_DECLARATION = re.compile(r"^declare (float|double) @(\w+)\((?:float|double)\)", re.MULTILINE)


def libmvec_variants(text: str, library: str) -> str:
    """`text` (LLVM IR before `opt`) with libmvec's vector variants attached to its libm calls."""
    groups, declarations, used = [], [], []
    for m in _LIBM_DECLARATION.finditer(text):
        scalar, name = m.group(1), m.group(2)
        bits = 32 if scalar == "float" else 64
        base = name[:-1] if bits == 32 and name.endswith("f") else name
        if base not in _LIBM_UNARY or (bits == 32 and base == name):
            continue
        variants = []
        for width in (128, 256, 512):
            lanes = width // bits
            symbol = _libmvec_symbol(name, lanes, bits, library)
            if symbol is not None:
                variants.append(f"{symbol}({symbol})")
                declarations.append(f"declare <{lanes} x {scalar}> @{symbol}(<{lanes} x {scalar}>)")
                used.append(f"ptr @{symbol}")
        if not variants:
            continue
        group = f"#{9000 + len(groups)}"
        groups.append(f'attributes {group} = {{ "vector-function-abi-variant"="{",".join(variants)}" }}')
        call = re.compile(rf"^(\s*(?:%[\w.]+ = )?(?:tail )?call [^@\n]*@{name}\([^\n]*\))$", re.MULTILINE)
        text = call.sub(rf"\1 {group}", text)
    if not groups:
        return text
    keep = (
        f"@llvm.compiler.used = appending global [{len(used)} x ptr] [{', '.join(used)}], "
        'section "llvm.metadata"'
    )
    return "\n".join([text, *declarations, keep, *groups, ""])


def llvm_ir(module: ir.Module) -> str:
    """LLVM IR of the lowered module. Host callbacks (`_mlir_ciface___tilec_print_*`) become functions
    that call through a pointer global `__tilec_hook<name>`, which the runtime sets after loading."""
    from mlir.dialects import llvm as llvm_d

    text = str(llvm_d.translate_module_to_llvmir(module.operation))
    declaration = re.compile(r"^declare void @(_mlir_ciface___tilec_\w+)\(([^)]*)\)$", re.MULTILINE)

    def trampoline(m: re.Match) -> str:
        name, types = m.group(1), [t.strip() for t in m.group(2).split(",") if t.strip()]
        params = ", ".join(f"{t} %a{i}" for i, t in enumerate(types))
        args = ", ".join(f"{t} %a{i}" for i, t in enumerate(types))
        hook = f"@{HOOK_PREFIX}{name}"
        return (
            f"{hook} = global ptr null\n"
            f"define void @{name}({params}) {{\n"
            f"  %f = load ptr, ptr {hook}\n  call void %f({args})\n  ret void\n}}"
        )

    text = declaration.sub(trampoline, text)
    if "bfloat" in text and "@__truncsfbf2" not in text:
        text += TRUNCSFBF2
    return text


# float -> bf16, round to nearest even (NaN kept, made quiet). Where the CPU has no bf16 conversion
# instruction (an AMD EPYC without AVX512-BF16, say), LLVM lowers every rounding to bf16, and bf16
# arithmetic (done in float, then rounded), to a call of this compiler-rt/libgcc routine, which the
# kernel's shared object cannot find at load time ("undefined symbol: __truncsfbf2"). Each module
# with bf16 brings its own, weak and hidden: CPUs that have the instruction never call it.
TRUNCSFBF2 = """
define weak hidden bfloat @__truncsfbf2(float %x) {
  %bits = bitcast float %x to i32
  %magnitude = and i32 %bits, 2147483647
  %nan = icmp ugt i32 %magnitude, 2139095040
  %odd = lshr i32 %bits, 16
  %lsb = and i32 %odd, 1
  %bias = add i32 %lsb, 32767
  %rounded = add i32 %bits, %bias
  %quiet = or i32 %bits, 4194304
  %chosen = select i1 %nan, i32 %quiet, i32 %rounded
  %high = lshr i32 %chosen, 16
  %half = trunc i32 %high to i16
  %result = bitcast i16 %half to bfloat
  ret bfloat %result
}
"""


def codegen(llir: str) -> bytes:
    """LLVM's O3 pipeline, then code generation for this host's CPU, then a shared library."""
    triple = host_triple()
    vector_math = host_vector_math()
    vectorized_calls = ["-vector-library=LIBMVEC"] if vector_math else []
    try:
        optimized, err = run_tool(
            [
                llvm_tool("opt"),
                "-O3",
                f"-mtriple={triple}",
                "-mcpu=native",
                *vectorized_calls,
                "-S",
                "{src}",
                "-o",
                "{out}",
            ],
            (libmvec_variants(llir, vector_math) if vector_math else llir).encode(),
            "k.ll",
            "k.opt.ll",
        )
        if optimized is None:
            raise ToolError(f"opt failed: {err}")
        if vector_math:
            optimized = libmvec_calls(optimized.decode(), vector_math).encode()
        obj, err = run_tool(
            [
                llvm_tool("llc"),
                "-O3",
                f"-mtriple={triple}",
                "-mcpu=native",
                "-relocation-model=pic",
                "-filetype=obj",
                "{src}",
                "-o",
                "{out}",
            ],
            optimized,
            "k.opt.ll",
            "k.o",
        )
        if obj is None:
            raise ToolError(f"llc failed: {err}")
        # libmvec as a needed library: the Python process has libm loaded, not libmvec
        needed = [vector_math] if vector_math else []
        library, err = run_tool([*host_linker(), "{src}", *needed, "-o", "{out}"], obj, "k.o", "k.so")
        if library is None:
            raise ToolError(f"linking failed: {err}")
    except ToolError as e:
        raise CompilationError("<cpu>", 0, 0, f"CPU code generation failed: {e}") from None
    return library


def _occupancy_facts(module: ir.Module, num_warps: int) -> dict:
    """`n_regs` and `shared` as GPU launch code reads them to size a persistent grid (Triton's
    fused-softmax tutorial: occupancy = max_num_regs // (n_regs * warpSize * num_warps), capped by
    max_shared_mem // shared). A program holds a whole core while it runs, so its registers are the
    core's vector lanes shared out among its `num_warps` threads, and its shared memory the bytes of
    its largest tile, at most the core's L2 (a larger tile still runs, from memory): the formulas
    then give one program per core, never none."""
    from .properties import host_properties

    props = host_properties()
    largest = 0

    def visit(op):
        nonlocal largest
        for result in op.results:
            shaped = tile.as_tensor(result.type)
            if shaped is not None and shaped.has_static_shape:
                element = shaped.element_type
                width = 8 if tile.is_ptr(element) else max(getattr(element, "width", 32), 8) // 8
                largest = max(largest, math.prod(shaped.shape) * width)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return {
        "n_regs": -(-props["max_num_regs"] // max(num_warps, 1)),
        "shared": min(max(largest, 1), props["max_shared_mem"]),
    }


def compile(kernel, module: ir.Module) -> None:
    """Lowers the tile module to a host shared library (`kernel.asm["so"]`)."""
    from tilec.passes.lowering_common import drop_grid_dependency_control

    drop_grid_dependency_control(module.operation)  # no programmatic dependent launch on the host
    kernel.metadata.update(_occupancy_facts(module, kernel.options.num_warps))
    lower(module, kernel.name, kernel.asm, debug=kernel.options.debug)
    # the launcher then passes each pointer argument's byte range (tile-cpu-check-bounds)
    kernel.metadata["bounds_checked"] = bool(kernel.options.debug)
    kernel.metadata["prints"] = kernel.asm.pop("_prints", [])
    kernel.metadata["asserts"] = kernel.asm.pop("_asserts", [])
    from tilec.timing import timed

    from .fault_guard import wrapper_ir

    with timed("llir", kernel.name):
        llir = llvm_ir(module)
        kernel.asm["llir"] = llir + wrapper_ir(llir, kernel.name)
    with timed("so", kernel.name):
        kernel.asm["so"] = codegen(kernel.asm["llir"])
