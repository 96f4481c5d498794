"""A @jit function's parsed source, with positions mapped back to the user's file (no MLIR needed)."""

from __future__ import annotations

import ast
import inspect
import textwrap

from tilec.language import core


def is_constexpr_annotation(annotation) -> bool:
    if annotation is core.constexpr:
        return True
    return isinstance(annotation, str) and annotation.split(".")[-1] == "constexpr"


class SourceInfo:
    """The parsed function with line/column offsets mapped back to the file."""

    def __init__(self, fn, replaced: str | None = None):
        """`replaced`: source text standing in for the function's own (JITFunction._unsafe_update_src),
        its lines numbered from where the function starts in its file."""
        self.filename = inspect.getsourcefile(fn) or "<unknown>"
        try:
            lines, first = inspect.getsourcelines(fn)
        except OSError:
            raise ValueError(
                f"cannot read the source of kernel '{fn.__name__}': tilec compiles a kernel from its "
                "source, so define it in a .py file (not in `python -c`, exec or an interactive prompt)"
            ) from None
        if replaced is not None:
            # Triton's `src` starts at the def line: number the new text from there, unless it
            # brings its decorators along
            original = ast.parse(textwrap.dedent("".join(lines))).body[0]
            if not replaced.lstrip().startswith("@"):
                first += original.lineno - 1
            lines = replaced.splitlines(keepends=True) or ["\n"]
        source = "".join(lines)
        dedented = textwrap.dedent(source)
        self.col_offset = len(lines[0]) - len(lines[0].lstrip())
        try:
            tree = ast.parse(dedented)
        except SyntaxError as e:  # only replaced text gets here: a file with bad syntax does not import
            from .errors import CompilationError

            line = (e.lineno or 1) + first - 1
            raise CompilationError(self.filename, line, (e.offset or 1) + self.col_offset, f"invalid syntax in the "
                                   f"replaced source of '{fn.__name__}': {e.msg}") from None  # fmt: skip
        ast.increment_lineno(tree, first - 1)
        self.fndef = next(
            (n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)), None
        )
        if self.fndef is None:  # only replaced text gets here too
            from .errors import CompilationError

            raise CompilationError(
                self.filename, first, 1, f"the replaced source of '{fn.__name__}' defines no function"
            )
        self.source = source
