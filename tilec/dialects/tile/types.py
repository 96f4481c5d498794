"""The dialect's types: `!tile.ptr<T>` (with an address space) and the builtin tensors of scalars or
pointers its values are; helpers that take them apart.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from mlir import ir

DIALECT = "tile"


TYPES_IRDL = """
  irdl.type @ptr {
    %pointee = irdl.any
    irdl.parameters(pointee: %pointee)
  }
  irdl.type @ptr_as {
    %pointee = irdl.any
    %space = irdl.any
    irdl.parameters(pointee: %pointee, addrspace: %space)
  }
"""


TYPES_DOC = """\
### `!tile.ptr<T>` and `!tile.ptr_as<T, N : i32>`

A pointer to a value of type `T` in global memory (`!tile.ptr<T>`), or in address space `N`
(`!tile.ptr_as<f32, 3 : i32>` is a pointer into shared memory). A tensor of pointers,
`tensor<128x!tile.ptr<f32>>`, holds one address per element: this is how tile code addresses memory.
"""


def ptr_type(pointee: ir.Type, address_space: int | None = None) -> ir.Type:
    """`!tile.ptr<pointee>`, or `!tile.ptr_as<pointee, N : i32>` for address space N."""
    if address_space is None:
        return ir.Type.parse(f"!tile.ptr<{pointee}>")
    return ir.Type.parse(f"!tile.ptr_as<{pointee}, {address_space} : i32>")


def is_ptr(t: ir.Type) -> bool:
    s = str(t)
    return s.startswith("!tile.ptr<") or s.startswith("!tile.ptr_as<")


@functools.cache
def _split_ptr(text: str) -> tuple[str, int | None]:
    inner = text[text.index("<") + 1 : -1]
    if text.startswith("!tile.ptr_as<"):
        pointee, space = inner.rsplit(",", 1)
        return pointee.strip(), int(space.split(":")[0])
    return inner, None


def pointee_type(t: ir.Type) -> ir.Type:
    """The `T` of `!tile.ptr<T>`."""
    return ir.Type.parse(_split_ptr(str(t))[0], t.context)


def address_space(t: ir.Type) -> int | None:
    return _split_ptr(str(t))[1]


def is_tensor(t: ir.Type) -> bool:
    return isinstance(t, ir.RankedTensorType)


def as_tensor(t: ir.Type) -> ir.RankedTensorType | None:
    if isinstance(t, ir.RankedTensorType):
        return ir.RankedTensorType(t)
    return None


def shape_of(t: ir.Type) -> list[int]:
    """Shape of a tensor type, `[]` for a scalar."""
    tt = as_tensor(t)
    return list(tt.shape) if tt is not None else []


def element_of(t: ir.Type) -> ir.Type:
    """Element type of a tensor type; a scalar type is its own element."""
    tt = as_tensor(t)
    return tt.element_type if tt is not None else t


def with_shape(element: ir.Type, shape: Sequence[int], encoding: ir.Attribute | None = None):
    """`tensor<shape x element>`, or the scalar `element` when shape is empty."""
    if not shape:
        return element
    return ir.RankedTensorType.get(list(shape), element, encoding)


def defining_op(value: ir.Value) -> ir.Operation | None:
    """The op whose result `value` is; None for a block argument."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def splat_constant(value: ir.Value) -> ir.Attribute | None:
    """The scalar attribute every element of `value` holds when it is a constant, a splat constant or
    a tile.splat of a constant; else None."""
    op = defining_op(value)
    if op is None:
        return None
    if op.name == "tile.splat":
        return splat_constant(op.operands[0])
    if op.name != "arith.constant":
        return None
    attr = op.attributes["value"]
    if isinstance(attr, ir.DenseElementsAttr):
        dense = ir.DenseElementsAttr(attr)
        return dense.get_splat_value() if dense.is_splat else None
    return attr


def is_int(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType)


def is_float(t: ir.Type) -> bool:
    return isinstance(t, ir.FloatType)


FP8 = ("f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ")


_FLOATS = {"f16", "bf16", "f32", "f64", *FP8, "tf32"}
