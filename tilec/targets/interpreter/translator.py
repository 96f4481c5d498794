"""Tile IR translated once into nested Python closures over a value table; handlers by op name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlir import ir

from tilec import diagnostics
from tilec.errors import InterpreterError

from .memory import as_array, cast_to, np_dtype, widened

if TYPE_CHECKING:
    from .memory import Memory


class State:
    def __init__(self, memory: Memory, grid):
        self.memory = memory
        self.grid = grid
        self.pid = (0, 0, 0)


class Fail(Exception):
    def __init__(self, op, message):
        self.op, self.message = op, message


def _where(op) -> str:
    file, line, col = diagnostics.file_location(op.location)
    return f"{file}:{line}:{col}" if file else op.name


class Translator:
    def __init__(self):
        self.slots: dict = {}

    def slot(self, value: ir.Value) -> int:
        idx = self.slots.get(value)
        if idx is None:
            idx = len(self.slots)
            self.slots[value] = idx
        return idx

    def block(self, block: ir.Block):
        """A closure running the block's ops; returns the operands of its terminator."""
        steps = []
        terminator = None
        for op in block.operations:
            op = op.operation
            if op.name in ("scf.yield", "gpu.yield", "scf.condition", "func.return"):
                terminator = [self.slot(v) for v in op.operands]
                continue
            steps.append(self.op(op))
        results = terminator or []

        def run(env, state):
            for step in steps:
                step(env, state)
            return [env[i] for i in results]

        return run

    def op(self, op: ir.Operation):
        handler = HANDLERS.get(op.name)
        if op.name == "tile.inline_asm":
            raise InterpreterError(
                f"{_where(op)}: tl.inline_asm_elementwise runs GPU assembly, which the interpreter "
                "cannot run (as in Triton's interpreter): run the kernel on an NVIDIA GPU"
            )
        if handler is None:
            raise InterpreterError(f"{_where(op)}: the interpreter does not support '{op.name}'")
        step = handler(self, op)
        # Where the op is, worked out now: the closures outlive the module (it is not kept: one per
        # compiled kernel would pile up), so a run-time error must not read the op.
        where, name = _where(op), op.name

        def guarded(env, state, step=step):
            try:
                step(env, state)
            except InterpreterError as e:
                if getattr(e, "located", False):
                    raise
                err = InterpreterError(f"{where}: {e} (program {state.pid})")
                err.located = True
                raise err from None
            except (ValueError, TypeError, IndexError, OverflowError) as e:
                err = InterpreterError(f"{where}: interpreter failure in '{name}': {e} (program {state.pid})")
                err.located = True
                raise err from None

        return guarded


HANDLERS: dict = {}


def handles(*names):
    def register(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn

    return register


def simple_handler(fn_of_operands):
    """Handler factory: result = fn(op)(*operand values)."""

    def handler(tr: Translator, op):
        ins = [tr.slot(v) for v in op.operands]
        out = tr.slot(op.results[0])
        compute = fn_of_operands(op)
        dtype = np_dtype(op.results[0].type)

        def step(env, state):
            env[out] = cast_to(as_array(compute(*[widened(as_array(env[i])) for i in ins])), dtype)

        return step

    return handler
