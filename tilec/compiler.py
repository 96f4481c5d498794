"""From a @jit function and a specialization to a CompiledKernel, through the target's stages.

    tilec.compile(add_kernel, signature={"x": "*fp32", "n": "i32"}, constexprs={"BLOCK": 1024},
                  target="cpu").asm["tile"]

Targets: "interpreter" (tile IR executed with NumPy), "cpu" (native code), NVIDIA archs
("sm_80", "sm_90a", ...) and AMD archs ("gfx942", ...) as their back ends land.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from tilec.language import core

from .python import arrays
from .python.errors import CompilationError

INTERPRETER = "interpreter"


@dataclass(frozen=True)
class Options:
    num_warps: int = 4
    num_stages: int = 3
    debug: bool = False


@dataclass
class CompiledKernel:
    """A kernel compiled for one target and specialization. `asm` maps stage names to text/bytes."""

    name: str
    target: str
    arg_names: list[str]  # run-time arguments, in order
    arg_types: list[core.dtype]
    constants: dict
    options: Options
    asm: dict = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)
    _launcher: object = None

    def launch(self, grid, args):
        if self._launcher is None:
            raise RuntimeError(f"{self.name} was compiled for {self.target}, which cannot launch here")
        return self._launcher(grid, args)

    def assert_message(self, code: int) -> str:
        """The message of the device assertion numbered `code` (1-based), with its location."""
        messages = self.metadata.get("asserts", [])
        if 1 <= code <= len(messages):
            return f"device assertion failed: {messages[code - 1]}"
        return "device assertion failed"

    def __getitem__(self, grid):
        from .python.jit import _resolve_grid

        return lambda *args: self.launch(_resolve_grid(grid, {}), list(args))


def select_target(values) -> str:
    """Where a launch runs: TILEC_INTERPRET, TILEC_TARGET, else by where the arrays live."""
    if os.environ.get("TILEC_INTERPRET", "0") not in ("", "0"):
        return INTERPRETER
    forced = os.environ.get("TILEC_TARGET")
    if forced:
        return forced
    devices = set()
    for v in values:
        info = arrays.describe(v) if not isinstance(v, int | float | bool) and v is not None else None
        if info is not None:
            devices.add(info.device)
    if "cuda" in devices:
        if len(devices) > 1:
            raise ValueError(
                "a kernel's array arguments must all live on one device (got host and GPU arrays)"
            )
        from .targets.nvidia import runtime as nv_runtime

        return nv_runtime.device_arch()
    return "cpu"


def _timing(stage: str, start: float) -> None:
    if os.environ.get("TILEC_TIMING"):
        print(f"[tilec] {stage}: {(time.perf_counter() - start) * 1e3:.1f} ms", flush=True)


def compile_specs(jit_fn, specs: dict, target: str, options: Options) -> CompiledKernel:
    from .python import codegen

    start = time.perf_counter()
    module = codegen.build_module(jit_fn, specs, debug=options.debug)
    _timing("tile", start)
    arg_names = [n for n, s in specs.items() if s[0] == "arg"]
    kernel = CompiledKernel(
        name=jit_fn.__name__,
        target=target,
        arg_names=arg_names,
        arg_types=[specs[n][1] for n in arg_names],
        constants={n: s[1] for n, s in specs.items() if s[0] == "const"},
        options=options,
    )
    kernel.asm["tile"] = module.operation.get_asm(enable_debug_info=True)
    if target == INTERPRETER:
        _prepare_interpreter(kernel, module)
        return kernel
    from .targets import get_target

    get_target(target).compile(kernel, module)
    return kernel


def _prepare_interpreter(kernel: CompiledKernel, module) -> None:
    from .python.interpreter import Memory, Program

    program = Program(module)

    def launch(grid, args):
        memory = Memory()
        values = []
        for t, v in zip(kernel.arg_types, args):
            if t.is_ptr():
                values.append(memory.add(arrays.host_view(v)))
            else:
                values.append(v)
        program.run(grid, values, memory)

    kernel._launcher = launch


def compile(fn, signature, constexprs=None, target=INTERPRETER, num_warps=4, num_stages=3, debug=False):
    """Compiles `fn` for explicit argument types (Triton's strings: "*fp32", "i32", "fp16", ...).

    `signature` is a dict name -> type string (or a comma-separated string in parameter order);
    parameters in `constexprs` are baked in. Returns a CompiledKernel whose `asm` holds every stage.
    """
    constexprs = dict(constexprs or {})
    names = [n for n in fn.arg_names if n not in constexprs]
    if isinstance(signature, str):
        signature = dict(zip(names, [s for s in signature.split(",") if s.strip()]))
    specs = {}
    for name in fn.arg_names:
        if name in constexprs:
            specs[name] = ("const", constexprs[name])
        elif name in signature:
            text = signature[name]
            if text == "constexpr":
                raise CompilationError(
                    fn.source_info().filename,
                    fn.source_info().fndef.lineno,
                    1,
                    f"give a value for constexpr '{name}'",
                )
            text, _, div = text.partition(":")  # "i32:16": also divisible by 16
            t = core.dtype_from_signature(text)
            attrs = {"tile.divisibility": 16} if t.is_ptr() or div == "16" else {}
            specs[name] = ("arg", t, attrs)
        else:
            src = fn.source_info()
            raise TypeError(
                f"{src.filename}:{src.fndef.lineno}: no type or constexpr value for parameter '{name}'"
            )
    return compile_specs(fn, specs, target, Options(num_warps=num_warps, num_stages=num_stages, debug=debug))
