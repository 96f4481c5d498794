"""Tensor maps for a launch: the 128-byte CUtensorMap of each tensor-map parameter (passes/tma.py),
encoded by the driver's cuTensorMapEncodeTiled from the kernel's arguments (the descriptor's base
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


class _Encoder:
    def __init__(self):
        lib = ctypes.CDLL("libcuda.so.1")
        self.encode = lib.cuTensorMapEncodeTiled
        u32, u64p, u32p = ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint32)
        self.encode.argtypes = [
            ctypes.c_void_p, ctypes.c_int, u32, ctypes.c_void_p, u64p, u64p, u32p, u32p,
            ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
        ]  # fmt: skip
        self.encode.restype = ctypes.c_int


_ENCODER: list = []


def _encoder() -> _Encoder:
    if not _ENCODER:
        _ENCODER.append(_Encoder())
    return _ENCODER[0]


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
        """The map: columns innermost (`band` a box), then each row factor [stride, extent or
        "blocks" (rows // stride), box extent]."""
        element = spec["element"]
        size = {"i8": 1, "f16": 2, "bf16": 2, "f32": 4}[element]
        factors = spec["row_factors"]
        rank = 1 + len(factors)
        out = (ctypes.c_ubyte * MAP_BYTES)()
        # an empty dimension is encoded as 1: no copy reaches it (the kernel has no block there)
        extents = [max(1, cols)] + [max(1, rows // s if e == "blocks" else e) for s, e, _ in factors]
        global_dim = (ctypes.c_uint64 * rank)(*extents)
        global_strides = (ctypes.c_uint64 * (rank - 1))(*[row_stride * s * size for s, _, _ in factors])
        box = (ctypes.c_uint32 * rank)(spec["band"], *[b for _, _, b in factors])
        element_strides = (ctypes.c_uint32 * rank)(*[1] * rank)
        err = _encoder().encode(
            ctypes.addressof(out), _DATA_TYPES[element], rank, address, global_dim, global_strides, box,
            element_strides, _INTERLEAVE_NONE, _SWIZZLES[spec["swizzle"]], _L2_PROMOTION_256B, _OOB_FILL_ZERO,
        )  # fmt: skip
        if err != _SUCCESS:
            raise ValueError(
                f"{self.name}: a tensor map of descriptor '{spec['descriptor']}' (address {address:#x}, "
                f"shape [{rows}, {cols}], row stride {row_stride}, dims {extents}, box {list(box)}) "
                f"could not be encoded: CUresult {err}"
            )
        return out


def _value(part, args) -> int:
    kind, value = part
    return int(args[value]) if kind == "arg" else int(value)
