"""The interpreter as a target: the tile IR itself runs, op by op, on NumPy (program.py; the op
handlers are in arith_ops, scf_ops and tile_ops). Nothing is lowered and nothing is stored in the disk cache."""

from __future__ import annotations

from tilec.targets.base import DROP_GRID_DEPENDENCY, Stage, Target


class InterpreterTarget(Target):
    name = "interpreter"
    stored = False

    def compile(self, kernel, module) -> None:
        from tilec.passes.lowering_common import drop_grid_dependency_control

        from .program import Program

        drop_grid_dependency_control(module.operation)  # no programmatic dependent launch here
        kernel._launcher = _launch_function(kernel, Program(module))

    def pipeline(self, arch: str, options) -> list[Stage]:
        return [DROP_GRID_DEPENDENCY, Stage("tile", does="the tile IR runs op by op on NumPy")]

    def launcher(self, kernel, binary_path=None):
        return kernel._launcher  # made when it compiled: the program is the compiled form

    def unavailable_reason(self) -> str:
        return "the interpreter was not prepared"


def _launch_function(kernel, program):
    from tilec.targets import arrays
    from tilec.targets.cpu.runtime import check_grid, read_only_message

    from .memory import Memory

    written = set(kernel.metadata.get("written_args", ()))

    def launch(grid, args):
        check_grid(kernel, grid)
        memory = Memory()
        values = []
        for i, (t, v) in enumerate(zip(kernel.arg_types, args)):
            if t.is_ptr():
                if i in written and not getattr(getattr(v, "flags", None), "writeable", True):  # NumPy
                    raise ValueError(read_only_message(kernel, i))
                values.append(memory.add(arrays.host_view(v)))
            else:
                values.append(v)
        program.run(grid, values, memory)

    return launch
