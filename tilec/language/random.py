"""Counter-based random numbers in kernels, as Triton's `tl.rand` family: `tl.randint(seed, offset)`,
`tl.rand`, `tl.randn`, their `4x` forms and `tl.philox`.

Each element's numbers are a pure function of (seed, offset): Philox-4x32-10 (Salmon et al., "Parallel
random numbers: as easy as 1, 2, 3", SC'11; 4x64 when the offsets are 64-bit) with the counter
(offset, 0, 0, 0) and the seed's low and high 32 bits as the key. There is no state: the same seed
and offsets give the same numbers on every target and in every launch, which is what makes dropout's
mask recomputable in the backward pass. The streams are those of Triton's generator (same rounds,
constants, key and counter layout, and the same conversions to floats), so kernels ported from
Triton draw the same numbers.
"""

from __future__ import annotations

import math

from . import builtins, core, semantic
from .builtins import builtin
from .core import tensor
from .semantic import SemanticError

N_ROUNDS_DEFAULT = 10

# Weyl increments of the key and the round multipliers, per counter width
_CONSTANTS = {
    32: {"key_a": 0x9E3779B9, "key_b": 0xBB67AE85, "round_a": 0xD2511F53, "round_b": 0xCD9E8D57},
    64: {
        "key_a": 0x9E3779B97F4A7C15,
        "key_b": 0xBB67AE8584CAA73B,
        "round_a": 0xD2E7470EE14C6C93,
        "round_b": 0xCA5A826395121157,
    },
}


def _unsigned(bits: int) -> core.dtype:
    return core.uint32 if bits == 32 else core.uint64


def _mulhi(a: int, x: tensor, bits: int) -> tensor:
    """The high half of the 2*bits-bit product of the constant `a` and `x` (unsigned)."""
    if bits == 32:
        return builtins.umulhi(semantic.constant(a, core.uint32), x)
    # 64 x 64 -> high 64 bits from 32-bit halves (no 128-bit integers in the tile dialect)
    mask = semantic.constant(0xFFFFFFFF, core.uint64)
    a_lo, a_hi = a & 0xFFFFFFFF, a >> 32
    x_lo, x_hi = semantic.and_(x, mask), semantic.shr(x, semantic.constant(32, core.uint64))

    def c(v):
        return semantic.constant(v, core.uint64)

    lo_lo = semantic.mul(x_lo, c(a_lo))
    hi_lo = semantic.mul(x_hi, c(a_lo))
    lo_hi = semantic.mul(x_lo, c(a_hi))
    hi_hi = semantic.mul(x_hi, c(a_hi))
    thirty_two = c(32)
    middle = semantic.add(
        semantic.add(semantic.shr(lo_lo, thirty_two), semantic.and_(hi_lo, mask)), semantic.and_(lo_hi, mask)
    )
    return semantic.add(
        semantic.add(semantic.add(hi_hi, semantic.shr(hi_lo, thirty_two)), semantic.shr(lo_hi, thirty_two)),
        semantic.shr(middle, thirty_two),
    )


@builtin
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=N_ROUNDS_DEFAULT):
    """`n_rounds` Philox rounds of the counter (c0, c1, c2, c3) under the key (k0, k1); all unsigned
    integers of one width (32 or 64 bits). Returns the four words."""
    words = [semantic.to_tensor(c) for c in (c0, c1, c2, c3)]
    t = words[0].dtype
    if t not in (core.uint32, core.uint64) or any(w.dtype != t for w in words):
        raise SemanticError(
            f"tl.philox_impl: the counter words must all be uint32 or all uint64, got {[str(w.dtype) for w in words]}"
        )
    bits = t.primitive_bitwidth
    k = _CONSTANTS[bits]
    c0, c1, c2, c3 = words
    k0, k1 = (semantic.cast(semantic.to_tensor(key, t), t) for key in (k0, k1))
    for _ in range(builtins.const_int(n_rounds, "tl.philox: n_rounds")):
        c0, c1, c2, c3 = (
            semantic.xor_(semantic.xor_(_mulhi(k["round_b"], c2, bits), c1), k0),
            semantic.mul(c2, semantic.constant(k["round_b"], t)),
            semantic.xor_(semantic.xor_(_mulhi(k["round_a"], c0, bits), c3), k1),
            semantic.mul(c0, semantic.constant(k["round_a"], t)),
        )
        k0 = semantic.add(k0, semantic.constant(k["key_a"], t))
        k1 = semantic.add(k1, semantic.constant(k["key_b"], t))
    return c0, c1, c2, c3


@builtin
def philox(seed, c0, c1, c2, c3, n_rounds=N_ROUNDS_DEFAULT):
    """Philox of the counter (c0, c1, c2, c3) (integers of 32 or 64 bits, reinterpreted as unsigned)
    keyed by `seed` (an integer: its low and high 32 bits for 32-bit counters)."""
    seed = semantic.to_tensor(seed)
    if not seed.dtype.is_int() or seed.shape:
        raise SemanticError(f"tl.philox: the seed must be an integer scalar, got {seed!r}")
    words = [semantic.to_tensor(c) for c in (c0, c1, c2, c3)]
    bits = words[0].dtype.primitive_bitwidth
    if not words[0].dtype.is_int() or bits not in (32, 64):
        raise SemanticError(f"tl.philox: offsets must be 32- or 64-bit integers, got {words[0].dtype}")
    t = _unsigned(bits)
    seed = semantic.cast(seed, core.uint64)
    if bits == 32:
        low = semantic.cast(semantic.and_(seed, semantic.constant(0xFFFFFFFF, core.uint64)), t)
        high = semantic.cast(semantic.shr(seed, semantic.constant(32, core.uint64)), t)
    else:
        low, high = seed, semantic.constant(0, t)
    if any(not w.dtype.is_int() or w.dtype.primitive_bitwidth != bits for w in words):
        raise SemanticError(
            f"tl.philox: the four counter words must be integers of one width, got {[str(w.dtype) for w in words]}"
        )
    words = [semantic.cast(w, t) for w in words]  # same width: the bits, read as unsigned
    return philox_impl(*words, low, high, n_rounds)


def _signed_like(t: core.dtype) -> core.dtype:
    return core.int32 if t.primitive_bitwidth == 32 else core.int64


@builtin
def randint4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Four blocks of random unsigned integers for each element of `offset`."""
    offset = semantic.to_tensor(offset)
    if not offset.dtype.is_int():
        raise SemanticError(f"tl.randint: offsets must be integers, got {offset.dtype}")
    zero = semantic.mul(offset, 0)
    return philox(seed, offset, zero, zero, zero, n_rounds)


@builtin
def randint(seed, offset, n_rounds=N_ROUNDS_DEFAULT) -> tensor:
    """A random unsigned integer (uint32; uint64 for 64-bit offsets) for each element of `offset`."""
    return randint4x(seed, offset, n_rounds)[0]


@builtin
def uint_to_uniform_float(x) -> tensor:
    """Random bits to a float32 uniform in [0, 1)."""
    x = semantic.to_tensor(x)
    if not x.dtype.is_int() or x.dtype.primitive_bitwidth not in (32, 64):
        raise SemanticError(f"tl.uint_to_uniform_float: expected 32- or 64-bit integers, got {x.dtype}")
    bits = x.dtype.primitive_bitwidth
    x = semantic.cast(x, _signed_like(x.dtype))  # the same bits, read as signed
    # Folding negatives onto [0, 2^(bits-1)) and scaling by the largest factor that keeps the top value
    # below 1.0 after float rounding.
    x = semantic.where(semantic.compare("lt", x, 0), semantic.sub(semantic.neg(x), 1), x)
    scale = 4.6566127342e-10 if bits == 32 else 1.0842020432385337e-19
    return semantic.mul(x, scale)


@builtin
def rand(seed, offset, n_rounds=N_ROUNDS_DEFAULT) -> tensor:
    """A float32 uniform in [0, 1) for each element of `offset`."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@builtin
def rand4x(seed, offsets, n_rounds=N_ROUNDS_DEFAULT):
    """Four independent uniform blocks for each element of `offsets`."""
    return tuple(uint_to_uniform_float(r) for r in randint4x(seed, offsets, n_rounds))


@builtin
def pair_uniform_to_normal(u1, u2):
    """Two independent standard normals from two uniforms (the Box-Muller transform)."""
    u1 = semantic.maximum(semantic.to_tensor(u1), 1.0e-7)
    angle = semantic.mul(2 * math.pi, u2)
    radius = semantic.float_unary("sqrt", semantic.mul(-2.0, semantic.float_unary("log", u1)))
    return (
        semantic.mul(radius, semantic.float_unary("cos", angle)),
        semantic.mul(radius, semantic.float_unary("sin", angle)),
    )


@builtin
def randn(seed, offset, n_rounds=N_ROUNDS_DEFAULT) -> tensor:
    """A float32 standard normal for each element of `offset`."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    return pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))[0]


@builtin
def randn4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Four independent standard-normal blocks for each element of `offset`."""
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    return (*pair_uniform_to_normal(u1, u2), *pair_uniform_to_normal(u3, u4))
