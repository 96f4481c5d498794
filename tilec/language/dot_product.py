"""tl.dot: two- and three-dimensional, with accumulators, input precisions and bf16 splits."""

from __future__ import annotations

import builtins as _py

from . import core, semantic
from .builtins import as_dtype, builtin, expand_dims, reshape, tile
from .core import dtype, tensor
from .semantic import SemanticError, to_tensor

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
    requested = as_dtype(out_dtype) if out_dtype is not None else None
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
