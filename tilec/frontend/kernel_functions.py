"""What the code generator knows of @tilec.jit functions: a kernel function it inlines where it is
called, and such a function bound to an aggregate instance. tilec.jit_function's JITFunction (which
also compiles and launches) is a KernelFunction."""

from __future__ import annotations


class KernelFunction:
    """A function written in the tile language; `fn` is the Python function, `__name__` its name."""

    fn: object


class BoundJITMethod:
    """`instance.method` for a @jit method: inlined with the instance as its first argument. Called
    by Python itself (a @jit `__getitem__` behind `x[i]`), it goes to the code generator."""

    __slots__ = ("function", "obj")

    def __init__(self, function: KernelFunction, obj):
        self.function, self.obj = function, obj

    def __call__(self, *args, **kwargs):
        from tilec.language import builtins

        if builtins.state.call_jit is None:
            raise RuntimeError(f"{self.function.__name__} is a @jit method: call it from a kernel")
        return builtins.state.call_jit(self.function, [self.obj, *args], kwargs)
