"""The CPU target as the rest of tilec sees it (compiler.py lowers, runtime.py launches)."""

from __future__ import annotations

from tilec.targets.base import DROP_GRID_DEPENDENCY, Stage, Target


class CpuTarget(Target):
    name = "cpu"
    binaries = ("so",)
    passes = "tilec.targets.cpu.passes"

    def compile(self, kernel, module) -> None:
        from . import compiler

        compiler.compile(kernel, module)

    def pipeline(self, arch: str, options) -> list[Stage]:
        from . import compiler

        return [
            DROP_GRID_DEPENDENCY,
            *_with_checks(compiler.stages(options.debug)),
            Stage("llir", does="LLVM IR (translate-to-llvmir), host callbacks and the fault guard's wrapper"),
            Stage("so", does="opt -O3 and llc for this host's CPU (libmvec calls), linked by ld.lld or cc"),
        ]

    def check_binary(self, kind: str, data, what: str) -> None:
        from tilec import elf_files

        elf_files.check(data, elf_files.host_machines(), what)

    def key_parts(self, arch: str) -> list[str]:
        from .host import fingerprint

        return [fingerprint()]  # the code is generated for this very CPU (-mcpu=native)

    def launcher(self, kernel, binary_path=None):
        from . import runtime

        return runtime.Launcher(kernel, None if binary_path is None else str(binary_path))

    def unavailable_reason(self) -> str:
        return "the library did not load"


def _with_checks(stages: list[Stage]) -> list[Stage]:
    """The stages with the check compiler.lower makes after the bufferized one."""
    refusal = Stage(
        "bufferized", does="refuse buffers of booleans (MLIR's memref-to-LLVM lowering aborts on them)"
    )
    return [
        item for stage in stages for item in ((stage, refusal) if stage.name == "bufferized" else (stage,))
    ]
