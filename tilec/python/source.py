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

    def __init__(self, fn):
        self.filename = inspect.getsourcefile(fn) or "<unknown>"
        try:
            lines, first = inspect.getsourcelines(fn)
        except OSError:
            raise ValueError(
                f"cannot read the source of kernel '{fn.__name__}': tilec compiles a kernel from its "
                "source, so define it in a .py file (not in `python -c`, exec or an interactive prompt)"
            ) from None
        source = "".join(lines)
        dedented = textwrap.dedent(source)
        self.col_offset = len(lines[0]) - len(lines[0].lstrip())
        tree = ast.parse(dedented)
        ast.increment_lineno(tree, first - 1)
        self.fndef = next(n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
        self.source = source
