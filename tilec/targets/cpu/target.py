"""The CPU target as the rest of tilec sees it (compiler.py lowers, runtime.py launches)."""

from __future__ import annotations

from tilec.targets.base import Target


class CpuTarget(Target):
    name = "cpu"
    binaries = ("so",)

    def compile(self, kernel, module) -> None:
        from . import compiler

        compiler.compile(kernel, module)

    def check_binary(self, kind: str, data, what: str) -> None:
        from tilec import elf_files

        elf_files.check(data, elf_files.host_machines(), what)

    def key_parts(self, arch: str) -> list[str]:
        from tilec.cache import host_fingerprint

        return [host_fingerprint()]  # the code is generated for this very CPU (-mcpu=native)

    def launcher(self, kernel, binary_path=None):
        from . import runtime

        return runtime.Launcher(kernel, None if binary_path is None else str(binary_path))

    def unavailable_reason(self) -> str:
        return "the library did not load"
