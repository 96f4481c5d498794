"""Fuzzes tilec-opt: mutated IR (the lit inputs and the kernel suite's tile IR) through random pass
pipelines (tilec's registry, common upstream passes, the targets' own stages).

Every mutant must end in bounded time with tilec-opt's exit 0 or a diagnostic and exit 1: a process
that dies (an LLVM assertion, a segfault), a Python exception out of tilec-opt's `main` (shown to users
as "internal error") or a mutant that runs past the time limit is a failure. Mutants run in worker
processes that each run many (no interpreter start-up per mutant); a worker that dies or hangs is
replaced and its mutant recorded. Each failure is written to the output folder as a lit-ready file
(the mutant and a RUN line with its pipeline).

    python tools/fuzz.py --seed 1 --mutants 10000 --out /tmp/tilec-fuzz
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import select
import signal
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTCOMES = ("ok", "diagnosed", "traceback", "abort", "hang")
FAILURES = ("traceback", "abort", "hang")

# -- the corpus ---------------------------------------------------------------------------------------


def lit_inputs() -> list[str]:
    """Every lit input, split where a file is split (`// -----`), without its RUN/CHECK lines."""
    found = []
    for path in sorted((ROOT / "test" / "lit").rglob("*.mlir")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for chunk in text.split("// -----"):
            lines = [line for line in chunk.splitlines() if not re.match(r"\s*//\s*[A-Z-]+:", line)]
            body = "\n".join(lines).strip()
            if body:
                found.append(body + "\n")
    return found


def suite_tile_ir() -> list[str]:
    """The tile IR of the kernel suite's kernels (test/py/suite.py), as the front end makes it."""
    sys.path.insert(0, str(ROOT / "test" / "py"))
    import numpy as np
    from suite import CASES

    texts = []

    def launch(kernel, grid, *args, **constexprs):
        compiled = kernel.warmup(*args, **constexprs, grid=grid, target="cpu")
        texts.append(compiled.asm["tile"])

    for case in CASES:
        try:
            case.run(launch, np.random.default_rng(0))
        except Exception:  # noqa: BLE001, S112 - a case that checks results it did not get
            continue
    return texts


# -- mutations ----------------------------------------------------------------------------------------

TYPES = ["i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "index", "f8E4M3FN", "!tile.ptr<f32>",
         "tensor<8xf32>", "tensor<0xi32>", "tensor<?xf32>", "none"]  # fmt: skip
NUMBERS = ["0", "-1", "1", "3", "7", "64", "-2147483648", "2147483647", "4294967296", "9223372036854775807",
           "-9223372036854775808", "1048577", "65536"]  # fmt: skip
TOKENS = ["(", ")", "{", "}", "<", ">", "%0", "^bb0", ":", "->", "\"tile.load\"", "loc(unknown)", "#map",
          "dense<1>", "array<i64: 1>", "array<index: 1>", "unit", "[]", "\"gpu\"()", "tensor<1x1xf32>"]  # fmt: skip


def mutate(text: str, rng: random.Random, op_names: list[str]) -> str:
    lines = text.splitlines()
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        kind = rng.randrange(9)
        if not lines:
            break
        i = rng.randrange(len(lines))
        if kind == 0:
            del lines[i]
        elif kind == 1:
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
        elif kind == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 3:
            lines[i] = _replace_one(lines[i], r"-?\b\d+\b", rng.choice(NUMBERS), rng)
        elif kind == 4:
            lines[i] = _replace_one(
                lines[i], r"\b(i1|i8|i16|i32|i64|f16|bf16|f32|f64|index)\b", rng.choice(TYPES), rng
            )
        elif kind == 5 and op_names:
            lines[i] = _replace_one(lines[i], r"\b[a-z_]+\.[a-z_.]+\b", rng.choice(op_names), rng)
        elif kind == 6:
            cut = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:cut] + rng.choice(TOKENS) + lines[i][cut:]
        elif kind == 7:
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        else:
            lines[i] = _replace_one(lines[i], r"%[a-z0-9_#]+", f"%{rng.randrange(64)}", rng)
    return "\n".join(lines) + "\n"


def _replace_one(line: str, pattern: str, new: str, rng: random.Random) -> str:
    matches = list(re.finditer(pattern, line))
    if not matches:
        return line
    m = rng.choice(matches)
    return line[: m.start()] + new + line[m.end() :]


# -- pipelines ----------------------------------------------------------------------------------------

UPSTREAM = ["canonicalize", "cse", "symbol-dce", "sccp", "loop-invariant-code-motion", "convert-scf-to-cf",
            "inline", "remove-dead-values", "nvvm-attach-target{chip=sm_90a O=3}", "rocdl-attach-target{chip=gfx942}",
            "gpu.module(convert-gpu-to-nvvm)", "gpu.module(convert-gpu-to-rocdl)",
            "reconcile-unrealized-casts", "lower-affine"]  # fmt: skip
OPTION_VALUES = {"int": ["0", "1", "2", "3", "4", "8", "16", "32", "64", "-1", "1000"], "bool": ["0", "1"],
                 "str": ["nvidia", "amd", "x"]}  # fmt: skip


def target_pipelines() -> list[str]:
    """The targets' own MLIR stages, as the compiler runs them (code generation by external tools left out)."""
    from tilec.compiler import Options
    from tilec.targets import target_for

    found = []
    for arch, debug in (
        ("cpu", False),
        ("cpu", True),
        ("sm_80", False),
        ("sm_90a", False),
        ("gfx942", False),
    ):
        options = Options(num_warps=4, debug=debug)
        stages = target_for(arch).pipeline(arch, options)
        found += [s.pipeline for s in stages if s.pipeline and "module-to-binary" not in s.pipeline]
    return found


def random_pipeline(rng: random.Random, registry: dict, stages: list[str]) -> str:
    if rng.random() < 0.3:
        return rng.choice(stages)
    elements = []
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.25:
            elements.append(rng.choice(UPSTREAM))
            continue
        name = rng.choice(sorted(registry))
        options = [
            f"{key}={rng.choice(OPTION_VALUES.get(type_name, ['1']))}"
            for key, type_name, _ in registry[name].option_defaults()
            if rng.random() < 0.3
        ]
        elements.append(f"{name}{{{' '.join(options)}}}" if options else name)
    return ",".join(elements)


# -- one worker ---------------------------------------------------------------------------------------


def worker(memory_bytes: int) -> None:
    """Runs mutants sent as JSON lines on stdin; answers one JSON line each."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    from tilec.tools import opt

    out = sys.stdout
    sys.stdout = io.StringIO()  # whatever a pass prints must not mix with the answers
    for line in sys.stdin:
        job = json.loads(line)
        path = Path(job["path"])
        path.write_text(job["text"], encoding="utf-8")
        captured_out, captured_err = io.StringIO(), io.StringIO()
        try:
            with redirect_stdout(captured_out), redirect_stderr(captured_err):
                code = opt.main([str(path), "-p", job["pipeline"], "-o", os.devnull])
            said = captured_err.getvalue()
            outcome = (
                "ok"
                if code == 0
                else "traceback"
                if re.search(r"\binternal(:| error)", said)
                else "diagnosed"
            )
            detail = said[-300:]
        except Exception as e:  # noqa: BLE001 - what tilec-opt's entry shows as "internal error"
            import traceback

            where = traceback.extract_tb(e.__traceback__)[-1]
            outcome, detail = "traceback", f"{type(e).__name__}: {e} at {where.filename}:{where.lineno}"[:500]
        out.write(json.dumps({"outcome": outcome, "detail": detail}) + "\n")
        out.flush()


class Worker:
    def __init__(self, folder: Path, memory_bytes: int):
        self.folder = folder
        self.log = open(folder / "worker-stderr.txt", "w+b")  # noqa: SIM115 - read back after a crash
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--worker", "--memory", str(memory_bytes)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            cwd=ROOT,
        )

    def run(self, text: str, pipeline: str, seconds: float) -> tuple[str, str]:
        path = self.folder / f"mutant-{self.process.pid}.mlir"
        job = {"text": text, "pipeline": pipeline, "path": str(path)}
        try:
            self.process.stdin.write(json.dumps(job) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            return "abort", f"the worker had died (exit {self.process.wait()})"
        ready, _, _ = select.select([self.process.stdout], [], [], seconds)
        if not ready:
            self.stop()
            return "hang", f"no answer in {seconds:.0f} s"
        answer = self.process.stdout.readline()
        if not answer:
            code = self.process.wait()
            name = signal.Signals(-code).name if code < 0 else f"exit {code}"
            return "abort", f"the process died: {name}: {self.last_words()}"
        result = json.loads(answer)
        return result["outcome"], result["detail"]

    def last_words(self) -> str:
        """The assertion (or other last line) the dead worker printed."""
        self.log.seek(0)
        lines = self.log.read().decode(errors="replace").splitlines()
        said = [
            line for line in lines if "Assertion" in line or "LLVM ERROR" in line or "error" in line.lower()
        ]
        return (said or lines or [""])[-1][:300]

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        self.log.close()


# -- the run ------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mutants", type=int, default=1000)
    parser.add_argument("--time-limit", type=float, default=0, help="stop after this many seconds (0: none)")
    parser.add_argument("--timeout", type=float, default=20, help="seconds one mutant may take")
    parser.add_argument("--memory", type=int, default=4 << 30, help="address-space limit of a worker (bytes)")
    parser.add_argument("--out", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "tilec-fuzz"))
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.memory)
        return 0
    from tilec.passes import REGISTRY
    from tilec.targets import load_passes

    load_passes()
    rng = random.Random(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    inputs, kernels = lit_inputs(), suite_tile_ir()
    corpus = inputs + kernels
    op_names = sorted(
        {m for text in corpus for m in re.findall(r'"?\b(?:tile|arith|scf|func|math|gpu)\.[a-z_]+\b', text)}
    )
    op_names = [n.strip('"') for n in op_names]
    stages = target_pipelines()
    counts = dict.fromkeys(OUTCOMES, 0)
    failures = []
    start = time.monotonic()
    current = Worker(out, args.memory)
    for n in range(args.mutants):
        if args.time_limit and time.monotonic() - start > args.time_limit:
            break
        # a kernel's IR mostly through a target's own stages, where its passes see whole kernels
        kernel = rng.random() < 0.5
        original = rng.choice(kernels if kernel else inputs)
        text = mutate(original, rng, op_names) if rng.random() < 0.9 else original
        pipeline = (
            rng.choice(stages) if kernel and rng.random() < 0.6 else random_pipeline(rng, REGISTRY, stages)
        )
        outcome, detail = current.run(text, pipeline, args.timeout)
        counts[outcome] += 1
        if outcome in FAILURES:
            case = out / f"failure-{args.seed}-{n}.mlir"
            case.write_text(
                f"// {outcome}: {detail}\n// RUN: tilec-opt %s -p '{pipeline}'\n{text}", encoding="utf-8"
            )
            failures.append((outcome, detail, str(case)))
        if not current.alive():
            current.stop()
            current = Worker(out, args.memory)
    current.stop()
    ran = sum(counts.values())
    summary = {"seed": args.seed, "mutants": ran, "seconds": round(time.monotonic() - start, 1), **counts}
    (out / f"summary-{args.seed}.json").write_text(json.dumps({**summary, "failures": failures}, indent=1))
    print(json.dumps(summary))
    for outcome, detail, case in failures[:20]:
        print(f"{outcome}: {detail.splitlines()[-1] if detail else ''}  ({case})")
    return 1 if any(counts[f] for f in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
