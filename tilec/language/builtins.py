"""The functions of `tilec.language` (imported as `tl`), with Triton's names and semantics.

They only make sense inside a `@tilec.jit` function being compiled: each builds tile IR at the point
the code generator is visiting. Called from plain Python they raise a clear error.
"""

from __future__ import annotations

import builtins as _py
import contextlib
import functools
import numbers
import threading

from tilec._lazy import lazy_module

from . import core, semantic
from .core import dtype, tensor
from .semantic import SemanticError, to_tensor

ir = lazy_module("mlir.ir")
tile = lazy_module("tilec.dialects.tile")


class _CompileState(threading.local):
    """What the code generator sets while one kernel compiles, per thread: kernels compile from
    several threads at once, each with its own settings. The class attributes are every thread's
    starting values."""

    active = 0  # > 0 while a kernel is being compiled
    # `reduce` and `associative_scan` take a user @jit combine function; the code generator
    # provides `call_combine` so the function body is inlined into the region.
    call_combine = None
    call_jit = None  # (fn, args, kwargs): a @jit call made by Python itself (tilec.aggregate methods)
    debug_enabled = False  # from @jit(debug=...) / TILEC_DEBUG
    launch_num_warps = 4  # the launch's num_warps (tl.extra.cuda.num_warps())
    # integer +, -, * of kernel code are checked for overflow (Triton's sanitize_overflow, in a
    # debug build the user asked for)
    sanitize_overflow = False
    compile_target = None  # the target being compiled for (tl.target_info)


state = _CompileState()


def builtin(fn):
    """Marks a tile-language function; outside a kernel it raises instead of misbehaving."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not state.active:
            raise RuntimeError(
                f"tl.{fn.__name__} can only be called inside a @tilec.jit function "
                "(or run the kernel with TILEC_INTERPRET=1)"
            )
        if kwargs and ("_semantic" in kwargs or "_builder" in kwargs):
            # Triton's internal handles, passed on by ported aggregate methods and builtins: unused
            kwargs.pop("_semantic", None)
            kwargs.pop("_builder", None)
        return fn(*args, **kwargs)

    wrapper.__tilec_builtin__ = True
    return wrapper


@contextlib.contextmanager
def in_a_pass():
    """Lets a pass build IR with tile-language functions (tile-expand-sort builds tl.sort's network
    with them): builtins callable, and no debug checks or overflow checks added to what it builds."""
    saved = state.active, state.debug_enabled, state.sanitize_overflow
    state.active, state.debug_enabled, state.sanitize_overflow = state.active + 1, False, False
    try:
        yield
    finally:
        state.active, state.debug_enabled, state.sanitize_overflow = saved


def _const_int(v, what: str) -> int:
    if isinstance(v, tensor):
        raise SemanticError(f"{what} must be a compile-time constant (tl.constexpr), got a tensor")
    if not isinstance(v, numbers.Integral):
        raise SemanticError(f"{what} must be an integer, got {v!r}")
    return int(v)


def _const_bool(v, what: str) -> bool:
    if isinstance(v, tensor):
        raise SemanticError(f"{what} must be a compile-time constant (tl.constexpr), got a tensor")
    return bool(v)


def _shape(shape, what="shape") -> tuple[int, ...]:
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    if isinstance(shape, tensor):
        raise SemanticError(f"{what} must be made of compile-time constants, got a tensor")
    dims = tuple(_const_int(d, f"every dimension of {what}") for d in shape)
    for d in dims:
        if d <= 0 or d & (d - 1):
            raise SemanticError(f"{what} {list(dims)} has a dimension that is not a power of two")
    return dims


def _dtype(d) -> dtype:
    if isinstance(d, str):
        return core.dtype_from_signature(d)
    if not isinstance(d, dtype):
        raise SemanticError(f"expected a dtype such as tl.float32, got {d!r}")
    return d


# ----------------------------------------------------------------------------------------------
# Program ids, ranges, creation
# ----------------------------------------------------------------------------------------------


@builtin
def program_id(axis, bitwidth=None) -> tensor:
    """The index of this program instance along grid axis `axis` (0, 1 or 2), an int32 scalar; with
    bitwidth=64 (newer Triton's argument) an int64, zero-extended, so offsets computed from it are
    64-bit."""
    axis = _const_int(axis, "axis")
    if axis not in (0, 1, 2):
        raise SemanticError(f"program_id axis must be 0, 1, or 2 but got {axis}")
    width = 32 if bitwidth is None else _const_int(bitwidth, "program_id bitwidth")
    if width not in (32, 64):
        raise SemanticError(f"program_id bitwidth must be 32 or 64, got {width}")
    pid = tensor(tile.program_id(axis), core.int32)
    return pid if width == 32 else semantic.cast(semantic.cast(pid, core.uint32), core.int64)


@builtin
def num_programs(axis) -> tensor:
    """The number of program instances along grid axis `axis`, an int32 scalar."""
    axis = _const_int(axis, "axis")
    if axis not in (0, 1, 2):
        raise SemanticError(f"num_programs axis must be 0, 1, or 2 but got {axis}")
    return tensor(tile.num_programs(axis), core.int32)


@builtin
def arange(start, end) -> tensor:
    """The int32 block `[start, start + 1, ..., end - 1]`; `end - start` must be a power of two."""
    start, end = _const_int(start, "arange start"), _const_int(end, "arange end")
    if end <= start:
        raise SemanticError(f"arange end ({end}) must be greater than start ({start})")
    n = end - start
    if n & (n - 1):
        raise SemanticError(f"arange length {n} must be a power of two")
    if end > 2**31:
        raise SemanticError("arange must fit in int32")
    return tensor(tile.make_range(start, end), core.int32, (n,))


@builtin
def full(shape, value, dtype) -> tensor:
    """A block of `shape` filled with `value`, of type `dtype`."""
    shape, t = _shape(shape), _dtype(dtype)
    if isinstance(value, tensor):
        return semantic.broadcast_to(semantic.cast(value, t), shape)
    return semantic.constant(value, t, shape)


@builtin
def zeros(shape, dtype) -> tensor:
    """A block of `shape` filled with zeros of type `dtype`."""
    return full(shape, 0, dtype)


@builtin
def as_tensor(x) -> tensor:  # tl.to_tensor (the module's to_tensor is semantic's)
    """`x` as a tensor: a Python number becomes a scalar of its default type (int32, int64 when it
    does not fit, fp32, int1 for a bool); a tensor is returned as it is."""
    return semantic.to_tensor(x)


@builtin
def zeros_like(x) -> tensor:
    """A block of zeros with the shape and dtype of `x`."""
    return full(x.shape, 0, x.dtype)


@builtin
def full_like(x, value) -> tensor:
    """A block filled with `value`, with the shape and dtype of `x`."""
    return full(x.shape, value, x.dtype)


@builtin
def cdiv(a, b):
    """Ceiling division `(a + b - 1) // b`, on compile-time values or tensors."""
    return (a + b - 1) // b


# ----------------------------------------------------------------------------------------------
# Memory
# ----------------------------------------------------------------------------------------------


def _check_ptr(ptr, what: str) -> tensor:
    if not isinstance(ptr, tensor) or not ptr.dtype.is_ptr():
        got = ptr.dtype if isinstance(ptr, tensor) else type(ptr).__name__
        raise SemanticError(f"{what} expects a pointer or a tensor of pointers, got {got}")
    return ptr


def _check_writable(ptr: tensor, what: str) -> tensor:
    """Refuses writes through a `tl.const` parameter's pointers (Triton's wording)."""
    if ptr.dtype.const:
        raise SemanticError(
            f"{what}: Cannot store to a constant pointer ({ptr.dtype}, from a tl.const parameter)"
        )
    return ptr


def _mask_for(ptr: tensor, mask) -> tensor | None:
    if mask is None:
        return None
    mask = to_tensor(mask)
    if mask.dtype.is_floating() or mask.dtype.is_ptr():
        # Triton refuses them too: a float here is usually the value passed for its comparison
        raise SemanticError(f"a mask must be boolean (or an integer, nonzero meaning true), got {mask.dtype}")
    mask = semantic.cast(mask, core.int1)
    if not ptr.shape and mask.shape:
        raise SemanticError(f"mask of shape {list(mask.shape)} for a scalar pointer")
    return semantic.broadcast_to(mask, ptr.shape)


_CACHE = {"": "", ".ca": "ca", ".cg": "cg", ".cs": "cs", ".cv": "cv", ".wb": "wb", ".wt": "wt"}
_EVICT = {"": "", "evict_normal": "normal", "evict_first": "evict_first", "evict_last": "evict_last"}


def _hint(table, value, what):
    if value not in table:
        raise SemanticError(f"{what} '{value}' is not one of {sorted(k for k in table if k)}")
    return table[value]


@builtin
def load(
    pointer,
    mask=None,
    other=None,
    boundary_check=(),
    padding_option="",
    cache_modifier="",
    eviction_policy="",
    volatile=False,
) -> tensor:
    """Reads the block of values `pointer` points to. Lanes where `mask` is false read nothing and take
    `other` (undefined without it). The hints `cache_modifier`, `eviction_policy` and `volatile` are
    recorded on the tile op. Through a block pointer (`tl.make_block_ptr`): the dimensions listed in
    `boundary_check` are masked and read `padding_option` ("zero" or "nan") outside the array.
    """
    if _is_block_pointer(pointer):
        if mask is not None or other is not None:
            raise SemanticError(
                "tl.load: a block pointer takes boundary_check and padding_option, not mask/other"
            )
        return pointer.load(boundary_check, padding_option)
    ptr = _check_ptr(pointer, "tl.load")
    if boundary_check or padding_option:
        raise SemanticError(
            "tl.load: boundary_check and padding_option apply to block pointers (tl.make_block_ptr), "
            "not to a tensor of pointers; use mask and other"
        )
    elem = ptr.dtype.element_ty
    mask_t = _mask_for(ptr, mask)
    other_t = None
    if other is not None:
        if mask_t is None:
            raise SemanticError("tl.load: 'other' needs a mask")
        other_t = semantic.broadcast_to(semantic.cast(to_tensor(other, elem), elem), ptr.shape)
    h = tile.load(
        ptr.handle,
        mask_t.handle if mask_t is not None else None,
        other_t.handle if other_t is not None else None,
        cache=_hint(_CACHE, cache_modifier, "cache_modifier"),
        eviction=_hint(_EVICT, eviction_policy, "eviction_policy"),
        volatile=bool(volatile),
    )
    return tensor(h, elem, ptr.shape)


@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy=""):
    """Writes `value` (broadcast to the pointer block's shape) where `mask` is true; through a block
    pointer, the elements inside the array along the dimensions in `boundary_check`."""
    if _is_block_pointer(pointer):
        if mask is not None:
            raise SemanticError("tl.store: a block pointer takes boundary_check, not a mask")
        return pointer.store(value, boundary_check)
    ptr = _check_writable(_check_ptr(pointer, "tl.store"), "tl.store")
    if boundary_check:
        raise SemanticError(
            "tl.store: boundary_check applies to block pointers (tl.make_block_ptr), not to a tensor of "
            "pointers; use mask"
        )
    elem = ptr.dtype.element_ty
    value = _number_for(value, elem)
    if value.shape and not ptr.shape:
        raise SemanticError(f"cannot store a tensor of shape {list(value.shape)} through a scalar pointer")
    value = semantic.broadcast_to(semantic.cast(value, elem), ptr.shape)
    mask_t = _mask_for(ptr, mask)
    tile.store(
        ptr.handle,
        value.handle,
        mask_t.handle if mask_t is not None else None,
        cache=_hint(_CACHE, cache_modifier, "cache_modifier"),
        eviction=_hint(_EVICT, eviction_policy, "eviction_policy"),
    )


def _number_for(value, elem):
    """A value to store or combine into `elem` memory: a Python number takes the pointee's type,
    except a fractional float meeting integer memory, which is an fp32 converted as Triton does
    (toward zero: `tl.store(int_ptr, 1.5)` stores 1)."""
    if isinstance(value, tensor):
        return value
    if isinstance(value, float) and elem.is_int() and not value.is_integer():
        return to_tensor(value)
    return to_tensor(value, elem)


def _is_block_pointer(value) -> bool:
    from .block_pointers import block_pointer  # (it builds on this module)

    return isinstance(value, block_pointer)


def _no_fp8_atomics(elem, name):
    if elem.is_fp8():
        raise SemanticError(f"tl.{name} does not support fp8 pointees ({elem}); no GPU has fp8 atomics")


def _atomic(kind_for, pointer, val, mask, sem, scope, name):
    ptr = _check_writable(_check_ptr(pointer, f"tl.{name}"), f"tl.{name}")
    elem = ptr.dtype.element_ty
    _no_fp8_atomics(elem, name)
    val = semantic.broadcast_to(semantic.cast(_number_for(val, elem), elem), ptr.shape)
    mask_t = _mask_for(ptr, mask)
    kind = kind_for(elem)
    sem = sem or "acq_rel"
    scope = scope or "gpu"
    if sem not in ("relaxed", "acquire", "release", "acq_rel"):
        raise SemanticError(f"sem '{sem}' is not one of relaxed, acquire, release, acq_rel")
    if scope not in ("gpu", "cta", "sys"):
        raise SemanticError(f"scope '{scope}' is not one of gpu, cta, sys")
    h = tile.atomic_rmw(
        kind, ptr.handle, val.handle, mask_t.handle if mask_t is not None else None, sem=sem, scope=scope
    )
    return tensor(h, elem, ptr.shape)


def _int_only(name):
    def pick(elem):
        if not elem.is_int():
            raise SemanticError(f"tl.{name} needs an integer pointee, got {elem}")
        return name.split("_")[1]

    return pick


@builtin
def atomic_add(pointer, val, mask=None, sem=None, scope=None):
    """Atomically adds `val` at each pointer (where `mask`), returning the previous values."""
    return _atomic(
        lambda e: "fadd" if e.is_floating() else "add", pointer, val, mask, sem, scope, "atomic_add"
    )


@builtin
def atomic_max(pointer, val, mask=None, sem=None, scope=None):
    """Atomic maximum at each pointer (where `mask`), returning the previous values."""
    return _atomic(
        lambda e: "umax" if e.is_int_unsigned() else "max", pointer, val, mask, sem, scope, "atomic_max"
    )


@builtin
def atomic_min(pointer, val, mask=None, sem=None, scope=None):
    """Atomic minimum at each pointer (where `mask`), returning the previous values."""
    return _atomic(
        lambda e: "umin" if e.is_int_unsigned() else "min", pointer, val, mask, sem, scope, "atomic_min"
    )


@builtin
def atomic_xchg(pointer, val, mask=None, sem=None, scope=None):
    """Atomically stores `val` at each pointer (where `mask`), returning the previous values."""
    return _atomic(lambda e: "xchg", pointer, val, mask, sem, scope, "atomic_xchg")


@builtin
def atomic_and(pointer, val, mask=None, sem=None, scope=None):
    """Atomic bitwise and at each pointer (where `mask`), returning the previous values."""
    return _atomic(_int_only("atomic_and"), pointer, val, mask, sem, scope, "atomic_and")


@builtin
def atomic_or(pointer, val, mask=None, sem=None, scope=None):
    """Atomic bitwise or at each pointer (where `mask`), returning the previous values."""
    return _atomic(_int_only("atomic_or"), pointer, val, mask, sem, scope, "atomic_or")


@builtin
def atomic_xor(pointer, val, mask=None, sem=None, scope=None):
    """Atomic bitwise xor at each pointer (where `mask`), returning the previous values."""
    return _atomic(_int_only("atomic_xor"), pointer, val, mask, sem, scope, "atomic_xor")


@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None):
    """Atomic compare-and-swap: where the value equals `cmp` it becomes `val`; returns the previous values."""
    ptr = _check_writable(_check_ptr(pointer, "tl.atomic_cas"), "tl.atomic_cas")
    elem = ptr.dtype.element_ty
    _no_fp8_atomics(elem, "atomic_cas")
    cmp = semantic.broadcast_to(semantic.cast(to_tensor(cmp, elem), elem), ptr.shape)
    val = semantic.broadcast_to(semantic.cast(to_tensor(val, elem), elem), ptr.shape)
    h = tile.atomic_cas(ptr.handle, cmp.handle, val.handle, sem=sem or "acq_rel", scope=scope or "gpu")
    return tensor(h, elem, ptr.shape)


# ----------------------------------------------------------------------------------------------
# Elementwise math
# ----------------------------------------------------------------------------------------------


@builtin
def where(condition, x, y) -> tensor:
    """Elementwise `x` where `condition` is true, else `y` (all three broadcast together)."""
    return semantic.where(condition, x, y)


@builtin
def minimum(x, y, propagate_nan=False) -> tensor:
    """Elementwise minimum; `propagate_nan=tl.PropagateNan.ALL` makes a NaN operand win."""
    return semantic.minimum(x, y, _nan_flag(propagate_nan))


@builtin
def maximum(x, y, propagate_nan=False) -> tensor:
    """Elementwise maximum; `propagate_nan=tl.PropagateNan.ALL` makes a NaN operand win."""
    return semantic.maximum(x, y, _nan_flag(propagate_nan))


class PropagateNan:
    NONE = False
    ALL = True


def _nan_flag(v) -> bool:
    return bool(v)


@builtin
def clamp(x, min, max, propagate_nan=False) -> tensor:
    """`x` limited to `[min, max]` elementwise (floating point)."""
    return semantic.minimum(semantic.maximum(x, min, bool(propagate_nan)), max, bool(propagate_nan))


def _unary(name, mlir_name=None, accuracy=""):
    @builtin
    def fn(x) -> tensor:
        return semantic.float_unary(mlir_name or name, x)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name} of a floating-point tensor." + (f" {accuracy}" if accuracy else "")
    return fn


_APPROXIMATE = "On GPUs through the hardware's approximate unit, as in Triton (a few ulp in f32)."
_WITHIN_AN_ULP = "On GPUs within an ulp of the exact result (float64 inside)."
exp = _unary("exp", accuracy=_APPROXIMATE)
exp2 = _unary("exp2", accuracy=_APPROXIMATE)
log = _unary("log", accuracy=_WITHIN_AN_ULP)
log2 = _unary("log2", accuracy=_WITHIN_AN_ULP)
sqrt = _unary("sqrt")
rsqrt = _unary("rsqrt")
_REDUCED = "The argument is reduced exactly, however large."
sin = _unary("sin", accuracy=f"{_WITHIN_AN_ULP} {_REDUCED}")
cos = _unary("cos", accuracy=f"{_WITHIN_AN_ULP} {_REDUCED}")
erf = _unary(
    "erf",
    accuracy="On GPUs within 2.2 ulp of erf itself in float32 (two fitted polynomials), 2 ulp in float64.",
)
floor = _unary("floor")
ceil = _unary("ceil")
tanh = _unary("tanh")


@builtin
def sqrt_rn(x) -> tensor:
    """Square root rounded to nearest (IEEE), where `tl.sqrt` may use a faster approximation."""
    return semantic.float_unary("sqrt", x)


@builtin
def abs(x) -> tensor:
    """Elementwise absolute value."""
    return semantic.abs_(x)


@builtin
def fma(x, y, z) -> tensor:
    """Fused multiply-add `x * y + z` with one rounding."""
    return semantic.fma(x, y, z)


@builtin
def sigmoid(x) -> tensor:
    """Elementwise `1 / (1 + exp(-x))`."""
    x = to_tensor(x)
    if not x.dtype.is_floating():
        raise SemanticError(f"tl.sigmoid needs a floating-point operand, got {x.dtype}")
    return semantic.truediv(1.0, semantic.add(1.0, exp(semantic.neg(x))))


@builtin
def div_rn(x, y) -> tensor:
    """Division rounded to nearest (IEEE), where `/` on fp32 may use a faster division."""
    return semantic.truediv(x, y, precise=True)


@builtin
def fdiv(x, y, ieee_rounding=False) -> tensor:
    """Floating-point division; `ieee_rounding=True` is `div_rn`."""
    return semantic.truediv(x, y, precise=bool(ieee_rounding))


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


@builtin
def umulhi(x, y) -> tensor:
    """The high half of the unsigned product of two 32- or 64-bit integers (their bits read as
    unsigned whatever their type, as Triton's `__nv_umulhi`/`__nv_umul64hi`), in the operands' type."""
    x, y, t = semantic._operands(x, y)
    if not t.is_int() or t.primitive_bitwidth not in (32, 64):
        raise SemanticError(f"tl.umulhi needs 32- or 64-bit integers, got {t}")
    unsigned = core.uint32 if t.primitive_bitwidth == 32 else core.uint64
    x, y = (semantic.cast(semantic.cast(v, t), unsigned, bitcast=True) for v in (x, y))
    if t.primitive_bitwidth == 32:
        wide = semantic.mul(semantic.cast(x, core.uint64), semantic.cast(y, core.uint64))
        high = semantic.cast(semantic.shr(wide, 32), core.uint32)
    else:  # schoolbook on 32-bit halves, every partial product exact in 64 bits
        low_mask = semantic.constant(0xFFFFFFFF, core.uint64)
        x_lo, x_hi = semantic.and_(x, low_mask), semantic.shr(x, 32)
        y_lo, y_hi = semantic.and_(y, low_mask), semantic.shr(y, 32)
        lo_lo, lo_hi = semantic.mul(x_lo, y_lo), semantic.mul(x_lo, y_hi)
        hi_lo, hi_hi = semantic.mul(x_hi, y_lo), semantic.mul(x_hi, y_hi)
        middle = semantic.add(
            semantic.add(semantic.shr(lo_lo, 32), semantic.and_(lo_hi, low_mask)),
            semantic.and_(hi_lo, low_mask),
        )
        high = semantic.add(
            semantic.add(hi_hi, semantic.shr(lo_hi, 32)),
            semantic.add(semantic.shr(hi_lo, 32), semantic.shr(middle, 32)),
        )
    return semantic.cast(high, t, bitcast=True)


# ----------------------------------------------------------------------------------------------
# Shapes
# ----------------------------------------------------------------------------------------------


def _unpack_shape(shape):
    if len(shape) == 1 and isinstance(shape[0], tuple | list):
        return tuple(shape[0])
    return tuple(shape)


@builtin
def broadcast_to(input, *shape) -> tensor:
    """`input` broadcast to `shape` (dimensions of size 1 grow)."""
    return semantic.broadcast_to(to_tensor(input), _shape(_unpack_shape(shape)))


@builtin
def broadcast(input, other):
    """`input` and `other` broadcast to their common shape."""
    a, b = semantic.binary_broadcast(to_tensor(input), to_tensor(other))
    return a, b


@builtin
def reshape(input, *shape, can_reorder=False) -> tensor:
    """The same elements in a new shape (row-major order is kept; `can_reorder` is accepted)."""
    x = to_tensor(input)
    shape = _shape(_unpack_shape(shape))
    n = 1
    for d in shape:
        n *= d
    if n != x.numel:
        raise SemanticError(f"cannot reshape {list(x.shape)} ({x.numel} elements) to {list(shape)}")
    if not x.shape:
        return semantic.broadcast_to(x, shape)
    if shape == x.shape:
        return x
    return tensor(tile.reshape(x.handle, list(shape)), x.dtype, shape)


view = reshape


@builtin
def expand_dims(input, axis) -> tensor:
    """`input` with a new dimension of size 1 at `axis` (also written `x[:, None]`)."""
    x = to_tensor(input)
    axes = axis if isinstance(axis, tuple | list) else [axis]
    axes = [_const_int(a, "axis") for a in axes]
    rank = len(x.shape) + len(axes)  # of the result: every axis names a dimension of it
    for a in axes:
        if not -rank <= a < rank:
            raise SemanticError(
                f"tl.expand_dims: invalid axis {a}: out of range for a rank-{len(x.shape)} tensor gaining "
                f"{len(axes)} dimension(s) (valid: {-rank} to {rank - 1})"
            )
    axes = sorted(a + rank if a < 0 else a for a in axes)
    if len(set(axes)) != len(axes):
        raise SemanticError(f"tl.expand_dims: duplicate axes, normalized axes = {axes} (given {axis})")
    for a in axes:
        x = semantic.expand_dims(x, a)
    return x


@builtin
def squeeze(input, dim) -> tensor:
    """`input` without its dimension `dim` (an int or a tuple of them), which must have size 1."""
    x = to_tensor(input)
    dims = dim if isinstance(dim, tuple | list) else (dim,)
    rank = len(x.shape)
    axes = sorted({_normalize_axis(_const_int(d, "tl.squeeze: dim"), rank) for d in dims})
    for a in axes:
        if x.shape[a] != 1:
            raise SemanticError(
                f"tl.squeeze: dimension {a} of shape {list(x.shape)} has size {x.shape[a]}, not 1"
            )
    return reshape(x, tuple(n for i, n in enumerate(x.shape) if i not in axes))


@builtin
def unsqueeze(input, dim) -> tensor:
    """`input` with a new dimension of size 1 at `dim` (tl.expand_dims)."""
    return expand_dims(input, dim)


@builtin
def trans(input, *dims) -> tensor:
    """`input` with its dimensions permuted; without `dims` its last two swapped (a transpose, of
    each matrix of a batch for more than two dimensions)."""
    x = to_tensor(input)
    dims = _unpack_shape(dims)
    if not dims:
        rank = len(x.shape)
        if rank < 2:
            raise SemanticError(
                f"tl.trans without dims needs 2 or more dimensions, got shape {list(x.shape)}"
            )
        dims = (*range(rank - 2), rank - 1, rank - 2)
    dims = tuple(_const_int(d, "permutation") for d in dims)
    if sorted(dims) != list(range(len(x.shape))):
        raise SemanticError(f"{list(dims)} is not a permutation of the {len(x.shape)} dimensions")
    shape = tuple(x.shape[d] for d in dims)
    return tensor(tile.trans(x.handle, list(dims)), x.dtype, shape)


permute = trans


@builtin
def ravel(x) -> tensor:
    """`input` flattened to one dimension."""
    return reshape(x, x.numel)


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


def _normalize_axis(axis, rank) -> int:
    axis = _const_int(axis, "axis")
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise SemanticError(f"axis {axis} is out of range for a tensor of rank {rank}")
    return axis


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
    axis = _normalize_axis(axis, len(inputs[0].shape))
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
    target = _dtype(dtype) if dtype is not None else _sum_dtype(x.dtype)
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
    axis = _normalize_axis(axis, len(x.shape))
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
    axis = _normalize_axis(axis, len(inputs[0].shape))
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
    x = semantic.cast(x, _dtype(dtype) if dtype is not None else default)
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
    pack = _const_int(pack, "tl.map_elementwise's pack")
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


# ----------------------------------------------------------------------------------------------
# dot
# ----------------------------------------------------------------------------------------------


@builtin
def dot(
    input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None, out_dtype=None
):
    """The matrix product of 2-D blocks `input` [M, K] and `other` [K, N], plus `acc` when given
    (3-D blocks [B, M, K] and [B, K, N]: B products, as in Triton).
    fp16/bf16 and fp8 (float8e4nv, float8e5, mixed too) inputs accumulate in fp32, int8 in int32.
    For fp32 inputs `input_precision` is "tf32" (the default, as in Triton: tf32 tensor cores on
    NVIDIA sm_80+), "tf32x3" (three tf32 products, close to fp32), "ieee" (exact fp32), "bf16x3" or
    "bf16x6" (as Triton's: each operand split into bfloat16 parts hi + mid (+ lo), and the three
    products hi hi, hi mid, mid hi (six: also mid mid, hi lo, lo hi) summed in fp32, smallest first:
    bf16 tensor cores at about 2^-16 (2^-24) relative; the same dots on every target);
    `allow_tf32=False` means "ieee". For fp8 inputs on Hopper's tensor cores, which sum in reduced
    precision, `max_num_imprecise_acc` (as in Triton; default: all of K) is how many K values are
    summed that way before the partial sum is added in fp32 (0 or 32: after every instruction).
    """
    a, b = to_tensor(input), to_tensor(other)
    if input_precision in _BF16_SPLITS and a.dtype.is_fp32() and b.dtype.is_fp32():
        return _bf16_split_dot(a, b, acc, _BF16_SPLITS[input_precision])
    if len(a.shape) == 3 and len(b.shape) == 3:
        options = dict(input_precision=input_precision, allow_tf32=allow_tf32, out_dtype=out_dtype)
        return _batched_dot(a, b, acc, max_num_imprecise_acc=max_num_imprecise_acc, **options)
    if len(a.shape) != 2 or len(b.shape) != 2:
        raise SemanticError(
            f"tl.dot needs 2-D (or 3-D, batched) tensors, got shapes {list(a.shape)} and {list(b.shape)}"
        )
    if a.shape[1] != b.shape[0]:
        raise SemanticError(f"tl.dot inner dimensions differ: {list(a.shape)} x {list(b.shape)}")
    if a.dtype != b.dtype and not (a.dtype.is_fp8() and b.dtype.is_fp8()):
        raise SemanticError(
            f"tl.dot operands must have one dtype (or be two fp8 formats), got {a.dtype} and {b.dtype}"
        )
    out_t = _dot_result_type(a.dtype, out_dtype)
    shape = (a.shape[0], b.shape[1])
    if acc is None:
        acc_t = semantic.constant(0, out_t, shape)
    else:
        acc_t = to_tensor(acc)
        if acc_t.shape != shape:
            raise SemanticError(f"tl.dot accumulator must have shape {list(shape)}, got {list(acc_t.shape)}")
        out_t = acc_t.dtype
    if input_precision is None:
        input_precision = "tf32" if (allow_tf32 is None or allow_tf32) and a.dtype.is_fp32() else "ieee"
    if input_precision in _BF16_SPLITS:  # for operands other than fp32 (split above), as "ieee"
        input_precision = "ieee"
    if input_precision not in ("ieee", "tf32", "tf32x3"):
        raise SemanticError(
            f"input_precision '{input_precision}' is not one of ieee, tf32, tf32x3, bf16x3, bf16x6"
        )
    if max_num_imprecise_acc is not None:
        max_num_imprecise_acc = _py.int(max_num_imprecise_acc)
        if max_num_imprecise_acc < 0:
            raise SemanticError(f"max_num_imprecise_acc must be >= 0, got {max_num_imprecise_acc}")
        if a.dtype.is_fp8() and b.dtype.is_fp8() and max_num_imprecise_acc > a.shape[1]:
            raise SemanticError(  # Triton's check and wording
                f"max_num_imprecise_acc ({max_num_imprecise_acc}) must be <= K ({a.shape[1]})"
            )
    h = tile.dot(
        a.handle,
        b.handle,
        acc_t.handle,
        input_precision=input_precision,
        max_num_imprecise_acc=max_num_imprecise_acc,
    )
    return tensor(h, out_t, shape)


# input_precision -> the (a part, b part) products summed, smallest first: 0 = hi, 1 = mid, 2 = lo
_BF16_SPLITS = {
    "bf16x3": [(1, 0), (0, 1), (0, 0)],
    "bf16x6": [(1, 1), (2, 0), (0, 2), (1, 0), (0, 1), (0, 0)],
}


def _bf16_parts(x: tensor, count: int) -> list[tensor]:
    """fp32 x as bfloat16 parts hi, mid, lo (x = hi + mid + lo to 24 bits; each remainder is exact)."""
    parts, rest = [], x
    for _ in range(count):
        part = semantic.cast(rest, core.bfloat16)
        parts.append(part)
        rest = semantic.sub(rest, semantic.cast(part, core.float32))
    return parts


def _bf16_split_dot(a: tensor, b: tensor, acc, products) -> tensor:
    """tl.dot of fp32 operands with input_precision "bf16x3" / "bf16x6" as bfloat16 dots (see tl.dot)."""
    count = 1 + _py.max(p for pair in products for p in pair)
    a_parts, b_parts = _bf16_parts(a, count), _bf16_parts(b, count)
    for i, j in products:
        acc = dot(a_parts[i], b_parts[j], acc=acc)
    return acc


def _dot_result_type(operand: dtype, out_dtype) -> dtype:
    """Triton's rule: integer operands give int32 and fp32 / bf16 operands fp32 whatever `out_dtype`
    says; fp16 and fp8 operands give `out_dtype` (fp32 by default); bf16 results are refused (cast
    the fp32 result)."""
    requested = _dtype(out_dtype) if out_dtype is not None else None
    if requested is not None and requested.is_bf16():
        raise SemanticError(
            "tl.dot: out_dtype=bfloat16 is not supported (as in Triton): use out_dtype=tl.float32 and "
            "cast the result with .to(tl.bfloat16)"
        )
    if operand.is_int():
        return core.int32
    if operand.is_fp64():
        return core.float64
    if operand.is_fp32() or operand.is_bf16() or requested is None:
        return core.float32
    return requested


def _batched_dot(a: tensor, b: tensor, acc, **options) -> tensor:
    """tl.dot of [B, M, K] and [B, K, N] (plus acc [B, M, N]): B 2-D products, each batch's operands
    taken out exactly (reorder._take) and the results stacked by selects, so every target runs it
    with its 2-D dot lowering (tensor cores included); the cost of the taking and stacking grows with
    B, which Triton's block-level batched dots keep small."""
    from . import reorder

    if a.shape[0] != b.shape[0]:
        raise SemanticError(f"tl.dot batch dimensions differ: {list(a.shape)} x {list(b.shape)}")
    batch = a.shape[0]

    def take(x: tensor, i: int) -> tensor:
        return reshape(reorder._take(x, 0, i), x.shape[1:]) if batch > 1 else reshape(x, x.shape[1:])

    accs = None
    if acc is not None:
        acc = to_tensor(acc)
        if len(acc.shape) != 3:
            raise SemanticError(f"tl.dot accumulator must be 3-D for 3-D operands, got {list(acc.shape)}")
        accs = [take(acc, i) for i in _py.range(batch)]
    products = [
        dot(take(a, i), take(b, i), None if accs is None else accs[i], **options) for i in _py.range(batch)
    ]
    shape = (batch, *products[0].shape)
    out = semantic.broadcast_to(expand_dims(products[0], 0), shape)
    index = reorder._index_along(shape, 0)
    for i in _py.range(1, batch):
        chosen = semantic.compare("eq", index, i)
        out = semantic.where(chosen, semantic.broadcast_to(expand_dims(products[i], 0), shape), out)
    return out


# ----------------------------------------------------------------------------------------------
# Debugging and hints
# ----------------------------------------------------------------------------------------------


@builtin
def static_assert(cond, msg=""):
    """Fails the compilation with `msg` unless the compile-time `cond` holds."""
    if isinstance(cond, tensor):
        raise SemanticError("tl.static_assert needs a compile-time condition, got a tensor")
    if not cond:
        raise SemanticError(f"static_assert failed: {msg}" if msg else "static_assert failed")


@builtin
def static_print(*values, sep=" ", end="\n"):
    """Prints compile-time values while the kernel compiles."""
    print(*values, sep=sep, end=end)


_ARITHMETIC = {"add": semantic.add, "sub": semantic.sub, "mul": semantic.mul}


def arithmetic(name: str, a, b, sanitize: bool = True) -> tensor:
    """`a + b`, `a - b` or `a * b` of kernel code (name: add, sub, mul). With sanitize_overflow on,
    an integer result narrower than 64 bits is also computed in int64 and asserted to fit its type,
    as Triton's debug builds do: an int32 offset that wraps is reported where it happens instead of
    becoming a wild address. Signed and unsigned types alike (a kernel that wraps on purpose says
    so with tl.mul(a, b, sanitize_overflow=False))."""
    result = _ARITHMETIC[name](a, b)
    t = result.dtype
    if (
        sanitize
        and state.sanitize_overflow
        and state.debug_enabled
        and t.is_int()
        and 1 < t.primitive_bitwidth < 64
    ):
        a, b, _ = semantic._operands(a, b)
        wide = _ARITHMETIC[name](semantic.cast(a, core.int64), semantic.cast(b, core.int64))
        bits = t.primitive_bitwidth
        lo, hi = (0, 2**bits - 1) if t.is_int_unsigned() else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        fits = semantic.and_(semantic.compare("ge", wide, lo), semantic.compare("le", wide, hi))
        tile.assert_(fits.handle, f"{t} overflow detected for operation {name}")
    return result


@builtin
def condition(cond, disable_licm=False):
    """`while tl.condition(i < n):` is `while i < n:` (Triton's loop-condition wrapper; its
    `disable_licm` is a hint tilec's compiler does not need)."""
    return cond


@builtin
def add(x, y, sanitize_overflow=True) -> tensor:
    """`x + y`; `sanitize_overflow=False` exempts this sum from the integer overflow checks of debug
    builds (for arithmetic that wraps on purpose, such as hashes)."""
    return arithmetic("add", x, y, _const_bool(sanitize_overflow, "tl.add: sanitize_overflow"))


@builtin
def sub(x, y, sanitize_overflow=True) -> tensor:
    """`x - y`; `sanitize_overflow=False` as for tl.add."""
    return arithmetic("sub", x, y, _const_bool(sanitize_overflow, "tl.sub: sanitize_overflow"))


@builtin
def mul(x, y, sanitize_overflow=True) -> tensor:
    """`x * y`; `sanitize_overflow=False` as for tl.add."""
    return arithmetic("mul", x, y, _const_bool(sanitize_overflow, "tl.mul: sanitize_overflow"))


@builtin
def device_print(prefix, *args, hex=False):
    """Prints `prefix` and each element of the given tensors at run time, with the program id and
    the element index (CPU target, interpreter, NVIDIA GPUs through vprintf; AMD reports a clear error).
    """
    if not isinstance(prefix, str):
        raise SemanticError("tl.device_print: the first argument must be a string prefix")
    if args:  # as Triton shapes it: "x" prints as "x: 1.0" ("pid (0, 0, 0) idx (3,) x: 1.0")
        prefix = prefix.lstrip(" ")
        if not prefix.endswith(" "):
            prefix += " "
        if not prefix.endswith(": "):
            prefix = prefix[:-1] + ": "
    if not args:
        tile.print_(prefix)
    for i, a in enumerate(args):
        label = prefix if len(args) == 1 else f"{prefix}(operand {i}) "
        tile.print_(label, to_tensor(a).handle, hex=bool(hex))


@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False) -> tensor:
    """`input` converted to `dtype` (as `input.to(dtype, ...)`): values are converted, `bitcast=True`
    reinterprets the bits (same width); `fp_downcast_rounding` ("rtne", "rtz") rounds a float going to
    a narrower float; pointers convert to other pointer types, to int64 and back, as in Triton. A float
    going to an integer is truncated toward zero; NaN and values out of range (undefined in Triton) give
    NVIDIA's results on NVIDIA GPUs, the CPU target and the interpreter alike: clamped to the result's
    range (to 16 bits for 8-bit results, then wrapped); NaN gives 0, but from float64 or into 64 bits
    the sign bit alone (INT_MIN, 2^63 for uint64); AMD GPUs agree for 32-bit results from float32."""
    return semantic.cast(input, dtype, bitcast=bool(bitcast), fp_downcast_rounding=fp_downcast_rounding)


@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
    """Runs the assembly statement `asm` on the arguments' elements, `pack` elements per run; the
    target's own assembly (PTX on NVIDIA, AMDGCN on AMD; the CPU target and the interpreter cannot run
    it). `constraints` lists the registers as in LLVM inline asm, outputs first (`"=r,r"`): per result
    and per argument pack / k registers, where k elements narrower than 32 bits share one 32-bit
    register (4 x int8, 2 x float16) as in Triton. `dtype` is the result's type, or a tuple of them
    for several results (then a tuple comes back). `is_pure=False` keeps a statement whose result
    is unused. Up to 8 arguments and 4 results."""
    if not isinstance(asm, str) or not isinstance(constraints, str):
        raise SemanticError("tl.inline_asm_elementwise: asm and constraints must be strings")
    pack = _const_int(pack, "tl.inline_asm_elementwise's pack")
    several = isinstance(dtype, tuple | list)
    dtypes = list(dtype) if several else [dtype]
    if not isinstance(args, tuple | list):
        args = [args]
    args = [to_tensor(a) for a in args]
    for what, t in [("argument", a.dtype) for a in args] + [("result", d) for d in dtypes]:
        if not isinstance(t, core.dtype):
            raise SemanticError(
                f"tl.inline_asm_elementwise: dtype must be a tl type or a tuple of them, got {t!r}"
            )
        if t.is_fp8() or (not t.is_ptr() and t.primitive_bitwidth not in (8, 16, 32, 64)):
            raise SemanticError(
                f"tl.inline_asm_elementwise: {t} {what}s cannot go to an asm statement (8- to 64-bit "
                "integers, float16, bfloat16, float32, float64 and pointers can)"
            )
    shape = ()
    for a in args:
        shape = semantic.broadcast_shapes(shape, a.shape)
    if shape:
        args = [semantic.broadcast_to(a, shape) for a in args]
    elif pack != 1:
        raise SemanticError(
            f"tl.inline_asm_elementwise: pack must be 1 when every argument is a scalar, got {pack}"
        )
    if len(args) > tile.ELEMENTWISE_ARG_SLOTS or len(dtypes) > tile.MAX_SLOTS:
        raise SemanticError(
            f"tl.inline_asm_elementwise takes up to {tile.ELEMENTWISE_ARG_SLOTS} arguments and "
            f"{tile.MAX_SLOTS} results, got {len(args)} and {len(dtypes)}"
        )
    if pack < 1 or pack & (pack - 1):
        raise SemanticError(f"tl.inline_asm_elementwise: pack must be a power of two, got {pack}")
    outs = _py.sum(tile.asm_registers(d.to_ir(), pack)[1] for d in dtypes)
    ins = _py.sum(tile.asm_registers(a.dtype.to_ir(), pack)[1] for a in args)
    listed = tile.asm_constraints(constraints)
    if len(listed) != outs + ins:
        raise SemanticError(
            f"tl.inline_asm_elementwise: constraints {constraints!r} list {len(listed)} registers, the "
            f"statement has {outs} output and {ins} input registers (pack={pack}; elements narrower "
            "than 32 bits share 32-bit registers)"
        )
    types = [tile.with_shape(d.to_ir(), list(shape)) for d in dtypes]
    values = tile.inline_asm(asm, constraints, [a.handle for a in args], types, pure=bool(is_pure), pack=pack)
    results = tuple(tensor(v, d, shape) for v, d in zip(values, dtypes))
    return results if several else results[0]


@builtin
def device_assert(cond, msg=""):
    """Stops the kernel with `msg` and the source location where `cond` is false (in debug mode:
    `@tilec.jit(debug=True)` or `TILEC_DEBUG=1`; the interpreter always checks). On NVIDIA GPUs a failed
    assertion stops the kernel as a device-side assert (the CUDA context is then unusable, as in Triton).
    """
    if not state.debug_enabled:
        return
    cond = to_tensor(cond)
    if cond.dtype.is_floating():
        cond = semantic.cast(cond, core.int1)
    tile.assert_(cond.handle, str(msg))


def _hint_attr(x: tensor, name: str, values):
    values = getattr(values, "value", values)  # a constexpr
    if isinstance(values, numbers.Integral):
        values = [values]
    elif isinstance(values, tuple | list):
        values = list(values)
    else:
        hint = {"divisibility": "multiple_of", "contiguity": "max_contiguous", "constancy": "max_constancy"}[
            name
        ]
        raise SemanticError(f"tl.{hint}: expected an integer or a list of integers, got {values!r}")
    values = [_const_int(v, name) for v in values]
    owner = x.handle.owner
    if isinstance(owner, ir.Block):
        return x  # a block argument: hints on arguments come from specialization
    op = owner.operation if hasattr(owner, "operation") else owner
    op.attributes[f"tile.{name}"] = ir.DenseI32ArrayAttr.get(values)
    return x


@builtin
def multiple_of(input, values) -> tensor:
    """Promises the compiler that every value of `input` is a multiple of `values` (enables wider accesses)."""
    return _hint_attr(to_tensor(input), "divisibility", values)


@builtin
def max_contiguous(input, values) -> tensor:
    """Promises that `input` holds runs of `values` consecutive integers."""
    return _hint_attr(to_tensor(input), "contiguity", values)


@builtin
def max_constancy(input, values) -> tensor:
    """Promises that `input` holds runs of `values` equal values."""
    return _hint_attr(to_tensor(input), "constancy", values)


@builtin
def debug_barrier():
    """A no-op on targets without shared memory traffic between program instances."""
