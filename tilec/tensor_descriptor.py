"""Tensor descriptors on the host: `TensorDescriptor(base, shape, strides, block_shape)`, as Triton's
`triton.tools.tensor_descriptor.TensorDescriptor`, passed to a kernel as one argument.

    desc = tilec.TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
    kernel[grid](desc, ...)        # in the kernel: tile = desc.load([m0, k0])

A kernel receives a descriptor as its parts: the base address, every dimension of `shape` and every
stride but the last (which must be 1, as for the hardware's tensor copies), each specialized like a
plain argument of its own (divisibility by 16, the value 1); `block_shape` and `padding` are compiled
in. Any object with the attributes `base`, `shape`, `strides` and `block_shape` is taken, Triton's
class included.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilec.targets import arrays

PADDINGS = ("zero", "nan")


@dataclass
class TensorDescriptor:
    base: object  # the array the block is read from or written to
    shape: list
    strides: list  # in elements
    block_shape: list
    padding: str = "zero"

    @staticmethod
    def from_tensor(tensor, block_shape, padding: str = "zero") -> TensorDescriptor:
        """A descriptor of a whole array (NumPy, torch, CuPy), with its own shape and strides."""
        return TensorDescriptor(
            tensor, list(tensor.shape), element_strides(tensor), list(block_shape), padding
        )


def element_strides(array) -> list:
    stride = getattr(array, "stride", None)
    if callable(stride):  # torch: in elements
        return list(stride())
    itemsize = array.itemsize if hasattr(array, "itemsize") else array.dtype.itemsize
    return [s // itemsize for s in array.strides]  # NumPy, CuPy: in bytes


def is_descriptor(value) -> bool:
    return all(hasattr(value, name) for name in ("base", "shape", "strides", "block_shape")) and not hasattr(
        value, "__array_interface__"
    )


def parts(value) -> list:
    """The run-time arguments a descriptor is passed as: base, shape..., strides but the last."""
    return [value.base, *value.shape, *list(value.strides)[:-1]]


def part(value, field: str):
    """One part of a descriptor by its field in descriptors.part_names: "base", "shape[d]" or "strides[d]"."""
    if field == "base":
        return value.base
    what, _, index = field.partition("[")
    return getattr(value, what)[int(index[:-1])]


def check(name: str, value, where: str):
    """(element dtype, block shape, padding, wide offsets) of a descriptor argument; a clear error when the
    descriptor cannot be used (rank, strides, alignment, block shape)."""
    shape, strides, block = list(value.shape), list(value.strides), list(value.block_shape)
    padding = getattr(value, "padding", "zero")
    rank = len(shape)
    if not 1 <= rank <= 5:
        raise TypeError(
            f"{where}: descriptor '{name}' has rank {rank}; tensor descriptors have 1 to 5 dimensions"
        )
    if len(strides) != rank or len(block) != rank:
        raise TypeError(
            f"{where}: descriptor '{name}' has shape {shape}, strides {strides} and block_shape {block}: "
            "all three need one entry per dimension"
        )
    info = arrays.describe(value.base)
    if info is None:
        raise TypeError(
            f"{where}: descriptor '{name}' has a base of type {type(value.base).__name__}, not an array"
        )
    for what, values in (("shape", shape), ("strides", strides), ("block_shape", block)):
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise TypeError(
                f"{where}: descriptor '{name}' has a {what} {values} that is not made of integers"
            )
    if any(d < 0 for d in shape):
        raise ValueError(f"{where}: descriptor '{name}' has a negative dimension in shape {shape}")
    if any(b <= 0 or b & (b - 1) for b in block):
        raise ValueError(
            f"{where}: descriptor '{name}' has block_shape {block}: every dimension must be a power of two"
        )
    if strides[-1] != 1:
        raise ValueError(f"{where}: descriptor '{name}' has strides {strides}: the last stride must be 1")
    size = info.dtype.primitive_bitwidth // 8
    if any(s * size % 16 for s in strides[:-1]):
        raise ValueError(
            f"{where}: descriptor '{name}' has strides {strides} ({info.dtype}): every stride but the last "
            "must be a multiple of 16 bytes"
        )
    if info.address % 16:
        raise ValueError(
            f"{where}: descriptor '{name}' has a base address {info.address} that is not 16-byte aligned"
        )
    if padding not in PADDINGS:
        raise ValueError(
            f"{where}: descriptor '{name}' has padding {padding!r}; it must be one of {PADDINGS}"
        )
    if padding == "nan" and not info.dtype.is_floating():
        raise ValueError(f"{where}: descriptor '{name}' pads with nan but holds {info.dtype}")
    return info.dtype, tuple(block), padding, wide_offsets(shape, strides)


def wide_offsets(shape, strides) -> bool:
    """Offsets past 2**31 - 1 elements need 64-bit address arithmetic where the blocks go through
    pointers (the tensor copies take coordinates and are unaffected)."""
    return sum((d - 1) * s for d, s in zip(shape, strides) if d > 0) >= 2**31


def valid_strides(value) -> bool:
    """The launch fast path's share of check(): last stride 1, the others multiples of 16 bytes."""
    strides = list(value.strides)
    if not strides or strides[-1] != 1:
        return False
    base = value.base
    size = base.element_size() if hasattr(base, "element_size") else getattr(base, "itemsize", 0)
    return bool(size) and all(isinstance(s, int) and s * size % 16 == 0 for s in strides[:-1])
