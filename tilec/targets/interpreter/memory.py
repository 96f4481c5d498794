"""NumPy types of tile IR types, and the interpreter's memory: the arrays a launch passes, every
access checked against them.
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from tilec.dialects import tile
from tilec.errors import InterpreterError
from tilec.language import core
from tilec.targets import arrays

_NP = {
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "f16": np.dtype(np.float16),
    "bf16": core.bfloat16.to_numpy(),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "f8E4M3FN": core.float8e4nv.to_numpy(),
    "f8E5M2": core.float8e5.to_numpy(),
    "f8E4M3FNUZ": core.float8e4b8.to_numpy(),
    "f8E5M2FNUZ": core.float8e5b16.to_numpy(),
}


_FP8 = {_NP[name] for name in ("f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ")}


UNSIGNED_OF_WIDTH = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64, 1: np.bool_}


def np_dtype(t: ir.Type) -> np.dtype:
    e = str(tile.element_of(t))
    if e.startswith("!tile.ptr"):
        return np.dtype(np.int64)
    if e not in _NP:
        raise InterpreterError(f"the interpreter does not support element type {e}")
    return _NP[e]


def bit_width(t: ir.Type) -> int:
    return np_dtype(t).itemsize * 8 if str(tile.element_of(t)) != "i1" else 1


def as_unsigned(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.bool_:
        return a
    return a.view(UNSIGNED_OF_WIDTH[a.dtype.itemsize * 8])


def as_array(v) -> np.ndarray:
    return v if isinstance(v, np.ndarray) else np.asarray(v)


def cast_to(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """x in `dtype`; to fp8 as the compiled code rounds: to nearest even, saturating at the largest
    finite value (NaN stays NaN), like NVIDIA's cvt.rn.satfinite."""
    if dtype not in _FP8:
        return x.astype(dtype, copy=False)
    import ml_dtypes

    top = float(ml_dtypes.finfo(dtype).max)
    return np.clip(x.astype(np.float32), -top, top).astype(dtype)


def widened(x: np.ndarray) -> np.ndarray:
    """fp8 values as fp32 (fp8 arithmetic is computed in fp32 and rounded back), others as they are."""
    return x.astype(np.float32) if x.dtype in _FP8 else x


def _process_mappings() -> list[tuple[int, int, bool, bool]]:
    """(start, end, readable, writable) of every memory mapping of this process, from Linux's
    /proc/self/maps ([] where there is none)."""
    try:
        with open("/proc/self/maps") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        span, perms = line.split()[:2]
        lo, hi = (int(x, 16) for x in span.split("-"))
        found.append((lo, hi, perms[0] == "r", perms[1] == "w"))
    return found


class Memory:
    """The host buffers a launch may touch, as byte views at their real addresses: the arrays passed
    to the kernel and, once the kernel makes pointers from integers (a table of addresses, as
    Triton's grouped GEMM reads), the process's memory mappings those addresses fall in (`adopt`)."""

    def __init__(self):
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.views: list[np.ndarray] = []
        # mappings adopted for pointers made from integers: (start, end, byte view, writable)
        self.mappings: list[tuple[int, int, np.ndarray, bool]] = []

    def add(self, array: np.ndarray) -> int:
        """Registers the memory an array spans (strides included); returns its data address."""
        address = array.__array_interface__["data"][0]
        if array.size == 0:
            return address
        start, end = arrays.byte_span(array)
        base = array
        while isinstance(base.base, np.ndarray):
            base = base.base
        raw = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_uint8 * (end - start)).from_address(start))
        order = np.searchsorted(self.starts, start)
        self.starts.insert(order, start)
        self.ends.insert(order, end)
        self.views.insert(order, raw)
        return address

    def adopt(self, addresses: np.ndarray) -> None:
        """Makes the memory mappings of this process that hold `addresses` (pointers a kernel made
        from integers) readable by the launch, and writable where the mapping is. Addresses in no
        readable mapping (0, garbage) stay unknown: an access through them fails with an error, not
        a crash. Linux only (/proc/self/maps); elsewhere such pointers must point into arrays passed
        to the kernel."""
        for address in np.unique(np.asarray(addresses, dtype=np.int64)):
            address = int(address)
            if any(lo <= address < hi for lo, hi, _, _ in self.mappings):
                continue
            for lo, hi, readable, writable in _process_mappings():
                if lo <= address < hi and readable:
                    raw = (np.ctypeslib.ctypes.c_uint8 * (hi - lo)).from_address(lo)
                    self.mappings.append((lo, hi, np.ctypeslib.as_array(raw), writable))
                    break

    def _locate(self, addresses: np.ndarray, size: int, what: str):
        """Per address, the region it lies in: an index into `views`, or len(views) + j for mapping j."""
        starts = np.asarray(self.starts, dtype=np.int64)
        ends = np.asarray(self.ends, dtype=np.int64)
        which = np.searchsorted(starts, addresses, side="right") - 1
        ok = (
            (which >= 0) & (addresses + size <= ends[np.maximum(which, 0)])
            if len(starts)
            else np.zeros_like(addresses, bool)
        )
        for j, (lo, hi, _, writable) in enumerate(self.mappings):
            inside = ~ok & (addresses >= lo) & (addresses + size <= hi)
            if inside.any() and what == "store" and not writable:
                bad = int(addresses[inside].flat[0])
                raise InterpreterError(
                    f"store of {size} byte(s) at address {bad:#x}: the memory is read-only"
                )
            which = np.where(inside, len(self.views) + j, which)
            ok = ok | inside
        if not np.all(ok):
            bad = int(addresses[~ok].flat[0])
            raise InterpreterError(
                f"out-of-bounds {what} of {size} byte(s) at address {bad:#x}: not inside any array passed "
                "to the kernel (is a mask missing? pointers made from integers must point into memory "
                "this process holds)"
            )
        return which

    def _region(self, index: int) -> tuple[int, np.ndarray]:
        """(start address, byte view) of region `index` as _locate numbers them."""
        if index < len(self.views):
            return self.starts[index], self.views[index]
        lo, _, view, _ = self.mappings[index - len(self.views)]
        return lo, view

    def read(self, addresses: np.ndarray, dtype: np.dtype) -> np.ndarray:
        addresses = addresses.astype(np.int64, copy=False)
        out = np.empty(addresses.shape, dtype=dtype)
        if addresses.size == 0:
            return out
        which = self._locate(addresses, dtype.itemsize, "load")
        flat_a, flat_w, flat_o = addresses.ravel(), which.ravel(), out.reshape(-1)
        offsets = np.arange(dtype.itemsize)
        for b in np.unique(flat_w):
            sel = flat_w == b
            start, view = self._region(int(b))
            rel = flat_a[sel] - start
            raw = view[rel[:, None] + offsets]
            flat_o[sel] = np.ascontiguousarray(raw).view(dtype).reshape(-1)
        return out

    def write(self, addresses: np.ndarray, values: np.ndarray) -> None:
        addresses = addresses.astype(np.int64, copy=False).ravel()
        if addresses.size == 0:
            return
        values = np.ascontiguousarray(values).reshape(-1)
        size = values.dtype.itemsize
        which = self._locate(addresses, size, "store")
        offsets = np.arange(size)
        raw_values = values.view(np.uint8).reshape(-1, size)
        for b in np.unique(which):
            sel = which == b
            start, view = self._region(int(b))
            rel = addresses[sel] - start
            view[rel[:, None] + offsets] = raw_values[sel]
