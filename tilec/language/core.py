"""The values tile code computes with: dtypes, `tensor`, and `constexpr`.

A `tensor` wraps an MLIR value built by the frontend; its shape `()` means a scalar (a plain MLIR scalar
value), any other shape a builtin `tensor<...>`. Compile-time values (block sizes, dtypes, Python
numbers) are plain Python objects; `constexpr` marks parameters that must be one.
"""

from __future__ import annotations

import numpy as np

from tilec._lazy import lazy_module

ir = lazy_module("mlir.ir")

try:
    import ml_dtypes

    _BF16 = np.dtype(ml_dtypes.bfloat16)
    _FP8 = {
        "fp8e4nv": np.dtype(ml_dtypes.float8_e4m3fn),
        "fp8e5": np.dtype(ml_dtypes.float8_e5m2),
        "fp8e4b8": np.dtype(ml_dtypes.float8_e4m3fnuz),
        "fp8e5b16": np.dtype(ml_dtypes.float8_e5m2fnuz),
    }
except ImportError:  # pragma: no cover - ml_dtypes is a dependency
    _BF16 = None
    _FP8 = {}


class const:
    """Annotation for pointer parameters a kernel only reads (`x_ptr: tl.const`): the parameter is a
    `pointer_type(..., const=True)`, through which stores and atomics are compile errors, as in Triton.
    A const and a plain pointer are different types (a run-time `if` cannot merge them)."""


class shape_tuple(tuple):
    """A tensor's shape: a tuple that also equals the list of its sizes and concatenates with lists,
    since Triton's shapes are lists (`tl.static_assert(x.shape == [BLOCK])`, `x.shape + [1]`)."""

    __slots__ = ()

    def __eq__(self, other):
        return tuple.__eq__(self, tuple(other) if isinstance(other, list) else other)

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = tuple.__hash__

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return shape_tuple(item) if isinstance(index, slice) else item

    def __add__(self, other):
        if isinstance(other, tuple | list):
            return shape_tuple(tuple(self) + tuple(other))
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, list):
            return other + list(self)
        if isinstance(other, tuple):
            return shape_tuple(other + tuple(self))
        return NotImplemented


class constexpr:
    """Annotation for compile-time parameters (`BLOCK: tl.constexpr`). `tl.constexpr(v)` is `v`, except
    that a number so wrapped on the host launches as a compile-time constant wherever it is passed (a
    parameter without the annotation, an element of a tuple argument), as in Triton."""

    def __new__(cls, value=None):
        marked = _CONSTEXPR_NUMBERS.get(type(value))
        return value if marked is None else marked(value)


class _constexpr_int(int):
    """`tl.constexpr(n)` made on the host: an int in every respect, specialized as a constant."""

    __slots__ = ()
    __repr__ = int.__repr__


class _constexpr_float(float):
    """`tl.constexpr(x)` made on the host: a float in every respect, specialized as a constant."""

    __slots__ = ()
    __repr__ = float.__repr__


_CONSTEXPR_NUMBERS = {int: _constexpr_int, float: _constexpr_float}
# marked number class -> the plain class the kernel sees
CONSTEXPR_MARKED = {_constexpr_int: int, _constexpr_float: float}


class dtype:
    """A scalar element type, named as in Triton (`fp32`, `bf16`, `int32`, `uint8`, `int1`)."""

    _INT = {"int1": 1, "int8": 8, "int16": 16, "int32": 32, "int64": 64}
    _UINT = {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}
    # fp8e4nv: OCP e4m3 ("FN": finite, max 448, NaN but no inf); fp8e5: OCP e5m2 (max 57344, inf, NaN);
    # fp8e4b8 / fp8e5b16: AMD's "FNUZ" e4m3 / e5m2 (biases 8 and 16, max 240 / 57344, no inf, no -0,
    # the one NaN 0x80)
    _FLOAT = {
        "fp8e4nv": 8,
        "fp8e5": 8,
        "fp8e4b8": 8,
        "fp8e5b16": 8,
        "fp16": 16,
        "bf16": 16,
        "fp32": 32,
        "fp64": 64,
    }

    def __init__(self, name: str):
        if name not in self._INT and name not in self._UINT and name not in self._FLOAT:
            raise ValueError(f"unknown dtype '{name}'")
        self.name = name

    # -- classification ------------------------------------------------------------------------
    @property
    def primitive_bitwidth(self) -> int:
        return {**self._INT, **self._UINT, **self._FLOAT}[self.name]

    def is_floating(self) -> bool:
        return self.name in self._FLOAT

    def is_int(self) -> bool:
        return self.name in self._INT or self.name in self._UINT

    def is_int_signed(self) -> bool:
        return self.name in self._INT

    def is_int_unsigned(self) -> bool:
        return self.name in self._UINT

    def is_bool(self) -> bool:
        return self.name == "int1"

    def is_ptr(self) -> bool:
        return False

    def is_fp16(self):
        return self.name == "fp16"

    def is_bf16(self):
        return self.name == "bf16"

    def is_fp32(self):
        return self.name == "fp32"

    def is_fp64(self):
        return self.name == "fp64"

    def is_fp8(self):
        return self.name in ("fp8e4nv", "fp8e5", "fp8e4b8", "fp8e5b16")

    def is_standard_floating(self) -> bool:
        return self.name in ("fp16", "bf16", "fp32", "fp64")

    def is_block(self) -> bool:
        return False

    def is_void(self) -> bool:
        return False

    @property
    def scalar(self) -> dtype:
        return self

    # Triton's dtype attributes that kernels and tests read
    _MANTISSA = {
        "fp8e4nv": 3,
        "fp8e5": 2,
        "fp8e4b8": 3,
        "fp8e5b16": 2,
        "fp16": 10,
        "bf16": 7,
        "fp32": 23,
        "fp64": 52,
    }
    _BIAS = {
        "fp8e4nv": 7,
        "fp8e5": 15,
        "fp8e4b8": 8,
        "fp8e5b16": 16,
        "fp16": 15,
        "bf16": 127,
        "fp32": 127,
        "fp64": 1023,
    }

    @property
    def fp_mantissa_width(self) -> int:
        """Bits of the fraction of a floating-point type (23 for fp32)."""
        if self.name not in self._MANTISSA:
            raise AttributeError(f"{self.name} is not a floating-point type: it has no fp_mantissa_width")
        return self._MANTISSA[self.name]

    @property
    def exponent_bias(self) -> int:
        if self.name not in self._BIAS:
            raise AttributeError(f"{self.name} is not a floating-point type: it has no exponent_bias")
        return self._BIAS[self.name]

    @property
    def int_bitwidth(self) -> int:
        if not self.is_int():
            raise AttributeError(f"{self.name} is not an integer type: it has no int_bitwidth")
        return self.primitive_bitwidth

    class SIGNEDNESS:
        SIGNED = 0
        UNSIGNED = 1

    class KIND:
        BOOLEAN = 0
        INTEGRAL = 1
        FLOATING = 2

    @property
    def int_signedness(self) -> int:
        if not self.is_int():
            raise AttributeError(f"{self.name} is not an integer type: it has no int_signedness")
        unsigned = self.name in self._UINT or self.name == "int1"  # Triton's int1 is unsigned
        return dtype.SIGNEDNESS.UNSIGNED if unsigned else dtype.SIGNEDNESS.SIGNED

    def kind(self) -> int:
        if self.is_bool():
            return dtype.KIND.BOOLEAN
        return dtype.KIND.INTEGRAL if self.is_int() else dtype.KIND.FLOATING

    def get_int_max_value(self) -> int:
        if not self.is_int():
            raise AttributeError(f"{self.name} is not an integer type")
        bits = self.primitive_bitwidth
        return (1 << bits) - 1 if self.name in self._UINT or bits == 1 else (1 << (bits - 1)) - 1

    def get_int_min_value(self) -> int:
        if not self.is_int():
            raise AttributeError(f"{self.name} is not an integer type")
        bits = self.primitive_bitwidth
        return 0 if self.name in self._UINT or bits == 1 else -(1 << (bits - 1))

    # -- conversions ---------------------------------------------------------------------------
    def to_ir(self) -> ir.Type:
        if self.is_int():
            return ir.IntegerType.get_signless(self.primitive_bitwidth)
        return {
            "fp8e4nv": ir.Float8E4M3FNType.get,
            "fp8e5": ir.Float8E5M2Type.get,
            "fp8e4b8": ir.Float8E4M3FNUZType.get,
            "fp8e5b16": ir.Float8E5M2FNUZType.get,
            "fp16": ir.F16Type.get,
            "bf16": ir.BF16Type.get,
            "fp32": ir.F32Type.get,
            "fp64": ir.F64Type.get,
        }[self.name]()

    def to_numpy(self) -> np.dtype:
        if self.name == "bf16":
            return _BF16
        if self.is_fp8():
            return _FP8[self.name]
        table = {"int1": np.bool_, "fp16": np.float16, "fp32": np.float32, "fp64": np.float64}
        if self.name in table:
            return np.dtype(table[self.name])
        return np.dtype(self.name)

    def __eq__(self, other):
        return isinstance(other, dtype) and not other.is_ptr() and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"tl.{_PUBLIC_NAMES.get(self.name, self.name)}"

    def __str__(self):
        return self.name


def _is_named(name: str):
    def test(self) -> bool:
        return self.name == name

    test.__name__ = f"is_{name}"
    return test


for _name in ("int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "fp8e4nv", "fp8e5", "fp8e4b8", "fp8e5b16"):  # fmt: skip
    setattr(dtype, f"is_{_name}", _is_named(_name))
dtype.is_fp8e4b15 = lambda self: False  # Triton's pre-Hopper fp8 type, which tilec does not have


class pointer_type(dtype):
    """A pointer to `element_ty` (in address space `address_space`, 1 = global); `const`: read-only
    (a `tl.const` parameter and the pointers made from it)."""

    def __init__(self, element_ty: dtype, address_space: int = 1, const: bool = False):
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = bool(const)
        self.name = f"const_pointer<{element_ty}>" if const else f"pointer<{element_ty}>"

    def is_ptr(self) -> bool:
        return True

    def is_floating(self):
        return False

    def is_int(self):
        return False

    def is_int_signed(self):
        return False

    def is_int_unsigned(self):
        return False

    def is_bool(self):
        return False

    def is_fp8(self):
        return False

    @property
    def primitive_bitwidth(self):
        return 64

    def to_ir(self) -> ir.Type:
        from tilec.dialects import tile

        return tile.ptr_type(self.element_ty.to_ir())

    def to_numpy(self):
        return np.dtype(np.int64)

    def __eq__(self, other):
        return (
            isinstance(other, pointer_type)
            and other.element_ty == self.element_ty
            and other.const == self.const
        )

    def __hash__(self):
        return hash(("ptr", self.element_ty.name, self.const))

    def __repr__(self):
        return (
            f"pointer_type({self.element_ty!r}, const=True)"
            if self.const
            else f"pointer_type({self.element_ty!r})"
        )

    def __str__(self):
        return f"*const {self.element_ty}" if self.const else f"*{self.element_ty}"


int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")
float8e4nv = dtype("fp8e4nv")
float8e5 = dtype("fp8e5")
float8e4b8 = dtype("fp8e4b8")
float8e5b16 = dtype("fp8e5b16")

_PUBLIC_NAMES = {
    "fp16": "float16",
    "bf16": "bfloat16",
    "fp32": "float32",
    "fp64": "float64",
    "fp8e4nv": "float8e4nv",
    "fp8e5": "float8e5",
    "fp8e4b8": "float8e4b8",
    "fp8e5b16": "float8e5b16",
}

# Triton's signature strings: "*fp32", "i32", "u8", "fp16", "bf16", "i1".
_SIG = {
    "i1": int1,
    "i8": int8,
    "i16": int16,
    "i32": int32,
    "i64": int64,
    "u1": int1,
    "u8": uint8,
    "u16": uint16,
    "u32": uint32,
    "u64": uint64,
    "fp16": float16,
    "bf16": bfloat16,
    "fp32": float32,
    "f32": float32,
    "fp64": float64,
    "fp8e4nv": float8e4nv,
    "fp8e5": float8e5,
    "fp8e4b8": float8e4b8,
    "fp8e5b16": float8e5b16,
}


def dtype_from_signature(text: str) -> dtype:
    """`*fp32` -> pointer_type(float32); `i32` -> int32."""
    text = text.strip()
    if text.startswith("*"):
        return pointer_type(dtype_from_signature(text[1:]))
    if text not in _SIG:
        raise ValueError(f"unknown type '{text}' (expected e.g. *fp32, i32, i64, fp32, bf16, u8)")
    return _SIG[text]


def signature_name(t: dtype) -> str:
    if t.is_ptr():
        return "*" + signature_name(t.element_ty)
    for k, v in _SIG.items():
        if v == t and k not in ("u1", "f32"):
            return k
    raise ValueError(t)


def dtype_from_numpy(np_dtype) -> dtype:
    np_dtype = np.dtype(np_dtype)
    if _BF16 is not None and np_dtype == _BF16:
        return bfloat16
    for name, fp8 in _FP8.items():
        if np_dtype == fp8:
            return dtype(name)
    table = {
        np.dtype(np.bool_): int1,
        np.dtype(np.int8): int8,
        np.dtype(np.int16): int16,
        np.dtype(np.int32): int32,
        np.dtype(np.int64): int64,
        np.dtype(np.uint8): uint8,
        np.dtype(np.uint16): uint16,
        np.dtype(np.uint32): uint32,
        np.dtype(np.uint64): uint64,
        np.dtype(np.float16): float16,
        np.dtype(np.float32): float32,
        np.dtype(np.float64): float64,
    }
    if np_dtype not in table:
        raise TypeError(
            f"arrays of dtype {np_dtype} are not supported by tilec kernels (supported: bool, int8-64, "
            "uint8-64, float16, bfloat16, float32, float64 and the float8 types; a complex array can be "
            "passed as its real view, x.view(float32), of twice the length)"
        )
    return table[np_dtype]


def dtype_from_ir(t: ir.Type, signed: bool = True) -> dtype:
    text = str(t)
    if text.startswith("!tile.ptr"):
        from tilec.dialects import tile

        return pointer_type(dtype_from_ir(tile.pointee_type(t)))
    table = {
        "f16": float16,
        "bf16": bfloat16,
        "f32": float32,
        "f64": float64,
        "i1": int1,
        "f8E4M3FN": float8e4nv,
        "f8E5M2": float8e5,
        "f8E4M3FNUZ": float8e4b8,
        "f8E5M2FNUZ": float8e5b16,
    }
    if text in table:
        return table[text]
    if text.startswith("i"):
        return dtype(("int" if signed else "uint") + text[1:])
    raise ValueError(f"no tilec dtype for {text}")


# The most elements one tensor of a program may have, on every target (Triton's TRITON_MAX_TENSOR_NUMEL):
# past it the GPU back ends spend minutes spilling registers, and no kernel runs well anyway.
MAX_TENSOR_NUMEL = 1 << 20


class tensor:
    """A value in tile code: an MLIR value plus its tilec element dtype and shape (`()` = scalar)."""

    def __init__(self, handle: ir.Value, type: dtype, shape: tuple[int, ...] = ()):
        self.handle = handle
        self.dtype = type
        self.shape = shape_tuple(shape)
        if len(self.shape) and self.numel > MAX_TENSOR_NUMEL:
            raise ValueError(
                f"a tensor of shape {list(self.shape)} has {self.numel} elements, more than the "
                f"{MAX_TENSOR_NUMEL} (2**20) one tensor may have (Triton's limit too): a program's tiles live "
                "in registers; split the work across more programs or loop over smaller blocks"
            )

    @property
    def type(self):
        return self.dtype

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __repr__(self):
        return f"tensor<{list(self.shape)}, {self.dtype}>"

    def __bool__(self):
        raise TypeError(
            "the truth value of a tensor is only known at run time: use it in an `if`, `while` or "
            "tl.where, not in `and`/`or` chains or Python built-ins"
        )

    # Operators are the semantic functions; imported late to avoid a cycle.
    def __add__(self, o):
        return _sem().add(self, o)

    def __radd__(self, o):
        return _sem().add(o, self)

    def __sub__(self, o):
        return _sem().sub(self, o)

    def __rsub__(self, o):
        return _sem().sub(o, self)

    def __mul__(self, o):
        return _sem().mul(self, o)

    def __rmul__(self, o):
        return _sem().mul(o, self)

    def __truediv__(self, o):
        return _sem().truediv(self, o)

    def __rtruediv__(self, o):
        return _sem().truediv(o, self)

    def __floordiv__(self, o):
        return _sem().floordiv(self, o)

    def __rfloordiv__(self, o):
        return _sem().floordiv(o, self)

    def __mod__(self, o):
        return _sem().mod(self, o)

    def __rmod__(self, o):
        return _sem().mod(o, self)

    def __neg__(self):
        return _sem().neg(self)

    def __pos__(self):
        return self

    def __invert__(self):
        return _sem().invert(self)

    def __and__(self, o):
        return _sem().and_(self, o)

    def __rand__(self, o):
        return _sem().and_(o, self)

    def __or__(self, o):
        return _sem().or_(self, o)

    def __ror__(self, o):
        return _sem().or_(o, self)

    def __xor__(self, o):
        return _sem().xor_(self, o)

    def __rxor__(self, o):
        return _sem().xor_(o, self)

    def __lshift__(self, o):
        return _sem().shl(self, o)

    def __rlshift__(self, o):
        return _sem().shl(o, self)

    def __rshift__(self, o):
        return _sem().rshift_operator(self, o)

    def __rrshift__(self, o):
        return _sem().rshift_operator(o, self)

    def __lt__(self, o):
        return _sem().compare("lt", self, o)

    def __le__(self, o):
        return _sem().compare("le", self, o)

    def __gt__(self, o):
        return _sem().compare("gt", self, o)

    def __ge__(self, o):
        return _sem().compare("ge", self, o)

    def __eq__(self, o):
        return _sem().compare("eq", self, o)

    def __ne__(self, o):
        return _sem().compare("ne", self, o)

    __hash__ = object.__hash__

    def __getitem__(self, index):
        return _sem().subscript(self, index)

    # Methods Triton tensors have.
    def to(self, dtype, fp_downcast_rounding=None, bitcast=False):
        return _sem().cast(self, dtype, bitcast=bitcast, fp_downcast_rounding=fp_downcast_rounding)

    def reshape(self, *shape, can_reorder=False):
        from . import builtins

        return builtins.reshape(self, *shape, can_reorder=can_reorder)

    def broadcast_to(self, *shape):
        from . import builtins

        return builtins.broadcast_to(self, *shape)

    def expand_dims(self, axis):
        from . import builtins

        return builtins.expand_dims(self, axis)

    def squeeze(self, dim):
        from . import builtins

        return builtins.squeeze(self, dim)

    def unsqueeze(self, dim):
        from . import builtins

        return builtins.unsqueeze(self, dim)

    def item(self):
        """The one element of a one-element tensor, as a scalar."""
        if self.numel != 1:
            raise _sem().SemanticError(f"item() needs a one-element tensor, got shape {list(self.shape)}")
        if not self.shape:
            return self
        from . import builtins, reductions

        flat = builtins.reshape(self, (1,))  # a reduction of one element hands it over unchanged
        return reductions.reduce_tensors([flat], 0, lambda a, b: a[0])[0]

    def trans(self, *dims):
        from . import builtins

        return builtins.trans(self, *dims)

    permute = trans

    @property
    def T(self):
        return self.trans()

    def sum(self, axis=None, keep_dims=False):
        from . import reductions

        return reductions.sum(self, axis, keep_dims)

    def max(self, axis=None, keep_dims=False):
        from . import reductions

        return reductions.max(self, axis, keep_dims=keep_dims)

    def min(self, axis=None, keep_dims=False):
        from . import reductions

        return reductions.min(self, axis, keep_dims=keep_dims)

    def argmax(self, axis, keep_dims=False):
        from . import reductions

        return reductions.argmax(self, axis, keep_dims=keep_dims)

    def argmin(self, axis, keep_dims=False):
        from . import reductions

        return reductions.argmin(self, axis, keep_dims=keep_dims)

    def cumsum(self, axis=0, reverse=False):
        from . import reductions

        return reductions.cumsum(self, axis, reverse)


def _sem():
    from . import semantic

    return semantic
