"""`tl.dot_scaled`: matrix products of microscaling (MX) blocks, as in Triton.

An operand comes in one of the formats e2m1 (fp4: two values a byte), e4m3, e5m2 (fp8, as fp8 tensors
or their bytes), bf16 or fp16, with an optional scale per 32 consecutive K values: an e8m0 byte s
meaning 2^(s - 127) (255 is NaN). tilec decodes both operands, applies the scales and runs an ordinary
`tl.dot` (as Triton does on GPUs without MX tensor cores): the scaled values of e2m1, e4m3, e5m2 and
bf16 have at most 8 significant bits, so they are exact in bf16 and the product goes to bf16 tensor
cores; an fp16 operand (11 bits) makes both go as fp32 with tf32 precision, which holds 11 bits exactly.
Scaled values beyond float32's range overflow as they would in any fp32 emulation, and scaled values
in its subnormal range may flush to zero on some targets (x86's bf16 conversion instructions do).
"""

from __future__ import annotations

from . import builtins, core, reorder, semantic
from .builtins import builtin
from .core import tensor
from .dot_product import dot as _dot
from .semantic import SemanticError

FORMATS = ("e2m1", "e4m3", "e5m2", "bf16", "fp16")
GROUP = 32  # K values per scale


def _unpack_e2m1(packed: tensor, axis: int) -> tensor:
    """float32 values of bytes holding two e2m1 numbers each (the low nibble first along `axis`)."""
    if not (packed.dtype.is_int() and packed.dtype.primitive_bitwidth == 8):
        raise SemanticError(
            f"tl.dot_scaled: e2m1 operands are bytes (uint8) of two values, got {packed.dtype}"
        )
    byte = semantic.cast(semantic.cast(packed, core.uint8), core.int32)

    def decode(nibble: tensor) -> tensor:
        exponent = semantic.and_(semantic.shr(nibble, 1), 3)
        mantissa = semantic.cast(semantic.and_(nibble, 1), core.float32)
        scale = semantic.cast(semantic.shl(1, exponent), core.float32)  # 2^e; values are 2^(e-1) x (1.m)
        normal = semantic.mul(semantic.mul(semantic.add(mantissa, 2.0), scale), 0.25)
        magnitude = semantic.where(semantic.compare("eq", exponent, 0), semantic.mul(mantissa, 0.5), normal)
        negative = semantic.compare("ne", semantic.and_(nibble, 8), 0)
        return semantic.where(negative, semantic.neg(magnitude), magnitude)

    low, high = decode(semantic.and_(byte, 15)), decode(semantic.shr(byte, 4))
    if axis == 1:
        return reorder.interleave(low, high)
    return builtins.trans(reorder.interleave(builtins.trans(low), builtins.trans(high)))


def _decode(x, fmt: str, k_axis: int, k_pack: bool, what: str) -> tensor:
    """The operand as float32 values, [M, K] or [K, N]."""
    x = semantic.to_tensor(x)
    if len(x.shape) != 2:
        raise SemanticError(f"tl.dot_scaled: {what} must be 2-D, got shape {list(x.shape)}")
    if fmt == "e2m1":
        return _unpack_e2m1(x, k_axis if k_pack else 1 - k_axis)
    if fmt in ("e4m3", "e5m2"):
        fp8 = core.float8e4nv if fmt == "e4m3" else core.float8e5
        if x.dtype.is_int() and x.dtype.primitive_bitwidth == 8:
            x = semantic.cast(x, fp8, bitcast=True)  # the format's bytes
        if x.dtype != fp8:
            raise SemanticError(
                f"tl.dot_scaled: {what} in format {fmt} must be {fp8} or bytes, got {x.dtype}"
            )
        return semantic.cast(x, core.float32)
    wanted = core.bfloat16 if fmt == "bf16" else core.float16
    if x.dtype != wanted:
        raise SemanticError(f"tl.dot_scaled: {what} in format {fmt} must be {wanted}, got {x.dtype}")
    return semantic.cast(x, core.float32)


def _scale_factors(scale, rows: int, groups: int, what: str) -> tensor:
    """2^(s - 127) as float32 for e8m0 bytes s, shaped [rows, groups] (255: NaN; 0: 2^-127)."""
    scale = semantic.to_tensor(scale)
    if not (scale.dtype.is_int() and scale.dtype.primitive_bitwidth == 8):
        raise SemanticError(f"tl.dot_scaled: {what} must be e8m0 bytes (uint8), got {scale.dtype}")
    if list(scale.shape) != [rows, groups]:
        raise SemanticError(
            f"tl.dot_scaled: {what} must have shape {[rows, groups]}, got {list(scale.shape)}"
        )
    s = semantic.cast(semantic.cast(scale, core.uint8), core.int32)
    power = semantic.cast(semantic.shl(s, 23), core.float32, bitcast=True)
    power = semantic.where(semantic.compare("eq", s, 0), 2.0**-127, power)
    return semantic.where(semantic.compare("eq", s, 255), float("nan"), power)


def _scaled(values: tensor, factors: tensor, k_axis: int) -> tensor:
    """values [M, K] (k_axis 1) or [K, N] (k_axis 0) times factors [M or N, K / 32], per K group."""
    if k_axis == 0:
        return builtins.trans(_scaled(builtins.trans(values), factors, 1))
    rows, k = values.shape
    grouped = builtins.reshape(values, (rows, k // GROUP, GROUP))
    product = semantic.mul(grouped, semantic.expand_dims(factors, 2))
    return builtins.reshape(product, (rows, k))


@builtin
def dot_scaled(
    lhs,
    lhs_scale,
    lhs_format,
    rhs,
    rhs_scale,
    rhs_format,
    acc=None,
    fast_math=False,
    lhs_k_pack=True,
    rhs_k_pack=True,
    out_dtype=core.float32,
) -> tensor:
    """`(lhs x 2^(lhs_scale - 127)) @ (rhs x 2^(rhs_scale - 127)) + acc` for microscaled operands:
    formats "e2m1" (uint8 bytes of two values; packed along K unless `*_k_pack=False`), "e4m3",
    "e5m2" (fp8 or their bytes), "bf16", "fp16"; scales uint8 e8m0 of shape [M, K / 32] for lhs and
    [N, K / 32] for rhs, or None. Decoded and scaled in float32, then one tl.dot (bf16, or tf32 when
    an operand is fp16: both exact for these values) accumulating in float32. `fast_math` is accepted
    (the NaN of scale 255 is always kept)."""
    for fmt, what in ((lhs_format, "lhs_format"), (rhs_format, "rhs_format")):
        if fmt not in FORMATS:
            raise SemanticError(f"tl.dot_scaled: {what} must be one of {', '.join(FORMATS)}, got {fmt!r}")
    a = _decode(lhs, lhs_format, 1, bool(lhs_k_pack), "lhs")
    b = _decode(rhs, rhs_format, 0, bool(rhs_k_pack), "rhs")
    (m, k), (k_b, n) = a.shape, b.shape
    if k != k_b:
        raise SemanticError(f"tl.dot_scaled: K differs: lhs holds [{m}, {k}] values, rhs [{k_b}, {n}]")
    if (lhs_scale is not None or rhs_scale is not None) and k % GROUP:
        raise SemanticError(f"tl.dot_scaled: K ({k}) must be a multiple of {GROUP} to be scaled")
    if lhs_scale is not None:
        a = _scaled(a, _scale_factors(lhs_scale, m, k // GROUP, "lhs_scale"), 1)
    if rhs_scale is not None:
        b = _scaled(b, _scale_factors(rhs_scale, n, k // GROUP, "rhs_scale"), 0)
    if "fp16" in (lhs_format, rhs_format):
        return _dot(a, b, acc, input_precision="tf32", out_dtype=out_dtype)
    a, b = semantic.cast(a, core.bfloat16), semantic.cast(b, core.bfloat16)
    return _dot(a, b, acc, out_dtype=out_dtype)
