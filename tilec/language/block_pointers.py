"""Block pointers: `tl.make_block_ptr` / `tl.advance` and `tl.load(p, boundary_check=..., padding_option=...)`
/ `tl.store(p, x, boundary_check=...)`, as in Triton.

A block pointer names the `block_shape` block at `offsets` of a strided array (`base`, `shape`,
`strides`, all in elements). It is a value of its own: it can be reassigned, advanced and carried
through loops (`p = tl.advance(p, (0, BLOCK_K))`), and passed to @jit helpers. Loads and stores
through it become the address arithmetic and masks of a plain masked `tl.load` / `tl.store` (the
same lowering as tensor descriptors), so they run on every target and take every load optimization;
on sm_90a the tiles of an array made of the kernel's own arguments go to the tensor cores by tensor
copies (descriptors.kernel_array).
Only the dimensions listed in `boundary_check` are masked: as in Triton, elements outside `shape` in
an unchecked dimension are undefined behaviour. Checked elements outside read as zero (padding
"zero", the default) or NaN (padding "nan") and are not written. `order` is accepted and checked (a
permutation of the dimensions) but is only a layout hint; tilec chooses layouts itself.
"""

from __future__ import annotations

from . import builtins, core, semantic
from .builtins import builtin
from .core import tensor
from .descriptors import _copyable_load, _scalar_int, kernel_array, tensor_descriptor
from .semantic import SemanticError


class block_pointer:
    """The value of `tl.make_block_ptr` (see the module doc)."""

    def __init__(self, base: tensor, shape: list, strides: list, offsets: list, block_shape: tuple, order):
        self.base, self.shape, self.strides = base, list(shape), list(strides)
        self.offsets, self.block_shape, self.order = (
            list(offsets),
            core.shape_tuple(block_shape),
            tuple(order),
        )

    @property
    def dtype(self) -> core.dtype:
        """The pointer type, as Triton's (`block_ptr.dtype.element_ty` is the element type)."""
        return self.base.dtype

    @property
    def element_ty(self) -> core.dtype:
        return self.base.dtype.element_ty

    @property
    def rank(self) -> int:
        return len(self.block_shape)

    def __repr__(self):
        return f"block_pointer<{self.element_ty}{list(self.block_shape)}>"

    # A block pointer is carried through loops and branches as its parts (see codegen's aggregates):
    # the run-time ones change, the block shape and order must stay the same.
    def _tilec_flatten(self):
        leaves = [self.base, *self.shape, *self.strides, *self.offsets]
        return leaves, ("block_pointer", self.rank, self.block_shape, self.order)

    @staticmethod
    def _tilec_unflatten(structure, leaves):
        _, rank, block_shape, order = structure
        base, rest = leaves[0], leaves[1:]
        return block_pointer(base, rest[:rank], rest[rank : 2 * rank], rest[2 * rank :], block_shape, order)

    def _view(self) -> tensor_descriptor:
        # A descriptor of the same array computes the block's addresses and masks; its offsets are
        # 64-bit (shapes and strides of block pointers may be of any size, as in Triton).
        return tensor_descriptor(self.base, self.shape, self.strides, self.block_shape)

    def load(self, boundary_check, padding_option: str) -> tensor:
        checked = _checked_dims(boundary_check, self.rank, "tl.load")
        padding = padding_option or "zero"
        if padding not in ("zero", "nan"):
            raise SemanticError(f"tl.load: padding_option {padding_option!r} is not 'zero' or 'nan'")
        if padding == "nan" and not self.element_ty.is_floating():
            raise SemanticError(f"tl.load: padding_option 'nan' for a block of {self.element_ty} values")
        ptr, mask = self._view()._block(self.offsets, "load", checked)
        array = kernel_array(self.base, self.shape, self.strides)
        if array is None or padding != "zero":
            if mask is None:
                return builtins.load(ptr)
            return builtins.load(ptr, mask, float("nan") if padding == "nan" else 0)
        # a block of an array made of the kernel's arguments may go by tensor copies (descriptors.py)
        other = (
            None if mask is None else semantic.broadcast_to(semantic.to_tensor(0, self.element_ty), ptr.shape)
        )
        return _copyable_load(array, padding, self.offsets, ptr, mask, other)

    def store(self, value, boundary_check) -> None:
        if isinstance(value, tensor) and value.shape and tuple(value.shape) != self.block_shape:
            raise SemanticError(
                f"tl.store: the value's shape {list(value.shape)} is not the block pointer's block "
                f"shape {list(self.block_shape)}"
            )
        checked = _checked_dims(boundary_check, self.rank, "tl.store")
        ptr, mask = self._view()._block(self.offsets, "store", checked)
        builtins.store(ptr, value, mask)


def _checked_dims(boundary_check, rank: int, what: str) -> set[int] | None:
    dims = boundary_check if isinstance(boundary_check, list | tuple) else (boundary_check,)
    checked = set()
    for d in dims:
        d = builtins.const_int(d, f"{what}: boundary_check")
        if not 0 <= d < rank:
            raise SemanticError(f"{what}: boundary_check dimension {d} of a block pointer of rank {rank}")
        checked.add(d)
    return checked


def _int_list(values, rank: int, what: str, fn: str = "tl.make_block_ptr") -> list:
    if isinstance(values, tensor) or not isinstance(values, list | tuple):
        raise SemanticError(f"{fn}: {what} must be a list of {rank} integers, got {values!r}")
    if len(values) != rank:
        raise SemanticError(
            f"{fn}: {what} has {len(values)} entries for a block of rank {rank}; it needs one per dimension"
        )
    return [_scalar_int(v, f"{fn}: {what}[{d}]") for d, v in enumerate(values)]


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order) -> block_pointer:
    """A pointer to the `block_shape` block at `offsets` of the array at `base` (a scalar pointer) with
    `shape` and `strides` (in elements); `order` (the dimensions from fastest to slowest varying) is a
    layout hint. Load and store through it with `tl.load` / `tl.store`, move it with `tl.advance`."""
    if not isinstance(base, tensor) or not base.dtype.is_ptr() or base.shape:
        raise SemanticError(f"tl.make_block_ptr: base must be a scalar pointer, got {base!r}")
    block = builtins._shape(block_shape, "block_shape")
    rank = len(block)
    shape = _int_list(shape, rank, "shape")
    strides = _int_list(strides, rank, "strides")
    offsets = _int_list(offsets, rank, "offsets")
    order = tuple(builtins.const_int(o, "tl.make_block_ptr: order") for o in order)
    if sorted(order) != list(range(rank)):
        raise SemanticError(f"tl.make_block_ptr: order {list(order)} is not a permutation of 0..{rank - 1}")
    return block_pointer(base, shape, strides, offsets, block, order)


@builtin
def advance(base, offsets) -> block_pointer:
    """The block pointer `base` moved by `offsets` (one integer per dimension, added to its offsets)."""
    if not isinstance(base, block_pointer):
        raise SemanticError(f"tl.advance: expected a block pointer (tl.make_block_ptr), got {base!r}")
    deltas = _int_list(offsets, base.rank, "offsets", "tl.advance")
    moved = [o if isinstance(d, int) and d == 0 else o + d for o, d in zip(base.offsets, deltas)]
    return block_pointer(base.base, base.shape, base.strides, moved, base.block_shape, base.order)
