"""The NVIDIA target as the rest of tilec sees it (compiler.py lowers, runtime.py launches)."""

from __future__ import annotations

from tilec.targets.base import DROP_GRID_DEPENDENCY, Stage, Target


class NvidiaTarget(Target):
    name = "nvidia"
    passes = "tilec.targets.nvidia.passes"
    binaries = ("cubin", "ptx")  # PTX when no ptxas was found: the driver JIT-compiles it
    device = "cuda"
    backend = "cuda"

    def matches(self, arch: str) -> bool:
        return arch.startswith("sm_")

    def compile(self, kernel, module) -> None:
        from . import compiler

        compiler.compile(kernel, module)

    def pipeline(self, arch: str, options) -> list[Stage]:
        from . import compiler

        gpu, *later = compiler.stages(
            arch, options.num_warps, options.num_stages, None, options.enable_fp_fusion, options.debug
        )
        older = int("".join(c for c in arch if c.isdigit()) or 0) < 90
        return [
            *([DROP_GRID_DEPENDENCY] if older else []),
            gpu,
            Stage(
                "gpu",
                does="check shared memory (the arch's limit); past it, the gpu stage again with "
                "shallower cp.async rings",
            ),
            *later,
            Stage("cubin", does=f"ptxas -arch={arch} -O3 (again with .minnctapersm when that fits one "
                  "more program per SM)"),
        ]  # fmt: skip

    def check_binary(self, kind: str, data, what: str) -> None:
        from tilec import elf_files

        if kind == "ptx":
            if ".version" not in data or ".entry" not in data:
                raise elf_files.BadElf(f"{what} is not PTX for a kernel (no .version or .entry)")
            return
        elf_files.check(data, {elf_files.EM_CUDA}, what)

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
        return ("cuda", int(arch[3:].rstrip("abf")), 32)  # compute capability as Triton writes it

    def device_properties(self, index: int = 0) -> dict:
        from . import runtime as nv

        cu = nv.cu
        nv._check(cu.cuInit(0), "cuInit")
        dev = nv._check(cu.cuDeviceGet(index), "cuDeviceGet")
        a = cu.CUdevice_attribute

        def attr(name):
            return nv._check(cu.cuDeviceGetAttribute(getattr(a, name), dev), "cuDeviceGetAttribute")

        return {
            "multiprocessor_count": attr("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"),
            "max_num_regs": attr("CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR"),
            "max_shared_mem": attr("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
            "warpSize": attr("CU_DEVICE_ATTRIBUTE_WARP_SIZE"),
            "sm_clock_rate": attr("CU_DEVICE_ATTRIBUTE_CLOCK_RATE"),
            "mem_clock_rate": attr("CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE"),
            "mem_bus_width": attr("CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH"),
            "max_threads_per_sm": attr("CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR"),
        }
