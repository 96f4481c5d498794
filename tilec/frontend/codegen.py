"""The code generator: walks a @tilec.jit function's Python AST and builds tile IR.

Compile-time values (constexprs, Python numbers, dtypes, tuples) stay Python objects and are folded
as Python folds them; run-time values are `tl.tensor`s. Control flow on run-time values becomes `scf`:
`if` -> scf.if, `for ... in range(...)` -> scf.for, `while` -> scf.while, with the variables a body
reassigns carried through. Calls to other @jit functions are inlined. Every op gets the user's
`file:line:col` as its location.
"""

from __future__ import annotations

import ast
import builtins as _py
import itertools
import numbers

from mlir import ir
from mlir.dialects import scf

import tilec.language as tl
from tilec import knobs
from tilec.errors import CompilationError
from tilec.language import builtins as tlb
from tilec.language import core, semantic
from tilec.language.core import tensor
from tilec.language.semantic import to_tensor

from .kernel_functions import BoundJITMethod, KernelFunction
from .source import SourceInfo
from .static_analysis import (
    IFEXP,
    MISSING,
    PY_INTROSPECTION,
    PY_ON_TENSORS,
    RETURN,
    py_binop,
    py_compare,
    range_bounds,
    same_constant,
    tail_returns,
    trip_count,
)
from .values import (
    UNCHANGED,
    USER_ERRORS,
    KernelLambda,
    Unsupported,
    assigned_names,
    error_reason,
    flatten_leaves,
    is_leaf_name,
    is_number,
    is_tensor,
    leaf_count,
    leaf_name,
    unflatten,
)

MAX_INLINE_DEPTH = 32


# Compile time must stay proportional to the kernel: unrolled loops (tl.static_range, loops over
# compile-time sequences) and inlined helpers may expand a kernel to this many Python expressions and
# statements (a large attention kernel is a few thousand; this many take about half a minute to
# compile), and one unrolled loop may run this many iterations.
MAX_EXPANDED_NODES = 1 << 18


MAX_UNROLLED_ITERATIONS = 1 << 16


class _Expansion:
    """How far one kernel's compile has expanded, shared by the kernel's generator and its helpers'."""

    def __init__(self):
        self.nodes = 0
        self.unrolling: list[tuple[str, int]] = []  # (file, line) of the unrolled loops around


class CodeGenerator(ast.NodeVisitor):
    def __init__(self, jit_fn, source: SourceInfo, scope: dict, depth: int = 0, expansion=None):
        self.jit_fn = jit_fn
        self.src = source
        self.filename = source.filename
        self.gscope = dict(jit_fn.fn.__globals__)
        if jit_fn.fn.__closure__:
            for name, cell in zip(jit_fn.fn.__code__.co_freevars, jit_fn.fn.__closure__):
                self.gscope[name] = cell.cell_contents
        self.lscope: dict = dict(scope)
        self.depth = depth
        self.return_value = None
        self.returned = False
        self.in_dynamic_flow = 0
        self.in_loop = 0  # run-time loops around the current statement (a return cannot leave them)
        self._node_stack: list[ast.AST] = []
        self.expansion = expansion or _Expansion()

    # -- locations and errors ---------------------------------------------------------------------
    def location(self, node) -> ir.Location:
        line = getattr(node, "lineno", None) or self.src.fndef.lineno
        col = getattr(node, "col_offset", 0) + self.src.col_offset + 1
        return ir.Location.file(self.filename, line, col)

    def error(self, node, reason: str) -> CompilationError:
        line = getattr(node, "lineno", None) or self.src.fndef.lineno
        col = getattr(node, "col_offset", 0) + self.src.col_offset + 1
        return CompilationError(self.filename, line, col, reason, source_line=self.src.line(line))

    def visit(self, node):
        if node is None:
            return None
        expansion = self.expansion
        expansion.nodes += 1
        if expansion.nodes > MAX_EXPANDED_NODES:
            self._too_large(node)
        with self.location(node):
            try:
                return super().visit(node)
            except CompilationError:
                raise
            except USER_ERRORS as e:
                # TILEC_DEBUG=1 keeps the Python error (and tilec's frames) as the cause, for tilec's
                # developers; the user's file and line are in the message either way.
                raise self.error(node, error_reason(e)) from (e if knobs.DEBUG.on() else None)

    def _too_large(self, node):
        where = ""
        if self.expansion.unrolling:
            filename, line = self.expansion.unrolling[0]
            where = f" (the unrolled loop at {filename}:{line})"
        self.expansion.nodes = -(1 << 62)  # one error, not one per enclosing node
        raise self.error(
            node,
            f"the kernel expands to more than {MAX_EXPANDED_NODES} expressions and statements once its "
            f"compile-time loops are unrolled and its helpers inlined{where}: compiling it would take "
            "minutes; use tl.range (a loop at run time) for long loops",
        )

    def unrolled(self, node, items, body) -> None:
        """Runs `body(item)` for each item of a loop unrolled at compile time, within the limits."""
        count = len(items)
        if count > MAX_UNROLLED_ITERATIONS:
            raise Unsupported(
                f"this loop unrolls {count} iterations at compile time, more than the {MAX_UNROLLED_ITERATIONS} "
                "tilec unrolls (compiling it would take minutes): use tl.range for a loop at run time"
            )
        self.expansion.unrolling.append((self.filename, getattr(node, "lineno", self.src.fndef.lineno)))
        try:
            for item in items:
                body(item)
        finally:
            self.expansion.unrolling.pop()

    def generic_visit(self, node):
        raise Unsupported(f"unsupported Python construct in a kernel: {type(node).__name__}")

    # -- statements ---------------------------------------------------------------------------
    def visit_statements(self, stmts):
        for stmt in stmts:
            if self.returned:
                break
            self.visit(stmt)

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return None  # docstring
        self.visit(node.value)

    def visit_Pass(self, node):
        return None

    def visit_Assign(self, node):
        value = self.visit(node.value)
        for target in node.targets:
            self.assign(target, value)

    def visit_AnnAssign(self, node):
        if node.value is None:
            return
        self.assign(node.target, self.visit(node.value))

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise Unsupported("augmented assignment works on names only (tensors are immutable)")
        current = self.lookup(node.target.id, node.target)
        value = self.binary(node.op, current, self.visit(node.value))
        self.assign(node.target, value)

    def assign(self, target, value):
        if isinstance(target, ast.Name):
            self.lscope[target.id] = value
            return
        if isinstance(target, ast.Tuple | ast.List):
            if any(isinstance(t, ast.Starred) for t in target.elts):
                raise Unsupported("starred assignment targets are not supported (as in Triton)")
            if not isinstance(value, tuple | list):
                what = "a tensor" if is_tensor(value) else f"non-iterable {type(value).__name__}"
                raise Unsupported(f"cannot unpack {what} into {len(target.elts)} names")
            if len(value) != len(target.elts):
                few = "not enough" if len(value) < len(target.elts) else "too many"
                raise Unsupported(f"{few} values to unpack (expected {len(target.elts)}, got {len(value)})")
            for t, v in zip(target.elts, value):
                self.assign(t, v)
            return
        raise Unsupported("only names can be assigned in a kernel (tensors are immutable)")

    def visit_Return(self, node):
        if self.in_loop:
            raise Unsupported("return inside a run-time for/while loop is not supported")
        value = self.visit(node.value) if node.value is not None else None
        if self.in_dynamic_flow:
            # in a run-time if: the value leaves the branch as a variable the if merges (returns
            # were moved to the ends of branches beforehand: see _tail_returns)
            if value is not None:
                self.lscope[RETURN] = value
        else:
            self.return_value = value
        self.returned = True

    def visit_Assert(self, node):
        cond = self.visit(node.test)
        msg = self.visit(node.msg) if node.msg is not None else ast.unparse(node.test)
        if not is_tensor(cond):
            if not cond:
                raise Unsupported(f"assertion failed at compile time: {msg}")
            return
        tlb.device_assert(cond, str(msg))

    def visit_Break(self, node):
        raise Unsupported("'break' is not supported in kernel loops (as in Triton)")

    def visit_Continue(self, node):
        raise Unsupported("'continue' is not supported in kernel loops (as in Triton)")

    # -- if -----------------------------------------------------------------------------------
    def visit_If(self, node):
        cond = self.visit(node.test)
        if not is_tensor(cond):
            self.visit_statements(node.body if cond else node.orelse)
            return
        self.dynamic_if(node, cond)

    def _scalar_condition(self, cond: tensor, what: str) -> ir.Value:
        if cond.shape:
            raise Unsupported(f"{what} condition must be a scalar, got a tensor of shape {list(cond.shape)}")
        return semantic.cast(cond, core.int1).handle

    def dynamic_if(self, node, cond: tensor):
        cond_h = self._scalar_condition(cond, "if")
        before = dict(self.lscope)
        draft = scf.IfOp(cond_h, [], has_else=True)
        scopes, returned = [], []
        self.in_dynamic_flow += 1
        try:
            for block, body in ((draft.then_block, node.body), (draft.else_block, node.orelse)):
                self.lscope = dict(before)
                self.returned = False
                with ir.InsertionPoint(block):
                    self.visit_statements(body)
                scopes.append(self.lscope)
                returned.append(self.returned)
        finally:
            self.in_dynamic_flow -= 1
            self.returned = False
        then_scope, else_scope = scopes
        if any(returned) and not all(returned) and (RETURN in then_scope or RETURN in else_scope):
            raise Unsupported("a function that returns a value must return one on every path")
        aggregates = self._split_branch_aggregates(before, then_scope, else_scope)
        names = [
            n
            for n in dict.fromkeys([*then_scope, *else_scope])
            if n in then_scope
            and n in else_scope
            and not (then_scope[n] is before.get(n, MISSING) and else_scope[n] is before.get(n, MISSING))
        ]
        merged, yields_then, yields_else = {}, [], []
        for n in names:
            a, b = then_scope[n], else_scope[n]
            if not is_tensor(a) and not is_tensor(b):
                if same_constant(a, b):
                    merged[n] = a
                    continue
                if not isinstance(a, numbers.Number) or not isinstance(b, numbers.Number):
                    if n in before:
                        raise Unsupported(f"'{n}' gets different compile-time values in the two branches")
                    continue
            with ir.InsertionPoint(draft.then_block):
                ta = to_tensor(a) if not is_tensor(a) else a
            with ir.InsertionPoint(draft.else_block):
                tb = to_tensor(b) if not is_tensor(b) else b
            if ta.dtype != tb.dtype or ta.shape != tb.shape:
                # A Python number on one side takes the other side's type.
                if not is_tensor(a):
                    with ir.InsertionPoint(draft.then_block):
                        ta = semantic.broadcast_to(semantic.cast(ta, tb.dtype), tb.shape)
                elif not is_tensor(b):
                    with ir.InsertionPoint(draft.else_block):
                        tb = semantic.broadcast_to(semantic.cast(tb, ta.dtype), ta.shape)
                else:
                    if n == RETURN:
                        raise Unsupported(
                            f"Inconsistent return types: the function returns {ta!r} on one path but "
                            f"{tb!r} on another"
                        )
                    if n.startswith(IFEXP):
                        raise Unsupported(
                            "Ternary expression with dynamic condition has inconsistent types: "
                            f"{ta!r} and {tb!r} (a run-time condition needs one type)"
                        )
                    if n not in before:
                        continue
                    raise Unsupported(
                        f"Mismatched type for {n}: {ta!r} in the if branch but {tb!r} in the else branch"
                    )
            yields_then.append(ta)
            yields_else.append(tb)
            merged[n] = ta
        self.lscope = dict(before)
        # Names defined in both branches become visible; others stay local to their branch.
        if not yields_then:
            for block in (draft.then_block, draft.else_block):
                with ir.InsertionPoint(block):
                    scf.YieldOp([])
            self.lscope.update(merged)
            self._join_branch_aggregates(aggregates)
            self._returned_from_if(returned)
            return
        final = scf.IfOp(cond_h, [t.handle.type for t in yields_then], has_else=True)
        for old, new, values in (
            (draft.then_block, final.then_block, yields_then),
            (draft.else_block, final.else_block, yields_else),
        ):
            with ir.InsertionPoint(new):
                terminator = scf.YieldOp([v.handle for v in values])
            for op in list(old.operations):
                op.operation.move_before(terminator)
        draft.operation.erase()
        i = 0
        for n, v in merged.items():
            if is_tensor(v) and any(v is y for y in yields_then):
                self.lscope[n] = tensor(final.results[i], v.dtype, v.shape)
                i += 1
            else:
                self.lscope[n] = v
        self._join_branch_aggregates(aggregates)
        self._returned_from_if(returned)

    def _returned_from_if(self, returned: list[bool]) -> None:
        """After a run-time if whose branches returned: nothing follows it (see _tail_returns), and
        the merged return variable is the value (None for a bare return)."""
        if not any(returned):
            return
        self.returned = True
        value = self.lscope.pop(RETURN, None)
        if self.in_dynamic_flow:
            if value is not None:
                self.lscope[RETURN] = value
        else:
            self.return_value = value

    def _split_branch_aggregates(self, before: dict, then_scope: dict, else_scope: dict) -> dict:
        """Aggregates both branches bind (with one structure) are merged leaf by leaf: their leaves go
        into the scopes under leaf names (see values.flatten_leaves)."""
        aggregates = {}
        for n in [*dict.fromkeys([*then_scope, *else_scope])]:
            a, b = then_scope.get(n, MISSING), else_scope.get(n, MISSING)
            if a is b:
                continue
            leaves_a, structure = flatten_leaves(a)
            leaves_b, structure_b = flatten_leaves(b)
            if structure is None and structure_b is None:
                continue
            if structure != structure_b or a is MISSING or b is MISSING:
                if n in before and a is not MISSING and b is not MISSING:
                    raise Unsupported(f"'{n}' is {a!r} in the if branch but {b!r} in the else branch")
                continue  # it stays local to its branch
            aggregates[n] = structure
            old_leaves, old_structure = flatten_leaves(before.get(n, MISSING))
            for i, (leaf_a, leaf_b) in enumerate(zip(leaves_a, leaves_b)):
                then_scope[leaf_name(n, i)], else_scope[leaf_name(n, i)] = leaf_a, leaf_b
                if old_structure == structure:
                    before[leaf_name(n, i)] = old_leaves[i]
            del then_scope[n], else_scope[n]
        return aggregates

    def _join_branch_aggregates(self, aggregates: dict) -> None:
        for n, structure in aggregates.items():
            if all(leaf_name(n, i) in self.lscope for i in range(leaf_count(structure))):
                self._gather_aggregates({n: structure})
            else:  # a leaf differed in compile-time value: like such a variable, it stays branch-local
                self.lscope.pop(n, None)
        self._drop_leaves(aggregates)

    # -- loops --------------------------------------------------------------------------------
    def visit_For(self, node):
        if node.orelse:
            raise Unsupported("for ... else is not supported")
        iterator = node.iter
        callee = self.visit(iterator.func) if isinstance(iterator, ast.Call) else None
        if callee not in (_py.range, tl.range, tl.static_range):
            # over a compile-time sequence (a tuple, zip(...), enumerate(...)): unrolled
            self.unrolled(
                node,
                self._compile_time_items(iterator, "kernel loops"),
                lambda item: self._unrolled_body(node, item),
            )
            return
        args = [self.visit(a) for a in iterator.args]
        kwargs = {k.arg: self.visit(k.value) for k in iterator.keywords}
        lb, ub, step = range_bounds(callee, args, kwargs)
        if callee is tl.static_range:
            if any(is_tensor(a) for a in (lb, ub, step)):
                raise Unsupported("tl.static_range bounds must be compile-time constants")
            if step == 0:
                raise Unsupported("tl.static_range's step must not be zero")
            self.unrolled(node, _py.range(lb, ub, step), lambda i: self._unrolled_body(node, i))
            return
        if not isinstance(node.target, ast.Name):
            raise Unsupported("the loop variable must be a single name")
        self.dynamic_for(node, lb, ub, step)

    def _unrolled_body(self, node, item) -> None:
        self.assign(node.target, item)
        self.visit_statements(node.body)

    def _compile_time_items(self, node, what: str) -> list:
        """The items of a compile-time iterable (a tuple, a list, zip/enumerate of them, a range of
        constants) that `what` walks at compile time."""
        iterable = self.visit(node)
        if is_tensor(iterable) or isinstance(iterable, str) or not hasattr(iterable, "__iter__"):
            raise Unsupported(
                f"{what} must iterate over range(...), tl.range(...), tl.static_range(...) or a "
                f"compile-time sequence such as a tuple, not {type(iterable).__name__}"
            )
        items = list(itertools.islice(iterable, MAX_UNROLLED_ITERATIONS + 1))  # not all of range(10**12)
        if len(items) > MAX_UNROLLED_ITERATIONS:
            raise Unsupported(
                f"{what} over more than {MAX_UNROLLED_ITERATIONS} items are unrolled at compile time past "
                "tilec's limit (compiling them would take minutes): use tl.range for a loop at run time"
            )
        return items

    def _comprehension(self, node, element):
        """The elements of a list comprehension or generator expression over compile-time sequences,
        evaluated now; its loop variables do not leak into the kernel's scope (as in Python)."""
        names = [
            n for comp in node.generators for n in assigned_names([ast.Assign([comp.target], comp.iter)])
        ]
        saved = {n: self.lscope[n] for n in names if n in self.lscope}
        out = []

        def walk(level):
            if level == len(node.generators):
                out.append(element())
                return
            comp = node.generators[level]
            for item in self._compile_time_items(comp.iter, "comprehensions"):
                self.assign(comp.target, item)
                keep = True
                for condition in comp.ifs:
                    value = self.visit(condition)
                    if is_tensor(value):
                        raise Unsupported("a comprehension's condition must be a compile-time value")
                    if not value:
                        keep = False
                        break
                if keep:
                    walk(level + 1)

        try:
            walk(0)
        finally:
            for n in names:
                self.lscope.pop(n, None)
            self.lscope.update(saved)
        return out

    def visit_NamedExpr(self, node):
        value = self.visit(node.value)
        self.assign(node.target, value)
        return value

    def visit_ListComp(self, node):
        return self._comprehension(node, lambda: self.visit(node.elt))

    def visit_GeneratorExp(self, node):
        return tuple(self._comprehension(node, lambda: self.visit(node.elt)))

    def visit_DictComp(self, node):
        return dict(self._comprehension(node, lambda: (self.visit(node.key), self.visit(node.value))))

    def _loop_index_type(self, *bounds) -> core.dtype:
        types = [b.dtype for b in bounds if is_tensor(b)]
        for b in bounds:
            if not is_tensor(b) and not isinstance(b, numbers.Integral):
                raise Unsupported(f"range bounds must be integers, got {b!r}")
        for b in bounds:
            if is_tensor(b) and b.shape:
                raise Unsupported(f"range bounds must be scalars, got a tensor of shape {list(b.shape)}")
        for t in types:
            if not t.is_int():
                raise Unsupported(f"range bounds must be integers, got {t}")
        if any(t.primitive_bitwidth == 64 for t in types) or any(
            not is_tensor(b) and not -(2**31) <= b < 2**31 for b in bounds
        ):
            return core.int64
        return core.int32

    def _expand_aggregates(self, names) -> tuple[list[str], dict]:
        """`names` with each aggregate replaced by the names of its leaves (bound in scope), and the
        aggregates' structures."""
        out, structures = [], {}
        for n in names:
            leaves, structure = flatten_leaves(self.lscope[n])
            if structure is None:
                out.append(n)
                continue
            structures[n] = structure
            for i, leaf in enumerate(leaves):
                self.lscope[leaf_name(n, i)] = leaf
                out.append(leaf_name(n, i))
        return out, structures

    def _gather_aggregates(self, structures: dict) -> None:
        """Rebuilds each aggregate from its leaves in scope."""
        for n, structure in structures.items():
            leaves = [self.lscope[leaf_name(n, i)] for i in range(leaf_count(structure))]
            self.lscope[n] = unflatten(structure, leaves)

    def _scatter_aggregates(self, structures: dict, where: str) -> None:
        """After a loop body: each aggregate's (new) leaves into scope; its structure must not change."""
        for n, structure in structures.items():
            value = self.lscope[n]
            leaves, new = flatten_leaves(value)
            if new != structure:
                before = unflatten(
                    structure, [self.lscope[leaf_name(n, i)] for i in range(leaf_count(structure))]
                )
                raise Unsupported(
                    f"loop-carried variable '{n}' is {before!r} before {where} but {value!r} after an "
                    "iteration; its type (and a block pointer's block shape) must stay the same"
                )
            for i, leaf in enumerate(leaves):
                self.lscope[leaf_name(n, i)] = leaf

    def _drop_leaves(self, structures: dict) -> None:
        for n, structure in structures.items():
            for i in range(leaf_count(structure)):
                self.lscope.pop(leaf_name(n, i), None)

    def _carried(self, body, extra_defined=()) -> list[str]:
        return [n for n in assigned_names(body) if n in self.lscope and n not in extra_defined]

    def _loop_types(self, names, body_runner, aggregates: dict) -> dict:
        """Dry-runs the body when some carried value is still a Python number, to learn its type, or
        when aggregates cross the loop, to learn which of their leaves the body leaves alone (those
        are not carried: a block pointer's base and strides stay visible to the analyses).

        Numbers fold while the body runs dry, so one run can hide a change: with `acc = 0; j = 0`,
        `acc += j` leaves acc 0 as long as j is the number 0. Each number found to change is therefore
        made a placeholder tensor of the type the loop will carry it in, and the body runs dry again,
        until no more numbers change and their types settle."""
        numbers_carried = any(is_number(self.lscope[n]) for n in names)
        if not numbers_carried and not aggregates:
            return {}
        placeholders: dict = {}  # number's name -> (dtype, shape) it is carried in
        for _ in range(8):
            found = self._dry_run(names, body_runner, placeholders)
            changed = {}
            for n in names:
                v, after = self.lscope[n], found[n]
                if not is_number(v) or (
                    n not in placeholders and not is_tensor(after) and same_constant(after, v)
                ):
                    continue
                if is_tensor(after):
                    changed[n] = (after.dtype, tuple(after.shape))
                elif isinstance(after, numbers.Number):
                    changed[n] = (semantic.python_scalar_dtype(v), ())
            if changed == placeholders:
                break
            placeholders = changed
        return found

    def _dry_run(self, names, body_runner, placeholders: dict) -> dict:
        """{name: its value after one dry run of the body} (_UNCHANGED for an aggregate's leaf the
        body leaves alone); the names in `placeholders` enter as tensors of the given type."""
        saved = dict(self.lscope)
        scratch = ir.Operation.create("scf.execute_region", results=[], regions=1)
        entering = {
            n: (saved[n].handle.type, saved[n].dtype, saved[n].shape) for n in names if is_tensor(saved[n])
        }
        for n, (t, shape) in placeholders.items():
            entering[n] = (semantic._result_type(t, shape), t, shape)
        block = scratch.regions[0].blocks.append(*[ty for ty, _, _ in entering.values()])
        for (n, (_, t, shape)), arg in zip(entering.items(), block.arguments):
            self.lscope[n] = tensor(arg, t, shape)
        bound = dict(self.lscope)
        try:
            with ir.InsertionPoint(block):
                body_runner()
            found = {}
            for n in names:
                after = self.lscope.get(n)
                unchanged = after is bound[n] or (
                    is_tensor(after) and n in entering and after.handle == bound[n].handle
                )
                found[n] = UNCHANGED if unchanged and is_leaf_name(n) else after
        finally:
            self.lscope = saved
            scratch.erase()
        return found

    def _loop_inits(self, names, learned) -> tuple[list[str], list[tensor]]:
        carried, inits = [], []
        for n in names:
            v = self.lscope[n]
            after = learned.get(n, v)
            if after is UNCHANGED:
                continue  # an aggregate's leaf the body leaves alone
            if not is_tensor(v):
                if not isinstance(v, numbers.Number):
                    if after is v:
                        continue
                    raise Unsupported(
                        f"'{n}' holds a compile-time {type(v).__name__} and cannot change in a loop"
                    )
                if not is_tensor(after) and same_constant(after, v):
                    continue
                t = to_tensor(v)
                if is_tensor(after):
                    t = semantic.broadcast_to(semantic.cast(t, after.dtype), after.shape)
                v = t
            carried.append(n)
            inits.append(v)
        return carried, inits

    def _check_carried(self, names, inits, values) -> list[ir.Value]:
        out = []
        for n, init, v in zip(names, inits, values):
            if not is_tensor(v):
                if not isinstance(v, numbers.Number):
                    raise Unsupported(f"'{n}' becomes a compile-time {type(v).__name__} inside the loop")
                v = semantic.broadcast_to(semantic.cast(to_tensor(v, init.dtype), init.dtype), init.shape)
            if v.dtype != init.dtype or v.shape != init.shape:
                raise Unsupported(
                    f"loop-carried variable '{n}' is {init!r} before the loop but {v!r} after an "
                    "iteration; its type must stay the same"
                )
            out.append(v.handle)
        return out

    def dynamic_for(self, node, lb, ub, step):
        if not is_tensor(step) and step == 0:
            raise Unsupported("range step must not be zero")
        index_t = self._loop_index_type(lb, ub, step)
        var = node.target.id
        negative = not is_tensor(step) and step < 0
        # scf.for needs a positive step: a negative or run-time step becomes a count of iterations
        # (0 for a run-time step of 0, or of the wrong sign for the bounds, as Python's range).
        counted = negative or is_tensor(step)
        names, aggregates = self._expand_aggregates(self._carried(node.body, extra_defined=(var,)))

        def bind_index(i):
            self.lscope[var] = i

        def dry_body():
            bind_index(semantic.cast(to_tensor(0), index_t))
            self._gather_aggregates(aggregates)
            self.visit_statements(node.body)
            self._scatter_aggregates(aggregates, "the loop")

        self.in_dynamic_flow += 1
        self.in_loop += 1
        try:
            learned = self._loop_types(names, dry_body, aggregates)
            carried, inits = self._loop_inits(names, learned)
            lb_t = semantic.cast(to_tensor(lb), index_t)
            ub_t = semantic.cast(to_tensor(ub), index_t)
            step_t = semantic.cast(to_tensor(step), index_t)
            if counted:
                # for i in range(lb, ub, step): iterate k over [0, count) and use lb + k*step
                count = trip_count(lb_t, ub_t, step, index_t)
                lo, hi, st = semantic.constant(0, index_t), count, semantic.constant(1, index_t)
            else:
                lo, hi, st = lb_t, ub_t, step_t
            loop = scf.ForOp(lo.handle, hi.handle, st.handle, [v.handle for v in inits])
            before = dict(self.lscope)
            with ir.InsertionPoint(loop.body):
                iv = tensor(loop.induction_variable, index_t)
                if counted:
                    iv = semantic.add(lb_t, semantic.mul(iv, step_t))
                bind_index(iv)
                for n, arg, init in zip(carried, loop.inner_iter_args, inits):
                    self.lscope[n] = tensor(arg, init.dtype, init.shape)
                self._gather_aggregates(aggregates)
                self.visit_statements(node.body)
                self._scatter_aggregates(aggregates, "the loop")
                values = self._check_carried(carried, inits, [self.lscope[n] for n in carried])
                scf.YieldOp(values)
        finally:
            self.in_dynamic_flow -= 1
            self.in_loop -= 1
        self.lscope = before
        for n, res, init in zip(carried, loop.results, inits):
            self.lscope[n] = tensor(res, init.dtype, init.shape)
        self._gather_aggregates(aggregates)
        self._drop_leaves(aggregates)

    def visit_While(self, node):
        if node.orelse:
            raise Unsupported("while ... else is not supported")
        names, aggregates = self._expand_aggregates(self._carried(node.body))

        def dry_body():
            self._gather_aggregates(aggregates)
            self.visit(node.test)
            self.visit_statements(node.body)
            self._scatter_aggregates(aggregates, "the loop")

        self.in_dynamic_flow += 1
        self.in_loop += 1
        try:
            learned = self._loop_types(names, dry_body, aggregates)
            carried, inits = self._loop_inits(names, learned)
            types = [v.handle.type for v in inits]
            loop = scf.WhileOp(types, [v.handle for v in inits])
            before_block = loop.before.blocks.append(*types)
            after_block = loop.after.blocks.append(*types)
            outer = dict(self.lscope)
            with ir.InsertionPoint(before_block):
                for n, arg, init in zip(carried, before_block.arguments, inits):
                    self.lscope[n] = tensor(arg, init.dtype, init.shape)
                self._gather_aggregates(aggregates)
                cond = self.visit(node.test)
                if not is_tensor(cond):
                    cond = to_tensor(bool(cond))
                cond_h = self._scalar_condition(cond, "while")
                scf.ConditionOp(cond_h, list(before_block.arguments))
            self.lscope = dict(outer)
            with ir.InsertionPoint(after_block):
                for n, arg, init in zip(carried, after_block.arguments, inits):
                    self.lscope[n] = tensor(arg, init.dtype, init.shape)
                self._gather_aggregates(aggregates)
                self.visit_statements(node.body)
                self._scatter_aggregates(aggregates, "the loop")
                scf.YieldOp(self._check_carried(carried, inits, [self.lscope[n] for n in carried]))
        finally:
            self.in_dynamic_flow -= 1
            self.in_loop -= 1
        self.lscope = outer
        for n, res, init in zip(carried, loop.results, inits):
            self.lscope[n] = tensor(res, init.dtype, init.shape)
        self._gather_aggregates(aggregates)
        self._drop_leaves(aggregates)

    # -- expressions --------------------------------------------------------------------------
    def visit_Constant(self, node):
        return node.value

    def lookup(self, name, node):
        if name in self.lscope:
            return self.lscope[name]
        if name in self.gscope:
            value = self.gscope[name]
            plain = core.CONSTEXPR_MARKED.get(type(value))
            return value if plain is None else plain(value)  # `N = tl.constexpr(4)` at module level
        if hasattr(_py, name):
            return getattr(_py, name)
        raise NameError(f"name '{name}' is not defined")

    def visit_Name(self, node):
        return self.lookup(node.id, node)

    def visit_Tuple(self, node):
        return tuple(self.visit(e) for e in node.elts)

    def visit_List(self, node):
        return [self.visit(e) for e in node.elts]

    def visit_Dict(self, node):
        return {self.visit(k): self.visit(v) for k, v in zip(node.keys, node.values)}

    def visit_JoinedStr(self, node):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                value = self.visit(v.value)
                if is_tensor(value):
                    raise Unsupported("f-strings can only format compile-time values")
                spec = self.visit(v.format_spec) if v.format_spec is not None else ""
                parts.append(format(value, spec))
        return "".join(parts)

    def visit_Attribute(self, node):
        obj = self.visit(node.value)
        if is_number(obj) and not hasattr(obj, node.attr):
            # a number assigned in the kernel is a scalar tensor in Triton: `value.dtype`, `value.to(...)`
            return getattr(to_tensor(obj), node.attr)
        return getattr(obj, node.attr)

    def visit_Subscript(self, node):
        obj = self.visit(node.value)
        index = self.visit(node.slice)
        if is_tensor(obj):
            return semantic.subscript(obj, index)
        if is_tensor(index) and not hasattr(obj, "__tilec_fields__"):  # an aggregate's __getitem__ may
            raise Unsupported("cannot index a compile-time sequence with a run-time value")
        return obj[index]

    def visit_Slice(self, node):
        return slice(self.visit(node.lower), self.visit(node.upper), self.visit(node.step))

    def visit_IfExp(self, node):
        cond = self.visit(node.test)
        if not is_tensor(cond):
            return self.visit(node.body if cond else node.orelse)
        if cond.shape:  # a block of conditions: element-wise, both sides computed
            return semantic.where(cond, self.visit(node.body), self.visit(node.orelse))
        # A run-time scalar condition runs only the side it picks (as Triton's scf.if): a load or a
        # store on the other side must not happen. Generated as `if c: t = a` / `else: t = b`.
        name = f"{IFEXP}{id(node)}"
        branches = []
        for side in (node.body, node.orelse):
            assign = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=side)
            branches.append([ast.copy_location(assign, side)])
        statement = ast.copy_location(ast.If(test=node.test, body=branches[0], orelse=branches[1]), node)
        self.dynamic_if(statement, cond)
        return self.lscope.pop(name, None)

    _BINOPS = {
        ast.Add: ("__add__", semantic.add),
        ast.Sub: ("__sub__", semantic.sub),
        ast.Mult: ("__mul__", semantic.mul),
        ast.Div: ("__truediv__", semantic.truediv),
        ast.FloorDiv: ("__floordiv__", semantic.floordiv),
        ast.Mod: ("__mod__", semantic.mod),
        ast.BitAnd: ("__and__", semantic.and_),
        ast.BitOr: ("__or__", semantic.or_),
        ast.BitXor: ("__xor__", semantic.xor_),
        ast.LShift: ("__lshift__", semantic.shl),
        ast.RShift: ("__rshift__", semantic.rshift_operator),
        ast.Pow: ("__pow__", None),
        ast.MatMult: ("__matmul__", None),
    }

    def binary(self, op, lhs, rhs):
        name, fn = self._BINOPS[type(op)]
        if not is_tensor(lhs) and not is_tensor(rhs):
            return py_binop(type(op), lhs, rhs)
        if fn is None:
            raise Unsupported(f"operator {type(op).__name__} is not supported on tensors")
        if name in ("__add__", "__sub__", "__mul__"):  # checked for integer overflow in debug builds
            return tlb.arithmetic(name[2:5], lhs, rhs)
        return fn(lhs, rhs)

    def visit_BinOp(self, node):
        return self.binary(node.op, self.visit(node.left), self.visit(node.right))

    def visit_UnaryOp(self, node):
        x = self.visit(node.operand)
        if not is_tensor(x):
            return {
                ast.USub: lambda v: -v,
                ast.UAdd: lambda v: +v,
                ast.Not: lambda v: not v,
                ast.Invert: lambda v: ~v,
            }[type(node.op)](x)
        if isinstance(node.op, ast.USub):
            return semantic.neg(x)
        if isinstance(node.op, ast.UAdd):
            return x
        if isinstance(node.op, ast.Invert):
            return semantic.invert(x)
        return semantic.logical_not(x)

    _CMP = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}

    def visit_Compare(self, node):
        if len(node.ops) != 1:
            left = self.visit(node.left)
            rights = [self.visit(c) for c in node.comparators]
            if any(is_tensor(v) for v in [left, *rights]):
                raise Unsupported("chained comparisons of tensors are not supported; use & between them")
            result = True
            for op, r in zip(node.ops, rights):
                result = result and py_compare(type(op), left, r)
                left = r
            return result
        lhs, rhs = self.visit(node.left), self.visit(node.comparators[0])
        op = type(node.ops[0])
        if op in (ast.Is, ast.IsNot, ast.In, ast.NotIn):
            if is_tensor(lhs) and op in (ast.Is, ast.IsNot) and rhs is None:
                return op is ast.IsNot
            return py_compare(op, lhs, rhs)
        if not is_tensor(lhs) and not is_tensor(rhs):
            return py_compare(op, lhs, rhs)
        return semantic.compare(self._CMP[op], lhs, rhs)

    def visit_BoolOp(self, node):
        # Compile-time operands short-circuit as in Python (`() and tl.program_id(0)` is `()`, the
        # right side not even generated); once a tensor is involved the rest combine element-wise.
        is_and = isinstance(node.op, ast.And)
        result = self.visit(node.values[0])
        for operand in node.values[1:]:
            if not is_tensor(result):
                if bool(result) != is_and:  # decided: a false `and`, a true `or`
                    return result
                result = self.visit(operand)
                continue
            value = self.visit(operand)
            result = semantic.logical_and(result, value) if is_and else semantic.logical_or(result, value)
        return result

    def visit_Call(self, node):
        fn = self.visit(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self.visit(a.value))
            else:
                args.append(self.visit(a))
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:
                kwargs.update(self.visit(k.value))
            else:
                kwargs[k.arg] = self.visit(k.value)
        try:
            return self.call(fn, args, kwargs)
        except CompilationError as e:
            if isinstance(fn, KernelFunction | BoundJITMethod):  # the error is inside the callee
                site = self.error(node, "")
                name = fn.__name__ if isinstance(fn, KernelFunction) else fn.function.__name__
                e.add_call_site(site.filename, site.lineno, site.col, name)
            raise

    def call(self, fn, args, kwargs):
        if isinstance(fn, KernelFunction):
            return self.call_jit(fn, args, kwargs)
        if isinstance(fn, KernelLambda):
            return fn(*args, **kwargs)
        if isinstance(fn, BoundJITMethod):  # an aggregate's @jit method
            return self.call_jit(fn.function, [fn.obj, *args], kwargs)
        owner = getattr(fn, "__self__", None)
        if (
            getattr(fn, "__tilec_builtin__", False)
            or is_tensor(owner)
            or hasattr(owner, "__tilec_fields__")
            or getattr(fn, "__tilec_aggregate_method__", False)
        ):
            return fn(*args, **kwargs)  # a tl function, a tensor's method, an aggregate's Python method
        if fn is tl.constexpr:
            return args[0] if args else None
        if isinstance(fn, type) and (
            hasattr(fn, "__tilec_fields__") or issubclass(fn, tuple) and hasattr(fn, "_fields")
        ):
            return fn(*args, **kwargs)  # an aggregate or a named tuple made in the kernel
        tensors = any(is_tensor(a) for a in [*args, *kwargs.values()])
        if fn in PY_ON_TENSORS and tensors:
            return PY_ON_TENSORS[fn](*args, **kwargs)
        if fn is _py.print:
            return self._print(args, kwargs)
        if fn in PY_INTROSPECTION:  # compile-time questions about values, tensors included
            return fn(*args, **kwargs)
        if tensors:
            name = getattr(fn, "__name__", repr(fn))
            raise Unsupported(
                f"cannot call the Python function '{name}' with run-time tensors; "
                "decorate it with @tilec.jit to call it from a kernel"
            )
        if isinstance(fn, type) and issubclass(fn, core.dtype):
            return fn(*args, **kwargs)
        return fn(*args, **kwargs)

    def _print(self, args, kwargs):
        """Python's print in a kernel is tl.device_print, as in Triton: it prints at run time (each
        program, each element of a tensor); the compile-time values before the first tensor become
        the prefix. With only compile-time values it prints that text at run time, once per program."""
        if kwargs:
            raise Unsupported("print in a kernel takes no keyword arguments (it is tl.device_print)")
        words, rest = [], list(args)
        while rest and not is_tensor(rest[0]):
            words.append(str(rest.pop(0)))
        prefix = " ".join(words)
        return tlb.device_print(prefix, *rest)

    def call_jit(self, fn, args, kwargs):
        if self.depth >= MAX_INLINE_DEPTH:
            raise Unsupported(f"@jit calls nest deeper than {MAX_INLINE_DEPTH} (recursion is not supported)")
        try:
            bound = fn.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise Unsupported(f"bad call of {fn.__name__}: {e}") from None
        bound.apply_defaults()
        scope = {}
        # A helper's tl.constexpr annotations are not enforced (as in Triton): what is constant is
        # decided by the values passed, so a tensor may arrive under one (Triton's attention tutorial
        # passes offs_m that way).
        scope.update(bound.arguments)
        callee = CodeGenerator(fn, fn.source_info(), scope, self.depth + 1, self.expansion)
        callee.visit_statements(tail_returns(callee.src.fndef.body))
        return callee.return_value

    def call_combine(self, fn, args):
        """For tl.reduce / tl.associative_scan: inline the user's combine function on scalars."""
        if isinstance(fn, KernelFunction):
            return self.call_jit(fn, args, {})
        return fn(*args)

    def visit_Lambda(self, node):
        return KernelLambda(self, node)
