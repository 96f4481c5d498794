"""Float `%` (C's fmod) computed exactly with the language's own operations, for
tile-exact-float-remainder (tilec/passes/exact_remainder.py explains the method)."""

from __future__ import annotations

from dataclasses import dataclass

from tilec._lazy import lazy_module

from . import core, semantic

_math_d = lazy_module("mlir.dialects.math")


@dataclass(frozen=True)
class _Format:
    bits: object  # the same-width integer type (core.int32 / core.int64)
    mantissa: int  # stored mantissa bits
    bias: int
    steps: int  # reduction steps for the widest exponent gap

    def exponent(self, v):
        """The unbiased exponent of positive finite v, subnormals included (scaled up to normal)."""
        small = semantic.compare("lt", v, 2.0 ** (1 - self.bias))
        scaled = semantic.where(small, semantic.mul(v, 2.0 ** (self.mantissa + 1)), v)
        field = semantic.shr(semantic.cast(scaled, self.bits, bitcast=True), self.mantissa)
        shift = semantic.where(small, self.bias + self.mantissa + 1, self.bias)
        return semantic.sub(semantic.cast(field, core.int32), shift)

    def power_of_two(self, k, dtype):
        """2^k for 0 <= k <= bias (built from its exponent field)."""
        field = semantic.shl(semantic.cast(semantic.add(k, self.bias), self.bits), self.mantissa)
        return semantic.cast(field, dtype, bitcast=True)


def exact_fmod(x, y):
    """fmod of float32 or float64 tensors (or scalars) x and y, exactly (module doc)."""
    dtype = x.dtype
    f = _Format(core.int64, 52, 1023, 41) if dtype == core.float64 else _Format(core.int32, 23, 127, 12)
    magnitude = semantic.abs_(x)
    ax, ay = magnitude, semantic.abs_(y)
    ey = f.exponent(ay)
    for _ in range(f.steps):
        k = semantic.maximum(semantic.sub(semantic.sub(f.exponent(ax), ey), f.mantissa), 0)
        half = semantic.shr(k, 1)
        scaled = semantic.mul(
            semantic.mul(ay, f.power_of_two(half, dtype)), f.power_of_two(semantic.sub(k, half), dtype)
        )
        q = core.tensor(_math_d.trunc(semantic.truediv(ax, scaled, precise=True).handle), dtype, ax.shape)
        r = semantic.fma(semantic.sub(0.0, q), scaled, ax)
        r = semantic.where(semantic.compare("lt", r, 0.0), semantic.add(r, scaled), r)
        ax = semantic.where(semantic.compare("ge", ax, ay), r, ax)
    result = core.tensor(_math_d.copysign(ax.handle, x.handle), dtype, ax.shape)
    invalid = semantic.logical_or(
        semantic.logical_or(semantic.compare("ne", x, x), semantic.compare("ne", y, y)),
        semantic.logical_or(semantic.compare("eq", y, 0.0), semantic.compare("eq", magnitude, float("inf"))),
    )
    return semantic.where(invalid, float("nan"), result)
