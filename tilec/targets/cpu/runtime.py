"""CPU runtime: an ExecutionEngine per kernel, called through ctypes (which releases the GIL), with
the grid split across the host's cores."""

from __future__ import annotations

import ctypes
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from mlir import execution_engine, ir

from tilec.python import arrays

_POOL: ThreadPoolExecutor | None = None
MIN_PROGRAMS_PER_THREAD = 4


def _pool() -> ThreadPoolExecutor:
    global _POOL
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


def _support_libraries() -> list[str]:
    """libgcc_s provides the fp16 conversion helpers (__truncdfhf2, ...) that LLVM emits on x86."""
    import ctypes.util

    found = ctypes.util.find_library("gcc_s")
    if found is None:
        return []
    for folder in (
        "/lib/x86_64-linux-gnu",
        "/usr/lib/x86_64-linux-gnu",
        "/lib64",
        "/usr/lib64",
        "/lib",
        "/usr/lib",
    ):
        path = os.path.join(folder, found)
        if os.path.exists(path):
            return [path]
    return []


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


_PACKED = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p))
_GRID_CTYPES = [
    ctypes.c_int64,
    ctypes.c_int64,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int64,
]


class Launcher:
    """Calls the compiled grid function `name(args..., begin, end, gx, gy, gz, status)`.

    The ExecutionEngine exposes every function through a packed wrapper `void(void **args)`; ctypes
    releases the GIL while it runs, so calls from several threads run in parallel.
    """

    def __init__(self, kernel, module: ir.Module):
        self.kernel = kernel
        self.engine = execution_engine.ExecutionEngine(module, opt_level=3, shared_libs=_support_libraries())
        self._callbacks = _print_callbacks(kernel.metadata.get("prints", []))
        for name, callback in self._callbacks.items():
            self.engine.register_runtime(name, callback)
        address = self.engine.raw_lookup(kernel.name)
        if not address:
            from tilec.python.errors import CompilationError

            raise CompilationError(
                kernel.name,
                0,
                0,
                "the CPU code could not be linked (a runtime helper symbol is missing; see stderr)",
            )
        self.packed = _PACKED(address)
        self.arg_ctypes = [_ctype(t) for t in kernel.arg_types] + _GRID_CTYPES
        self.arg_types = kernel.arg_types

    def fn(self, *values):
        boxes = [ct(v) for ct, v in zip(self.arg_ctypes, values)]
        pointers = (ctypes.c_void_p * len(boxes))(
            *[ctypes.cast(ctypes.pointer(b), ctypes.c_void_p) for b in boxes]
        )
        self.packed(pointers)

    def __call__(self, grid, args):
        values = []
        for t, v in zip(self.arg_types, args):
            if t.is_ptr():
                info = arrays.describe(v)
                if info is None or info.device != "cpu":
                    raise TypeError(f"{self.kernel.name}: expected a host array, got {type(v).__name__}")
                values.append(info.address)
            else:
                values.append(v)
        status = np.zeros(1, np.int32)
        total = grid[0] * grid[1] * grid[2]
        if total == 0:
            return
        tail = (grid[0], grid[1], grid[2], status.ctypes.data)
        workers = min(os.cpu_count() or 1, max(1, total // MIN_PROGRAMS_PER_THREAD))
        if workers == 1:
            self.fn(*values, 0, total, *tail)
        else:
            bounds = np.linspace(0, total, workers + 1).astype(np.int64)
            futures = [
                _pool().submit(self.fn, *values, int(lo), int(hi), *tail)
                for lo, hi in zip(bounds[:-1], bounds[1:])
            ]
            for f in futures:
                f.result()
        if status[0]:
            from tilec.python.errors import InterpreterError

            raise InterpreterError(self.kernel.assert_message(int(status[0])))
