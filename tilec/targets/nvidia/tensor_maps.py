"""Tensor maps for a launch: the 128-byte CUtensorMap of each tensor-map parameter (targets/nvidia/lowering/tma.py),
encoded by cuTensorMapEncodeTiled (through cuda-python) from the kernel's arguments (the descriptor's base
address, shape and row stride) and cached by what they are made of, so a repeated launch copies
bytes it already has.
"""

from __future__ import annotations

import ctypes

MAP_BYTES = 128

# CUtensorMapDataType of each element type (cuda.h)
_DATA_TYPES = {"i8": 0, "f16": 6, "f32": 7, "bf16": 9}
_SWIZZLES = {32: 1, 64: 2, 128: 3}  # CU_TENSOR_MAP_SWIZZLE_32B / 64B / 128B
_INTERLEAVE_NONE, _L2_PROMOTION_256B, _OOB_FILL_ZERO = 0, 3, 0
_SUCCESS = 0
_CACHE_LIMIT = 4096
_MAX_DIM, _MAX_STRIDE = 2**32, 2**40  # cuTensorMapEncodeTiled's limits (bytes for the stride)


class TensorMapRefused(ValueError):
    """The driver cannot encode a tensor map from this launch's arguments. `made_in_kernel`: the
    map is of an array the kernel makes of its arguments (dialects.kernel_arrays), whose loads read
    the same without tensor copies; a descriptor argument's map is the user's to fix."""

    def __init__(self, message: str, made_in_kernel: bool):
        super().__init__(message)
        self.made_in_kernel = made_in_kernel


def encode_tiled(data_type: int, address: int, dims: list, strides: list, box: list, swizzle: int):
    """cuTensorMapEncodeTiled through cuda-python: (CUresult as int, the map's 128 bytes)."""
    from .runtime import cu

    u64, u32 = cu.cuuint64_t, cu.cuuint32_t
    rank = len(dims)
    err, tensor_map = cu.cuTensorMapEncodeTiled(
        cu.CUtensorMapDataType(data_type), u32(rank), address, [u64(d) for d in dims],
        [u64(s) for s in strides], [u32(b) for b in box], [u32(1)] * rank,
        cu.CUtensorMapInterleave(_INTERLEAVE_NONE), cu.CUtensorMapSwizzle(swizzle),
        cu.CUtensorMapL2promotion(_L2_PROMOTION_256B), cu.CUtensorMapFloatOOBfill(_OOB_FILL_ZERO),
    )  # fmt: skip
    if int(err) != _SUCCESS:
        return int(err), None
    return _SUCCESS, ctypes.string_at(tensor_map.getPtr(), MAP_BYTES)


class TensorMaps:
    """Fills the kernel's tensor-map parameter slots from the launch arguments."""

    def __init__(self, kernel_name: str, specs: list, slots: list):
        self.name = kernel_name
        self.specs = specs
        self.slots = slots  # (ctypes.c_ubyte * 128) each
        self.cache: dict = {}

    def fill(self, address_of, args) -> None:
        """address_of(i): the device address of pointer argument i; args: the launch's arguments."""
        for spec, slot in zip(self.specs, self.slots):
            address = address_of(spec["base"])
            rows, cols = _value(spec["rows"], args), _value(spec["cols"], args)
            row_stride = _value(spec["row_stride"], args)
            key = (id(spec), address, rows, cols, row_stride)
            encoded = self.cache.get(key)
            if encoded is None:
                if len(self.cache) >= _CACHE_LIMIT:
                    self.cache.clear()
                encoded = self.cache[key] = self._encode(spec, address, rows, cols, row_stride)
            ctypes.memmove(slot, encoded, MAP_BYTES)

    def _encode(self, spec: dict, address: int, rows: int, cols: int, row_stride: int):
        """The 2-D map: columns innermost, boxes of `band` columns by `box_rows` rows."""
        element = spec["element"]
        size = {"i8": 1, "f16": 2, "bf16": 2, "f32": 4}[element]
        # an empty dimension is encoded as 1: no copy reaches it (the kernel has no block there)
        extents = [max(1, cols), max(1, rows)]
        strides = [row_stride * size]  # bytes, of every dimension but the first
        box = [spec["band"], spec["box_rows"]]
        within = all(d <= _MAX_DIM for d in extents) and all(0 <= s < _MAX_STRIDE for s in strides)
        if within:  # (out of these limits cuda-python would not even pass them: OverflowError)
            err, encoded = encode_tiled(
                _DATA_TYPES[element], address, extents, strides, box, _SWIZZLES[spec["swizzle"]]
            )
        else:
            err = "its dims or row stride are outside what a tensor map can hold"
        if err != _SUCCESS:
            from tilec.dialects import kernel_arrays  # text only: no MLIR at launch

            raise TensorMapRefused(
                f"{self.name}: a tensor map of {_what(spec)} (address {address:#x}, "
                f"shape [{rows}, {cols}], row stride {row_stride}, dims {extents}, box {box}) "
                f"could not be encoded: " + (f"CUresult {err}" if isinstance(err, int) else err),
                kernel_arrays.is_array(spec["descriptor"]),
            )
        return encoded


def _what(spec: dict) -> str:
    """The descriptor argument's name, or the array made in the kernel (dialects.kernel_arrays)."""
    from tilec.dialects import kernel_arrays  # text only: no MLIR at launch

    name = spec["descriptor"]
    if kernel_arrays.is_array(name):
        return f"the {name} made in the kernel"
    return f"descriptor '{name}'"


def _value(part, args) -> int:
    """A part of a map's spec: ["arg", index], ["const", value], or {"op": "add" | "mul" | "div",
    "bits", "args"} computed as the kernel does (wrapping to a signed `bits`-bit integer; div
    rounds toward zero, as arith.divsi)."""
    if isinstance(part, dict):
        a, b = (_value(p, args) for p in part["args"])
        if part["op"] == "div":
            if b == 0:
                raise ValueError("a tensor map's extent divides by zero")
            value = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        else:
            value = a + b if part["op"] == "add" else a * b
        half = 1 << (part["bits"] - 1)
        return (value + half) % (2 * half) - half
    kind, value = part
    return int(args[value]) if kind == "arg" else int(value)
