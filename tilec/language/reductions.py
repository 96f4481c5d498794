"""tl.reduce, tl.sum/max/min/argmax/..., tl.associative_scan, tl.cumsum/cumprod, tl.softmax and
tl.map_elementwise: combine functions as regions.
"""

from __future__ import annotations

import builtins as _py

from . import core, semantic
from .builtins import arange, as_dtype, builtin, const_int, exp, fdiv, normalize_axis, reshape, state, tile
from .core import dtype, tensor
from .semantic import SemanticError, to_tensor

# ----------------------------------------------------------------------------------------------
# Reductions and scans
# ----------------------------------------------------------------------------------------------


def _combine_region(inputs: list[tensor], combine):
    """A builder for a reduce/scan region: runs `combine` on scalar tensors of the element types."""

    def build(args):
        n = len(inputs)
        lhs = [tensor(a, x.dtype) for a, x in zip(args[:n], inputs)]
        rhs = [tensor(a, x.dtype) for a, x in zip(args[n:], inputs)]
        out = combine(lhs, rhs)
        out = list(out) if isinstance(out, tuple | list) else [out]
        if len(out) != n:
            raise SemanticError(f"the combine function must return {n} value(s), got {len(out)}")
        result = []
        for v, x in zip(out, inputs):
            v = semantic.cast(to_tensor(v, x.dtype), x.dtype)
            if v.shape:
                raise SemanticError("the combine function must return scalars")
            result.append(v.handle)
        return result

    return build


def reduce_tensors(inputs: list[tensor], axis, combine, keep_dims=False) -> list[tensor]:
    """Reduces `inputs` along `axis` (all axes when None) with `combine(lhs_list, rhs_list)`."""
    if not inputs[0].shape:
        raise SemanticError("cannot reduce a scalar")
    if axis is None:
        flat = [reshape(x, x.numel) for x in inputs]
        out = reduce_tensors(flat, 0, combine)
        if keep_dims:
            out = [reshape(o, (1,) * len(inputs[0].shape)) for o in out]
        return out
    axis = normalize_axis(axis, len(inputs[0].shape))
    if len(inputs) > tile.MAX_SLOTS:
        raise SemanticError(f"a reduction takes at most {tile.MAX_SLOTS} tensors, got {len(inputs)}")
    shape = inputs[0].shape
    for x in inputs:
        if x.shape != shape:
            raise SemanticError(f"reduced tensors must share one shape: {list(x.shape)} vs {list(shape)}")
    handles = tile.reduce([x.handle for x in inputs], axis, _combine_region(inputs, combine))
    out_shape = shape[:axis] + shape[axis + 1 :]
    out = [tensor(h, x.dtype, out_shape) for h, x in zip(handles, inputs)]
    if keep_dims:
        out = [semantic.expand_dims(o, axis) for o in out]
    return out


def _sum_dtype(t: dtype) -> dtype:
    """Triton's _pick_sum_dtype: integers below 32 bits sum as int32, unsigned ones (and booleans,
    unsigned in Triton) as uint32."""
    if t.is_int() and t.primitive_bitwidth < 32:
        return core.uint32 if t.is_int_unsigned() or t.is_bool() else core.int32
    return t


@builtin
def sum(input, axis=None, keep_dims=False, dtype=None) -> tensor:
    """The sum along `axis` (all elements when None); integers below 32 bits are summed as int32."""
    x = to_tensor(input)
    target = as_dtype(dtype) if dtype is not None else _sum_dtype(x.dtype)
    x = semantic.cast(x, target)
    return reduce_tensors([x], axis, lambda a, b: semantic.add(a[0], b[0]), keep_dims)[0]


def _max_combine(a, b):
    return semantic.maximum(a[0], b[0])


def _min_combine(a, b):
    return semantic.minimum(a[0], b[0])


def _arg_combine(greater: bool, floating: bool):
    """Combines (value, index) pairs into the better one, as Triton's argmax: NaNs are skipped (any
    number beats a NaN; of two NaNs the later index wins, the answer for a row of NaNs), equal values
    keep the lower index. That is a total order, so the result does not depend on how the reduction
    is split, and a masked-off lane (`other=-inf`) never wins over a real number."""

    def combine(a, b):
        va, ia = a
        vb, ib = b
        better = semantic.compare("gt" if greater else "lt", va, vb)
        tie = semantic.logical_and(semantic.compare("eq", va, vb), semantic.compare("lt", ia, ib))
        pick_a = semantic.logical_or(better, tie)
        if floating:
            a_nan, b_nan = semantic.compare("ne", va, va), semantic.compare("ne", vb, vb)
            only_b_nan = semantic.logical_and(b_nan, semantic.compare("eq", va, va))
            both_later = semantic.logical_and(
                semantic.logical_and(a_nan, b_nan), semantic.compare("gt", ia, ib)
            )
            pick_a = semantic.logical_or(pick_a, semantic.logical_or(only_b_nan, both_later))
        return semantic.where(pick_a, va, vb), semantic.where(pick_a, ia, ib)

    return combine


def _with_indices(x: tensor, axis, keep_dims, greater):
    if axis is None:
        x = reshape(x, x.numel)
        axis = 0
    axis = normalize_axis(axis, len(x.shape))
    idx = arange(0, x.shape[axis])
    for _ in range(axis):
        idx = semantic.expand_dims(idx, 0)
    for _ in range(len(x.shape) - axis - 1):
        idx = semantic.expand_dims(idx, len(idx.shape))
    idx = semantic.broadcast_to(idx, x.shape)
    return reduce_tensors([x, idx], axis, _arg_combine(greater, x.dtype.is_floating()), keep_dims)


def _minmax_input(x: tensor, values_only: bool) -> tensor:
    """Triton's types for tl.max / tl.min: bf16 compares as fp32; without indices, values narrower
    than 32 bits are reduced as fp32 or int32 (so `tl.max(x_int8) + 100` does not wrap)."""
    t = x.dtype
    if t.is_bf16() or values_only and t.primitive_bitwidth < 32 and t.is_floating():
        return semantic.cast(x, core.float32)
    if values_only and t.primitive_bitwidth < 32 and t.is_int():
        return semantic.cast(x, core.int32)
    return x


@builtin
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    """The maximum along `axis`; with `return_indices=True` also its index (the first one on ties).
    As in Triton, values narrower than 32 bits come back as fp32 / int32 (bf16 as fp32 also with
    indices)."""
    x = _minmax_input(to_tensor(input), not return_indices)
    if return_indices:
        v, i = _with_indices(x, axis, keep_dims, greater=True)
        return v, i
    return reduce_tensors([x], axis, _max_combine, keep_dims)[0]


@builtin
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    """The minimum along `axis`; with `return_indices=True` also its index (the first one on ties).
    Result types as tl.max's."""
    x = _minmax_input(to_tensor(input), not return_indices)
    if return_indices:
        v, i = _with_indices(x, axis, keep_dims, greater=False)
        return v, i
    return reduce_tensors([x], axis, _min_combine, keep_dims)[0]


@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False) -> tensor:
    """The index of the maximum along `axis` (the first one on ties)."""
    return _with_indices(to_tensor(input), axis, keep_dims, greater=True)[1]


@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False) -> tensor:
    """The index of the minimum along `axis` (the first one on ties)."""
    return _with_indices(to_tensor(input), axis, keep_dims, greater=False)[1]


@builtin
def xor_sum(input, axis=None, keep_dims=False) -> tensor:
    """The bitwise xor of the elements along `axis`."""
    x = to_tensor(input)
    return reduce_tensors([x], axis, lambda a, b: semantic.xor_(a[0], b[0]), keep_dims)[0]


@builtin
def reduce_or(input, axis=None, keep_dims=False) -> tensor:
    """The bitwise or of the integer elements along `axis` (all of them when None)."""
    x = to_tensor(input)
    if not x.dtype.is_int():
        raise SemanticError(f"tl.reduce_or needs integer elements, got {x.dtype}")
    return reduce_tensors([x], axis, lambda a, b: semantic.or_(a[0], b[0]), keep_dims)[0]


@builtin
def logical_and(x, y) -> tensor:
    """Element-wise `x and y` of truth values (nonzero is true); an int1 tensor."""
    return semantic.logical_and(x, y)


@builtin
def logical_or(x, y) -> tensor:
    """Element-wise `x or y` of truth values (nonzero is true); an int1 tensor."""
    return semantic.logical_or(x, y)


def scan_tensors(inputs: list[tensor], axis, combine, reverse=False) -> list[tensor]:
    """Inclusive scans of `inputs` along `axis` with `combine(lhs_list, rhs_list)`."""
    if not inputs[0].shape:
        raise SemanticError("cannot scan a scalar")
    axis = normalize_axis(axis, len(inputs[0].shape))
    if len(inputs) > tile.MAX_SLOTS:
        raise SemanticError(f"a scan takes at most {tile.MAX_SLOTS} tensors, got {len(inputs)}")
    handles = tile.scan([x.handle for x in inputs], axis, _combine_region(inputs, combine), reverse=reverse)
    return [tensor(h, x.dtype, x.shape) for h, x in zip(handles, inputs)]


@builtin
def cumsum(input, axis=0, reverse=False, dtype=None) -> tensor:
    """The inclusive prefix sum along `axis` (`reverse=True` scans from the end); integers below 32
    bits are summed as int32 / uint32 and bf16 as fp32, as in Triton."""
    x = to_tensor(input)
    default = core.float32 if x.dtype.is_bf16() else _sum_dtype(x.dtype)
    x = semantic.cast(x, as_dtype(dtype) if dtype is not None else default)
    return scan_tensors([x], axis, lambda a, b: semantic.add(a[0], b[0]), reverse)[0]


@builtin
def cumprod(input, axis=0, reverse=False) -> tensor:
    """The inclusive prefix product along `axis` (`reverse=True` scans from the end); bf16 is
    multiplied as fp32, as in Triton."""
    x = to_tensor(input)
    if x.dtype.is_bf16():
        x = semantic.cast(x, core.float32)
    return scan_tensors([x], axis, lambda a, b: semantic.mul(a[0], b[0]), reverse)[0]


def _user_combine(fn, n):
    def combine(lhs, rhs):
        if state.call_combine is None:
            raise SemanticError("combine functions can only be used inside a kernel")
        return state.call_combine(fn, list(lhs) + list(rhs))

    return combine


@builtin
def map_elementwise(scalar_fn, *args, pack=1):
    """Applies the @tilec.jit `scalar_fn` to every element of the arguments (broadcast to one shape):
    it is called with one scalar per argument and returns a scalar, or a tuple of them (then a tuple
    of tensors comes back). Unlike tl.where, a branch inside runs only where it is taken. With
    `pack` = k > 1 it gets k elements of each argument at once, argument by argument (`f(a0, a1, b0,
    b1)` for pack=2), and returns k values per result, result by result (`q0, q1, r0, r1`); the k are
    consecutive elements in row-major order (on GPUs Triton hands over k registers of a thread, which
    are consecutive elements for its usual layouts)."""
    pack = const_int(pack, "tl.map_elementwise's pack")
    if pack < 1 or pack & (pack - 1):
        raise SemanticError(f"tl.map_elementwise: pack must be a power of two, got {pack}")
    if not args:
        raise SemanticError("tl.map_elementwise needs at least one argument")
    if len(args) * pack > tile.ELEMENTWISE_ARG_SLOTS:
        raise SemanticError(
            f"tl.map_elementwise takes up to {tile.ELEMENTWISE_ARG_SLOTS} arguments times pack, got "
            f"{len(args)} x {pack}"
        )
    inputs = [to_tensor(a) for a in args]
    shape = ()
    for x in inputs:
        shape = semantic.broadcast_shapes(shape, x.shape)
    inputs = [semantic.broadcast_to(x, shape) if shape else x for x in inputs]
    if pack == 1:
        return _map_scalars(scalar_fn, inputs, shape)
    numel = 1
    for d in shape:
        numel *= d
    if not shape or numel % pack:
        raise SemanticError(
            f"tl.map_elementwise: pack={pack} needs tensors whose element count it divides, got shape {list(shape)}"
        )
    slots = [s for x in inputs for s in _pack_slots(reshape(x, (numel // pack, pack)))]
    out = _map_scalars(scalar_fn, slots, (numel // pack,), many=True)
    if len(out) % pack:
        raise SemanticError(
            f"the function given to tl.map_elementwise with pack={pack} must return a multiple of {pack} "
            f"values ({pack} per result), got {len(out)}"
        )
    results = tuple(reshape(_unpack_slots(list(out[i : i + pack])), shape) for i in range(0, len(out), pack))
    return results


def _pack_slots(x: tensor) -> list[tensor]:
    """The columns of x (M, w), w a power of two, as w tensors (M,), by halving (split's pairs)."""
    m, w = x.shape
    if w == 1:
        return [reshape(x, (m,))]
    from . import reorder

    even, odd = reorder.split(reshape(x, (m, w // 2, 2)))  # columns 2i and 2i + 1
    evens, odds = _pack_slots(even), _pack_slots(odd)
    return [c for pair in zip(evens, odds) for c in pair]


def _unpack_slots(columns: list[tensor]) -> tensor:
    """The inverse of _pack_slots: w tensors (M,) as the columns of one (M, w)."""
    if len(columns) == 1:
        return reshape(columns[0], (columns[0].shape[0], 1))
    from . import reorder

    even, odd = _unpack_slots(columns[0::2]), _unpack_slots(columns[1::2])
    pairs = reorder.join(even, odd)  # (M, w/2, 2): [m, i, b] is column 2i + b
    return reshape(pairs, (pairs.shape[0], 2 * pairs.shape[1]))


def _map_scalars(scalar_fn, inputs: list[tensor], shape, many: bool = False):
    """tl.map_elementwise with pack=1 on `inputs` of one shape (a tuple back for several results, or
    always with `many`)."""
    returned: list = []

    def body(block_args):
        scalars = [tensor(a, x.dtype) for a, x in zip(block_args, inputs)]
        if state.call_combine is None:
            raise SemanticError("tl.map_elementwise can only be used inside a kernel")
        out = state.call_combine(scalar_fn, scalars)
        out = list(out) if isinstance(out, tuple | list) else [out]
        if not out or _py.any(v is None for v in out):
            raise SemanticError("the function given to tl.map_elementwise must return a value")
        out = [to_tensor(v) for v in out]
        if _py.any(v.shape for v in out):
            raise SemanticError("the function given to tl.map_elementwise must return scalars")
        returned[:] = [v.dtype for v in out]
        return [v.handle for v in out]

    # The result types are what the function returns: a first build finds them, then it is built again.
    handles = [x.handle for x in inputs]
    tile.map_(handles, [], body).erase()
    if len(returned) > tile.MAX_SLOTS:
        raise SemanticError(f"tl.map_elementwise: at most {tile.MAX_SLOTS} results, got {len(returned)}")
    dtypes = list(returned)
    op = tile.map_(handles, [tile.with_shape(d.to_ir(), list(shape)) for d in dtypes], body)
    results = tuple(tensor(r, d, shape) for r, d in zip(op.results, dtypes))
    return results if len(results) > 1 or many else results[0]


@builtin
def reduce(input, axis, combine_fn, keep_dims=False):
    """Reduces `input` (a tensor or a tuple of tensors) along `axis` with a @tilec.jit `combine_fn`."""
    inputs = list(input) if isinstance(input, tuple | list) else [input]
    inputs = [to_tensor(x) for x in inputs]
    out = reduce_tensors(inputs, axis, _user_combine(combine_fn, len(inputs)), keep_dims)
    return tuple(out) if isinstance(input, tuple | list) else out[0]


@builtin
def associative_scan(input, axis, combine_fn, reverse=False):
    """Inclusive scan of `input` (a tensor or tuple) along `axis` with a @tilec.jit `combine_fn`."""
    inputs = list(input) if isinstance(input, tuple | list) else [input]
    inputs = [to_tensor(x) for x in inputs]
    out = scan_tensors(inputs, axis, _user_combine(combine_fn, len(inputs)), reverse)
    return tuple(out) if isinstance(input, tuple | list) else out[0]


@builtin
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False) -> tensor:
    """exp(x - max) / sum(exp(x - max)) along `dim` (0 when None), as Triton's tl.softmax: with
    `keep_dims=False` the reductions drop `dim` before broadcasting back (so dim must be the leading
    one for 2-D inputs, as in Triton); `ieee_rounding=True` divides correctly rounded."""
    x = to_tensor(x)
    axis = 0 if dim is None else dim
    z = semantic.sub(x, max(x, axis, keep_dims=keep_dims))
    numerator = exp(z)
    return fdiv(numerator, sum(numerator, axis, keep_dims=keep_dims), ieee_rounding)
