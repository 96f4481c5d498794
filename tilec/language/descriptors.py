"""Tensor descriptors in kernels: `desc.load([i, j])` / `desc.store([i, j], value)` on a block of a
strided array, as Triton's `tl.tensor_descriptor`.

A descriptor comes as a kernel argument (`tilec.TensorDescriptor` on the host) or from
`tl.make_tensor_descriptor(base, shape, strides, block_shape)` in the kernel. A load reads the
`block_shape` block whose first element sits at the given coordinates; elements outside `shape`
(beyond its end or at negative coordinates) read as zero (padding "nan": NaN) and are not written by a
store. Both become the address arithmetic and bound masks of a plain masked tl.load / tl.store, so they
run on every target and take every load optimization (vector widths from the strides' alignment,
cp.async streaming into the tensor cores' shared memory). On sm_90a the tiles a descriptor *argument*
feeds to a `tl.dot` accumulating across a loop are copied by the tensor copy engine (TMA) instead,
from tensor maps the launcher encodes from the descriptor; so are those of a 2-D descriptor (or block
pointer) the kernel makes of its own arguments, when every launch of the specialization can have
such a map (kernel_array).
"""

from __future__ import annotations

import numbers

from tilec._lazy import lazy_module

from . import builtins, core, semantic
from .builtins import builtin
from .core import tensor
from .semantic import SemanticError

tile = lazy_module("tilec.dialects.tile")

MAX_RANK = 5  # as the hardware's tensor copies


class tensor_descriptor:
    """A block view of a strided array (see the module doc)."""

    def __init__(
        self, base: tensor, shape: list, strides: list, block_shape: tuple, padding: str = "zero",
        argument: str | None = None, wide_offsets: bool = True,
    ):  # fmt: skip
        self.base, self.shape, self.strides = base, list(shape), list(strides)
        self.block_shape, self.padding = core.shape_tuple(block_shape), padding  # == a list too, as Triton
        # the kernel argument it came as, or kernel_array's spec of one made of the kernel's arguments
        self.argument = argument
        # element offsets computed in 64 bits: an argument's launch says whether it needs them; one
        # made in the kernel may be of any size
        self.wide_offsets = wide_offsets

    @property
    def dtype(self) -> core.dtype:
        return self.base.dtype.element_ty

    @property
    def rank(self) -> int:
        return len(self.block_shape)

    def __repr__(self):
        return f"tensor_descriptor<{self.dtype}{list(self.block_shape)}>"

    # Carried through run-time loops and branches as its parts (codegen's aggregates): a descriptor
    # made again in a loop or an if (Triton's batched GEMM picks a batch's descriptors that way).
    # One that went through a merge is an in-kernel descriptor (address arithmetic, no TMA).
    def _tilec_flatten(self):
        leaves = [self.base, *self.shape, *self.strides]
        return leaves, ("tensor_descriptor", self.rank, self.block_shape, self.padding, self.wide_offsets)

    @staticmethod
    def _tilec_unflatten(structure, leaves):
        _, rank, block_shape, padding, wide = structure
        base, shape, strides = leaves[0], leaves[1 : 1 + rank], leaves[1 + rank : 1 + 2 * rank]
        return tensor_descriptor(base, shape, strides, block_shape, padding, wide_offsets=wide)

    @builtin
    def load(self, offsets) -> tensor:
        """The block at `offsets` (one coordinate per dimension); outside `shape`: the padding value."""
        ptr, mask = self._block(offsets, "load")
        other = semantic.broadcast_to(
            semantic.cast(
                semantic.to_tensor(float("nan") if self.padding == "nan" else 0, self.dtype), self.dtype
            ),
            ptr.shape,
        )
        return _copyable_load(self.argument, self.padding, offsets, ptr, mask, other)

    @builtin
    def store(self, offsets, value) -> None:
        """Writes `value` (a block of block_shape, or a scalar) at `offsets`; elements outside `shape`
        are left alone."""
        if isinstance(value, tensor) and value.shape and tuple(value.shape) != self.block_shape:
            raise SemanticError(
                f"descriptor store: the value's shape {list(value.shape)} is not the block shape "
                f"{list(self.block_shape)}"
            )
        ptr, mask = self._block(offsets, "store")
        builtins.store(ptr, value, mask)

    @builtin
    def gather(self, x_offsets, y_offset) -> tensor:
        """Rows `x_offsets` (a 1-D integer tensor) of a 2-D descriptor whose block is [1, N], columns
        `y_offset` to `y_offset + N`: a [len(x_offsets), N] block; outside `shape`: the padding value."""
        ptr, mask = self._rows(x_offsets, y_offset, "gather")
        other = builtins.full(ptr.shape, float("nan") if self.padding == "nan" else 0, self.dtype)
        return builtins.load(ptr, mask, other)

    @builtin
    def scatter(self, value, x_offsets, y_offset) -> None:
        """Writes the [len(x_offsets), N] block `value` to rows `x_offsets`, columns `y_offset` to
        `y_offset + N` (the inverse of `gather`); elements outside `shape` are left alone."""
        ptr, mask = self._rows(x_offsets, y_offset, "scatter")
        builtins.store(ptr, value, mask)

    def _reduce(self, offsets, value, kind: str) -> None:
        ptr, mask = self._block(offsets, f"atomic_{kind}")
        getattr(builtins, f"atomic_{kind}")(ptr, value, mask=mask)

    @builtin
    def atomic_add(self, offsets, value) -> None:
        """Atomically adds the block `value` at `offsets` (elements outside `shape` untouched)."""
        self._reduce(offsets, value, "add")

    @builtin
    def atomic_min(self, offsets, value) -> None:
        """Atomic element-wise minimum of the block at `offsets` with `value`."""
        self._reduce(offsets, value, "min")

    @builtin
    def atomic_max(self, offsets, value) -> None:
        """Atomic element-wise maximum of the block at `offsets` with `value`."""
        self._reduce(offsets, value, "max")

    @builtin
    def atomic_and(self, offsets, value) -> None:
        """Atomic bitwise and of the block at `offsets` with `value`."""
        self._reduce(offsets, value, "and")

    @builtin
    def atomic_or(self, offsets, value) -> None:
        """Atomic bitwise or of the block at `offsets` with `value`."""
        self._reduce(offsets, value, "or")

    @builtin
    def atomic_xor(self, offsets, value) -> None:
        """Atomic bitwise xor of the block at `offsets` with `value`."""
        self._reduce(offsets, value, "xor")

    def _rows(self, x_offsets, y_offset, what: str):
        """Pointers and in-bounds mask for gather/scatter: rows x_offsets, a block row's columns."""
        if self.rank != 2 or self.block_shape[0] != 1:
            raise SemanticError(
                f"descriptor {what}: needs a 2-D descriptor with block shape [1, N], got "
                f"{list(self.block_shape)}"
            )
        rows = semantic.to_tensor(x_offsets)
        if len(rows.shape) != 1 or not rows.dtype.is_int():
            raise SemanticError(
                f"descriptor {what}: x_offsets must be a 1-D integer tensor, got {rows.dtype} of shape "
                f"{list(rows.shape)}"
            )
        y = _scalar_int(y_offset, f"descriptor {what}: y_offset")
        cols = builtins.arange(0, self.block_shape[1])
        if not _is_zero(y):
            cols = cols + y
        rows, cols = semantic.expand_dims(rows, 1), semantic.expand_dims(cols, 0)
        if self.wide_offsets:
            rows = semantic.cast(rows, core.int64)
        ptr = self.base + rows * self.strides[0]
        ptr = ptr + (cols if _is_one(self.strides[1]) else cols * self.strides[1])
        mask = (rows >= 0) & (rows < self.shape[0]) & (cols < self.shape[1])
        if not _never_negative(y):
            mask = mask & (cols >= 0)
        shape = (rows.shape[0], cols.shape[1])
        return semantic.broadcast_to(ptr, shape), semantic.broadcast_to(mask, shape)

    def _block(self, offsets, what: str, checked=None):
        """Pointers to the block at `offsets` and the mask of its elements inside `shape` (only along
        the dimensions in `checked`, when given: a block pointer's boundary_check; None when no
        dimension is checked)."""
        if isinstance(offsets, tensor) or not isinstance(offsets, list | tuple):
            raise SemanticError(
                f"descriptor {what}: offsets must be a list of {self.rank} scalars, got {offsets!r}"
            )
        if len(offsets) != self.rank:
            raise SemanticError(
                f"descriptor {what}: {len(offsets)} offsets for a descriptor of rank {self.rank} "
                f"(block shape {list(self.block_shape)})"
            )
        # The block's first element as one scalar pointer, then the same offsets of its elements
        # every time: in a loop the scalar part is all that changes (a few scalar multiplies per
        # iteration; the per-element offsets and index ranges are loop-invariant), where
        # (offset + i) * stride per element cost 64-bit multiplies in every iteration (sm_90a
        # block-pointer matmul by cp.async: 0.76 of cuBLAS against 0.95 for pointer arithmetic).
        offsets = [_scalar_int(o, f"descriptor {what}: offset {d}") for d, o in enumerate(offsets)]
        ptr, mask = self.base, None
        for offset, stride in zip(offsets, self.strides):
            if _is_zero(offset):
                continue
            if self.wide_offsets and not isinstance(offset, int):
                offset = semantic.cast(offset, core.int64)
            ptr = ptr + (offset if _is_one(stride) else offset * stride)
        for d, (offset, size) in enumerate(zip(offsets, self.block_shape)):
            index = builtins.arange(0, size)
            for _ in range(d):
                index = semantic.expand_dims(index, 0)
            for _ in range(self.rank - 1 - d):
                index = semantic.expand_dims(index, len(index.shape))
            stride = self.strides[d]
            step = semantic.cast(index, core.int64) if self.wide_offsets and not _is_one(stride) else index
            ptr = ptr + (step if _is_one(stride) else step * stride)
            if checked is not None and d not in checked:
                continue
            # the mask tests offset + i itself: alignment analysis sees from it that whole runs of
            # elements are in or out (an i < shape - offset bound hides that and loses the vectors)
            position = step if _is_zero(offset) else offset + step
            inside = position < self.shape[d]
            if not _never_negative(offset):
                inside = inside & (position >= 0)
            mask = inside if mask is None else mask & inside
        return ptr, mask


def _copyable_load(descriptor: str | None, padding: str, offsets, ptr: tensor, mask, other) -> tensor:
    """The load of a descriptor's block. The block of a descriptor the launcher can make a tensor map
    of (`descriptor`: an argument's name, or kernel_array's spec) also carries its coordinates: a
    target with tensor copy hardware (sm_90a) may copy it through that map instead. Not with NaN
    padding: the copies fill zeros past the edges."""
    coords = []
    if descriptor is not None and padding == "zero":
        coords = [semantic.cast(semantic.to_tensor(o), core.int32).handle for o in offsets]
    handle = tile.load(
        ptr.handle,
        mask.handle if mask is not None else None,
        other.handle if mask is not None else None,
        coords=coords,
        descriptor=descriptor if coords else None,
    )
    return tensor(handle, ptr.dtype.element_ty, ptr.shape)


def kernel_array(base: tensor, shape: list, strides: list) -> str | None:
    """The tensor-map spec of a 2-D array made in the kernel from the kernel's own arguments, when
    the launcher can encode one for every launch of this specialization (None otherwise): `base` a
    pointer argument known 16-byte aligned, rows contiguous (strides[1] == 1), the row stride a
    multiple of 16 bytes (an argument divisible by 16, or such a constant), each shape computed
    from arguments and constants by + and * (Triton's attention tutorial: Z * H * N_CTX rows), as the
    text of dialects.kernel_arrays: "array base=a_ptr rows=M cols=K row_stride=stride_am"."""
    if len(shape) != 2 or not _is_one(strides[1]) or not _has_tensor_copies():
        return None
    base_name = _kernel_argument(base, aligned=True)
    size = base.dtype.element_ty.primitive_bitwidth // 8
    if base_name is None or size not in (1, 2, 4):
        return None
    row_stride = strides[0]
    if isinstance(row_stride, int):
        if row_stride <= 0 or row_stride * size % 16:
            return None
    else:
        row_stride = _kernel_argument(row_stride, aligned=True)
    parts = [_argument_expression(s.handle) if isinstance(s, tensor) else s for s in shape]
    if row_stride is None or None in parts:
        return None
    from tilec.dialects.kernel_arrays import format_array

    return format_array({"base": base_name, "rows": parts[0], "cols": parts[1], "row_stride": row_stride})


def _has_tensor_copies() -> bool:
    # elsewhere the spec would only keep the load from the CPU's mask versioning (which leaves
    # descriptor blocks alone)
    target = builtins.state.compile_target
    return target is not None and target.backend == "cuda" and target.arch >= 90


def _argument_expression(handle):
    """A scalar integer as a part of kernel_array's spec (None: not made of arguments and
    constants by +, -, * and /, within a few steps)."""
    from tilec.dialects.kernel_arguments import argument_expression

    return argument_expression(handle)


def _kernel_argument(value: tensor, aligned: bool = False) -> str | None:
    """The name of the kernel argument `value` is (divisible by 16, for `aligned`), else None."""
    from tilec.dialects.kernel_arguments import argument_name

    return argument_name(value.handle, aligned)


def _scalar_int(value, what: str):
    if isinstance(value, tensor):
        if value.shape or not value.dtype.is_int():
            raise SemanticError(
                f"{what} must be an integer scalar, got a {value.dtype} tensor of shape {list(value.shape)}"
            )
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    raise SemanticError(f"{what} must be an integer, got {value!r}")


def _is_zero(value) -> bool:
    return isinstance(value, int) and value == 0


def _is_one(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value == 1


def _never_negative(offset) -> bool:
    """A constant offset that is not negative (a run-time one may be: such elements read padding)."""
    return isinstance(offset, int) and offset >= 0


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero") -> tensor_descriptor:
    """A descriptor of the array at `base` (a pointer) with `shape` and `strides` (in elements; scalars
    or constants), read and written in blocks of `block_shape` (constants, powers of two)."""
    if not isinstance(base, tensor) or not base.dtype.is_ptr() or base.shape:
        raise SemanticError(f"tl.make_tensor_descriptor: base must be a scalar pointer, got {base!r}")
    block = builtins._shape(block_shape, "block_shape")
    shape, strides = list(shape), list(strides)
    if not 1 <= len(block) <= MAX_RANK:
        raise SemanticError(
            f"tl.make_tensor_descriptor: rank {len(block)}; descriptors have 1 to {MAX_RANK} dimensions"
        )
    if len(shape) != len(block) or len(strides) != len(block):
        raise SemanticError(
            f"tl.make_tensor_descriptor: {len(shape)} dimensions in shape, {len(strides)} strides and "
            f"{len(block)} in block_shape; all three need one per dimension"
        )
    shape = [_scalar_int(s, f"tl.make_tensor_descriptor: shape[{d}]") for d, s in enumerate(shape)]
    strides = [_scalar_int(s, f"tl.make_tensor_descriptor: strides[{d}]") for d, s in enumerate(strides)]
    if padding_option not in ("zero", "nan"):
        raise SemanticError(
            f"tl.make_tensor_descriptor: padding_option {padding_option!r} is not 'zero' or 'nan'"
        )
    if padding_option == "nan" and not base.dtype.element_ty.is_floating():
        raise SemanticError(f"tl.make_tensor_descriptor: padding 'nan' for {base.dtype.element_ty} values")
    argument = kernel_array(base, shape, strides)
    return tensor_descriptor(base, shape, strides, block, padding_option, argument=argument)


@builtin
def load_tensor_descriptor(desc: tensor_descriptor, offsets) -> tensor:
    """`desc.load(offsets)` as a free function (Triton's `tl.load_tensor_descriptor`)."""
    if not isinstance(desc, tensor_descriptor):
        raise SemanticError(f"tl.load_tensor_descriptor: expected a tensor descriptor, got {desc!r}")
    return desc.load(offsets)


@builtin
def store_tensor_descriptor(desc: tensor_descriptor, offsets, value) -> None:
    """`desc.store(offsets, value)` as a free function (Triton's `tl.store_tensor_descriptor`)."""
    if not isinstance(desc, tensor_descriptor):
        raise SemanticError(f"tl.store_tensor_descriptor: expected a tensor descriptor, got {desc!r}")
    return desc.store(offsets, value)


def part_names(name: str, rank: int) -> list:
    """The names a descriptor argument's parts go by among a kernel's arguments (its flattening)."""
    return [
        f"{name}.base",
        *(f"{name}.shape[{d}]" for d in range(rank)),
        *(f"{name}.strides[{d}]" for d in range(rank - 1)),
    ]
