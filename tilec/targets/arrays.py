"""What tilec needs to know about an array argument, from NumPy, torch, CuPy or the CUDA array interface."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tilec.language import core


@dataclass(frozen=True)
class ArrayInfo:
    dtype: core.dtype
    address: int
    device: str  # "cpu" or "cuda"
    device_index: int = 0


_TORCH_DTYPES: dict = {}  # torch.dtype -> core.dtype, filled on first sight


def _data_field_reader():
    """A reader of an ndarray's data pointer that skips `__array_interface__` (which builds a dict:
    ~2 us an array, twice per launch, most of a CPU launch's overhead): the pointer is the first field
    of NumPy's PyArrayObject after the object header. The layout is checked here, once, on arrays
    with and without an offset; where it does not hold (another header size, a future NumPy) the
    interface is used."""
    import ctypes

    read = ctypes.c_void_p.from_address
    offset = object.__basicsize__  # the object header: refcount and type (more on some builds)

    def fast(array: np.ndarray) -> int:
        return read(id(array) + offset).value or 0

    def slow(array: np.ndarray) -> int:
        return array.__array_interface__["data"][0]

    try:
        probes = [np.zeros(8, np.float32), np.arange(24, dtype=np.int16).reshape(4, 6)[1:, 2:]]
        if all(fast(a) == slow(a) != 0 for a in probes):
            return fast
    except (ValueError, OverflowError, TypeError):
        pass
    return slow


data_address = _data_field_reader()  # ndarray -> the address of its first element


def _torch_dtype(t) -> core.dtype:
    known = _TORCH_DTYPES.get(t.dtype)
    if known is not None:
        return known
    name = str(t.dtype).replace("torch.", "")
    table = {
        "bool": core.int1,
        "int8": core.int8,
        "int16": core.int16,
        "int32": core.int32,
        "int64": core.int64,
        "uint8": core.uint8,
        "uint16": core.uint16,
        "uint32": core.uint32,
        "uint64": core.uint64,
        "float16": core.float16,
        "bfloat16": core.bfloat16,
        "float32": core.float32,
        "float64": core.float64,
        "float8_e4m3fn": core.float8e4nv,
        "float8_e5m2": core.float8e5,
        "float8_e4m3fnuz": core.float8e4b8,
        "float8_e5m2fnuz": core.float8e5b16,
    }
    if name not in table:
        raise TypeError(f"torch tensors of dtype {name} are not supported by tilec kernels")
    _TORCH_DTYPES[t.dtype] = table[name]
    return table[name]


def describe(value) -> ArrayInfo | None:
    """ArrayInfo for an array-like argument, or None when `value` is not one."""
    if isinstance(value, np.generic):
        return None  # a NumPy scalar (it has an __array_interface__ too) is a scalar argument
    if isinstance(value, np.ndarray):
        return ArrayInfo(core.dtype_from_numpy(value.dtype), data_address(value), "cpu")
    module = type(value).__module__
    if module.startswith("torch") and hasattr(value, "data_ptr"):
        if value.is_cuda:
            return ArrayInfo(_torch_dtype(value), value.data_ptr(), "cuda", value.get_device())
        device = value.device
        return ArrayInfo(_torch_dtype(value), value.data_ptr(), device.type, device.index or 0)
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is not None:
        dev = getattr(getattr(value, "device", None), "id", 0) or 0
        return ArrayInfo(core.dtype_from_numpy(np.dtype(cai["typestr"])), cai["data"][0], "cuda", dev)
    ai = getattr(value, "__array_interface__", None)
    if ai is not None:
        return ArrayInfo(core.dtype_from_numpy(np.dtype(ai["typestr"])), ai["data"][0], "cpu")
    return None


def byte_span(array: np.ndarray) -> tuple[int, int]:
    """[start, end) of the bytes a NumPy array spans, its strides (negative ones too) included."""
    return _span(array.__array_interface__["data"][0], array.shape, array.strides, array.itemsize)


def device_byte_span(value) -> tuple[int, int]:
    """[start, end) of the bytes a GPU array spans: a torch tensor, or any object with
    `__cuda_array_interface__` (CuPy, Numba, ...), strides included."""
    if hasattr(value, "data_ptr") and hasattr(value, "element_size"):  # torch
        size = value.element_size()
        return _span(value.data_ptr(), value.shape, [s * size for s in value.stride()], size)
    interface = value.__cuda_array_interface__
    shape, size = interface["shape"], np.dtype(interface["typestr"]).itemsize
    strides = interface.get("strides")
    if strides is None:  # C-contiguous
        strides, step = [], size
        for n in reversed(shape):
            strides.insert(0, step)
            step *= n
    return _span(interface["data"][0], shape, strides, size)


def _span(address: int, shape, strides, itemsize: int) -> tuple[int, int]:
    if any(n == 0 for n in shape):
        return address, address
    lo = hi = 0
    for n, stride in zip(shape, strides):
        if stride >= 0:
            hi += (n - 1) * stride
        else:
            lo += (n - 1) * stride
    return address + lo, address + hi + itemsize


def host_view(value) -> np.ndarray:
    """A NumPy array sharing memory with a host array argument (torch CPU tensors included)."""
    if isinstance(value, np.ndarray):
        return value
    if type(value).__module__.startswith("torch"):
        if value.device.type != "cpu":
            raise TypeError(f"expected a CPU tensor, got one on {value.device}")
        if str(value.dtype) == "torch.bfloat16":
            return value.view(__import__("torch").int16).numpy().view(core.bfloat16.to_numpy())
        if str(value.dtype).startswith("torch.float8_"):
            return value.view(__import__("torch").uint8).numpy().view(_torch_dtype(value).to_numpy())
        return value.numpy()
    return np.asarray(value)
