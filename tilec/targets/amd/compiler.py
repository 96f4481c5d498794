"""The AMD target: tile IR -> per-thread gpu code -> ROCDL/LLVM -> AMDGCN (llvmlite) -> HSACO (ld.lld).

Stages (the names of `compiled.asm`):
    tile    the frontend's tile IR
    gpu     after convert-tile-to-gpu{vendor=amd}: wavefronts of 64 (CDNA) or 32 (RDNA)
    llvm    the gpu.module in the ROCDL/LLVM dialects
    llir    LLVM IR text (mlir.dialects.llvm.translate_module_to_llvmir)
    amdgcn  assembly from llvmlite's AMDGPU back end
    hsaco   the code object, linked by ld.lld

The xtc LLVM build behind the MLIR bindings has no AMDGPU back end, so code generation goes through
llvmlite (LLVM 22 with AMDGPU); no ROCm device library exists here, so the lowering emits only LLVM and
amdgcn intrinsics (no __ocml_*/__ockl_* calls).
"""

from __future__ import annotations

import re

from mlir import ir

from tilec.errors import CompilationError
from tilec.targets import wavefront_size
from tilec.targets.amd import lowering as _lowering  # noqa: F401 - registers the AMD lowering vendor
from tilec.targets.base import Stage
from tilec.targets.stages import check_shared_memory, run_stage
from tilec.targets.tools import ToolError, find_lld, run_tool
from tilec.timing import timed

WAVE64 = ("gfx90a", "gfx940", "gfx941", "gfx942", "gfx950")


def has_mfma(arch: str) -> bool:
    """CDNA matrix cores (gfx90a, gfx94x, gfx950): 16x16 instructions for fp16, bf16, fp32 and int8."""
    return arch in WAVE64


def stages(arch: str, num_warps: int, fp_fusion: bool = True) -> list[Stage]:
    """The AMD pipeline in MLIR, readable as a list (code generation follows in llvmlite)."""
    wave = wavefront_size(arch)
    return [
        Stage(
            "gpu",
            f"tile-canonicalize,tile-lower-fp8,tile-exact-float-remainder,tile-expand-float64-math,tile-expand-sort,tile-hoist-loads,"
            f"convert-tile-to-gpu{{num-warps={num_warps} warp-size={wave} vendor=amd "
            f"mfma={int(has_mfma(arch))} mfma-i8-k={16 if arch == 'gfx90a' else 32} fp-fusion={int(fp_fusion)}}},"
            "canonicalize{top-down=false},cse",
        ),
        Stage(
            "llvm",
            f"rocdl-attach-target{{chip={arch} O=3}},gpu.module(convert-scf-to-cf,"
            f"convert-gpu-to-rocdl{{chipset={arch} index-bitwidth=64}},canonicalize,cse,reconcile-unrealized-casts)",
        ),
    ]


def _gpu_module_llvm_ir(module: ir.Module) -> str:
    """LLVM IR of the (single) gpu.module's contents."""
    from mlir.dialects import llvm as llvm_d

    gmod = next(op.operation for op in module.body.operations if op.operation.name == "gpu.module")
    inner = ir.Module.create(loc=gmod.location)
    for attr in ("llvm.data_layout", "llvm.target_triple"):
        if attr in gmod.attributes:
            inner.operation.attributes[attr] = gmod.attributes[attr]
    with ir.InsertionPoint(inner.body):
        for op in gmod.regions[0].blocks[0].operations:
            op.operation.clone()
    return str(llvm_d.translate_module_to_llvmir(inner.operation))


def codegen(llir: str, arch: str) -> tuple[str, bytes]:
    """(AMDGCN assembly, relocatable object) through llvmlite, each from a fresh parse: llvmlite's
    code generation mutates the module it is given."""
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple("amdgcn-amd-amdhsa")
    machine = target.create_target_machine(cpu=arch, features="", opt=3, reloc="pic", codemodel="default")

    def optimized():
        mod = llvm.parse_assembly(llir)
        mod.triple = "amdgcn-amd-amdhsa"
        mod.verify()
        options = llvm.create_pipeline_tuning_options(speed_level=3)
        builder = llvm.create_pass_builder(machine, options)
        builder.getModulePassManager().run(mod, builder)
        return mod

    return machine.emit_assembly(optimized()), machine.emit_object(optimized())


def link(obj: bytes) -> bytes:
    hsaco, err = run_tool(
        [find_lld(), "-shared", "--no-undefined", "{src}", "-o", "{out}"], obj, "k.o", "k.hsaco"
    )
    if hsaco is None:
        raise ToolError(f"ld.lld failed: {err}")
    return hsaco


def _refuse_inline_asm(kernel, module: ir.Module) -> None:
    """llvmlite's LLVM has no AMDGPU assembly parser, which an object with inline asm needs (LLVM
    would abort the process): such kernels stop here with an error at the statement instead."""
    from tilec import diagnostics
    from tilec.passes.base import ops_named

    for op in ops_named(module.operation, "tile.inline_asm"):
        d = diagnostics.at_op(op, "")
        raise CompilationError(
            d.file or kernel.name,
            d.line or 0,
            d.col or 0,
            "tl.inline_asm_elementwise is not available on AMD targets yet: tilec builds AMD code "
            "objects with llvmlite's LLVM, which cannot assemble inline AMDGCN",
        )


def _with_waves_per_eu(llir: str, name: str, waves: int) -> str:
    """Triton's `waves_per_eu` on AMD: the kernel's attribute group gets "amdgpu-waves-per-eu", an
    occupancy target LLVM's scheduler works toward (it warns when the kernel's registers do not
    allow that many waves per SIMD, as for Triton's kernels)."""
    found = re.search(rf"^define amdgpu_kernel void @{re.escape(name)}\(.*\) #(\d+)", llir, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"waves_per_eu: no attribute group on kernel {name} in the LLVM IR")
    group = found.group(1)
    return re.sub(
        rf"^(attributes #{group} = \{{ )",
        rf'\1"amdgpu-waves-per-eu"="{waves}" ',
        llir,
        count=1,
        flags=re.MULTILINE,
    )


def lds_limit(arch: str) -> int:
    """LDS bytes one workgroup may use: 64 KiB, 160 KiB on gfx950."""
    return 160 * 1024 if arch == "gfx950" else 64 * 1024


def _check_lds(kernel, arch: str, module: ir.Module) -> None:
    """LLVM's AMDGPU back end reports too much LDS as a fatal error, which ends the Python process."""
    kernel.metadata["shared"] = check_shared_memory(
        kernel.name, module, lds_limit(arch), "LDS (shared memory)", arch
    )


def compile(kernel, module: ir.Module) -> None:
    from tilec.passes.lowering_common import drop_grid_dependency_control

    arch = kernel.target
    drop_grid_dependency_control(module.operation)  # NVIDIA's programmatic dependent launch only
    _refuse_inline_asm(kernel, module)
    for stage in stages(arch, kernel.options.num_warps, kernel.options.enable_fp_fusion):
        run_stage(module, kernel.name, "AMD", stage.name, stage.pipeline, kernel.asm)
        if stage.name == "gpu":
            _check_lds(kernel, arch, module)
    llir = _gpu_module_llvm_ir(module)
    if kernel.options.waves_per_eu:
        llir = _with_waves_per_eu(llir, kernel.name, kernel.options.waves_per_eu)
    kernel.asm["llir"] = llir
    for bad in ("__ocml_", "__ockl_"):
        if bad in llir:
            raise CompilationError(
                kernel.name,
                0,
                0,
                f"AMD code would need a ROCm device library ({bad}*), which is not available",
            )
    try:
        with timed("amdgcn", kernel.name):
            asm, obj = codegen(llir, arch)
        kernel.asm["amdgcn"] = asm
        with timed("hsaco", kernel.name):
            kernel.asm["hsaco"] = link(obj)
    except (ToolError, RuntimeError) as e:
        raise CompilationError(kernel.name, 0, 0, f"AMD code generation failed: {e}") from None
    kernel.metadata.update(
        {"wavefront": wavefront_size(arch), "threads": kernel.options.num_warps * wavefront_size(arch)}
    )
