"""CPU runtime: a kernel's shared library loaded with ctypes (no MLIR needed), called with the GIL
released, the grid split across the host's cores."""

from __future__ import annotations

import ctypes
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from time import perf_counter as _clock

import numpy as np

from tilec.errors import InterpreterError
from tilec.targets import arrays

from . import fault_guard, shared_objects

_POOL: ThreadPoolExecutor | None = None
MIN_PROGRAMS_PER_THREAD = 4
# Splitting a launch across threads costs handing the shares to the pool and waking its threads
# (~100 us on a 2-core host: a vector add over 65536 floats took 112 us on two threads, 30 on one).
# A launch whose programs, by the last launch's timing, take less than this in all runs on the
# calling thread alone.
PARALLEL_MIN_SECONDS = 300e-6
# A launch runs its programs in calls of about this long each: Python sees a Ctrl-C between them.
CHUNK_SECONDS = 0.05
# Programs along grid axes 1 and 2, as on CUDA and HIP.
MAX_GRID_YZ = 65535


_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:  # the lock only for the first parallel launch, not on every one
        with _POOL_LOCK:
            if _POOL is None:
                _POOL = ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="tilec-cpu")
    return _POOL


def _ctype(t):
    if t.is_ptr():
        return ctypes.c_int64
    if t.is_floating():
        if t.primitive_bitwidth != 32 and t.primitive_bitwidth != 64:
            raise TypeError(f"scalar arguments of type {t} are not supported on the CPU target")
        return ctypes.c_float if t.primitive_bitwidth == 32 else ctypes.c_double
    return {1: ctypes.c_bool, 8: ctypes.c_int8, 16: ctypes.c_int16, 32: ctypes.c_int32, 64: ctypes.c_int64}[
        t.primitive_bitwidth
    ]


_SUPPORT_LOADED = False


def _load_support_libraries() -> None:
    """Kernel libraries call libm (expf, ...) and libgcc_s (fp16 conversions such as __truncdfhf2):
    load both into the global namespace once, so the kernels' undefined symbols resolve."""
    global _SUPPORT_LOADED
    if _SUPPORT_LOADED:
        return
    import ctypes.util

    for name in ("m", "gcc_s"):
        found = ctypes.util.find_library(name)
        if found:
            try:
                ctypes.CDLL(found, mode=ctypes.RTLD_GLOBAL)
            except OSError:
                pass
    _SUPPORT_LOADED = True


def load_library(image: bytes, path: str | None = None) -> ctypes.CDLL:
    """Loads a kernel library from `path`, or from `image` (shared_objects.py: a private copy)."""
    _load_support_libraries()
    if path is not None:
        return ctypes.CDLL(path)
    return shared_objects.load(image)


def _print_callbacks(records: list[str]) -> dict:
    """Python implementations of `__tilec_print_f/i` (tl.device_print), formatted as the interpreter does."""
    if not records:
        return {}
    parsed = []
    for r in records:
        prefix, hex_, has_value, shape = r.split("\x00")
        dims = [int(d) for d in shape.split(",") if d]
        parsed.append((prefix, hex_ == "1", has_value == "1", dims))

    def emit(ident, px, py, pz, linear, value, is_float):
        prefix, as_hex, has_value, dims = parsed[ident]
        if not has_value:
            print(f"pid ({px}, {py}, {pz}) {prefix}", flush=True)
            return
        idx = tuple(int(i) for i in np.unravel_index(linear, dims)) if dims else ()
        text = hex(value) if as_hex and not is_float else (repr(float(value)) if is_float else str(value))
        print(f"pid ({px}, {py}, {pz}) idx {idx} {prefix}{text}", flush=True)

    i32, i64 = ctypes.c_int32, ctypes.c_int64
    float_cb = ctypes.CFUNCTYPE(None, i32, i32, i32, i32, i64, ctypes.c_double)(
        lambda *a: emit(*a, is_float=True)
    )
    int_cb = ctypes.CFUNCTYPE(None, i32, i32, i32, i32, i64, i64)(lambda *a: emit(*a, is_float=False))
    return {"__tilec_print_f": float_cb, "__tilec_print_i": int_cb}


_GRID_CTYPES = [
    ctypes.c_int64,
    ctypes.c_int64,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int64,
]
HOOK_PREFIX = "__tilec_hook_mlir_ciface_"  # see cpu/compiler.py llvm_ir()


def read_only_message(kernel, index: int) -> str:
    name = kernel.arg_names[index]
    return (
        f"{kernel.name}: argument '{name}' is a read-only array (a broadcast view, a buffer of bytes, a "
        f"read-only memory map...), but the kernel stores through '{name}': pass a writable array "
        "(np.array(x) copies it)"
    )


def check_grid(kernel, grid) -> None:
    """Refuses a grid past the GPU targets' limit along axes 1 and 2 (the CPU's and the interpreter's)."""
    if grid[1] > MAX_GRID_YZ or grid[2] > MAX_GRID_YZ:
        raise ValueError(
            f"{kernel.name}: grid {tuple(grid)}: a grid may have at most {MAX_GRID_YZ} programs along axes "
            "1 and 2 (the GPU targets' limit, kept on the CPU and the interpreter so that a launch that "
            "runs there runs on a GPU)"
        )


class Launcher:
    """Calls the compiled grid function `name(args..., begin, end, gx, gy, gz, status)` of a kernel's
    shared library; ctypes releases the GIL during the call, so calls from several threads run in
    parallel."""

    def __init__(self, kernel, path: str | None = None):
        self.kernel = kernel
        guarded = fault_guard.ensure_loaded()  # before the kernel's library, which links to it
        try:
            self.library = load_library(kernel.asm.get("so") if path is None else None, path)
        except OSError as e:
            # A library tilec built that does not load (an undefined symbol of a runtime library
            # the lowering called) is tilec's fault, not the kernel's: say so instead of ctypes'
            # traceback.
            raise RuntimeError(
                f"tilec: the CPU target's library for kernel '{kernel.name}' does not load ({e}); this is "
                "a bug in tilec's CPU lowering: please report it with the kernel (TILEC_TARGET=interpreter "
                "runs it meanwhile)"
            ) from None
        self._callbacks = _print_callbacks(kernel.metadata.get("prints", []))
        for name, callback in self._callbacks.items():
            try:
                slot = ctypes.c_void_p.in_dll(self.library, HOOK_PREFIX + name)
            except ValueError:  # the kernel prints no value of this kind
                continue
            slot.value = ctypes.cast(callback, ctypes.c_void_p).value
        entry = kernel.name + fault_guard.SUFFIX
        self.fn = getattr(self.library, entry if guarded and hasattr(self.library, entry) else kernel.name)
        self.fn.argtypes = [_ctype(t) for t in kernel.arg_types] + _GRID_CTYPES
        self.fn.restype = None
        self.arg_types = kernel.arg_types
        self.pointers = [i for i, t in enumerate(kernel.arg_types) if t.is_ptr()]
        self.written = set(kernel.metadata.get("written_args", ()))
        self.bounds_checked = bool(kernel.metadata.get("bounds_checked"))
        self._status_type = ctypes.c_int64 * (2 + 2 * len(self.pointers) if self.bounds_checked else 2)
        self.cores = os.cpu_count() or 1
        self.program_seconds: float | None = None  # one program's run time, at the last launch

    def _status_block(self, args):
        """The words the kernel's `status` argument points to: the failed assertion's number (or,
        in the high half, the signal of a memory fault: fault_guard.py), a scratch word (the fault's
        address), and for a bounds-checked kernel (tile-cpu-check-bounds) the [lo, hi) byte range of
        each pointer argument."""
        block = self._status_type()
        if not self.bounds_checked:
            return block
        for j, i in enumerate(self.pointers):
            block[2 + 2 * j], block[3 + 2 * j] = arrays.byte_span(arrays.host_view(args[i]))
        return block

    def _run_programs(self, values, begin, end, tail, status, stop) -> tuple[int, float]:
        """Runs programs [begin, end) in chunks of about CHUNK_SECONDS each, so that Ctrl-C (handled
        between chunks) interrupts a long launch; stops early once a program failed an assertion or
        faulted, or when `stop[0]` is set (another thread's share was interrupted). Returns the
        programs timed and the seconds they took: at the first launch the first program is left
        out when others follow, as it pays the one-time costs (symbol binding, page faults on the
        code) that would make a tiny launch look worth splitting."""
        first_launch = self.program_seconds is None
        size = 1 if first_launch else max(1, int(CHUNK_SECONDS / max(self.program_seconds, 1e-9)))
        lo, timed, seconds = begin, 0, 0.0
        while lo < end:
            hi = min(end, lo + size)
            start = _clock()
            self.fn(*values, lo, hi, *tail)
            elapsed = _clock() - start
            if not (first_launch and lo == begin and hi < end):
                timed += hi - lo
                seconds += elapsed
            lo = hi
            if status[0] or (stop is not None and stop[0]):
                break
            if elapsed < CHUNK_SECONDS / 2:
                size *= 2
        return timed, seconds

    def __call__(self, grid, args):
        values = list(args)
        for i in self.pointers:
            v = values[i]
            if type(v) is np.ndarray:  # the common case, without the generic description
                address = arrays.data_address(v)
                if i in self.written and not v.flags.writeable:
                    raise ValueError(read_only_message(self.kernel, i))
                values[i] = address
                continue
            info = arrays.describe(v)
            if info is None or info.device != "cpu":
                raise TypeError(f"{self.kernel.name}: expected a host array, got {type(v).__name__}")
            values[i] = info.address
        check_grid(self.kernel, grid)
        gx, gy, gz = grid
        total = gx * gy * gz
        if total == 0:
            return
        status = self._status_block(args)
        tail = (gx, gy, gz, ctypes.addressof(status))
        workers = min(self.cores, max(1, total // MIN_PROGRAMS_PER_THREAD))
        if self.program_seconds is not None and self.program_seconds * total < PARALLEL_MIN_SECONDS:
            workers = 1
        if workers == 1:
            timed, seconds = self._run_programs(values, 0, total, tail, status, None)
        else:
            bounds = [total * w // workers for w in range(workers + 1)]
            stop = [False]
            # the pool runs the other shares while this thread runs the first (ctypes releases the GIL)
            futures = [
                _pool().submit(self._run_programs, values, lo, hi, tail, status, stop)
                for lo, hi in zip(bounds[1:-1], bounds[2:])
            ]
            try:
                timed, seconds = self._run_programs(values, 0, bounds[1], tail, status, stop)
                for f in futures:
                    f.result()
            except BaseException:  # Ctrl-C: the other threads stop after the chunk they are running
                stop[0] = True
                for f in futures:
                    while not f.done():
                        try:
                            f.result()
                        except BaseException:  # noqa: BLE001, S110 - a second Ctrl-C while they stop
                            pass
                raise
        if timed:
            self.program_seconds = seconds / timed
        if status[0]:  # the first failed device assertion's number (an int32 in the low half)
            if status[0] >> 32:
                raise InterpreterError(
                    fault_guard.fault_message(self.kernel.name, status[0] >> 32, status[1])
                )

            raise InterpreterError(self.kernel.assert_message(status[0] & 0xFFFFFFFF))
