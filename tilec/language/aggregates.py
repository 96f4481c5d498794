"""User-defined compile-time structure in kernels, as Triton 3.5 has it: `@tilec.constexpr_function`
(a Python function run while the kernel compiles) and `@tilec.aggregate` (a class whose instances
bundle tensors and constants, with @jit methods).

    @tilec.aggregate
    class Tile:
        offs: tl.tensor
        BLOCK: tl.constexpr

        @tilec.jit
        def load(self, ptr):
            return tl.load(ptr + self.offs)

    tile = Tile(tl.arange(0, 64), 64)      # in a kernel; fields by position or name
    x = tile.load(x_ptr)

An aggregate's fields are its class annotations (a base class's first, when it is an aggregate too);
a class without an `__init__` of its own gets one that takes them in order, with the class's
defaults. Instances are compile-time structure, like a tuple: they pass to helpers, come back from
them, and cross run-time loops and branches field by field; a field annotated `tl.constexpr` stays a
compile-time constant there. Fields are not assigned after construction in kernel code (make a new
instance), as tensors are immutable. Methods decorated `@tilec.jit` are inlined with the instance as
`self`; plain Python methods run at compile time and may call `tl` functions (Triton's `_semantic`
argument is accepted and ignored).
"""

from __future__ import annotations

import functools
import inspect

from .core import tensor
from .semantic import SemanticError


class constexpr_function:
    """`@tilec.constexpr_function`: a Python function that kernels call at compile time, on
    compile-time values only (constexprs, numbers, tuples, dtypes); its result is a compile-time
    value. Outside kernels it is the plain function."""

    def __init__(self, fn):
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        for value in (*args, *kwargs.values()):
            if isinstance(value, tensor):
                raise SemanticError(
                    f"constexpr_function '{self.fn.__name__}' was called with a run-time tensor; its "
                    "arguments must be compile-time values (constexprs, numbers, tuples, dtypes)"
                )
        return self.fn(*args, **kwargs)

    def __get__(self, obj, cls=None):  # a method of an aggregate: bound to the instance
        return self if obj is None else functools.partial(self.__call__, obj)

    def __repr__(self) -> str:
        return f"constexpr_function({self.fn.__module__}.{self.fn.__qualname__})"


def _is_constexpr(annotation) -> bool:
    from tilec.frontend.source import is_constexpr_annotation

    return is_constexpr_annotation(annotation)


def aggregate(cls: type) -> type:
    """`@tilec.aggregate`: see the module doc."""
    for base in cls.__bases__:
        if base is not object and not hasattr(base, "__tilec_fields__"):
            raise TypeError(
                f"aggregate {cls.__name__}: aggregates can only inherit from other aggregates "
                f"({base.__name__} is not one)"
            )
    fields: dict = {}
    for base in reversed(cls.__mro__[1:]):
        fields.update(getattr(base, "__tilec_fields__", {}))
    fields.update(cls.__dict__.get("__annotations__", {}))
    cls.__tilec_fields__ = fields
    cls.__tilec_constexpr_fields__ = frozenset(n for n, a in fields.items() if _is_constexpr(a))
    if "__init__" not in cls.__dict__:
        cls.__init__ = _field_initializer(cls, list(fields))
    if "__repr__" not in cls.__dict__:
        cls.__repr__ = lambda self: f"{type(self).__name__}(" + ", ".join(
            f"{n}={getattr(self, n, '<unset>')!r}" for n in type(self).__tilec_fields__
        ) + ")"  # fmt: skip
    for member in vars(cls).values():  # plain Python static methods may build from tensors too
        function = getattr(member, "__func__", None) if isinstance(member, staticmethod) else None
        if inspect.isfunction(function):
            function.__tilec_aggregate_method__ = True
    cls._tilec_flatten = _flatten_fields
    cls._tilec_unflatten = classmethod(_unflatten_fields)
    return cls


def _field_initializer(cls: type, names: list):
    defaults = {n: cls.__dict__[n] for n in names if n in cls.__dict__ and not callable(cls.__dict__[n])}
    for base in cls.__mro__[1:]:
        for n in names:
            if n not in defaults and n in getattr(base, "__dict__", {}) and not callable(base.__dict__[n]):
                defaults[n] = base.__dict__[n]
    parameters = [
        inspect.Parameter(
            n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=defaults.get(n, inspect.Parameter.empty)
        )
        for n in names
    ]
    # parameters with defaults may not precede ones without: those become keyword-only
    seen_default = False
    for i, p in enumerate(parameters):
        if p.default is not inspect.Parameter.empty:
            seen_default = True
        elif seen_default:
            parameters = [
                q.replace(kind=inspect.Parameter.KEYWORD_ONLY) if j >= i else q
                for j, q in enumerate(parameters)
            ]
            break
    signature = inspect.Signature(parameters)

    def __init__(self, *args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as e:
            raise SemanticError(f"{cls.__name__}(...): {e}") from None
        bound.apply_defaults()
        for name, value in bound.arguments.items():
            object.__setattr__(self, name, value)

    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), *parameters]
    )
    return __init__


# Crossing run-time loops and branches (the code generator's aggregates, as tuples and block pointers
# do): the fields' leaves are carried, constexpr fields stay in the structure.


def _flatten_fields(self):
    from tilec.frontend.values import flatten_leaves as _flatten

    leaves, parts = [], []
    for name in type(self).__tilec_fields__:
        value = getattr(self, name)
        if name in type(self).__tilec_constexpr_fields__:
            parts.append((name, "constexpr", value, 0))
            continue
        field_leaves, structure = _flatten(value)
        leaves.extend(field_leaves)
        parts.append((name, "value", structure, len(field_leaves)))
    return leaves, tuple(parts)


def _unflatten_fields(cls, structure, leaves):
    from tilec.frontend.values import unflatten as _unflatten

    obj = cls.__new__(cls)
    i = 0
    for name, kind, part, count in structure:
        value = part if kind == "constexpr" else _unflatten(part, leaves[i : i + count])
        object.__setattr__(obj, name, value)
        i += count
    return obj
