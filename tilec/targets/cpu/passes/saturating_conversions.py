"""tile-cpu-saturating-conversions: float -> integer conversions give NVIDIA's results on the host.

LLVM leaves fptosi / fptoui of a NaN or of a value outside the integer's range undefined, and x86
answers INT_MIN (1e10 -> int32 was -2147483648, NaN too). NVIDIA GPUs saturate: PTX's cvt.rzi
clamps to the destination's range, converting to 16 bits for 8-bit results (then truncated, so
300.7 -> int8 is 44 there); NaN gives 0, except from float64 or into 64 bits, where it gives the
pattern 1 << (bits - 1) (INT_MIN; 2^63 for uint64; measured on an H200, which the PTX manual does
not say). The CPU target (and the interpreter, alike) now computes
exactly that, so a kernel's results on the host match the NVIDIA GPU's. (AMD's v_cvt_i32_f32 agrees
for 32-bit results; for 8-, 16- and 64-bit ones out of range it differs: those are undefined in Triton.)

    %i = arith.fptosi %x : tensor<64xf32> to tensor<64xi32>
      =>  %c = minnum(maxnum(%x, -2^31), 2147483520)      (the largest float32 below 2^31)
          %i = arith.fptosi (select isnan(%x), 0, %c)
          %i = select (%x >= 2^31), INT_MAX, %i
    For 8- and 16-bit results the bounds are exact floats and the clamp alone does it (a float
    clamp and select vectorize: the quantization x.to(int8) of 4M floats runs within noise of before).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith

from tilec.dialects import tile
from tilec.passes.base import TilePass, ops_named

CONVERSIONS = ("arith.fptosi", "arith.fptoui")


@dataclass(frozen=True)
class CpuSaturatingConversionsPass(TilePass):
    """Clamp every float -> integer conversion to PTX cvt.rzi's results (see the module doc)."""

    name: ClassVar[str] = "tile-cpu-saturating-conversions"

    def run(self, module: ir.Module) -> None:
        for name in CONVERSIONS:
            for op in ops_named(module.operation, name):
                width = ir.IntegerType(tile.element_of(op.results[0].type)).width
                if width > 1:  # a cast to bool is a comparison, not a conversion
                    _saturate(op, signed=name == "arith.fptosi", width=width)


def _with_shape(like: ir.Type, elem: ir.Type) -> ir.Type:
    shaped = tile.as_tensor(like)
    return elem if shaped is None else ir.RankedTensorType.get(list(shaped.shape), elem)


_LARGEST = {"f32": 3.4028234663852886e38}


def _constant(t: ir.Type, value) -> ir.Value:
    elem = tile.element_of(t)
    if isinstance(elem, ir.FloatType):
        if abs(value) > _LARGEST.get(str(elem), float("inf")):
            value = float("inf") if value > 0 else float("-inf")
        attr = ir.FloatAttr.get(elem, value)
    else:
        attr = ir.IntegerAttr.get(elem, value)
    if tile.as_tensor(t) is not None:
        attr = ir.DenseElementsAttr.get_splat(t, attr)
    return arith.ConstantOp(t, attr).result


def _saturate(op: ir.Operation, signed: bool, width: int) -> None:
    x = op.operands[0]
    float_t = x.type
    bits = max(width, 16)  # PTX converts to 16 bits for 8-bit results
    wide_t = _with_shape(x.type, ir.IntegerType.get_signless(bits))
    low, high = (-(2.0 ** (bits - 1)), 2.0 ** (bits - 1)) if signed else (0.0, 2.0**bits)
    convert = arith.fptosi if signed else arith.fptoui
    with op.location, ir.InsertionPoint(op):
        if str(tile.element_of(float_t)) in ("f16", "bf16"):
            # exactly in float32, where the bounds (32767, 2^31, ...) are values
            float_t = _with_shape(x.type, ir.F32Type.get())
            x = arith.extf(float_t, x)
        nan = arith.cmpf(arith.CmpFPredicate.UNO, x, x)
        # clamped in the float type: minnum / maxnum (a NaN in becomes a bound, replaced below)
        clamped = arith.maxnumf(x, _constant(float_t, low))
        if bits == 16:  # 16-bit bounds are exact floats: clamping is all there is to it
            clamped = arith.minnumf(clamped, _constant(float_t, high - 1))
            wide = convert(wide_t, arith.select(nan, _constant(float_t, 0.0), clamped))
        else:  # 2^31 - 1 is no float32: clamp below 2^(bits-1), then pick the maximum past it
            below_high = _float_below(float_t, high)
            wide = convert(
                wide_t, arith.select(nan, _constant(float_t, 0.0), arith.minnumf(clamped, below_high))
            )
            largest = (1 << (bits - 1)) - 1 if signed else -1  # all ones: the unsigned maximum
            above = arith.cmpf(arith.CmpFPredicate.OGE, x, _constant(float_t, high))
            wide = arith.select(above, _constant(wide_t, largest), wide)
        if str(tile.element_of(op.operands[0].type)) == "f64" or bits == 64:
            # NaN's result is the sign bit alone there (the select above makes it 0)
            wide = arith.select(nan, _constant(wide_t, -(1 << (bits - 1))), wide)
        result = wide if bits == width else arith.trunci(op.results[0].type, wide)
    op.results[0].replace_all_uses_with(result)
    op.erase()


def _float_below(t: ir.Type, power: float) -> ir.Value:
    """The largest value of float type `t` (float32 or float64) below the power of two `power`."""
    elem = tile.element_of(t)
    mantissa = {"f32": 24, "f64": 53}[str(elem)]
    value = power - power / 2.0**mantissa
    return _constant(t, value)
