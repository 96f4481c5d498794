"""Joining, splitting and reordering blocks: `tl.join`, `tl.split`, `tl.interleave`, `tl.cat`,
`tl.flip`, `tl.sort` (and `tl.bitonic_merge`), `tl.gather`, plus `tl.histogram`, `tl.swizzle2d` and
`tl.assume`, as in Triton (tl.flip is a tl.gather at the mirrored index).

They are built from the tile dialect's elementwise selects, reductions and reshapes rather than ops
of their own, so every target (CPU, interpreter, NVIDIA, AMD) runs them with the lowering it already
has. Picking one element out of a pair goes through the integer bits of the values (a sum of the
chosen value and zeros), so every value, -0.0 and NaN payloads included, comes out exactly.
tl.gather, tl.histogram and tl.sort are ops of their own (tile.gather, tile.histogram, tile.sort):
as selections they took src.shape[axis] times the index's elements and num_bins times the input's,
and the sorting network's log2(n)-dimensional views compiled for minutes on the CPU (GPUs still get
that network: tile-expand-sort builds it with bitonic_network below).
"""

from __future__ import annotations

from tilec._lazy import lazy_module

from . import builtins, core, reductions, semantic
from .builtins import builtin
from .core import tensor
from .semantic import SemanticError

tile = lazy_module("tilec.dialects.tile")  # (importing tilec must not load MLIR)


def _bits_type(t: core.dtype) -> core.dtype:
    """The integer type holding a value's bits."""
    width = 8 if t.is_bool() else t.primitive_bitwidth
    return {8: core.int8, 16: core.int16, 32: core.int32, 64: core.int64}[width]


def _to_bits(x: tensor) -> tensor:
    t = _bits_type(x.dtype)
    if x.dtype.is_bool():
        return semantic.cast(x, t)
    return x if x.dtype.is_int() else semantic.cast(x, t, bitcast=True)


def _from_bits(bits: tensor, t: core.dtype) -> tensor:
    if t.is_bool():
        return semantic.cast(bits, t)
    return semantic.cast(bits, t) if t.is_int() else semantic.cast(bits, t, bitcast=True)


def _index_along(shape: tuple, axis: int) -> tensor:
    """arange(0, shape[axis]) shaped to broadcast along `axis` of a tensor of `shape`."""
    index = builtins.arange(0, shape[axis])
    for _ in range(axis):
        index = semantic.expand_dims(index, 0)
    for _ in range(len(shape) - 1 - axis):
        index = semantic.expand_dims(index, len(index.shape))
    return index


def _take(x: tensor, axis: int, position: int) -> tensor:
    """x's elements at `position` along `axis` (that axis kept, of size 1), exactly."""
    bits = _to_bits(x)
    chosen = semantic.where(
        semantic.compare("eq", _index_along(x.shape, axis), position), bits, semantic.constant(0, bits.dtype)
    )
    picked = reductions.reduce_tensors([chosen], axis, lambda a, b: semantic.add(a[0], b[0]), keep_dims=True)[
        0
    ]
    return _from_bits(picked, x.dtype)


@builtin
def join(a, b) -> tensor:
    """`a` and `b` (broadcast to one shape and type) stacked along a new last dimension of size 2."""
    a, b = semantic.to_tensor(a), semantic.to_tensor(b)
    if a.dtype != b.dtype:
        if a.dtype.is_ptr() or b.dtype.is_ptr():
            raise SemanticError(f"tl.join: operands of types {a.dtype} and {b.dtype}")
        a, b, _ = semantic._operands(a, b)
    shape = semantic.broadcast_shapes(a.shape, b.shape)
    a, b = semantic.broadcast_to(a, shape), semantic.broadcast_to(b, shape)
    a, b = semantic.expand_dims(a, len(shape)), semantic.expand_dims(b, len(shape))
    pair = (*shape, 2)
    first = semantic.compare("eq", _index_along(pair, len(shape)), 0)
    return semantic.where(first, semantic.broadcast_to(a, pair), semantic.broadcast_to(b, pair))


@builtin
def split(a) -> tuple[tensor, tensor]:
    """The two halves of `a` along its last dimension, which must have size 2 (the inverse of join)."""
    a = semantic.to_tensor(a)
    if not a.shape or a.shape[-1] != 2:
        raise SemanticError(f"tl.split: the last dimension must have size 2, got shape {list(a.shape)}")
    axis = len(a.shape) - 1
    halves = []
    for position in (0, 1):
        taken = _take(a, axis, position)
        halves.append(builtins.reshape(taken, a.shape[:-1]) if a.shape[:-1] else _scalar(taken))
    return halves[0], halves[1]


def _scalar(x: tensor) -> tensor:
    return reductions.reduce_tensors([builtins.reshape(x, (1,))], 0, lambda a, b: a[0])[0]


@builtin
def interleave(a, b) -> tensor:
    """The elements of `a` and `b` alternating along their last dimension (its size doubles); two
    scalars give the pair `[a, b]`, as in Triton."""
    joined = join(a, b)
    if len(joined.shape) < 2:
        return joined
    return builtins.reshape(joined, (*joined.shape[:-2], 2 * joined.shape[-2]))


@builtin
def cat(input, other, can_reorder=False, dim=0) -> tensor:
    """`input` followed by `other` along dimension `dim` (the first by default; both of one shape).
    The order is kept (Triton allows reordering with `can_reorder=True`; keeping it satisfies both)."""
    a, b = semantic.to_tensor(input), semantic.to_tensor(other)
    if not a.shape or a.shape != b.shape:
        raise SemanticError(
            f"tl.cat: the blocks must have one shape, got {list(a.shape)} and {list(b.shape)}"
        )
    rank = len(a.shape)
    dim = builtins.normalize_axis(builtins.const_int(dim, "tl.cat: dim"), rank)
    joined = join(a, b)  # [n0, ..., n_{r-1}, 2]
    order = (*range(dim), rank, *range(dim, rank))  # the pair axis just before `dim`
    paired = builtins.permute(joined, order)
    shape = list(a.shape)
    shape[dim] *= 2
    return builtins.reshape(paired, tuple(shape))


@builtin
def flip(x, dim=None) -> tensor:
    """`x` reversed along `dim` (the last dimension when None; its size a power of two): a tl.gather at
    the mirrored index (on GPUs one trip through shared memory)."""
    x = semantic.to_tensor(x)
    if not x.shape:
        raise SemanticError("tl.flip: cannot flip a scalar")
    rank = len(x.shape)
    dim = rank - 1 if dim is None else builtins.normalize_axis(builtins.const_int(dim, "tl.flip: dim"), rank)
    n = x.shape[dim]
    if n & (n - 1):
        raise SemanticError(f"tl.flip: the flipped dimension must be a power of two, got {n}")
    # one tile.gather at the mirrored index (the CPU target compiled the old network of log2(n)
    # half-swaps over log2(n)-dimensional views in 7.8 s for 512-element rows)
    mirrored = semantic.sub(n - 1, _index_along(x.shape, dim))
    return gather(x, semantic.broadcast_to(mirrored, x.shape), dim)


def _sorted_dimension(x, dim, what: str) -> tuple[tensor, int, int]:
    """(x as a tensor, the dimension normalized, log2 of its size) for tl.sort and friends."""
    x = semantic.to_tensor(x)
    if not x.shape:
        raise SemanticError(f"{what}: cannot sort a scalar")
    rank = len(x.shape)
    dim = rank - 1 if dim is None else builtins.normalize_axis(builtins.const_int(dim, f"{what}: dim"), rank)
    n = x.shape[dim]
    if n & (n - 1):
        raise SemanticError(f"{what}: the sorted dimension must be a power of two, got {n}")
    return x, dim, n.bit_length() - 1


def _greater(a: tensor, b: tensor) -> tensor:
    """a > b in the order tl.sort uses: NaN after every number (and equal to NaN)."""
    greater = semantic.compare("gt", a, b)
    if not a.dtype.is_floating():
        return greater
    nan_over_number = semantic.logical_and(semantic.compare("ne", a, a), semantic.compare("eq", b, b))
    return semantic.logical_or(greater, nan_over_number)


def bitonic_network(x: tensor, dim: int, first_stage: int, descending: bool) -> tensor:
    """Stages `first_stage`..log2(n) of the bitonic sorting network along `dim` (of size n, a power of
    two), built from elementwise ops, selections and reshapes: the GPUs' lowering of tile.sort
    (tile-expand-sort; its last stage alone for tl.bitonic_merge). The dimension is viewed as log2(n) axes of
    size 2; each compare-and-swap step pairs the elements that differ in one index bit. Stage s orders
    blocks of 2^s, ascending where index bit s is 0 (the last stage: all of them, in the requested
    order), which needs blocks of 2^(s-1) sorted in alternating directions. Elements swap only when
    strictly out of order (NaN after every number), the rule every target's tile.sort follows."""
    bits = x.shape[dim].bit_length() - 1
    if not bits:
        return x
    # axis dim + j holds index bit (bits - 1 - j)
    # (splitting dimension `dim` in row-major order keeps every other element where it was)
    y = builtins.reshape(x, (*x.shape[:dim], *([2] * bits), *x.shape[dim + 1 :]))

    def axis_of(bit):
        return dim + bits - 1 - bit

    for stage in range(first_stage, bits + 1):
        if stage < bits:  # blocks whose index bit `stage` is 1 go the other way
            reversed_block = semantic.compare("eq", _index_along(y.shape, axis_of(stage)), 1)
        for bit in range(stage - 1, -1, -1):
            axis = axis_of(bit)
            low, high = _take(y, axis, 0), _take(y, axis, 1)
            rising, falling = _greater(low, high), _greater(high, low)
            out_of_order = rising if not descending else falling
            if stage < bits:
                out_of_order = semantic.where(
                    reversed_block,
                    semantic.broadcast_to(falling if not descending else rising, y.shape),
                    semantic.broadcast_to(out_of_order, y.shape),
                )
            first = semantic.compare("eq", _index_along(y.shape, axis), 0)
            smaller = semantic.where(
                out_of_order, semantic.broadcast_to(high, y.shape), semantic.broadcast_to(low, y.shape)
            )
            larger = semantic.where(
                out_of_order, semantic.broadcast_to(low, y.shape), semantic.broadcast_to(high, y.shape)
            )
            y = semantic.where(first, smaller, larger)
    return builtins.reshape(y, x.shape)


def _sortable(x: tensor) -> tuple[tensor, core.dtype | None]:
    """(x in a type tile.sort takes, the type to convert back to or None): booleans sort as uint8, fp8
    as float32 (both exact both ways)."""
    if x.dtype.is_bool():
        return semantic.cast(x, core.uint8), x.dtype
    if x.dtype.is_floating() and x.dtype.primitive_bitwidth == 8:
        return semantic.cast(x, core.float32), x.dtype
    return x, None


def _sort_op(x: tensor, dim: int, descending, merge: bool) -> tensor:
    keys, original = _sortable(x)
    unsigned = keys.dtype.is_int() and not keys.dtype.is_int_signed()
    ordered = tensor(
        tile.sort(keys.handle, dim, descending=bool(descending), unsigned=unsigned, merge=merge),
        keys.dtype,
        keys.shape,
    )
    return semantic.cast(ordered, original) if original is not None else ordered


@builtin
def sort(x, dim=None, descending=False) -> tensor:
    """`x` sorted along `dim` (the last dimension when None; its size a power of two), ascending
    unless `descending`. One tile.sort: a bitonic sorting network (on the CPU a loop over its
    compare-and-swap steps). NaNs go after every number (last ascending, first descending; Triton
    leaves them where the comparisons happen to put them)."""
    x, dim, bits = _sorted_dimension(x, dim, "tl.sort")
    return _sort_op(x, dim, descending, merge=False) if bits else x


@builtin
def bitonic_merge(x, dim=None, descending=False) -> tensor:
    """The last stage of tl.sort's network along `dim` (the last dimension when None; a power of
    two): sorts `x` where it is bitonic along `dim` (rises then falls, or falls then rises, such as
    an ascending half followed by a descending one); other inputs come out permuted, not sorted.
    A tile.sort with `merge`."""
    x, dim, bits = _sorted_dimension(x, dim, "tl.bitonic_merge")
    return _sort_op(x, dim, descending, merge=True) if bits else x


@builtin
def topk(x, k, dim=None, descending=True) -> tensor:
    """The `k` largest elements of `x` along `dim` (the last dimension when None), in descending
    order; with descending=False the k smallest, in ascending order (newer Triton's argument); `k`
    and the dimension's size are powers of two. A tl.sort, then its first k elements."""
    x = semantic.to_tensor(x)
    if not x.shape:
        raise SemanticError("tl.topk: a scalar has no elements to choose from")
    k = builtins.const_int(k, "tl.topk: k")
    rank = len(x.shape)
    dim = rank - 1 if dim is None else builtins.normalize_axis(builtins.const_int(dim, "tl.topk: dim"), rank)
    n = x.shape[dim]
    if k < 1 or k & (k - 1) or k > n:
        raise SemanticError(f"tl.topk: k must be a power of two from 1 to {n}, got {k}")
    ordered = sort(x, dim=dim, descending=descending)
    if k == n:
        return ordered
    before, after = x.shape[:dim], x.shape[dim + 1 :]
    rows = builtins.reshape(ordered, (*before, n // k, k, *after))
    return builtins.reshape(_take(rows, dim, 0), (*before, k, *after))


@builtin
def gather(src, index, axis) -> tensor:
    """out[..., j, ...] = src[..., index[..., j, ...], ...] along `axis`: index has src's rank and its
    shape except along `axis`; the result has index's shape; an index outside src gives 0 (Triton
    leaves it undefined). One tile.gather: on GPUs src goes through shared memory once and each
    element is read back where its index says."""
    src, index = semantic.to_tensor(src), semantic.to_tensor(index)
    rank = len(src.shape)
    if not rank or len(index.shape) != rank:
        raise SemanticError(
            f"tl.gather: src and index must have one rank, got shapes {list(src.shape)} and {list(index.shape)}"
        )
    if not index.dtype.is_int():
        raise SemanticError(f"tl.gather: index must be integers, got {index.dtype}")
    axis = builtins.normalize_axis(builtins.const_int(axis, "tl.gather: axis"), rank)
    for d in range(rank):
        if d != axis and src.shape[d] != index.shape[d]:
            raise SemanticError(
                f"tl.gather: index's shape {list(index.shape)} differs from src's {list(src.shape)} in "
                f"dimension {d}, which is not the gathered axis {axis}"
            )
    # tile.gather picks integer bits (so every type, fp8 and -0.0 included, comes out exactly) by an
    # i32 or i64 index (narrower and unsigned ones widened: their values stay)
    wide = index.dtype.primitive_bitwidth == 64 or (
        index.dtype.is_int_unsigned() and index.dtype.primitive_bitwidth == 32
    )
    index = semantic.cast(index, core.int64 if wide else core.int32)
    bits = _to_bits(src)
    picked = tensor(tile.gather(bits.handle, index.handle, axis), bits.dtype, tuple(index.shape))
    return _from_bits(picked, src.dtype)


@builtin
def histogram(input, num_bins, mask=None) -> tensor:
    """int32 counts of the values 0 .. num_bins - 1 in the 1-D integer block `input` (values outside
    that range, and lanes where `mask` is false, are not counted)."""
    x = semantic.to_tensor(input)
    bins = builtins.const_int(num_bins, "tl.histogram: num_bins")
    if len(x.shape) != 1 or not x.dtype.is_int():
        raise SemanticError(f"tl.histogram: expected a 1-D block of integers, got {x!r}")
    if bins < 1 or bins & (bins - 1):
        raise SemanticError(f"tl.histogram: num_bins must be a power of two, got {bins}")
    # tile.histogram reads signed values: unsigned ones (and booleans) widen first, keeping theirs
    if x.dtype.is_bool() or (x.dtype.is_int_unsigned() and x.dtype.primitive_bitwidth < 64):
        x = semantic.cast(x, core.int32 if x.dtype.primitive_bitwidth < 32 else core.int64)
    keep = None
    if mask is not None:
        keep = semantic.broadcast_to(semantic.cast(semantic.to_tensor(mask), core.int1), x.shape).handle
    return tensor(tile.histogram(x.handle, bins, keep), core.int32, (bins,))


@builtin
def swizzle2d(i, j, size_i, size_j, size_g):
    """Maps the row-major index (i, j) of a size_i x size_j grid to the grid walked in column-major
    order within groups of `size_g` rows (Triton's grouped program ordering, for L2 reuse)."""
    linear = i * size_j + j
    group_size = size_g * size_j
    first_row = (linear // group_size) * size_g
    left = size_i - first_row
    rows = (
        builtins.minimum(left, size_g)
        if isinstance(left, tensor) or isinstance(size_g, tensor)
        else min(left, size_g)
    )
    within = linear % group_size
    return first_row + within % rows, within // rows


@builtin
def assume(cond) -> None:
    """A fact the compiler may rely on (a hint): tilec checks that it is a boolean and otherwise
    ignores it."""
    cond = semantic.to_tensor(cond)
    if not (cond.dtype.is_bool() or cond.dtype.is_int()):
        raise SemanticError(f"tl.assume expects a condition, got a {cond.dtype} value")
