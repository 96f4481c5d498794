"""@tilec.jit: specialization, the cache key, compilation and `kernel[grid](...)` launches."""

from __future__ import annotations

import functools
import hashlib
import inspect
import numbers
import operator

import numpy as np

from tilec import knobs
from tilec._version import __version__ as VERSION
from tilec.dialects import contract
from tilec.errors import CompilationError, InterpreterError
from tilec.language import core, descriptors
from tilec.targets import arrays

from . import launch_observers, tensor_descriptor
from .frontend.kernel_functions import BoundJITMethod, KernelFunction
from .frontend.source import SourceInfo, function_lines, is_constexpr_annotation, text_lines
from .frontend.values import NamedStructure


def _user_frame_error(exc: BaseException) -> BaseException:
    """Drops tilec's internal frames from a user-facing error unless TILEC_DEBUG=1."""
    if knobs.DEBUG.on():
        return exc
    exc.__cause__ = None
    exc.__suppress_context__ = True
    return exc.with_traceback(None)


class JITFunction(KernelFunction):
    """A kernel (or a helper called from kernels) written in the tile language."""

    def __init__(self, fn, *, debug=None, do_not_specialize=(), noinline=False):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__wrapped__ = fn
        self.signature = inspect.signature(fn)
        self.arg_names = list(self.signature.parameters)
        self._parameter_set = frozenset(self.arg_names)
        self.constexpr_names = {
            n for n, p in self.signature.parameters.items() if is_constexpr_annotation(p.annotation)
        }
        self.do_not_specialize = {self.arg_names[d] if isinstance(d, int) else d for d in do_not_specialize}
        self.debug = debug
        self._replaced_source = None  # _unsafe_update_src's text
        self._text_lines = text_lines(fn)  # the source of a function made by exec, taken while fresh
        self._source_info = None
        self._cache_key = None
        self.cache: dict = {}
        self._launches: dict = {}  # launch key -> (kernel, argument positions)
        params = list(self.signature.parameters.values())
        self._defaults = {
            i: p.default for i, p in enumerate(params) if p.default is not inspect.Parameter.empty
        }
        self._is_constexpr = [p.name in self.constexpr_names for p in params]
        # Scalar parameters annotated with a tl dtype (`stride: tl.int64`): that is their type in the
        # kernel, whatever the value's natural one (int32 for a small int), as in Triton.
        self.annotated_dtypes = {
            p.name: t
            for p in params
            if p.name not in self.constexpr_names and (t := _annotated_dtype(fn, p.annotation)) is not None
        }
        # Pointer parameters annotated `tl.const`: read-only in the kernel (stores are compile errors).
        self.const_pointer_names = frozenset(
            p.name for p in params if _annotation_value(fn, p.annotation) is core.const
        )

    # -- source ------------------------------------------------------------------------------
    def source_info(self) -> SourceInfo:
        if self._source_info is None:
            self._source_info = SourceInfo(self.fn, self._replaced_source, self._text_lines)
        return self._source_info

    @property
    def src(self) -> str:
        """The function's source, dedented, from its `def` line on (Triton's JITFunction.src)."""
        info = self.source_info()
        return info.text if self._replaced_source is None else info.source

    def _unsafe_update_src(self, new_src: str) -> None:
        """Compiles `new_src` in place of the function's source from now on (Triton's test suites
        patch a template kernel's `GENERATE_TEST_HERE` this way); kernels compiled before are dropped.
        Unsafe as in Triton: nothing checks that the new text fits the Python function's signature."""
        self._replaced_source = new_src
        self._source_info = None
        self._cache_key = None
        self.cache.clear()
        self._launches.clear()

    def _dependencies(self, seen=None) -> list[JITFunction]:
        """This function and every @jit function it refers to, transitively."""
        seen = seen if seen is not None else {}
        if id(self) in seen:
            return []
        seen[id(self)] = self
        out = [self]
        names = set(self.fn.__code__.co_names) | set(self.fn.__code__.co_freevars)
        scope = dict(self.fn.__globals__)
        if self.fn.__closure__:
            scope.update(zip(self.fn.__code__.co_freevars, (c.cell_contents for c in self.fn.__closure__)))
        for name in sorted(names):
            out.extend(_compiled_in(scope.get(name), seen))
        return out

    def _global_values(self) -> str:
        """The module-level constants the function reads (numbers, strings, dtypes): they are compiled
        in, so a cached kernel must not outlive a change of their value."""
        parts = []
        for name in sorted(set(self.fn.__code__.co_names)):
            value = self.fn.__globals__.get(name)
            if (
                isinstance(value, bool | int | float | str | core.dtype)
                or value is None
                and name in self.fn.__globals__
            ):
                parts.append(f"{name}={value!r}")
        return ";".join(parts)

    @property
    def cache_key(self) -> str:
        """Hash of the source of this function and of every @jit function it calls, and of where each
        lies: the compiled kernel carries file:line locations (device_assert's and device_print's
        messages, diagnostics), which a kernel copied to another file or moved must not inherit."""
        if self._cache_key is None:
            h = hashlib.sha256(VERSION.encode())
            for dep in self._dependencies():
                h.update(dep.__qualname__.encode())
                code = dep.fn.__code__
                h.update(f"{code.co_filename}:{code.co_firstlineno}".encode())
                try:
                    h.update(
                        (
                            dep._replaced_source or "".join((dep._text_lines or function_lines(dep.fn))[0])
                        ).encode()
                    )
                except ValueError as e:
                    raise CompilationError(
                        getattr(dep.fn.__code__, "co_filename", "<unknown>"),
                        dep.fn.__code__.co_firstlineno,
                        1,
                        str(e),
                    ) from None
                h.update(dep._global_values().encode())
            self._cache_key = h.hexdigest()
        return self._cache_key

    def __get__(self, obj, cls=None):
        """A @jit method of an aggregate (tilec.aggregate), read from an instance: bound to it. On
        any other class's instance a @jit function stays itself (`Kernels().add[grid](...)`)."""
        if obj is None or not hasattr(type(obj), "__tilec_fields__"):
            return self
        return BoundJITMethod(self, obj)

    def __repr__(self) -> str:
        # by content, not address: a @jit function passed as a constexpr (or in a tuple) is part of
        # the specialization key, which the on-disk cache keeps across processes
        try:
            return f"JITFunction({self.__module__}.{self.__qualname__}:{self.cache_key[:16]})"
        except CompilationError:
            return f"JITFunction({self.__module__}.{self.__qualname__} at {id(self):#x})"

    # -- launching ---------------------------------------------------------------------------
    def __getitem__(self, grid):
        return functools.partial(self.run, grid=grid)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            f"{self.__name__} is a @tilec.jit kernel: launch it with {self.__name__}[grid](...), "
            "or call it from another kernel"
        )

    def _bind(self, args, kwargs) -> dict:
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            src = self.source_info()
            raise TypeError(f"{src.filename}:{src.fndef.lineno}: {self.__name__}(): {e}") from None
        bound.apply_defaults()
        return dict(bound.arguments)

    def _select_target(self, bound: dict) -> str:
        from tilec import compiler

        try:
            return compiler.select_target(bound)
        except TypeError as e:
            src = self.source_info()
            raise TypeError(f"{src.filename}:{src.fndef.lineno}: {self.__name__}(): {e}") from None

    def specialize(self, bound: dict) -> tuple[dict, tuple]:
        """arg_specs for the code generator and the hashable specialization key."""
        specs, key = {}, []
        src = self.source_info()
        for name, value in bound.items():
            plain = core.CONSTEXPR_MARKED.get(type(value))
            if plain is not None:  # tl.constexpr(n) from the host
                value = plain(value)
                specs[name] = ("const", value)
                key.append((name, "const", repr(value)))
                continue
            if name in self.constexpr_names or value is None or isinstance(value, core.dtype):
                if isinstance(value, core.tensor) or _is_array(value):
                    raise TypeError(
                        f"{src.filename}:{src.fndef.lineno}: '{name}' is a tl.constexpr, a compile-time "
                        f"value, but an array ({type(value).__name__}) was passed for it"
                    )
                specs[name] = ("const", value)
                key.append((name, "const", repr(value)))
                continue
            if tensor_descriptor.is_descriptor(value):
                # Its parts are arguments of their own, then the descriptor (codegen assembles it).
                where = f"{src.filename}:{src.fndef.lineno}"
                layout = tensor_descriptor.check(name, value, where)
                part_names = descriptors.part_names(name, len(layout[1]))
                for part_name, part in zip(part_names, tensor_descriptor.parts(value)):
                    spec = _specialize_value(part_name, part, name in self.do_not_specialize, src)
                    specs[part_name] = spec
                    key.append(
                        (
                            part_name,
                            spec[0],
                            str(spec[1]),
                            tuple(sorted(spec[2].items())) if spec[0] == "arg" else (),
                        )
                    )
                specs[name] = ("desc", layout)
                key.append((name, "desc", repr(layout)))
                continue
            if isinstance(value, tuple):
                # Its elements are arguments of their own ("t[0]", "t[1][0]", ...), then the tuple
                # (codegen assembles it): Triton's tuple arguments, named tuples included.
                structure = self._specialize_tuple(name, name, value, src, specs, key)
                specs[name] = ("tuple", structure)
                key.append((name, "tuple", repr(structure)))
                continue
            annotated = self.annotated_dtypes.get(name)
            spec = _specialize_value(
                name, value, name in self.do_not_specialize or annotated is not None, src
            )
            if annotated is not None and spec[0] == "arg" and not spec[1].is_ptr():
                spec = ("arg", _passed_as(annotated), spec[2] if annotated.is_int() else {})
            specs[name] = spec
            key.append(
                (name, spec[0], str(spec[1]), tuple(sorted(spec[2].items())) if spec[0] == "arg" else ())
            )
        return specs, tuple(key)

    def run(self, *args, grid, num_warps=None, num_stages=None, **kwargs):
        launch_observers.refuse_inside_torch_compile(self.__name__)
        observer = launch_observers.current
        if observer is not None and observer.skip_launch():
            return None
        try:
            num_warps, num_stages, extra = self._launch_options(kwargs, num_warps, num_stages)
        except (TypeError, ValueError) as e:
            raise _user_frame_error(e) from None
        # Fast path: a launch like an earlier one (same argument kinds, dtypes, alignment, constexprs)
        # goes from a dict lookup straight to the target's launcher, with no binding or specialization.
        try:
            key = self._launch_key(args, kwargs, num_warps, num_stages, extra)
        except TypeError:
            key = None
        if key is not None:
            entry = self._launches.get(key)
            if entry is not None:
                launcher, positions, direct, extract, kernel = entry
                if direct and len(args) == len(positions):
                    values = args
                elif extract is not None and len(args) >= extract.needs:
                    values = extract(args)
                else:
                    values = [self._argument(args, kwargs, i) for i in positions]
                grid_dims = _plain_grid(grid)
                if grid_dims is None:
                    try:
                        grid_dims = _resolve_grid(
                            grid, None if not callable(grid) else self._bind(args, kwargs)
                        )
                    except (TypeError, ValueError) as e:
                        raise _user_frame_error(e) from None
                if observer is not None:
                    _observe(observer, self, kernel, values)
                try:
                    launcher(grid_dims, values)
                except (InterpreterError, TypeError, ValueError) as e:
                    raise _user_frame_error(e) from None
                return kernel  # as Triton: the compiled kernel (asm, n_regs, metadata)

        try:
            bound = self._bind(args, kwargs)
            target = self._select_target(bound)
            kernel = self._compiled(bound, target, num_warps, num_stages, extra)
            if key is not None:
                positions = [self._position(n) for n in kernel.arg_names]
                direct = positions == list(range(len(positions)))
                extract = None if direct else _extractor(positions)
                self._launches[key] = (kernel._launcher or kernel.launch, positions, direct, extract, kernel)
            grid_dims = _resolve_grid(grid, bound)
            values = [_bound_value(bound, n) for n in kernel.arg_names]
            if observer is not None:
                _observe(observer, self, kernel, values)
            kernel.launch(grid_dims, values)
            return kernel
        except (CompilationError, InterpreterError, TypeError, ValueError, OverflowError) as e:
            raise _user_frame_error(e) from None

    def _specialize_tuple(self, param: str, name: str, value: tuple, src, specs: dict, key: list) -> tuple:
        """Specs (and key entries) for the elements of a tuple argument, nested tuples included;
        returns the tuple's structure: its elements' names, nested as the tuple is."""
        structure = []
        constant_fields = _constexpr_fields(type(value))
        for i, item in enumerate(value):
            part = f"{name}[{i}]"
            if isinstance(item, tuple):
                structure.append(self._specialize_tuple(param, part, item, src, specs, key))
                continue
            if tensor_descriptor.is_descriptor(item):
                raise TypeError(
                    f"{src.filename}:{src.fndef.lineno}: argument '{param}': a tensor descriptor inside a "
                    "tuple is not supported (pass it as an argument of its own)"
                )
            plain = core.CONSTEXPR_MARKED.get(type(item))
            if plain is not None:  # tl.constexpr(n) from the host
                item = plain(item)
            if plain is not None or i in constant_fields or _compile_time_only(item):
                specs[part] = ("const", item)
                key.append((part, "const", repr(item)))
            else:
                spec = _specialize_value(part, item, param in self.do_not_specialize, src)
                specs[part] = spec
                key.append(
                    (part, spec[0], str(spec[1]), tuple(sorted(spec[2].items())) if spec[0] == "arg" else ())
                )
            structure.append(part)
        if type(value) is not tuple:  # a named tuple: rebuilt as its class in the kernel
            return NamedStructure(type(value), tuple(structure))
        return tuple(structure)

    def _launch_options(self, kwargs: dict, num_warps, num_stages) -> tuple[int, int, tuple]:
        """(num_warps, num_stages, (debug, maxnreg, waves_per_eu, enable_fp_fusion, launch_pdl,
        sanitize_overflow)) of a launch, taking
        Triton's option keywords out of `kwargs`. A kernel may have a parameter named num_warps or
        num_stages (Triton's softmax tutorial loops with `tl.range(..., num_stages=num_stages)`): as
        in Triton, the keyword then goes to the parameter, and the option keeps its default. Triton's
        other compile options are taken where tilec has their meaning (`debug`: device assertions for
        this launch; `maxnreg`: a register cap per thread on NVIDIA; `waves_per_eu`: an occupancy
        target for AMD's LLVM; `enable_fp_fusion`: whether GPUs may fuse fp32 a * b + c into one FMA;
        `launch_pdl`: programmatic dependent launch on NVIDIA sm_90+; `sanitize_overflow`: integer
        overflow checks in debug builds; `num_ctas=1`; `extern_libs` naming libdevice alone, whose
        functions tilec has built in) and refused by name otherwise."""
        params = self._parameter_set
        for name, value in (("num_warps", num_warps), ("num_stages", num_stages)):
            if value is not None and name in params:
                kwargs[name] = value
        num_warps = 4 if num_warps is None or "num_warps" in params else num_warps
        num_stages = 3 if num_stages is None or "num_stages" in params else num_stages
        if type(num_warps) is not int or not 1 <= num_warps <= 32 or num_warps & (num_warps - 1):
            raise ValueError(
                f"{self.__name__}: num_warps must be a power of 2 from 1 to 32, got {num_warps!r}"
            )
        if type(num_stages) is not int or num_stages < 0:
            raise ValueError(f"{self.__name__}: num_stages must be a non-negative int, got {num_stages!r}")
        if params.issuperset(kwargs):  # the usual launch: nothing else to take out
            return num_warps, num_stages, (None, None, 0, None, False, True)
        debug = kwargs.pop("debug", None) if "debug" not in params else None
        maxnreg = kwargs.pop("maxnreg", None) if "maxnreg" not in params else None
        waves = kwargs.pop("waves_per_eu", 0) if "waves_per_eu" not in params else 0
        fusion = kwargs.pop("enable_fp_fusion", None) if "enable_fp_fusion" not in params else None
        if fusion is not None and type(fusion) is not bool:
            raise TypeError(f"{self.__name__}: enable_fp_fusion must be True or False, got {fusion!r}")
        pdl = kwargs.pop("launch_pdl", False) if "launch_pdl" not in params else False
        if type(pdl) is not bool:
            raise TypeError(f"{self.__name__}: launch_pdl must be True or False, got {pdl!r}")
        sanitize = kwargs.pop("sanitize_overflow", True) if "sanitize_overflow" not in params else True
        if type(sanitize) is not bool:
            raise TypeError(f"{self.__name__}: sanitize_overflow must be True or False, got {sanitize!r}")
        if type(waves) is not int or not 0 <= waves <= 16:
            raise TypeError(f"{self.__name__}: waves_per_eu must be an int from 0 to 16, got {waves!r}")
        for name, allowed in _TRITON_HINTS_IGNORED.items():
            if name in kwargs and name not in params:
                value = kwargs.pop(name)
                if type(value) is not int or (allowed is not None and value not in allowed):
                    raise TypeError(
                        f"{self.__name__}: {name} must be "
                        + (f"one of {', '.join(map(str, allowed))}" if allowed else "an int")
                        + f", got {value!r}"
                    )
        if "num_ctas" in kwargs and "num_ctas" not in params:
            ctas = kwargs.pop("num_ctas")
            if ctas != 1:
                raise TypeError(
                    f"{self.__name__}: num_ctas={ctas!r}: thread block clusters are not supported by tilec "
                    "(num_ctas=1 is)"
                )
        if "extern_libs" in kwargs and "extern_libs" not in params:
            libs = kwargs.pop("extern_libs")
            # tilec has libdevice's functions built in (tl.extra.libdevice, every target): a path to
            # NVIDIA's libdevice.10.bc has nothing to add; other libraries cannot be linked
            others = sorted(set(libs or {}) - {"libdevice"}) if isinstance(libs, dict) else [repr(libs)]
            if others:
                raise TypeError(
                    f"{self.__name__}: extern_libs: tilec links no external libraries (only 'libdevice', "
                    f"whose functions it has built in, may be named), got {', '.join(map(str, others))}"
                )
        unknown = [
            name for name in kwargs if name not in params and name not in _TRITON_OPTIONS_NOT_SUPPORTED
        ]
        if unknown:  # (a first launch would fail to bind them; a repeated one must fail alike)
            src = self.source_info()
            raise TypeError(
                f"{src.filename}:{src.fndef.lineno}: {self.__name__}(): unexpected keyword argument "
                f"'{unknown[0]}' (neither a parameter of the kernel nor a launch option)"
            )
        if maxnreg is not None and (type(maxnreg) is not int or not 16 <= maxnreg <= 255):
            raise TypeError(f"{self.__name__}: maxnreg must be an int from 16 to 255, got {maxnreg!r}")
        for name in _TRITON_OPTIONS_NOT_SUPPORTED:
            if name in kwargs and name not in params:
                raise TypeError(
                    f"{self.__name__}: '{name}' is a Triton compile/launch option that tilec does not "
                    "implement; drop it from the launch (or the autotune config)"
                )
        debug = None if debug is None else bool(debug)
        return num_warps, num_stages, (debug, maxnreg, waves, fusion, pdl, sanitize)

    def _position(self, kernel_arg: str):
        """Where a compiled kernel's argument comes from: a parameter's index, or (index, attribute,
        element) for a part of a tensor descriptor ("a.shape[1]": (i, "shape", 1); "a.base":
        (i, "base", None)), parsed once here rather than at every launch."""
        if kernel_arg in self.arg_names:
            return self.arg_names.index(kernel_arg)
        path = _tuple_path(kernel_arg)
        if path is not None:  # an element of a tuple argument: (i, None, (j, k, ...))
            return (self.arg_names.index(path[0]), None, path[1])
        name, field = kernel_arg.split(".", 1)
        attribute, _, element = field.partition("[")
        return (self.arg_names.index(name), attribute, int(element[:-1]) if element else None)

    def _argument(self, args, kwargs, position):
        index = position if type(position) is int else position[0]
        value = (
            args[index] if index < len(args) else kwargs.get(self.arg_names[index], self._defaults.get(index))
        )
        if type(position) is int:
            return value
        if position[1] is None:  # an element of a tuple argument
            for i in position[2]:
                value = value[i]
            return value
        part = getattr(value, position[1])
        return part if position[2] is None else part[position[2]]

    def _launch_key(self, args, kwargs, num_warps, num_stages, extra=(None, None, 0, None, False, True)):
        """A cheap hashable summary of everything specialization depends on (None: use the slow path)."""
        names = self.arg_names
        n = len(names)
        nargs = len(args)
        if nargs > n:
            return None
        parts = [num_warps, num_stages, extra, *knobs.launch_key()]
        append = parts.append
        is_constexpr = self._is_constexpr
        int_keys = _INT_KEYS
        for i in range(n):
            if i < nargs:
                v = args[i]
            else:
                name = names[i]
                if name in kwargs:
                    v = kwargs[name]
                elif i in self._defaults:
                    v = self._defaults[i]
                else:
                    return None
            if is_constexpr[i]:
                append(v if type(v) in _PLAIN_CONSTANTS else repr(v))
                continue
            if type(v) is int:  # the commonest run-time argument: its key from a small table
                part = int_keys.get(v)
                if part is None:
                    part = _int_key(v)
            else:
                part = _value_key(v)
                if part is None:
                    return None
            append(part)
        return tuple(parts)

    def warmup(self, *args, grid=None, num_warps=None, num_stages=None, target=None, **kwargs):

        try:
            num_warps, num_stages, extra = self._launch_options(kwargs, num_warps, num_stages)
            bound = self._bind(args, kwargs)
            target = target or self._select_target(bound)
            return self._compiled(bound, target, num_warps, num_stages, extra)
        except (CompilationError, TypeError, ValueError, OverflowError) as e:
            raise _user_frame_error(e) from None

    def _compiled(self, bound, target, num_warps, num_stages, extra=(None, None, 0, None, False, True)):
        from tilec import compiler

        specs, spec_key = self.specialize(bound)
        debug, maxnreg, waves, fusion, pdl, sanitize = extra
        # overflow checks where the user asked for a debug build (not the interpreter's default one)
        sanitize = sanitize and (self._explicit_debug() if debug is None else debug)
        debug = self._debug(target) if debug is None else debug
        fusion = compiler.default_fp_fusion() if fusion is None else fusion
        key = (
            spec_key,
            target,
            num_warps,
            num_stages,
            debug,
            maxnreg,
            waves,
            fusion,
            pdl,
            sanitize,
            knobs.NO_TMA.on(),
        )
        kernel = self.cache.get(key)
        if kernel is None:
            options = compiler.Options(
                num_warps=num_warps,
                num_stages=num_stages,
                debug=debug,
                maxnreg=maxnreg,
                waves_per_eu=waves,
                enable_fp_fusion=fusion,
                launch_pdl=pdl,
                sanitize_overflow=sanitize,
            )
            kernel = compiler.compile_specs(self, specs, target, options)
            self.cache[key] = kernel
        return kernel

    def _debug(self, target) -> bool:
        return self._explicit_debug() or (self.debug is None and target == "interpreter")

    def _explicit_debug(self) -> bool:
        """Whether the user asked for a debug build: @tilec.jit(debug=...), else TILEC_DEBUG."""
        if self.debug is not None:
            return bool(self.debug)
        return knobs.DEBUG.on()


# Triton options ported launches and autotune configs carry that tilec has no meaning for (yet).
# Triton options that change what a launch means, which tilec refuses rather than ignore.
_TRITON_OPTIONS_NOT_SUPPORTED = ("launch_cooperative_grid",)

# Triton's tuning hints for one back end's instruction selection, which tilec's lowerings choose for
# themselves: accepted (autotune configs written for AMD carry them on every target) and checked,
# then unused. name -> the values Triton accepts.
_TRITON_HINTS_IGNORED = {
    "matrix_instr_nonkdim": (0, 4, 16, 32),  # AMD MFMA shape
    "kpack": (1, 2),  # AMD MFMA operand packing
    "num_buffers_warp_spec": None,  # warp-specialization hints of Triton's forks: any int
    "num_consumer_groups": None,
    "reg_dec_producer": None,
    "reg_inc_consumer": None,
}


# The keys of the integers launches pass (sizes, strides), once each: about 0.3 us an integer otherwise.
_INT_KEYS: dict = {}
_INT_KEYS_LIMIT = 4096


def _observe(observer, function, kernel, values) -> None:
    """The launch observer's verdict on a launch; a refusal reaches the user without tilec's frames."""
    try:
        observer.launching(function, kernel, values)
    except RuntimeError as e:
        raise _user_frame_error(e) from None


def _int_key(v: int) -> tuple:
    """What specialization reads of an integer argument: whether it is 1, its divisibility by 16,
    the widths that hold it (the last test sends a value no 64-bit type holds to the slow path's
    error)."""
    key = (v == 1, v % 16 == 0, -(2**31) <= v < 2**31, -(2**63) <= v < 2**63, -(2**63) <= v < 2**64)
    if len(_INT_KEYS) < _INT_KEYS_LIMIT:
        _INT_KEYS[v] = key
    return key


def _value_key(v):
    """What specialization reads of a run-time argument, cheaply (None: not a known kind)."""
    t = type(v)
    if t is int:  # (tuple elements; _launch_key reads the table itself)
        return _INT_KEYS.get(v) or _int_key(v)
    if t is np.ndarray:  # (the host targets' arrays, checked early)
        return (v.dtype, arrays.data_address(v) % 16 == 0)
    if t is float or t is bool or v is None:
        return t
    if t is tuple:  # a tuple argument: its elements' keys
        parts = tuple(_value_key(x) for x in v)
        return None if None in parts else ("tuple", parts)
    if t is JITFunction or t is str:  # compile-time elements of tuples: by identity / value
        return (t, v)
    if t in core.CONSTEXPR_MARKED:  # tl.constexpr(n): a constant, by value
        return (t, v)
    if t in _DESCRIPTOR_TYPES:  # before the data_ptr lookup, which fails slowly on them
        return _descriptor_key(v)
    data_ptr = getattr(v, "data_ptr", None)
    if data_ptr is not None:  # torch: get_device() is -1 on the host, else the GPU index
        return (v.dtype, v.get_device(), data_ptr() % 16 == 0)
    if t not in _NOT_DESCRIPTORS and _is_descriptor_type(v):
        return _descriptor_key(v)
    info = arrays.describe(v)
    if info is not None:
        return (info.dtype, info.device, info.device_index, info.address % 16 == 0)
    if isinstance(v, tuple):  # a named tuple: its class, its constexpr fields' values, the others' keys
        constant = _constexpr_fields(t)
        parts = tuple(
            (x if type(x) in _PLAIN_CONSTANTS else repr(x),) if i in constant else _value_key(x)
            for i, x in enumerate(v)
        )
        return None if None in parts else (t, parts)
    return None


_DESCRIPTOR_TYPES: set = set()  # classes seen to be tensor descriptors (tilec's, Triton's, ...)
_NOT_DESCRIPTORS: set = set()
_DESCRIPTOR_GEOMETRY: dict = {}  # (shape, strides, block, padding, element size) -> its key part, or None


def _is_descriptor_type(v) -> bool:
    found = tensor_descriptor.is_descriptor(v)
    (_DESCRIPTOR_TYPES if found else _NOT_DESCRIPTORS).add(type(v))
    return found


def _descriptor_key(v):
    """A descriptor's share of the launch key: its base array's key and its geometry, which decides
    the specialization of its shape and stride parts (as plain int arguments), the 64-bit offsets and
    whether the checks pass. Geometry seen before is looked up, not recomputed: launches usually
    build new descriptors of the same tensors each time. None: take the slow path (which raises
    where the checks fail)."""
    base = v.base
    geometry = (
        tuple(v.shape),
        tuple(v.strides),
        tuple(v.block_shape),
        getattr(v, "padding", "zero"),
        _itemsize(base),
    )
    try:
        part = _DESCRIPTOR_GEOMETRY[geometry]
    except KeyError:
        part = None
        if tensor_descriptor.valid_strides(v):
            dims = [_value_key(d) for d in (*geometry[0], *geometry[1])]
            if None not in dims:
                part = (geometry[2], geometry[3], tensor_descriptor.wide_offsets(v.shape, v.strides), *dims)
        if len(_DESCRIPTOR_GEOMETRY) > 4096:
            _DESCRIPTOR_GEOMETRY.clear()
        _DESCRIPTOR_GEOMETRY[geometry] = part
    except TypeError:  # unhashable parts (lists of tensors...): the slow path says what is wrong
        return None
    base_key = _value_key(base)
    if part is None or base_key is None:
        return None
    return ("desc", base_key, part)


def _extractor(positions: list):
    """A function from a launch's positional arguments to the compiled kernel's arguments, parts of
    descriptors included ("a.shape[1]": args[i].shape[1]), generated once per specialization:
    taking them part by part cost ~1.7 us per launch of three descriptors on this host."""
    items = []
    for position in positions:
        if type(position) is int:
            items.append(f"args[{position}]")
            continue
        index, attribute, element = position
        if attribute is None:  # an element of a tuple argument
            items.append(f"args[{index}]" + "".join(f"[{i}]" for i in element))
            continue
        if not attribute.isidentifier():
            return None
        items.append(f"args[{index}].{attribute}" + ("" if element is None else f"[{element}]"))
    namespace: dict = {}
    exec(f"def extract(args):\n    return [{', '.join(items)}]\n", namespace)  # noqa: S102
    extract = namespace["extract"]
    # usable when every parameter it reads was given positionally
    extract.needs = 1 + max((p if type(p) is int else p[0] for p in positions), default=-1)
    return extract


def _itemsize(array) -> int:
    """Bytes per element (NumPy, CuPy and torch have `itemsize`; older torch `element_size()`)."""
    size = getattr(array, "itemsize", None)
    if type(size) is int:
        return size
    return array.element_size() if hasattr(array, "element_size") else 0


def _tuple_path(kernel_arg: str):
    """("t", (1, 0)) for the tuple element "t[1][0]", else None (a parameter, a descriptor's part)."""
    name, bracket, rest = kernel_arg.partition("[")
    if not bracket or "." in name:
        return None
    return name, tuple(int(i) for i in ("[" + rest)[1:-1].split("]["))


def _bound_value(bound: dict, kernel_arg: str):
    if kernel_arg in bound:
        return bound[kernel_arg]
    path = _tuple_path(kernel_arg)
    if path is not None:
        value = bound[path[0]]
        for i in path[1]:
            value = value[i]
        return value
    name = kernel_arg.split(".")[0]
    return tensor_descriptor.part(bound[name], kernel_arg.split(".", 1)[1])


def _compiled_in(obj, seen: dict) -> list:
    """The functions whose source a kernel referring to `obj` compiles in: a @jit function and those
    it calls, a constexpr_function, an aggregate's methods (the cache key hashes their sources)."""
    from tilec.language.aggregates import constexpr_function

    if isinstance(obj, JITFunction):
        return obj._dependencies(seen)
    if isinstance(obj, constexpr_function):
        if id(obj) in seen:
            return []
        seen[id(obj)] = obj
        return JITFunction(obj.fn)._dependencies(seen)
    if isinstance(obj, type) and hasattr(obj, "__tilec_fields__") and id(obj) not in seen:  # an aggregate
        seen[id(obj)] = obj
        out = []
        for klass in obj.__mro__[:-1]:
            for member in vars(klass).values():
                member = getattr(member, "__func__", member)  # static and class methods
                if inspect.isfunction(member):
                    member = JITFunction(member)
                out.extend(_compiled_in(member, seen))
        return out
    return []


def _annotation_value(fn, annotation):
    """A parameter's annotation, evaluated when it is a dotted name in a string (`from __future__
    import annotations`); None when such a string names nothing."""
    if isinstance(annotation, str) and annotation.replace(".", "").replace("_", "").isalnum():
        try:
            return eval(annotation, dict(fn.__globals__))  # noqa: S307 (a dotted name only)
        except Exception:
            return None
    return annotation


def _annotated_dtype(fn, annotation) -> core.dtype | None:
    """The tl dtype a parameter is annotated with, else None; pointer types and anything else (int,
    torch.Tensor) are ignored."""
    annotation = _annotation_value(fn, annotation)
    if isinstance(annotation, core.dtype) and not annotation.is_ptr():
        return annotation
    return None


def _passed_as(t: core.dtype) -> core.dtype:
    """The type an annotated scalar argument travels in: its own, except 16- and 8-bit floats, which
    go as fp32 and are converted in the kernel (launchers pass fp32 and fp64 floats)."""
    return core.float32 if t.is_floating() and t.primitive_bitwidth < 32 else t


def _constexpr_fields(cls: type) -> set:
    """The indices of a named tuple's fields annotated tl.constexpr (compile-time, as in Triton)."""
    fields = getattr(cls, "_fields", None)
    if not fields:
        return set()
    annotations = getattr(cls, "__annotations__", {})
    return {i for i, f in enumerate(fields) if is_constexpr_annotation(annotations.get(f))}


def _compile_time_only(value) -> bool:
    """A tuple element that can only be a compile-time value: None, a dtype, a @jit function (a
    helper passed along, Triton's closures), a string."""
    return value is None or isinstance(value, core.dtype | JITFunction | str)


def _is_array(value) -> bool:
    """A host or device array (what arrays.describe takes), of a dtype kernels take or not."""
    try:
        return arrays.describe(value) is not None
    except TypeError:  # an array of an unsupported dtype
        return True


def _specialize_value(name, value, no_spec, src):
    if isinstance(value, bool):
        return ("arg", core.int1, {})
    if isinstance(value, numbers.Integral):
        v = int(value)
        if v == 1 and not no_spec:
            return ("const", 1)
        t = core.int32 if -(2**31) <= v < 2**31 else core.int64 if -(2**63) <= v < 2**63 else core.uint64
        if not -(2**63) <= v < 2**64:
            raise OverflowError(
                f"{src.filename}:{src.fndef.lineno}: argument '{name}' = {v} does not fit in 64 bits"
            )
        attrs = {contract.DIVISIBILITY: 16} if v % 16 == 0 and not no_spec else {}
        return ("arg", t, attrs)
    if isinstance(value, numbers.Real):
        return ("arg", core.float32, {})
    try:
        info = arrays.describe(value)
    except TypeError as e:  # an array of a dtype kernels cannot take
        raise TypeError(f"{src.filename}:{src.fndef.lineno}: argument '{name}': {e}") from None
    if info is None:
        raise TypeError(
            f"{src.filename}:{src.fndef.lineno}: argument '{name}' has unsupported type "
            f"{type(value).__name__} (expected an array/tensor, int, float, bool or constexpr)"
        )
    attrs = {contract.DIVISIBILITY: 16} if info.address % 16 == 0 and not no_spec else {}
    return ("arg", core.pointer_type(info.dtype), attrs)


_PLAIN_CONSTANTS = (int, float, bool, str, type(None))

_GRID_LIMIT = 2**31  # program ids are int32


def _plain_grid(grid):
    """(x, 1, 1)-style dims for a tuple of non-negative ints, else None (the general path decides)."""
    if type(grid) is tuple:
        n = len(grid)
        if n == 1:
            g = grid[0]
            if type(g) is int and 0 <= g < _GRID_LIMIT:
                return (g, 1, 1)
        elif n == 2 or n == 3:
            if all(type(g) is int and 0 <= g < _GRID_LIMIT for g in grid):
                return grid if n == 3 else (grid[0], grid[1], 1)
    return None


def _resolve_grid(grid, bound) -> tuple[int, int, int]:
    if callable(grid):
        grid = grid(dict(bound))
    if isinstance(grid, numbers.Integral):
        grid = (grid,)
    try:
        grid = tuple(operator.index(g) for g in grid)  # ints (NumPy's, torch's too), never floats
    except TypeError:
        raise TypeError(f"grid dimensions must be integers, got {grid}") from None
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"grid must have 1 to 3 dimensions, got {grid}")
    if any(g < 0 for g in grid):
        raise ValueError(f"grid dimensions must be >= 0, got {grid}")
    if any(g >= _GRID_LIMIT for g in grid):
        raise ValueError(
            f"grid dimensions must be below 2**31 (tl.program_id and tl.num_programs are int32), got {grid}"
        )
    return grid + (1,) * (3 - len(grid))


def jit(fn=None, *, debug=None, do_not_specialize=(), noinline=False, **_ignored):
    """Decorator: `@tilec.jit` or `@tilec.jit(debug=True)`."""

    def wrap(f):
        return JITFunction(f, debug=debug, do_not_specialize=do_not_specialize, noinline=noinline)

    return wrap(fn) if fn is not None else wrap
