"""A @jit function's parsed source, with positions mapped back to the user's file (no MLIR needed)."""

from __future__ import annotations

import ast
import inspect
import os
import textwrap

from tilec.errors import CompilationError
from tilec.language import core


def is_constexpr_annotation(annotation) -> bool:
    if annotation is core.constexpr:
        return True
    return isinstance(annotation, str) and annotation.split(".")[-1] == "constexpr"


def function_lines(fn) -> tuple[list[str], int]:
    """The function's source lines (decorators first) and the line number they start at: from its
    file, or from the text it was compiled from by exec/compile (see text_lines)."""
    try:
        return inspect.getsourcelines(fn)
    except (OSError, TypeError):
        pass
    found = text_lines(fn)
    if found is None:
        raise ValueError(
            f"cannot read the source of kernel '{fn.__name__}': tilec compiles a kernel from its "
            "source; define it in a .py file, or exec its text after `import tilec` (tilec keeps the "
            "text of code compiled from strings from then on)"
        )
    return found


def text_lines(fn) -> tuple[list[str], int] | None:
    """function_lines for a function compiled from a string, None for others. Call it while the
    text is fresh (when the decorator runs): tilec remembers only the most recent texts."""
    from tilec import _source_texts

    code = getattr(fn, "__code__", None)
    if code is None or (code.co_filename[:1] != "<" and os.path.isfile(code.co_filename)):
        return None
    return _source_texts.function_text(code)


class SourceInfo:
    """The parsed function with line/column offsets mapped back to the file (or to the text it was
    compiled from)."""

    def __init__(self, fn, replaced: str | None = None, lines: tuple[list[str], int] | None = None):
        """`replaced`: source text standing in for the function's own (JITFunction._unsafe_update_src),
        its lines numbered from where the function starts in its file. `lines`: function_lines's
        answer where it is known already."""
        self.filename = fn.__code__.co_filename or "<unknown>"
        if self.filename[:1] != "<":
            self.filename = inspect.getsourcefile(fn) or self.filename
        lines, first = lines or function_lines(fn)
        original = ast.parse(textwrap.dedent("".join(lines))).body[0]
        self.col_offset = len(lines[0]) - len(lines[0].lstrip())
        if replaced is not None:
            # Triton's `src` starts at the def line: number the new text from there, unless it
            # brings its decorators along
            if not replaced.lstrip().startswith("@"):
                first += original.lineno - 1
            lines = replaced.splitlines(keepends=True) or ["\n"]
            self.col_offset = len(lines[0]) - len(lines[0].lstrip())
        source = "".join(lines)
        self.first_line = first
        self._lines = lines
        try:
            tree = ast.parse(textwrap.dedent(source))
        except SyntaxError as e:  # only replaced text gets here: a file with bad syntax does not import
            raise self._replaced_error(
                fn,
                (e.lineno or 1) + first - 1,
                e.offset or 1,
                f"invalid syntax in the replaced source of '{fn.__name__}': {e.msg}",
            ) from None
        ast.increment_lineno(tree, first - 1)
        functions = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        if not functions:  # only replaced text gets here too
            raise self._replaced_error(
                fn, first, 1, f"the replaced source of '{fn.__name__}' defines no function"
            )
        others = [n for n in tree.body if n is not functions[0]]
        if others:
            # a patch that dedents a line ends the function early: what follows would be dropped,
            # and a shorter kernel compiled without a word
            raise self._replaced_error(
                fn,
                others[0].lineno,
                others[0].col_offset + 1,
                f"the replaced source of '{fn.__name__}' goes on after its function: the lines from here "
                "on are outside it (a patched-in line indented less than the body ends the body)",
            )
        self.fndef = functions[0]
        self.source = source

    def _replaced_error(self, fn, line: int, col: int, reason: str):
        return CompilationError(
            self.filename, line, col + self.col_offset, reason,
            source_line=self.line(line),
        )  # fmt: skip

    def line(self, lineno: int) -> str | None:
        """The text of source line `lineno` (numbered as in the file), None outside the function."""
        index = lineno - self.first_line
        return self._lines[index].rstrip("\n") if 0 <= index < len(self._lines) else None

    @property
    def text(self) -> str:
        """The source dedented, from the `def` line on (Triton's JITFunction.src)."""
        start = self.fndef.lineno - self.first_line
        return textwrap.dedent("".join(self._lines[start:]))
