"""What a target is to the rest of tilec: one `Target` object per target folder, registered by one
line in `tilec.targets.TARGETS`. The compiler, the cache, the launch path and `tilec.runtime` ask the
target, never its name's spelling.

A target names the architectures it compiles for (`matches`), lowers a kernel's tile IR into
`compiled.asm` (`compile`), says which stage files its runtime loads (`binaries`) and how to check
one read back from the disk cache (`check_binary`), makes the launcher (`launcher`), and describes
the device it runs on (`gpu_target`, `device_properties`, `device_arch` for arrays of its device).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Stage:
    """One step of a target's pipeline: `name` as in `compiled.asm`, TILEC_DUMP_IR and the docs;
    `pipeline` the MLIR passes it runs (tilec-opt's syntax), or "" for a step outside MLIR, which
    `does` says in words (a check, code generation by an external tool)."""

    name: str
    pipeline: str = ""
    does: str = ""


# the tile-level step of targets without programmatic dependent launch (tl.extra.cuda.gdc_*)
DROP_GRID_DEPENDENCY = Stage("tile", does="drop grid dependency control (NVIDIA sm_90+ launches only)")


class Target:
    name: str = ""  # the family: "cpu", "nvidia", "amd", "interpreter", ...
    # the stage files its runtime loads, preferred first; () for a target that stores nothing
    binaries: tuple[str, ...] = ()
    stored = True  # whether compiled kernels go to the disk cache (the interpreter's do not)
    device = "cpu"  # where the arrays of its launches live: "cpu" (host memory) or "cuda" (a GPU's)
    backend = "cpu"  # Triton's name for its driver: "cuda", "hip", "cpu"
    lowers_assertions = True  # device assertions (debug builds' overflow checks) are lowered
    # the package of its own passes (and GPU lowering vendor), which registers them in
    # tilec.passes.REGISTRY (tilec.passes.gpu_vendor.VENDORS) when imported
    passes: str | None = None

    def matches(self, arch: str) -> bool:
        """Whether `arch` ("sm_90a", "gfx942", "cpu", ...) names one of this target's architectures."""
        return arch == self.name

    def compile(self, kernel, module) -> None:
        """Lowers the tile module in place, filling `kernel.asm` and `kernel.metadata`."""
        raise NotImplementedError(f"target {self.name} does not compile")

    def pipeline(self, arch: str, options) -> list[Stage]:
        """What `compile` runs for `arch` and `options` (tilec.compiler.Options), in order: the list
        `tilec-opt --print-pipeline` prints."""
        return []

    def binary_of(self, asm) -> str:
        """The stage file of a compiled kernel its runtime loads: the first of `binaries` present."""
        return next((b for b in self.binaries if b in asm), self.binaries[0])

    def check_binary(self, kind: str, data, what: str) -> None:
        """Raises ValueError when `data` (stage file `kind` read back from `what`) cannot be loaded."""

    def key_parts(self, arch: str) -> list[str]:
        """What the cache key must hold besides the kernel and its options (the host CPU for code
        generated for this very machine)."""
        return []

    def launcher(self, kernel, binary_path=None):
        """The launch function `(grid, args) -> None` of a compiled kernel, or None when this
        machine cannot run it. `binary_path`: its binary in the cache, when it is stored."""
        return None

    def unavailable_reason(self) -> str:
        """Why kernels of this target cannot launch here (when `launcher` gave None)."""
        return "the kernel was not loaded"

    def available(self) -> bool:
        """Whether a device of this target is present to launch on."""
        return True

    def device_arch(self, index: int = 0) -> str:
        """The architecture of device `index` (for launches whose arrays live on it)."""
        return self.name

    def gpu_target(self, arch: str) -> tuple[str, object, int]:
        """(backend, arch, warp size) as Triton's GPUTarget: ("cuda", 90, 32) for sm_90a."""
        return (arch, "host", 1)  # (the interpreter is "interpreter" here, as before)

    def device_properties(self, index: int = 0) -> dict:
        """Triton's device properties: multiprocessor_count, max_num_regs, max_shared_mem, warpSize..."""
        from tilec.targets.cpu.properties import host_properties

        return dict(host_properties())
