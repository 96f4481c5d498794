"""From a @jit function and a specialization to a CompiledKernel, through the target's stages.

    tilec.compile(add_kernel, signature={"x": "*fp32", "n": "i32"}, constexprs={"BLOCK": 1024},
                  target="cpu").asm["tile"]

Targets: "interpreter" (tile IR executed with NumPy), "cpu" (native code), NVIDIA archs
("sm_80", "sm_90a", ...) and AMD archs ("gfx942", ...) as their back ends land.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tilec import knobs
from tilec.dialects import contract
from tilec.language import core

from .errors import CompilationError, PerformanceWarning
from .runtime import target_of
from .targets import arrays

INTERPRETER = "interpreter"
COMPILE_ONLY = False  # set in autotuning's compile processes: they fill the cache and never launch


@dataclass(frozen=True)
class Options:
    num_warps: int = 4
    num_stages: int = 3
    debug: bool = False
    maxnreg: int | None = None  # registers per thread at most (NVIDIA's .maxnreg); other targets: no cap
    waves_per_eu: int = 0  # AMD: waves per SIMD the kernel's registers must allow (0: LLVM decides)
    # GPUs: fp32 a * b + c may become one FMA (Triton's enable_fp_fusion; TILEC_DEFAULT_FP_FUSION=0
    # turns the default off). The CPU target and the interpreter never fuse.
    enable_fp_fusion: bool = True
    # NVIDIA sm_90+: launched with programmatic stream serialization (Triton's launch_pdl), so the
    # kernel may start while the previous kernel on its stream still runs; tl.extra.cuda.gdc_wait()
    # waits for that kernel's writes. Elsewhere launches stay serial, which the gdc_* helpers allow.
    launch_pdl: bool = False
    # integer +, -, * of kernel code checked for overflow by device assertions (Triton's
    # sanitize_overflow; on where the user asked for a debug build and did not turn it off)
    sanitize_overflow: bool = False


def default_fp_fusion() -> bool:
    """enable_fp_fusion when a launch does not say: True unless TILEC_DEFAULT_FP_FUSION is 0 (read
    when a kernel compiles, as Triton reads TRITON_DEFAULT_FP_FUSION)."""
    return knobs.DEFAULT_FP_FUSION.on()


# the message of an access tile-cpu-check-bounds found outside the kernel's arrays (after its location)
_BOUNDS_REPORT = re.compile(r"(\S+:\d+:\d+: )?out-of-bounds ")
_LOCATED = re.compile(r"(\S+:\d+:\d+): (.*)", re.DOTALL)  # an assertion's message after its location


class Metadata(dict):
    """A compiled kernel's facts; keys read as attributes too (`compiled.metadata.shared`), as Triton's
    metadata is read by ported launch code."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"kernel metadata has no '{name}' (it has: {', '.join(self)})") from None


class Stages(dict):
    """`compiled.asm` while a kernel compiles: each stage, as a target records it, is printed when
    TILEC_DUMP_IR is set (1: every stage; or a comma-separated list of stage names, e.g. tile,ptx).
    A stage recorded again with other content (PTX given a register cap, say) is printed again."""

    def __init__(self, *args, kernel_name: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.kernel_name = kernel_name
        self._printed: dict = {}

    def __setitem__(self, stage, content):
        super().__setitem__(stage, content)
        wanted = knobs.dumped_stages()
        if wanted is None or ("all" not in wanted and stage not in wanted):
            return
        if self._printed.get(stage) == content:
            return
        self._printed[stage] = content
        header = f"// -----// tilec {self.kernel_name} after stage {stage} //----- //"
        if isinstance(content, bytes):
            print(f"{header}\n// {len(content)} bytes of binary code\n", flush=True)
        else:
            print(f"{header}\n{content}", flush=True)


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
    _checks: list | None = None  # per-argument checks of compiled[grid](...), built on first use

    def __post_init__(self):
        if type(self.asm) is dict:  # a kernel being compiled (a loaded one reads its files lazily)
            self.asm = Stages(self.asm, kernel_name=self.name)
        self.metadata = Metadata(self.metadata)
        self.metadata.setdefault("shared", 0)  # shared memory bytes per program (GPU targets; LDS on AMD)

    # Triton's CompiledKernel surface that launch code reads (its fused-softmax tutorial sizes its
    # grid from these): registers and spill bytes per thread where ptxas reported them, else 0.
    @property
    def n_regs(self) -> int:
        return self.metadata.get("n_regs", 0)

    @property
    def n_spills(self) -> int:
        return self.metadata.get("n_spills", 0)

    def _init_handles(self) -> None:
        """Triton loads the module here; tilec's launchers are ready once compiled: nothing to do."""

    def launch(self, grid, args):
        if self._launcher is None:
            raise RuntimeError(
                f"{self.name} was compiled for {self.target}, which cannot launch here: {self._why_no_launcher()}"
            )
        return self._launcher(grid, args)

    def _why_no_launcher(self) -> str:
        from .targets import target_for

        if COMPILE_ONLY:
            return "this process only compiles (autotuning's compile workers)"
        return target_for(self.target).unavailable_reason()

    def assert_message(self, code: int) -> str:
        """The message of the device assertion numbered `code` (1-based), with its location."""
        messages = self.metadata.get("asserts", [])
        if 1 <= code <= len(messages):
            text = messages[code - 1]
            if _BOUNDS_REPORT.match(text):  # tile-cpu-check-bounds' report, not an assertion of the user's
                return text
            located = _LOCATED.match(text)
            if located:  # where first, as the interpreter and compile errors put it
                return f"{located[1]}: device assertion failed: {located[2]}"
            return f"device assertion failed: {text}"
        return "device assertion failed"

    def __getitem__(self, grid):
        """`compiled[grid](*args)`: a launch with the run-time arguments, checked against the
        signature the kernel was compiled for (count, array dtypes, the alignment it assumes). All
        the kernel's parameters may be given instead, constexprs in their places (as Triton's
        compiled kernels take them); those must be the values it was compiled with."""
        from .jit_function import _plain_grid, _resolve_grid

        dims = _plain_grid(grid)

        def launch(*args, **kwargs):
            if kwargs:
                args = self._positional(args, kwargs)
            args = self._runtime_arguments(args)
            self.check_arguments(args)
            resolved = dims or _resolve_grid(grid, dict(zip(self.arg_names, args)))
            return self.launch(resolved, list(args))

        return launch

    def _positional(self, args: tuple, kwargs: dict) -> tuple:
        """Arguments given by keyword put in their places: the run-time parameters', or all the
        kernel's (constexprs included) when a constexpr is named or the positions run past them."""
        parameters = self.metadata.get("parameters") or self.arg_names
        every = len(args) > len(self.arg_names) or any(k in self.constants for k in kwargs)
        names = list(parameters) if every else list(self.arg_names)
        for name in kwargs:
            if name not in names:
                known = ", ".join(names)
                raise TypeError(f"{self.name}: no parameter '{name}' (its parameters: {known})")
        if len(args) > len(names):
            raise TypeError(f"{self.name} takes {len(names)} arguments ({', '.join(names)}), got {len(args)}")
        values = list(args)
        for name in names[len(args) :]:
            if name in kwargs:
                values.append(kwargs[name])
            elif name in self.constants:
                values.append(self.constants[name])  # a constexpr left out: the compiled value
            else:
                raise TypeError(f"{self.name}: missing argument '{name}'")
        for name in names[: len(args)]:
            if name in kwargs:
                raise TypeError(f"{self.name}: argument '{name}' given by position and by keyword")
        return tuple(values)

    def _runtime_arguments(self, args) -> tuple:
        parameters = self.metadata.get("parameters")
        if parameters is None or len(args) == len(self.arg_names) or len(args) != len(parameters):
            return args
        runtime = []
        for name, value in zip(parameters, args):
            if name in self.constants:
                compiled = self.constants[name]
                if not (value == compiled or (value is None and compiled is None)):
                    raise ValueError(
                        f"{self.name}: constexpr '{name}' was compiled as {compiled!r}, got {value!r}: "
                        "compile another specialization (kernel.warmup(...)) for that value"
                    )
            elif name in self.arg_names:
                runtime.append(value)
        return tuple(runtime)

    def check_arguments(self, args) -> None:
        if len(args) != len(self.arg_names):
            raise TypeError(
                f"{self.name} takes {len(self.arg_names)} arguments ({', '.join(self.arg_names)}), "
                f"got {len(args)}"
            )
        checks = self._checks
        if checks is None:
            checks = self._checks = self._argument_checks()
        for check, value in zip(checks, args):
            check(value)

    def _argument_checks(self) -> list:
        """One function per argument that raises a clear error for a value the kernel cannot take."""
        import numpy as np

        divisibility = self.metadata.get("divisibility") or [1] * len(self.arg_names)
        checks = []
        for name, t, div in zip(self.arg_names, self.arg_types, divisibility):
            where = f"{self.name}: argument '{name}'"

            def aligned(address, div=div, where=where, what="an address"):
                if div > 1 and address % div:
                    raise ValueError(
                        f"{where} was compiled assuming divisibility by {div}, got {what} {address}, "
                        f"which is not a multiple of {div}: " + _ALIGNMENT_HINT[what == "an address"]
                    )

            if t.is_ptr():
                expected_np = t.element_ty.to_numpy()

                def check(value, t=t, where=where, expected_np=expected_np, aligned=aligned):
                    if type(value) is np.ndarray and value.dtype == expected_np:
                        aligned(arrays.data_address(value))
                        return
                    info = arrays.describe(value)
                    if info is None:
                        raise TypeError(
                            f"{where} must be an array of {t.element_ty}, got {type(value).__name__}"
                        )
                    if info.dtype != t.element_ty:
                        raise TypeError(f"{where} must hold {t.element_ty}, got an array of {info.dtype}")
                    aligned(info.address)

            elif t.is_floating():

                def check(value, where=where):
                    if not isinstance(value, int | float):
                        raise TypeError(f"{where} must be a number, got {type(value).__name__}")

            else:
                bits = t.primitive_bitwidth
                unsigned = t.is_int_unsigned() or t.is_bool()
                low, high = (0, 2**bits) if unsigned else (-(2 ** (bits - 1)), 2 ** (bits - 1))

                def check(value, t=t, where=where, low=low, high=high, aligned=aligned):
                    if not isinstance(value, int):
                        raise TypeError(f"{where} must be an integer ({t}), got {type(value).__name__}")
                    if not low <= value < high:
                        raise ValueError(f"{where} = {value} does not fit in {t}")
                    aligned(value, what="the value")

            checks.append(check)
        return checks


_ALIGNMENT_HINT = {
    True: "pass an aligned array (a fresh NumPy, torch or CuPy allocation is), or compile without the "
    "assumption (the type '*fp32:1' in tilec.compile's signature, '*fp32' for tilec-compile; launches "
    "through the @tilec.jit function specialize by themselves)",
    False: "compile without the assumption (the type 'i32' rather than 'i32:16' in the signature)",
}


def parse_argument_type(text: str, pointer_divisibility: int) -> tuple:
    """A signature entry: the type and its divisibility attribute. `*fp32:16` / `i32:16` are divisible
    by 16, `*fp32:1` assumes nothing; a bare pointer type gets `pointer_divisibility`."""
    name, colon, div = text.strip().partition(":")
    t = core.dtype_from_signature(name)
    if colon:
        if not div.strip().isdigit() or int(div) < 1 or int(div) & (int(div) - 1):
            raise ValueError(
                f"signature entry '{text}': the divisibility after ':' must be a power of two, got '{div}'"
            )
        divisibility = int(div)
    else:
        divisibility = pointer_divisibility if t.is_ptr() else 1
    if divisibility > 1 and not (t.is_ptr() or t.is_int()):
        raise ValueError(f"signature entry '{text}': only pointers and integers take a divisibility")
    return t, ({contract.DIVISIBILITY: divisibility} if divisibility > 1 else {})


def attach_launcher(kernel: CompiledKernel, binary_path=None) -> None:
    """Gives `kernel` the runtime launcher of its target when this machine can run it."""
    from .targets import target_for

    if COMPILE_ONLY:
        return
    kernel._launcher = target_for(kernel.target).launcher(kernel, binary_path)


def select_target(values) -> str:
    """Where a launch runs: TILEC_INTERPRET, TILEC_TARGET, else by where the arrays live. `values`:
    the arguments, or a dict of them by parameter name (an unsupported array's error names it)."""
    forced = knobs.forced_target()
    if forced:
        return forced
    from .tensor_descriptor import is_descriptor

    def leaves(name, items):  # tuple arguments count by their elements
        for i, v in enumerate(items):
            if isinstance(v, tuple):
                yield from leaves(f"{name}[{i}]" if name else None, v)
            else:
                yield name, v

    named = values.items() if isinstance(values, dict) else [(None, v) for v in values]
    devices = set()
    for name, v in (leaf for key, value in named for leaf in leaves(key, (value,))):
        v = v.base if is_descriptor(v) else v
        try:
            info = arrays.describe(v) if not isinstance(v, int | float | bool) and v is not None else None
        except TypeError as e:
            raise TypeError(f"argument '{name}': {e}" if name else str(e)) from None
        if info is not None:
            devices.add(info.device)
    if len(devices) > 1:
        raise ValueError("a kernel's array arguments must all live on one device (got host and GPU arrays)")
    from .targets import TARGETS

    device = next(iter(devices), "cpu")
    candidates = [t for t in TARGETS if t.device == device and t.stored]
    if not candidates:
        raise ValueError(f"no target runs kernels on arrays of device '{device}'")
    # the first of them with a device present (an NVIDIA GPU, else an AMD one), else the first,
    # whose device_arch says what is missing
    chosen = next((t for t in candidates if t.available()), candidates[0])
    return chosen.device_arch()


def specialization_key(specs: dict) -> tuple:
    """A canonical, hashable form of the code generator's argument specs."""
    key = []
    for name, spec in specs.items():
        if spec[0] == "arg":
            key.append((name, "arg", str(spec[1]), tuple(sorted(spec[2].items()))))
        else:
            key.append((name, "const", repr(spec[1])))
    return tuple(key)


def compile_specs(jit_fn, specs: dict, target: str, options: Options) -> CompiledKernel:
    """Compiles (or loads from the disk cache) `jit_fn` specialized by `specs` for `target`."""
    from . import cache
    from .timing import collect, timed

    name = jit_fn.__name__
    with collect() as times, timed("total", name):
        from .targets import target_for

        backend = target_for(target)
        key = None
        if backend.stored:
            key = cache.kernel_key(jit_fn.cache_key, specialization_key(specs), target, options)
            with timed("cache lookup", name):
                kernel = cache.load(key)
            if kernel is not None:
                return kernel
        from .analysis.written_args import written_arguments
        from .frontend import kernel_module

        with timed("tile", name):
            module = kernel_module.build_module(
                jit_fn,
                specs,
                debug=options.debug,
                num_warps=options.num_warps,
                # (AMD lowers no device assertions yet: its debug builds go without these checks)
                sanitize_overflow=options.sanitize_overflow and backend.lowers_assertions,
                target=target_of(target),
            )
        arg_names = [n for n, s in specs.items() if s[0] == "arg"]
        kernel = CompiledKernel(
            name=name,
            target=target,
            arg_names=arg_names,
            arg_types=[specs[n][1] for n in arg_names],
            constants={n: s[1] for n, s in specs.items() if s[0] == "const"},
            options=options,
        )
        kernel.metadata["divisibility"] = [specs[n][2].get(contract.DIVISIBILITY, 1) for n in arg_names]
        kernel.metadata["parameters"] = list(specs)  # every parameter, in order (constexprs too)
        kernel.metadata["written_args"] = written_arguments(module, name)
        kernel.asm["tile"] = module.operation.get_asm(enable_debug_info=True)
        backend.compile(kernel, module)
        if not backend.stored:
            return kernel
        _warn_of_advisories(jit_fn, kernel)
        kernel.metadata["compile_ms"] = {k: round(v, 2) for k, v in times.items()}
        with timed("cache store", name):
            stored = cache.store(key, kernel)
        binary = backend.binary_of(kernel.asm) if backend.binaries else None
        attach_launcher(kernel, stored / binary if stored is not None and binary else None)
    return kernel


_ADVISORY_HINTS = {
    "C7511": "its accumulators need more registers than a thread has: smaller blocks or more warps help",
    None: "unless the kernel's inline asm causes it, this is tilec's doing: please report it",
}


def _warn_of_advisories(jit_fn, kernel: CompiledKernel) -> None:
    """A `tilec.PerformanceWarning` at the kernel's definition for each advisory the back end gave
    (kept in `metadata["ptxas_advisories"]`; a kernel loaded from the cache does not warn again)."""
    import warnings

    advisories = kernel.metadata.get("ptxas_advisories")
    if not advisories or kernel.options.debug:
        # A debug build's checks call the assertion handler inside its loops, which serializes MMAs
        # (C7510) by design: the advisories stay in the metadata, the warning is for release builds.
        return
    src = jit_fn.source_info()
    constants = ", ".join(f"{k}={v}" for k, v in kernel.constants.items())
    for text in advisories:
        hint = _ADVISORY_HINTS.get(text[1:6], _ADVISORY_HINTS[None])
        warnings.warn_explicit(
            f"{kernel.name} ({kernel.target}, num_warps={kernel.options.num_warps}, "
            f"num_stages={kernel.options.num_stages}{', ' + constants if constants else ''}): ptxas "
            f"reports a potential performance loss: {text}. The kernel is correct; {hint}",
            PerformanceWarning,
            src.filename,
            src.fndef.lineno,
        )


def compile(
    fn,
    signature,
    constexprs=None,
    target=INTERPRETER,
    num_warps=4,
    num_stages=3,
    debug=None,
    enable_fp_fusion=None,
    launch_pdl=False,
    pointer_divisibility=16,
):
    """Compiles `fn` for explicit argument types (Triton's strings: "*fp32", "i32", "fp16", ...).

    `signature` is a dict name -> type string (or a comma-separated string in parameter order);
    parameters in `constexprs` are baked in, constexpr parameters left out take their defaults.
    A type may end in `:N`, the divisibility the kernel may assume (`*fp16:16`, `i32:16`; `*fp16:1`
    assumes nothing); a pointer without it is assumed divisible by `pointer_divisibility` bytes (16,
    what the arrays of NumPy, torch and CuPy are, as the JIT's specialization assumes; `tilec-compile`
    passes 1, as Triton's AOT compiler assumes nothing of a bare `*fp32`).
    Returns a CompiledKernel whose `asm` holds every stage.
    """
    from tilec.jit_function import _user_frame_error

    try:
        return _compile(fn, signature, constexprs, target, num_warps, num_stages, debug, enable_fp_fusion,
                        launch_pdl, pointer_divisibility)  # fmt: skip
    except (CompilationError, TypeError, ValueError, OverflowError) as e:
        raise _user_frame_error(e) from None


def _compile(
    fn, signature, constexprs, target, num_warps, num_stages, debug, enable_fp_fusion, launch_pdl,
    pointer_divisibility,
):  # fmt: skip
    constexprs = dict(constexprs or {})
    for name, parameter in fn.signature.parameters.items():
        if name in fn.constexpr_names and name not in constexprs and parameter.default is not parameter.empty:
            constexprs[name] = parameter.default
    names = [n for n in fn.arg_names if n not in constexprs]
    if isinstance(signature, str):
        types = [s for s in signature.split(",") if s.strip()]
        if len(types) != len(names):
            src = fn.source_info()
            raise TypeError(
                f"{src.filename}:{src.fndef.lineno}: the signature has {len(types)} types for "
                f"{len(names)} run-time parameters ({', '.join(names)})"
            )
        signature = dict(zip(names, types))
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
            t, attrs = parse_argument_type(text, pointer_divisibility)
            specs[name] = ("arg", t, attrs)
        else:
            src = fn.source_info()
            raise TypeError(
                f"{src.filename}:{src.fndef.lineno}: no type or constexpr value for parameter '{name}'"
            )
    sanitize_overflow = debug if debug is not None else fn._explicit_debug()
    if debug is None:  # as the kernel says: @tilec.jit(debug=...), else TILEC_DEBUG
        debug = fn._debug(target)
    if enable_fp_fusion is None:
        enable_fp_fusion = default_fp_fusion()
    options = Options(
        num_warps=num_warps,
        num_stages=num_stages,
        debug=debug,
        enable_fp_fusion=bool(enable_fp_fusion),
        launch_pdl=bool(launch_pdl),
        sanitize_overflow=bool(sanitize_overflow),
    )
    return compile_specs(fn, specs, target, options)
