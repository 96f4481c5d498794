"""`tilec.language`, imported as `tl`: Triton's kernel language, compiled by tilec."""

import builtins as _py

from . import core, extra, math, target_info  # noqa: F401  (tl.math.exp etc., tl.extra.libdevice)
from . import expansions as _expansions  # noqa: F401  (registers the passes' expansions of tile ops)
from .aggregates import aggregate, constexpr_function
from .block_pointers import advance, block_pointer, make_block_ptr
from .builtins import (
    PropagateNan,
    abs,
    add,
    arange,
    atomic_add,
    atomic_and,
    atomic_cas,
    atomic_max,
    atomic_min,
    atomic_or,
    atomic_xchg,
    atomic_xor,
    broadcast,
    broadcast_to,
    cast,
    cdiv,
    ceil,
    clamp,
    condition,
    cos,
    debug_barrier,
    device_assert,
    device_print,
    div_rn,
    erf,
    exp,
    exp2,
    expand_dims,
    fdiv,
    floor,
    fma,
    full,
    full_like,
    inline_asm_elementwise,
    load,
    log,
    log2,
    max_constancy,
    max_contiguous,
    maximum,
    minimum,
    mul,
    multiple_of,
    num_programs,
    permute,
    program_id,
    ravel,
    reshape,
    rsqrt,
    sigmoid,
    sin,
    sqrt,
    sqrt_rn,
    squeeze,
    static_assert,
    static_print,
    store,
    sub,
    tanh,
    trans,
    umulhi,
    unsqueeze,
    view,
    where,
    zeros,
    zeros_like,
)
from .builtins import as_tensor as to_tensor
from .core import (
    bfloat16,
    const,
    constexpr,
    dtype,
    float8e4b8,
    float8e4nv,
    float8e5,
    float8e5b16,
    float16,
    float32,
    float64,
    int1,
    int8,
    int16,
    int32,
    int64,
    pointer_type,
    tensor,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .descriptors import (
    load_tensor_descriptor,
    make_tensor_descriptor,
    store_tensor_descriptor,
    tensor_descriptor,
)
from .dot_product import dot
from .dot_scaled import dot_scaled
from .random import (
    pair_uniform_to_normal,
    philox,
    philox_impl,
    rand,
    rand4x,
    randint,
    randint4x,
    randn,
    randn4x,
    uint_to_uniform_float,
)
from .reductions import (
    argmax,
    argmin,
    associative_scan,
    cumprod,
    cumsum,
    logical_and,
    logical_or,
    map_elementwise,
    max,
    min,
    reduce,
    reduce_or,
    softmax,
    sum,
    xor_sum,
)
from .reorder import (
    assume,
    bitonic_merge,
    cat,
    flip,
    gather,
    histogram,
    interleave,
    join,
    sort,
    split,
    swizzle2d,
    topk,
)

# Triton's cap on a block's elements, which kernels assert against (tl.static_assert(BLOCK <=
# tl.TRITON_MAX_TENSOR_NUMEL)); tilec's blocks may be larger (the CPU target takes millions), so
# this is only the name and the value ported kernels expect.
TRITON_MAX_TENSOR_NUMEL = 1048576


def range(*args, num_stages=None, loop_unroll_factor=None, **kwargs):
    """`for i in tl.range(lo, hi, step)`: a device loop (options are hints for the GPU pipeliner)."""
    return _py.range(*args)


def static_range(*args):
    """`for i in tl.static_range(lo, hi, step)`: unrolled at compile time (bounds must be constexpr)."""
    return _py.range(*args)


# Triton's tensor member functions: `x.exp()`, `x.cumprod(0)`, `ptrs.atomic_add(v)`, `x.sort()` ...
_MEMBER_FUNCTIONS = (
    "abs", "associative_scan", "atomic_add", "atomic_and", "atomic_cas", "atomic_max", "atomic_min",
    "atomic_or", "atomic_xchg", "atomic_xor", "cast", "cdiv", "ceil", "cos", "cumprod", "div_rn", "erf",
    "exp", "exp2", "flip", "floor", "fma", "gather", "histogram", "interleave", "join", "log", "log2",
    "logical_and", "logical_or", "ravel", "reduce", "reduce_or", "rsqrt", "sigmoid", "sin", "softmax",
    "sort", "split", "sqrt", "sqrt_rn", "store", "topk", "view", "xor_sum",
)  # fmt: skip


def _member(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


for _name in _MEMBER_FUNCTIONS:
    if not hasattr(tensor, _name):
        setattr(tensor, _name, _member(globals()[_name]))

# Triton kernels reach the arithmetic through tl.core too (`tl.core.sub(a, b, sanitize_overflow=False)`)
core.add, core.sub, core.mul = add, sub, mul

pi32_t = pointer_type(int32)  # Triton's name for the int32 pointer type

# Triton's `tl.tuple(iterable)`: compile-time tuples are Python tuples in tilec (indexing, `len`, `+`,
# `==` and unpacking as in Python; elements cannot be assigned). Bound last: the name shadows the
# builtin in this module.
tuple = _py.tuple

_UNSUPPORTED_DTYPES = {"float8e4b15": "Triton's e4m3 with bias 15 (pre-Hopper)"}


def __getattr__(name):
    if name in _UNSUPPORTED_DTYPES:
        raise AttributeError(
            f"tl.{name} ({_UNSUPPORTED_DTYPES[name]}) is not supported by tilec; its fp8 types are "
            "tl.float8e4nv and tl.float8e5 (OCP e4m3, e5m2), tl.float8e4b8 and tl.float8e5b16 (AMD's FNUZ)"
        )
    raise AttributeError(f"module 'tilec.language' has no attribute '{name}'")
