"""One hook on every kernel launch, for code that runs kernels on someone else's behalf.

`tilec.torch` sets it: while a tilec op's fake implementation runs the op's body to learn the shapes
of its outputs, launches do nothing (the arguments are FakeTensors, with no memory); while the real
body runs, each launch is checked against the op's declared `mutates_args`. Unset, a launch pays
one module attribute read.
"""

from __future__ import annotations

import sys

# An object with `skip_launch() -> bool` and `launching(function, kernel, values)`, or None.
current = None


def compiling_under_torch() -> bool:
    """Whether torch.compile's tracer (Dynamo) is tracing the caller. torch is not imported for this:
    a process that never imported it cannot be compiling with it."""
    torch = sys.modules.get("torch")
    compiler = getattr(torch, "compiler", None)
    return compiler is not None and compiler.is_compiling()


def refuse_inside_torch_compile(name: str) -> None:
    """A launch met by torch.compile's tracer: a graph break that says why and what to do instead
    (with fullgraph=True, torch's error carries the message); the launch itself then runs eagerly."""
    if compiling_under_torch():
        sys.modules["torch"]._dynamo.graph_break(
            msg=f"tilec kernel {name} launched inside torch.compile: torch cannot trace a kernel launch. "
            "Launch it from a function decorated with @tilec.torch.op (a PyTorch custom op) and call "
            "that function in the compiled code (docs/torch.md)"
        )
