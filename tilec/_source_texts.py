"""Source text of functions compiled from strings (exec, compile), kept so that @tilec.jit can
compile kernels a template or a code generator made: `inspect` finds no file for them.

Python reports every compile() of text, exec's included, to audit hooks; tilec installs one when
it is imported (audit hooks cannot be removed, so it is one small function) and remembers the most
recent texts whose file name is not a file on disk. No MLIR or NumPy here: `import tilec` loads this.
"""

from __future__ import annotations

import ast
import collections
import os
import sys
import threading
import weakref

_KEPT = 256  # texts remembered; a kernel is jitted while its text runs, so recent ones suffice
_texts: collections.deque[tuple[str, str]] = collections.deque(maxlen=_KEPT)
_found: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # code object -> function_text
_lock = threading.Lock()
_installed = False


def _on_audit(event: str, args: tuple) -> None:
    if event != "compile":
        return
    try:
        source, filename = args
    except ValueError:
        return
    if isinstance(source, bytes):
        try:
            source = source.decode()
        except UnicodeDecodeError:
            return
    if not isinstance(source, str) or not isinstance(filename, str) or "def " not in source:
        return
    if filename[:1] != "<" and os.path.isfile(filename):
        return  # an imported module: inspect reads it from its file
    with _lock:
        _texts.append((filename, source))


def install() -> None:
    global _installed
    if not _installed:
        _installed = True
        sys.addaudithook(_on_audit)


def function_text(code) -> tuple[list[str], int] | None:
    """(lines, first line number) of the function whose code object is `code`, from its decorators
    to its last line, if it was compiled from a remembered text; else None."""
    with _lock:
        if code in _found:
            return _found[code]
        candidates = [text for name, text in reversed(_texts) if name == code.co_filename]
    for text in candidates:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.name != code.co_name:
                continue
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            if first == code.co_firstlineno:
                lines = text.splitlines(keepends=True)[first - 1 : node.end_lineno]
                with _lock:
                    _found[code] = (lines, first)
                return lines, first
    return None
