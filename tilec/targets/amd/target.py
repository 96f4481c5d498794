"""The AMD target as the rest of tilec sees it (compiler.py lowers, runtime.py launches)."""

from __future__ import annotations

from tilec.targets.base import DROP_GRID_DEPENDENCY, Stage, Target


def wavefront_size(arch: str) -> int:
    """Threads per wave of an AMD GPU: 64 on CDNA (gfx9xx), 32 on RDNA (gfx10xx and later)."""
    return 64 if arch.startswith("gfx9") else 32


class AmdTarget(Target):
    name = "amd"
    passes = "tilec.targets.amd.lowering"
    binaries = ("hsaco",)
    device = "cuda"
    backend = "hip"  # torch on ROCm calls AMD GPUs "cuda" too
    lowers_assertions = False  # (no device assertions on AMD yet: debug builds go without them)

    def matches(self, arch: str) -> bool:
        return arch.startswith("gfx")

    def compile(self, kernel, module) -> None:
        from . import compiler

        compiler.compile(kernel, module)

    def pipeline(self, arch: str, options) -> list[Stage]:
        from . import compiler

        gpu, llvm = compiler.stages(arch, options.num_warps, options.enable_fp_fusion)
        return [
            DROP_GRID_DEPENDENCY,
            Stage("tile", does="refuse inline asm (llvmlite's LLVM cannot assemble AMDGCN)"),
            gpu,
            Stage("gpu", does="check LDS (the arch's limit)"),
            llvm,
            Stage("llir", does="LLVM IR of the gpu.module (translate-to-llvmir), amdgpu-waves-per-eu"),
            Stage("amdgcn", does="llvmlite: LLVM's O3 pipeline and the AMDGPU back end"),
            Stage("hsaco", does="ld.lld -shared"),
        ]

    def check_binary(self, kind: str, data, what: str) -> None:
        from tilec import elf_files

        elf_files.check(data, {elf_files.EM_AMDGPU}, what)

    def launcher(self, kernel, binary_path=None):
        from . import runtime

        return runtime.Launcher(kernel) if runtime.available() else None

    def unavailable_reason(self) -> str:
        from . import runtime

        return runtime.unavailable_reason() or "the kernel was not loaded"

    def available(self) -> bool:
        from . import runtime

        return runtime.available()

    def device_arch(self, index: int = 0) -> str:
        from . import runtime

        return runtime.device_arch(index)

    def gpu_target(self, arch: str) -> tuple[str, object, int]:
        return ("hip", arch, wavefront_size(arch))

    def device_properties(self, index: int = 0) -> dict:
        from . import runtime as amd

        props = amd.hip.hipDeviceProp_t()
        amd._check(amd.hip.hipGetDeviceProperties(props, index), "hipGetDeviceProperties")
        return {
            "multiprocessor_count": props.multiProcessorCount,
            "max_num_regs": props.regsPerMultiprocessor,
            "max_shared_mem": props.sharedMemPerBlock,
            "warpSize": props.warpSize,
            "sm_clock_rate": props.clockRate,
            "mem_clock_rate": props.memoryClockRate,
            "mem_bus_width": props.memoryBusWidth,
            "max_threads_per_sm": props.maxThreadsPerMultiProcessor,
        }
