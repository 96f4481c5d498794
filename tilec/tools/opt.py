"""tilec-opt: parse tile IR, run a pipeline of tilec and upstream passes, print the result.

    tilec-opt kernel.mlir -p 'tile-canonicalize,tile-verify,canonicalize'
    tilec-opt --list-passes

Errors are MLIR-style `file:line:col: error: ...` lines on stderr and exit status 1; the input is
verified before any pass runs, so no pass ever sees invalid IR.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from dataclasses import dataclass

from tilec import knobs

# MLIR, the tile dialect and the passes are imported once the arguments are parsed: `--help` and
# `--version` answer without them.

SPLIT_MARKER = re.compile(r"^\s*//\s*-----\s*$")
EXPECTED = re.compile(r"expected-(error|warning|note|remark)\s*(@(?:[+-]\d+|above|below))?\s*\{\{(.*?)\}\}")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tilec-opt",
        description=__doc__.splitlines()[0],
        epilog="Passes may also be given one flag each, as with mlir-opt: tilec-opt in.mlir "
        '--tile-canonicalize --cse --convert-tile-to-gpu="vendor=amd" (see --list-passes).',
    )
    p.add_argument("input", nargs="?", default="-", help="input file ('-' or nothing: stdin)")
    p.add_argument(
        "-p", "--pass-pipeline", default="", help="comma-separated passes, e.g. 'tile-canonicalize,cse'"
    )
    p.add_argument("-o", dest="output", default="-", help="output file (default stdout)")
    p.add_argument("--list-passes", action="store_true", help="list tilec passes and their options, and exit")
    p.add_argument(
        "--print-pipeline",
        metavar="TARGET",
        help="print the pipeline tilec compiles kernels for TARGET with (cpu, sm_90a, gfx942, ...), and exit",
    )
    p.add_argument("--num-warps", type=int, default=4, help="with --print-pipeline: num_warps (default 4)")
    p.add_argument("--num-stages", type=int, default=3, help="with --print-pipeline: num_stages (default 3)")
    p.add_argument("--debug", action="store_true", help="with --print-pipeline: a debug build's pipeline")
    p.add_argument("--version", action="store_true", help="print tilec's and MLIR's versions and exit")
    p.add_argument("--split-input-file", action="store_true", help="process '// -----' chunks separately")
    p.add_argument("--verify-diagnostics", action="store_true", help="check expected-error annotations")
    p.add_argument(
        "--mlir-print-ir-after-all", action="store_true", help="print IR after every pass (stderr)"
    )
    p.add_argument(
        "--print-ir-after", action="append", default=[], metavar="NAME", help="print IR after pass NAME"
    )
    p.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    p.add_argument("--mlir-print-op-generic", action="store_true", help="print every op in generic form")
    return p


@dataclass
class Chunk:
    text: str
    first_line: int  # 0-based line of the chunk in the input file


def split_chunks(text: str, split: bool) -> list[Chunk]:
    if not split:
        return [Chunk(text, 0)]
    chunks, current, start = [], [], 0
    for i, line in enumerate(text.splitlines(keepends=True)):
        if SPLIT_MARKER.match(line):
            chunks.append(Chunk("".join(current), start))
            current, start = [], i + 1
        else:
            current.append(line)
    chunks.append(Chunk("".join(current), start))
    return chunks


def expected_diagnostics(chunk: Chunk) -> list[tuple[str, int, str]]:
    """(severity, line, text) from `// expected-error @+1 {{text}}` annotations (file line numbers)."""
    found = []
    lines = chunk.text.splitlines()
    for i, line in enumerate(lines):
        for m in EXPECTED.finditer(line):
            severity, where, message = m.group(1), m.group(2), m.group(3)
            target = i
            if where in ("@above",):
                target = i - 1
            elif where in ("@below",):
                target = i + 1
            elif where:
                target = i + int(where[1:])
            found.append((severity, chunk.first_line + target + 1, message))
    return found


def print_module(module, args) -> str:
    return module.operation.get_asm(
        enable_debug_info=args.mlir_print_debuginfo,
        print_generic_op_form=args.mlir_print_op_generic,
    )


# Text MLIR's parser asserts on (the LLVM build has assertions on) instead of reporting: found first.
_INDEX_ARRAY = re.compile(r"(?<![\w.!])array<\s*index\s*[:>]")


# A generic op whose name is a dialect's namespace alone ("gpu", "tile."): LLVM_ERROR "created with
# unregistered dialect" where the dialect is loaded.
_GENERIC_OP = re.compile(r'^[ \t]*(?:%[^=\n]*=[ \t]*)?"([^"\n]*)"[ \t]*\(', re.MULTILINE)


def _blank_comments(text: str) -> str:
    """`text` with each `// ...` comment (outside a string) turned to spaces: positions stay."""
    out = []
    for line in text.split("\n"):
        in_string, i = False, 0
        while i < len(line):
            c = line[i]
            if c == "\\" and in_string:
                i += 2
                continue
            if c == '"':
                in_string = not in_string
            elif c == "/" and not in_string and line.startswith("//", i):
                line = line[:i] + " " * (len(line) - i)
                break
            i += 1
        out.append(line)
    return "\n".join(out)


def unparsable(text: str, name: str) -> list:
    from tilec import diagnostics

    if not (_INDEX_ARRAY.search(text) or _GENERIC_OP.search(text)):
        return []  # the common case, without the character-by-character pass
    text = _blank_comments(text)

    def at(position: int, message: str) -> list:
        line = text.count("\n", 0, position) + 1
        col = position - (text.rfind("\n", 0, position) + 1) + 1
        return [diagnostics.Diagnostic("error", message, name, line, col)]

    m = _INDEX_ARRAY.search(text)
    if m is not None:
        return at(
            m.start(), "a dense array's elements must be integers or floats: array<index: ...> is not valid"
        )
    for m in _GENERIC_OP.finditer(text):
        dialect, dot, op_name = m.group(1).partition(".")
        if not dot or not dialect or not op_name:
            return at(
                m.start(1) - 1,
                f"'{m.group(1)}' is not an operation name: it needs a dialect and a name ('gpu.barrier')",
            )
    return []


def process_chunk(chunk: Chunk, steps, args, name: str, err) -> tuple[str | None, list]:
    """Returns (printed IR or None, diagnostics)."""
    from mlir import ir

    import tilec.language  # noqa: F401  (defines the expansions tile-expand-sort and others apply)
    from tilec import diagnostics
    from tilec.dialects import tile
    from tilec.passes.pipeline import StepFailed, run_pipeline, verify_module

    ctx = tile.make_context()
    padded = "\n" * chunk.first_line + chunk.text  # keeps line numbers those of the whole file
    refused = unparsable(padded, name)
    if refused:
        return None, refused
    with ctx, ir.Location.unknown(ctx):
        with diagnostics.collected(ctx) as found:
            try:
                module = ir.Module.parse(padded, ctx)
            except ir.MLIRError as e:
                errs = [d for info in e.error_diagnostics for d in diagnostics.from_mlir(info)]
                return None, errs or found or [diagnostics.Diagnostic("error", str(e), None, None, None)]
        problems = verify_module(module)
        if problems:
            return None, problems

        def after(step, mod):
            wanted = args.mlir_print_ir_after_all or step.name in args.print_ir_after
            if wanted:
                err.write(f"// -----// IR Dump After {step.name} //----- //\n{print_module(mod, args)}\n")

        try:
            run_pipeline(module, steps, after)
        except StepFailed as e:
            return None, e.diagnostics or [diagnostics.Diagnostic("error", str(e), None, None, None)]
        return print_module(module, args), []


def check_expectations(chunk: Chunk, found: list, name: str, err) -> bool:
    expected = expected_diagnostics(chunk)
    ok = True
    unmatched = list(found)
    for severity, line, text in expected:
        match = next(
            (d for d in unmatched if d.severity == severity and d.line == line and text in d.message),
            None,
        )
        if match is None:
            err.write(f'{name}:{line}: error: expected {severity} "{text}" was not produced\n')
            ok = False
        else:
            unmatched.remove(match)
    for d in unmatched:
        if d.severity in ("error", "warning"):
            err.write(
                d.format(name).replace(f": {d.severity}: ", f": error: unexpected {d.severity}: ", 1) + "\n"
            )
            ok = False
    return ok


class FlagError(ValueError):
    """A command-line flag that is neither an option of tilec-opt nor a pass."""


def pass_flags(extra: list[str]) -> str:
    """mlir-opt's spelling, one flag a pass: `--tile-canonicalize --cse --convert-tile-to-gpu="vendor=amd"`
    is the pipeline 'tile-canonicalize,cse,convert-tile-to-gpu{vendor=amd}', in the flags' order."""
    elements = []
    for flag in extra:
        if not flag.startswith("--") or len(flag) == 2:
            raise FlagError(f"unrecognized argument '{flag}'")
        name, _, options = flag[2:].partition("=")
        elements.append(f"{name}{{{options.strip(chr(34))}}}" if options else name)
    return ",".join(elements)


def version_text() -> str:
    from tilec import __version__
    from tilec.cli import package_version

    bindings = package_version("xtc-mlir-python-bindings") or "not installed"
    return f"tilec-opt (tilec {__version__}), MLIR/LLVM {bindings.rsplit('.', 1)[0]} (xtc-mlir-python-bindings {bindings})\n"


def list_passes(width: int = 110) -> str:
    """Each tilec pass: its name, its summary, then its options with their types and defaults."""
    from tilec.passes import REGISTRY
    from tilec.targets import load_passes

    load_passes()
    lines = []
    for pass_name, cls in sorted(REGISTRY.items()):
        lines.append(f"  {pass_name}")
        lines.extend(textwrap.wrap(cls.summary(), width, initial_indent=" " * 6, subsequent_indent=" " * 6))
        for key, type_name, default in cls.option_defaults():
            shown = str(default).lower() if isinstance(default, bool) else default
            lines.append(f"      {{{key}={shown}}}  ({type_name})")
    lines.append("Upstream MLIR passes (canonicalize, cse, convert-*-to-*, ...) may be mixed in.")
    return "\n".join(lines) + "\n"


def print_pipeline(args, out_stream, err) -> int:
    from tilec.compiler import Options
    from tilec.targets import pipeline_text

    if not 1 <= args.num_warps <= 32 or args.num_warps & (args.num_warps - 1):
        err.write(
            f"tilec-opt: error: --num-warps must be a power of two from 1 to 32, got {args.num_warps}\n"
        )
        return 1
    if not 1 <= args.num_stages <= 16:
        err.write(f"tilec-opt: error: --num-stages must be from 1 to 16, got {args.num_stages}\n")
        return 1
    options = Options(num_warps=args.num_warps, num_stages=args.num_stages, debug=args.debug)
    try:
        out_stream.write(pipeline_text(args.print_pipeline, options))
    except ValueError as e:
        err.write(f"tilec-opt: error: {e}\n")
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    out_stream, err = sys.stdout, sys.stderr
    if args.version:
        out_stream.write(version_text())
        return 0
    try:
        flags = pass_flags(extra)
    except FlagError as e:
        err.write(f"tilec-opt: error: {e}\n")
        return 1
    if flags:  # after -p's pipeline, when both are given
        args.pass_pipeline = f"{args.pass_pipeline},{flags}" if args.pass_pipeline else flags
    if args.list_passes:
        out_stream.write(list_passes())
        return 0
    if args.print_pipeline:
        return print_pipeline(args, out_stream, err)
    from tilec.passes.pipeline import PipelineError, parse_pipeline
    from tilec.targets import load_passes

    load_passes()  # a target's passes are named like the others
    name = "<stdin>" if args.input == "-" else args.input
    try:
        text = sys.stdin.read() if args.input == "-" else open(args.input, encoding="utf-8").read()
    except OSError as e:
        err.write(f"tilec-opt: error: cannot read '{args.input}': {e.strerror}\n")
        return 1
    try:
        steps = parse_pipeline(args.pass_pipeline) if args.pass_pipeline else []
    except PipelineError as e:
        err.write(f"tilec-opt: error: {e}\n")
        return 1

    outputs, failed = [], False
    for chunk in split_chunks(text, args.split_input_file):
        printed, found = process_chunk(chunk, steps, args, name, err)
        if args.verify_diagnostics:
            failed |= not check_expectations(chunk, found, name, err)
        else:
            for d in found:
                err.write(d.format(name) + "\n")
            failed |= any(d.severity == "error" for d in found)
        if printed is not None:
            outputs.append(printed)
    result = "// -----\n".join(outputs)
    if args.output == "-":
        out_stream.write(result)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(result)
    return 1 if failed else 0


def entry() -> None:
    """Console-script entry: no Python traceback ever reaches the user."""
    try:
        code = main()
    except KeyboardInterrupt:
        code = 130
    except Exception as e:  # an internal bug: report it as one line, not a traceback
        if knobs.DEBUG.on():
            raise
        sys.stderr.write(f"tilec-opt: internal error: {type(e).__name__}: {e} (TILEC_DEBUG=1 shows more)\n")
        code = 1
    sys.exit(code)


if __name__ == "__main__":
    entry()
