"""Errors that point at the user's kernel source: file, line, the line itself and a caret."""

from __future__ import annotations

import linecache


class CompilationError(Exception):
    """A kernel could not be compiled. The message starts with `file:line:col: error:`."""

    def __init__(self, filename: str, lineno: int, col: int, reason: str, source_line: str | None = None):
        """`source_line`: the text of line `lineno` where it is not in the file (a kernel compiled from
        a string, or from a replaced source); else it is read from the file."""
        self.filename, self.lineno, self.col, self.reason = filename, lineno, col, reason
        if source_line is None:
            source_line = linecache.getline(filename, lineno).rstrip("\n") if lineno else ""
        source = source_line
        text = f"{filename}:{lineno}:{col}: error: {reason}"
        if source.strip():
            text += f"\n    {source}\n    {' ' * max(col - 1, 0)}^"
        self.call_sites: list[tuple[str, int, int, str]] = []
        self._repeats = 0
        super().__init__(text)

    def add_call_site(self, filename: str, lineno: int, col: int, callee: str) -> None:
        """Notes where the @jit function the error is in was called from (outermost last)."""
        site = (filename, lineno, col, callee)
        repeated = bool(self.call_sites) and self.call_sites[-1] == site
        self.call_sites.append(site)
        if not repeated:
            self.args = (f"{self.args[0]}\n  in {callee}(), called from {filename}:{lineno}:{col}",)
            self._repeats = 1
            return
        # a recursive helper: one line for the run of identical call sites, with its count
        self._repeats += 1
        head, _, _ = self.args[0].rpartition("\n")
        self.args = (
            f"{head}\n  in {callee}(), called from {filename}:{lineno}:{col} ({self._repeats} times)",
        )


class InterpreterError(Exception):
    """A kernel failed while running in the interpreter (out-of-bounds access, failed assert)."""


class PerformanceWarning(UserWarning):
    """A kernel compiled and is correct, but the back end reported that it runs slower than its code
    asks for (ptxas's "Potential Performance Loss" advisories: serialized warpgroup MMAs, ...)."""


# Shown to users as `tilec.CompilationError`, where they catch it.
CompilationError.__module__ = "tilec"
InterpreterError.__module__ = "tilec"
PerformanceWarning.__module__ = "tilec"
