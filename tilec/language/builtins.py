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
    compile_target = None  # the GPUTarget being compiled for (tl.target_info; set by the compiler)


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


def const_int(v, what: str) -> int:
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
    dims = tuple(const_int(d, f"every dimension of {what}") for d in shape)
    for d in dims:
        if d <= 0 or d & (d - 1):
            raise SemanticError(f"{what} {list(dims)} has a dimension that is not a power of two")
    return dims


def as_dtype(d) -> dtype:
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
    axis = const_int(axis, "axis")
    if axis not in (0, 1, 2):
        raise SemanticError(f"program_id axis must be 0, 1, or 2 but got {axis}")
    width = 32 if bitwidth is None else const_int(bitwidth, "program_id bitwidth")
    if width not in (32, 64):
        raise SemanticError(f"program_id bitwidth must be 32 or 64, got {width}")
    pid = tensor(tile.program_id(axis), core.int32)
    return pid if width == 32 else semantic.cast(semantic.cast(pid, core.uint32), core.int64)


@builtin
def num_programs(axis) -> tensor:
    """The number of program instances along grid axis `axis`, an int32 scalar."""
    axis = const_int(axis, "axis")
    if axis not in (0, 1, 2):
        raise SemanticError(f"num_programs axis must be 0, 1, or 2 but got {axis}")
    return tensor(tile.num_programs(axis), core.int32)


@builtin
def arange(start, end) -> tensor:
    """The int32 block `[start, start + 1, ..., end - 1]`; `end - start` must be a power of two."""
    start, end = const_int(start, "arange start"), const_int(end, "arange end")
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
    shape, t = _shape(shape), as_dtype(dtype)
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
    axes = [const_int(a, "axis") for a in axes]
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
    axes = sorted({normalize_axis(const_int(d, "tl.squeeze: dim"), rank) for d in dims})
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
    dims = tuple(const_int(d, "permutation") for d in dims)
    if sorted(dims) != list(range(len(x.shape))):
        raise SemanticError(f"{list(dims)} is not a permutation of the {len(x.shape)} dimensions")
    shape = tuple(x.shape[d] for d in dims)
    return tensor(tile.trans(x.handle, list(dims)), x.dtype, shape)


permute = trans


@builtin
def ravel(x) -> tensor:
    """`input` flattened to one dimension."""
    return reshape(x, x.numel)


def normalize_axis(axis, rank) -> int:
    axis = const_int(axis, "axis")
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise SemanticError(f"axis {axis} is out of range for a tensor of rank {rank}")
    return axis


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
    pack = const_int(pack, "tl.inline_asm_elementwise's pack")
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
    values = [const_int(v, name) for v in values]
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
