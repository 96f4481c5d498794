"""Python values in the code generator: tuples and aggregates flattened to leaves and back, the names
a statement assigns.
"""

from __future__ import annotations

import ast
import inspect
import numbers
from typing import TYPE_CHECKING

from tilec.language.core import tensor
from tilec.language.semantic import SemanticError

if TYPE_CHECKING:
    from .codegen import CodeGenerator


class Unsupported(Exception):
    pass


# What Python raises while evaluating a kernel's code at compile time (a constexpr divided by zero,
# an index past a tuple's end, a name or method that does not exist): the user's mistake, reported at
# the user's line.
USER_ERRORS = (
    SemanticError,
    Unsupported,
    TypeError,
    ValueError,
    NameError,
    AttributeError,
    ArithmeticError,
    LookupError,
    RecursionError,
)


def error_reason(e: BaseException) -> str:
    text = str(e)
    if isinstance(e, ZeroDivisionError):
        return f"division by zero in a compile-time value ({text})"
    if isinstance(e, LookupError | ArithmeticError) and not isinstance(e, SemanticError):
        return f"{type(e).__name__}: {text}"
    return text


def is_tensor(v) -> bool:
    return isinstance(v, tensor)


# Aggregates: values made of several (a tuple, a block pointer) cross loops and branches as their
# leaves (tensors and Python numbers), each carried like a variable of its own under a name that no
# Python variable can have ("p[2]"); their structure (and the static parts in it) must not change.
def flatten_leaves(value) -> tuple[list, object]:
    """The leaves of `value` and its structure (None: `value` is a leaf itself)."""
    if isinstance(value, tuple):
        parts = [flatten_leaves(v) for v in value]
        return [leaf for leaves, _ in parts for leaf in leaves], (
            "tuple",
            tuple(structure for _, structure in parts),
            tuple(len(leaves) for leaves, _ in parts),
            type(value),  # a named tuple stays one
        )
    flatten = getattr(value, "_tilec_flatten", None)
    if flatten is not None:
        leaves, structure = flatten()
        return list(leaves), ("object", type(value), structure, len(leaves))
    return [value], None


def leaf_count(structure) -> int:
    if structure is None:
        return 1
    return sum(structure[2]) if structure[0] == "tuple" else structure[3]


def unflatten(structure, leaves: list):
    if structure is None:
        return leaves[0]
    if structure[0] == "tuple":
        out, i = [], 0
        for part, count in zip(structure[1], structure[2]):
            out.append(unflatten(part, leaves[i : i + count]))
            i += count
        return tuple(out) if structure[3] is tuple else structure[3](*out)
    return structure[1]._tilec_unflatten(structure[2], leaves)


def leaf_name(name: str, i: int) -> str:
    return f"{name}[{i}]"


def is_leaf_name(name: str) -> bool:
    return name.endswith("]")


UNCHANGED = object()  # _loop_types: a leaf the loop body does not change


def is_number(value) -> bool:
    """A Python number (not yet a tensor): numbers fold at compile time until they meet a tensor."""
    return not is_tensor(value) and isinstance(value, numbers.Number)


def assigned_names(stmts) -> list[str]:
    """Names a list of statements (re)binds, in first-assignment order."""
    names: list[str] = []

    def add_target(t):
        if isinstance(t, ast.Name):
            if t.id not in names:
                names.append(t.id)
        elif isinstance(t, ast.Tuple | ast.List):
            for e in t.elts:
                add_target(e)
        elif isinstance(t, ast.Starred):
            add_target(t.value)

    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    add_target(t)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                add_target(node.target)
            elif isinstance(node, ast.For):
                add_target(node.target)
            elif isinstance(node, ast.NamedExpr):
                add_target(node.target)
    return names


class KernelLambda:
    """A lambda written in a kernel (a combine function for tl.reduce / tl.associative_scan, or a
    local helper): its body is compiled inline wherever it is called, with its parameters bound over
    the names it captured when it was made. As in Triton it may capture compile-time values only
    (constexprs, Python values, functions): a combiner runs on scalars inside its own region, where a
    run-time value of the kernel does not exist."""

    def __init__(self, gen: CodeGenerator, node: ast.Lambda):
        self.gen, self.node = gen, node
        a = node.args
        P = inspect.Parameter
        positional = [*a.posonlyargs, *a.args]
        defaults = [gen.visit(d) for d in a.defaults]
        first_default = len(positional) - len(defaults)
        params = [
            P(arg.arg, P.POSITIONAL_ONLY if i < len(a.posonlyargs) else P.POSITIONAL_OR_KEYWORD,
              default=defaults[i - first_default] if i >= first_default else P.empty)
            for i, arg in enumerate(positional)
        ]  # fmt: skip
        if a.vararg:
            params.append(P(a.vararg.arg, P.VAR_POSITIONAL))
        for arg, default in zip(a.kwonlyargs, a.kw_defaults):
            params.append(
                P(arg.arg, P.KEYWORD_ONLY, default=P.empty if default is None else gen.visit(default))
            )
        if a.kwarg:
            params.append(P(a.kwarg.arg, P.VAR_KEYWORD))
        self.signature = inspect.Signature(params)
        names = {p.name for p in params}
        self.captured = {}
        for n in ast.walk(node.body):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in names:
                if n.id in gen.lscope:
                    value = gen.lscope[n.id]
                    if is_tensor(value) or isinstance(value, tuple | list) and any(map(is_tensor, value)):
                        raise Unsupported(
                            f"lambda can only capture constexpr values: '{n.id}' is a run-time value "
                            "(pass it as an argument, or use a @tilec.jit function)"
                        )
                    self.captured[n.id] = value

    def __call__(self, *args, **kwargs):
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise Unsupported(f"bad call of a lambda: {e}") from None
        bound.apply_defaults()
        gen = self.gen
        saved = gen.lscope
        gen.lscope = {**self.captured, **bound.arguments}
        try:
            return gen.visit(self.node.body)
        finally:
            gen.lscope = saved


class NamedStructure:
    """The structure of a named-tuple argument: its class and its elements' names (nested)."""

    __slots__ = ("cls", "parts")

    def __init__(self, cls: type, parts: tuple):
        self.cls, self.parts = cls, parts

    def __repr__(self) -> str:  # part of the specialization key: the class by its qualified name
        return f"{self.cls.__module__}.{self.cls.__qualname__}{self.parts!r}"
