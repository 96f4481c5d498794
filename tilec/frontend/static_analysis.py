"""What the code generator decides from the AST and from compile-time values alone: where a function
returns, a loop's trip count, Python's operators on constants.
"""

from __future__ import annotations

import ast
import builtins as _py
import functools

import tilec.language as tl
from tilec.language import core, semantic
from tilec.language.core import tensor

from .values import Unsupported, is_tensor


class _Missing:
    pass


RETURN = "__tilec_return__"  # the variable a return inside a run-time if assigns


IFEXP = "__tilec_ifexp_"  # the variable `a if c else b` assigns, with c known at run time


def _contains_return(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(node))


def _always_returns(stmts: list) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and _always_returns(last.body) and _always_returns(last.orelse)


def tail_returns(stmts: list) -> list:
    """The statements with every `return` inside an if moved to the end of its branch: what follows
    such an if goes into its branches that do not return (`if c: return a` + rest becomes
    `if c: return a else: rest`), so a run-time if can merge the returned values like variables."""
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.If) and _contains_return(stmt):
            rest = stmts[i + 1 :]
            body = tail_returns(stmt.body + ([] if _always_returns(stmt.body) else rest))
            orelse = tail_returns(stmt.orelse + ([] if _always_returns(stmt.orelse) else rest))
            branch = ast.If(test=stmt.test, body=body or [ast.copy_location(ast.Pass(), stmt)], orelse=orelse)
            return [*stmts[:i], ast.copy_location(branch, stmt)]
    return stmts


MISSING = _Missing()


def trip_count(lb: tensor, ub: tensor, step, index_t) -> tensor:
    """Iterations of range(lb, ub, step) for a negative compile-time step or a run-time one (of
    either sign; none for 0): ceil(distance / |step|) in the step's direction, at least 0. `//`
    truncates toward zero (C, as Triton), which rounds the non-positive distances it may see up
    to at most 0."""
    zero, one = semantic.constant(0, index_t), semantic.constant(1, index_t)

    def ceil_div(distance, size):
        return semantic.floordiv(semantic.add(distance, semantic.sub(size, one)), size)

    if not is_tensor(step):  # negative
        count = ceil_div(semantic.sub(lb, ub), semantic.constant(-step, index_t))
    else:
        step = semantic.cast(step, index_t)
        up = semantic.compare("gt", step, zero)
        down = semantic.compare("lt", step, zero)
        size = semantic.where(up, step, semantic.where(down, semantic.neg(step), one))
        distance = semantic.where(up, semantic.sub(ub, lb), semantic.where(down, semantic.sub(lb, ub), zero))
        count = ceil_div(distance, size)
    return semantic.maximum(count, zero)


def same_constant(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return a is b


def py_binop(op, a, b):
    import operator

    table = {
        ast.Add: operator.add,
        ast.Sub: operator.sub,
        ast.Mult: operator.mul,
        ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv,
        ast.Mod: operator.mod,
        ast.BitAnd: operator.and_,
        ast.BitOr: operator.or_,
        ast.BitXor: operator.xor,
        ast.LShift: operator.lshift,
        ast.RShift: operator.rshift,
        ast.Pow: operator.pow,
        ast.MatMult: operator.matmul,
    }
    return table[op](a, b)


def py_compare(op, a, b):
    import operator

    table = {
        ast.Lt: operator.lt,
        ast.LtE: operator.le,
        ast.Gt: operator.gt,
        ast.GtE: operator.ge,
        ast.Eq: operator.eq,
        ast.NotEq: operator.ne,
        ast.Is: operator.is_,
        ast.IsNot: operator.is_not,
        ast.In: lambda x, y: x in y,
        ast.NotIn: lambda x, y: x not in y,
    }
    return table[op](a, b)


PY_INTROSPECTION = frozenset(
    {_py.isinstance, _py.type, _py.hasattr, _py.getattr, _py.callable, _py.repr, _py.str}
)


PY_ON_TENSORS = {
    _py.min: lambda first, *rest: functools.reduce(semantic.minimum, rest, first),
    _py.max: lambda first, *rest: functools.reduce(semantic.maximum, rest, first),
    _py.abs: semantic.abs_,
    _py.float: lambda x: semantic.cast(x, core.float32),
    _py.int: lambda x: semantic.cast(x, core.int32),
    _py.bool: lambda x: semantic.cast(x, core.int1),
}


# tl.range's scheduling hints (for GPU pipeliners), accepted and not needed by tilec's lowering
_RANGE_HINTS = ("num_stages", "loop_unroll_factor", "disallow_acc_multi_buffer", "flatten", "warp_specialize",
                "disable_licm")  # fmt: skip


def range_bounds(callee, args: list, kwargs: dict) -> tuple:
    """(lb, ub, step) of range(...), tl.range(...) or tl.static_range(...), as Triton's signature
    `(arg1, arg2=None, step=None, ...)` reads them: step (and arg2) may come by keyword."""
    name = "range" if callee is _py.range else f"tl.{callee.__name__}"
    if callee is _py.range and kwargs:
        raise Unsupported("range() takes no keyword arguments (tl.range takes step=...)")
    named = dict(zip(("arg1", "arg2", "step"), args))
    if len(args) > 3:
        raise Unsupported(f"{name} takes 1 to 3 bounds, got {len(args)}")
    for key, value in kwargs.items():
        if key in ("arg1", "arg2", "step"):
            if key in named:
                raise Unsupported(f"{name}: '{key}' given by position and by keyword")
            named[key] = value
        elif callee is tl.static_range or key not in _RANGE_HINTS:
            raise Unsupported(f"{name} has no argument '{key}'")
    if "arg1" not in named:
        raise Unsupported(f"{name} needs at least one bound")
    if named.get("arg2") is None:
        lb, ub = 0, named["arg1"]
    else:
        lb, ub = named["arg1"], named["arg2"]
    step = named.get("step")
    return lb, ub, 1 if step is None else step
