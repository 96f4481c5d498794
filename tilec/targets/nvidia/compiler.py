"""The NVIDIA target: tile IR -> per-thread gpu code -> NVVM/LLVM -> PTX -> cubin.

Stages (the names of `compiled.asm` and TILEC_DUMP_IR):
    tile   the frontend's tile IR
    gpu    after convert-tile-to-gpu: one gpu.func per kernel, layouts resolved to per-thread values
    llvm   the gpu.module in the NVVM/LLVM dialects
    ptx    PTX text from gpu-module-to-binary{format=isa}
    cubin  ptxas output when ptxas is found (otherwise the driver JIT-compiles the PTX)
"""

from __future__ import annotations

import json
import os
import re
import shutil

from mlir import ir

from tilec import knobs
from tilec.dialects import contract
from tilec.errors import CompilationError
from tilec.targets.base import Stage
from tilec.targets.nvidia import passes as _passes  # noqa: F401 - registers the passes the stages name
from tilec.targets.stages import check_shared_memory, run_stage, shared_bytes
from tilec.targets.tools import run_tool


def features(arch: str) -> str:
    return "+ptx80"


def has_mma(arch: str) -> bool:
    """mma.sync with fp16/bf16 m16n8k16 shapes exists from sm_80 (Ampere) on."""
    digits = "".join(ch for ch in arch.removeprefix("sm_") if ch.isdigit())
    return bool(digits) and int(digits) >= 80


# The shared memory one block may opt into, by compute capability (CUDA's programming guide).
_SHARED_KIB = {"80": 163, "87": 163, "86": 99, "89": 99, "120": 99, "75": 64, "70": 96}


def shared_memory_limit(arch: str) -> int:
    return _SHARED_KIB.get(re.sub(r"[^0-9]", "", arch), 227) * 1024


def has_wgmma(arch: str) -> bool:
    """Warpgroup MMA (wgmma.mma_async) exists only on sm_90a, Hopper's arch-specific feature set."""
    return arch == "sm_90a"


def uses_tma(arch: str) -> bool:
    """Descriptor tiles feeding warpgroup MMA go by tensor copies (TILEC_NO_TMA=1: by cp.async)."""
    return has_wgmma(arch) and not knobs.NO_TMA.on()


def stages(
    arch: str,
    num_warps: int,
    num_stages: int = 3,
    wgmma_depth: int | None = None,
    fp_fusion: bool = True,
    debug: bool = False,
    tensor_copies: bool | None = None,
) -> list[Stage]:
    """The NVIDIA pipeline, readable as a list. num_stages >= 2 prefetches loop loads one iteration
    ahead (tile-pipeline-loads; two ahead measured slower on an H200: the registers it takes); on
    sm_90a the operands of warpgroup-MMA dots go num_stages - 1 iterations ahead (or `wgmma_depth`),
    as asynchronous copies into shared memory (cp_async.py), which costs no registers. With `debug`,
    every access is checked against the arrays passed (tile-check-bounds)."""
    tma = uses_tma(arch) if tensor_copies is None else tensor_copies and has_wgmma(arch)
    pipelining = ""
    if num_stages >= 2:
        depth = num_stages - 1 if wgmma_depth is None else wgmma_depth
        ahead = f"{{wgmma-depth={depth} num-warps={num_warps}}}" if has_wgmma(arch) else ""
        pipelining = f"tile-pipeline-loads{ahead},tile-canonicalize,"
        if tma and not debug:  # (debug builds mask every access: nothing to raise)
            pipelining = (
                f"tile-pointer-tensor-copies{{num-warps={num_warps}}},tile-canonicalize," + pipelining
            )
    return [
        Stage(
            "gpu",
            ("tile-check-bounds," if debug else "")
            + f"tile-canonicalize,tile-lower-fp8{{wgmma={int(has_wgmma(arch))} num-warps={num_warps}}},"
            "tile-exact-float-remainder{float64=0},tile-expand-float64-math,tile-expand-sort,"
            f"{pipelining}tile-hoist-loads,"
            f"convert-tile-to-gpu{{num-warps={num_warps} warp-size=32 mma={int(has_mma(arch))} "
            f"wgmma={int(has_wgmma(arch))} tma={int(tma)} fp-fusion={int(fp_fusion)}}},"
            # bottom-up: the same result as top-down on this unrolled code, 6-8x faster (targets.md)
            "canonicalize{top-down=false},cse,gpu-rematerialize-thread-values",
        ),
        Stage(
            "llvm",
            f"nvvm-attach-target{{chip={arch} features={features(arch)} O=3}},"
            "gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,canonicalize,cse,"
            "reconcile-unrealized-casts),nvvm-tensor-map-params",
        ),
        Stage("ptx", "gpu-module-to-binary{format=isa}"),
    ]


def lower(
    module: ir.Module,
    kernel_name: str,
    arch: str,
    num_warps: int,
    asm: dict,
    num_stages: int = 3,
    fp_fusion: bool = True,
    debug: bool = False,
    tensor_copies: bool | None = None,
) -> tuple[str, int, list]:
    """Runs the stages in place; returns the PTX, the bytes of dynamic shared memory it needs and
    what the launcher encodes for its tensor-map parameters (tensor_maps).

    The cp.async rings' depth (num_stages - 1) is limited per ring by shared memory, but the ring
    shares it with the kernel's other buffers (another dot's staging, reductions), known only after
    convert-tile-to-gpu: when the whole exceeds what a program may have, the gpu stage runs again
    with the rings one iteration shallower, down to one, and then with no rings at all (num_stages
    1: operands staged once per iteration), so that num_stages, a performance hint, never makes a
    kernel that would fit without it too big to launch."""
    attempts = [(num_stages, None)]
    if has_wgmma(arch) and num_stages >= 2:
        attempts = [(num_stages, depth) for depth in range(num_stages - 1, 0, -1)] + [(1, None)]
    for attempt, (stages_now, depth) in enumerate(attempts):
        backup = module.operation.clone() if attempt + 1 < len(attempts) else None
        gpu_stage, *later = stages(arch, num_warps, stages_now, depth, fp_fusion, debug, tensor_copies)
        run_stage(module, kernel_name, "NVIDIA", gpu_stage.name, gpu_stage.pipeline, asm)
        shared, maps = shared_bytes(module), tensor_maps(module)
        if backup is None or shared <= shared_memory_limit(arch):
            if backup is not None:
                backup.erase()
            break
        _restore(module, backup)
    check_shared_memory(kernel_name, module, shared_memory_limit(arch), "shared memory", arch)
    for stage in later:
        run_stage(
            module, kernel_name, "NVIDIA", stage.name, stage.pipeline, asm if stage.name != "ptx" else None
        )
    asm["ptx"] = _ptx_of(module)
    return asm["ptx"], shared, maps


def tensor_maps(module: ir.Module) -> list:
    """What the launcher encodes for the kernel's tensor-map parameters (tma.py), in their order."""
    found = []

    def visit(op):
        if op.name == "gpu.func" and contract.TENSOR_MAPS in op.attributes:
            found.extend(json.loads(ir.StringAttr(op.attributes[contract.TENSOR_MAPS]).value))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _restore(module: ir.Module, backup: ir.Operation) -> None:
    """Puts the ops of `backup` (a clone of `module` taken earlier) back in place of module's."""
    for op in list(module.body.operations):
        op.operation.erase()
    for op in list(backup.regions[0].blocks[0].operations):
        module.body.append(op.operation)
    backup.erase()


def _ptx_of(module: ir.Module) -> str:
    for op in module.body.operations:
        op = op.operation
        if op.name == "gpu.binary":
            objects = ir.ArrayAttr(op.attributes["objects"])
            from mlir.dialects import gpu

            return gpu.ObjectAttr(objects[0]).object.decode()
    raise RuntimeError("gpu-module-to-binary produced no gpu.binary")


def find_ptxas() -> str | None:
    for candidate in (knobs.PTXAS.text(), shutil.which("ptxas"), "/usr/local/cuda/bin/ptxas"):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


def assemble(ptx: str, arch: str) -> bytes | None:
    """cubin from ptxas, or None when ptxas is not installed (the driver then JITs the PTX)."""
    return _ptxas(ptx, arch)[0]


# What one SM holds: 64K registers; threads and shared memory per architecture (CUDA's occupancy
# tables; sm_86/sm_89: 1536 threads, 100 KiB); each program also takes 1 KiB of shared memory.
SM_REGISTERS, PROGRAM_SHARED = 65536, 1024
SM_THREADS_AND_SHARED = {
    "sm_80": (2048, 164 * 1024),
    "sm_90": (2048, 228 * 1024),
    "sm_90a": (2048, 228 * 1024),
}
_USAGE = re.compile(r"Used (\d+) registers")
_SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
# ptxas's performance advisories ("ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async
# instructions are serialized due to ..."): the kernel is correct but runs slower than its code
# asks for (a serialized warpgroup MMA pipeline cost 13 % on a matmul).
_ADVISORY = re.compile(
    r"\((C\d+)\) Potential Performance Loss: (.*?)(?: in the function '[^']*')?\s*$", re.MULTILINE
)


def advisories(log: str | None) -> list[str]:
    """ptxas's performance advisories in its report, each once: "(C7515) wgmma.mma_async ..."."""
    found = [f"({code}) {text}" for code, text in _ADVISORY.findall(log or "")]
    return list(dict.fromkeys(found))


def assemble_for_occupancy(ptx: str, arch: str, threads: int, shared: int) -> tuple[str, bytes | None, dict]:
    """(PTX, cubin, usage) from ptxas, usage being {"n_regs": registers per thread, "n_spills": bytes
    of spill stores, "ptxas_advisories": its performance advisories, when any} from its report ({}
    without ptxas).

    When registers alone keep the SM from holding another program (its threads and shared memory
    would allow one) and the kernel sets no register cap of its own (.maxnreg), the PTX is assembled
    again with `.minnctapersm` asking for that one more, and kept when ptxas fits it without
    spilling and without an advisory the first assembly did not have (a register limit can
    serialize warpgroup MMAs). Why: a second program per SM hides one program's waits behind the
    other's work (flash attention at 128x64 on 8 warps fits two programs at 128 registers instead of
    one at 148, a third faster). A kernel without loops that fits only one or two programs may also
    spill a little (LOOP_FREE_SPILL_BYTES): each spilled value is stored and reloaded once per
    thread, while a third program keeps half again as many loads in flight (layernorm over 8192
    16-bit columns). With four programs or more the same trade is slower, so it is not made."""
    cubin, log = _ptxas(ptx, arch)
    used = _USAGE.search(log or "")
    if cubin is None or used is None:
        return ptx, cubin, {}
    usage = _usage(log)
    per_thread = -(-int(used.group(1)) // 8) * 8  # registers are allocated 8 per thread at a time
    by_registers = SM_REGISTERS // (per_thread * threads)
    sm_threads, sm_shared = SM_THREADS_AND_SHARED.get(arch, (1536, 100 * 1024))
    by_rest = min(sm_threads // threads, sm_shared // (shared + PROGRAM_SHARED))
    if by_registers == 0 or by_registers >= by_rest or ".minnctapersm" in ptx or ".maxnreg" in ptx:
        return ptx, cubin, usage
    tuned = re.sub(r"^(\.maxntid .*)$", rf"\1\n.minnctapersm {by_registers + 1}", ptx, flags=re.MULTILINE)
    try:  # ptxas may refuse outright: an instruction can need more registers than the limit
        tuned_cubin, tuned_log = _ptxas(tuned, arch)
    except RuntimeError:
        return ptx, cubin, usage
    spills = _SPILLS.findall(tuned_log or "")
    if tuned_cubin is None or not spills or set(advisories(tuned_log)) - set(advisories(log)):
        return ptx, cubin, usage
    spilled = max(int(n) for pair in spills for n in pair)
    if spilled and (spilled > LOOP_FREE_SPILL_BYTES or by_registers > 2 or _has_loop(ptx)):
        return ptx, cubin, usage
    return tuned, tuned_cubin, _usage(tuned_log)


# Spill bytes (stores or loads) a loop-free kernel of one or two programs per SM may take for one
# more: a few registers' worth, each stored and reloaded once per thread.
LOOP_FREE_SPILL_BYTES = 16
_LABEL = re.compile(r"^(\$\w+):", re.MULTILINE)
_BRANCH = re.compile(r"\bbra(?:\.uni)?\s+(\$\w+);")


def _has_loop(ptx: str) -> bool:
    """Whether the PTX branches backwards (to a label above the branch): a loop."""
    labels = {m.group(1): m.start() for m in _LABEL.finditer(ptx)}
    return any(labels.get(m.group(1), len(ptx)) < m.start() for m in _BRANCH.finditer(ptx))


def _usage(log: str) -> dict:
    used, spills = _USAGE.search(log), _SPILLS.search(log)
    usage = {"n_regs": int(used.group(1)) if used else 0, "n_spills": int(spills.group(1)) if spills else 0}
    if advisories(log):
        usage["ptxas_advisories"] = advisories(log)
    return usage


def _ptxas(ptx: str, arch: str) -> tuple[bytes | None, str | None]:
    """(cubin, ptxas -v's report), or (None, None) when ptxas is not installed."""
    ptxas = find_ptxas()
    if ptxas is None:
        return None, None
    cubin, err = run_tool(
        [ptxas, f"-arch={arch}", "-O3", "-v", "{src}", "-o", "{out}"], ptx.encode(), "k.ptx", "k.cubin"
    )
    if cubin is None:
        raise RuntimeError(f"ptxas failed for {arch}:\n{err}")
    return cubin, err


def _inline_asm_location(module: ir.Module):
    """(file, line, col) of the kernel's first inline asm statement, or None."""
    from tilec import diagnostics
    from tilec.passes.base import ops_named

    for op in ops_named(module.operation, "tile.inline_asm"):
        d = diagnostics.at_op(op, "")
        return d.file, d.line or 0, d.col or 0
    return None


def compile(kernel, module: ir.Module, tensor_copies: bool | None = None) -> None:
    """`tensor_copies`: whether tiles may go by the tensor copy engine (default: uses_tma)."""
    arch = kernel.target
    if int(re.search(r"\d+", arch).group()) < 90:  # griddepcontrol: sm_90 and newer
        from tilec.passes.lowering_common import drop_grid_dependency_control

        drop_grid_dependency_control(module.operation)
    user_asm = _inline_asm_location(module)
    ptx, shared, maps = lower(
        module, kernel.name, arch, kernel.options.num_warps, kernel.asm, kernel.options.num_stages,
        kernel.options.enable_fp_fusion, kernel.options.debug, tensor_copies,
    )  # fmt: skip
    from tilec.timing import timed

    if kernel.options.maxnreg is not None:  # Triton's maxnreg: a register cap ptxas must keep
        ptx = re.sub(r"^(\.maxntid .*)$", rf"\1\n.maxnreg {kernel.options.maxnreg}", ptx, flags=re.MULTILINE)
        kernel.asm["ptx"] = ptx
    with timed("cubin", kernel.name):
        cubin = None
        if not knobs.NO_PTXAS.on():
            threads = kernel.options.num_warps * 32
            try:
                ptx, cubin, usage = assemble_for_occupancy(ptx, arch, threads, shared)
                kernel.metadata.update(usage)
            except RuntimeError as e:
                if user_asm is None:
                    raise CompilationError(
                        kernel.name, 0, 0, f"{e} (a tilec bug: please report it)"
                    ) from None
                file, line, col = user_asm
                raise CompilationError(
                    file or kernel.name, line, col, f"the kernel's inline asm does not assemble: {e}"
                ) from None
            kernel.asm["ptx"] = ptx
    if cubin is not None:
        kernel.asm["cubin"] = cubin
    kernel.metadata.update(
        {"num_warps": kernel.options.num_warps, "threads": kernel.options.num_warps * 32, "shared": shared}
    )
    if maps:
        kernel.metadata["tensor_maps"] = maps
    if kernel.options.debug:  # the launcher passes each pointer argument's byte range (tile-check-bounds)
        kernel.metadata["bounds_checked"] = True


def without_tensor_copies(kernel):
    """`kernel` compiled again from its tile IR with no tensor copies (its tiles by cp.async or from
    registers, as with TILEC_NO_TMA=1): what a launch runs when the driver refuses a tensor map of
    an array the kernel makes of its own arguments (a negative row stride, say), whose pointer loads
    and block pointers read the same without one. Not stored in the disk cache: such launches are
    rare, and the kernel they come from is."""
    import dataclasses

    from tilec.dialects import tile

    metadata = {k: v for k, v in kernel.metadata.items() if k not in ("tensor_maps", "ptxas_advisories")}
    plain = dataclasses.replace(kernel, asm={"tile": kernel.asm["tile"]}, metadata=metadata, _launcher=None)
    ctx = tile.make_context()
    with ctx, ir.Location.unknown(ctx):
        module = ir.Module.parse(kernel.asm["tile"], ctx)
        compile(plain, module, tensor_copies=False)
    return plain
