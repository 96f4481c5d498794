"""tilec kernels as PyTorch operators, for torch.compile(fullgraph=True), autograd and CUDA graphs.

    import torch
    import tilec.torch

    @tilec.torch.op("mylib::scale")
    def scale(x: torch.Tensor, factor: float) -> torch.Tensor:
        out = torch.empty_like(x)
        scale_kernel[(tilec.cdiv(x.numel(), 1024),)](x, out, x.numel(), factor, BLOCK=1024)
        return out

`scale` is then a `torch.library` custom op (`torch.ops.mylib.scale`): torch.compile puts it in its
graph as one node instead of tracing into the launch, `scale.register_autograd(...)` makes it
differentiable, and Inductor calls it at run time with real tensors.

What tilec adds to `torch.library.custom_op`:
- the fake implementation (what torch.compile runs to learn output shapes and dtypes) is, unless one
  is given, the op's own body run on FakeTensors with every tilec launch in it skipped: the body's
  torch calls (`torch.empty_like`, views) describe the outputs;
- each launch in the op's body is checked against `mutates_args`: a kernel that writes an input the
  op did not declare mutable is refused before it runs, since torch.compile would reorder or reuse
  that input on the promise that it does not change.

Kernels called directly in a compiled function (not through an op) cause one graph break that names
this module.
"""

from __future__ import annotations

import functools
import inspect
import threading

import torch

from . import launch_observers

__all__ = ["op"]


class _Running(threading.local):
    """Per thread: how deep in fake bodies we are, and the running ops' read-only inputs."""

    def __init__(self):
        self.fake_depth = 0
        self.guarded: list[tuple[str, list]] = []  # (op name, [(input name, first byte, end byte)])


_running = _Running()


class _OpLaunches:
    """The launch observer tilec.torch installs (see tilec.launch_observers)."""

    def skip_launch(self) -> bool:
        return _running.fake_depth > 0

    def launching(self, function, kernel, values) -> None:
        if not _running.guarded:
            return
        written = kernel.metadata.get("written_args", ()) if hasattr(kernel, "metadata") else ()
        for index in written:
            value = values[index]
            if not isinstance(value, torch.Tensor):
                continue
            span = _byte_span(value)
            if span is None:
                continue
            for op_name, inputs in _running.guarded:
                for input_name, first, end in inputs:
                    if span[0] < end and first < span[1]:
                        raise RuntimeError(
                            f"tilec op {op_name}: kernel {function.__name__} writes its argument "
                            f"{kernel.arg_names[index]}, which holds the op's input {input_name!r}, but "
                            f"{input_name!r} is not in mutates_args: declare it "
                            f"(@tilec.torch.op(..., mutates_args=({input_name!r},))) or write to a new "
                            "tensor; torch.compile relies on undeclared inputs staying unchanged"
                        )


launch_observers.current = _OpLaunches()


def _byte_span(t: torch.Tensor) -> tuple[int, int] | None:
    """The bytes a tensor's elements lie in, [first, end); None for an empty one."""
    if t.numel() == 0:
        return None
    first = t.data_ptr()
    extent = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride()) if size > 1)
    return first, first + (extent + 1) * t.element_size()


def _guarded_inputs(signature: inspect.Signature, args, kwargs, mutable: frozenset) -> list:
    bound = signature.bind(*args, **kwargs)
    spans = []
    for name, value in bound.arguments.items():
        if name in mutable:
            continue
        for tensor in value if isinstance(value, list | tuple) else (value,):
            if isinstance(tensor, torch.Tensor) and (span := _byte_span(tensor)) is not None:
                spans.append((name, *span))
    return spans


def _where(fn) -> str:
    code = getattr(fn, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}: " if code is not None else ""


def op(name: str, fn=None, *, mutates_args=(), fake=None, device_types=None, schema: str | None = None):
    """Makes `fn`, a function of tensors that launches tilec kernels, the PyTorch custom op `name`
    ("namespace::op_name"). Its parameters and result need type annotations, as for
    `torch.library.custom_op` (or pass `schema`). `mutates_args`: the names of the tensor inputs the
    op writes in place (launches are checked against it). `fake`: a function with the op's signature
    that returns empty tensors of the outputs' shapes; by default the op's body with its launches
    skipped. The result is torch's `CustomOpDef`: call it, `register_autograd`, `register_fake`."""
    if fn is None:
        return functools.partial(
            op, name, mutates_args=mutates_args, fake=fake, device_types=device_types, schema=schema
        )
    if isinstance(mutates_args, str):
        if mutates_args != "unknown":
            raise TypeError(
                f"{_where(fn)}tilec.torch.op {name}: mutates_args is a tuple of parameter names "
                f"(or 'unknown'), got {mutates_args!r}"
            )
    else:
        mutates_args = tuple(mutates_args)
    signature = inspect.signature(fn)
    unknown = [m for m in mutates_args if m not in signature.parameters] if mutates_args != "unknown" else []
    if unknown:
        raise TypeError(f"{_where(fn)}tilec.torch.op {name}: mutates_args names no parameter: {unknown}")
    try:
        if schema is None:
            schema = torch.library.infer_schema(fn, mutates_args=mutates_args)
        custom = torch.library.custom_op(
            name, _checked(name, fn, signature, mutates_args), mutates_args=mutates_args,
            device_types=device_types, schema=schema,
        )  # fmt: skip
    except (ValueError, RuntimeError, TypeError) as e:
        raise TypeError(f"{_where(fn)}tilec.torch.op {name}: {e}") from None
    custom.register_fake(fake if fake is not None else _body_without_launches(fn))
    return custom


def _checked(name: str, fn, signature: inspect.Signature, mutates_args):
    """The op's real implementation: the body, with its launches checked against mutates_args."""
    if mutates_args == "unknown":
        return fn  # every input may change: nothing to check
    mutable = frozenset(mutates_args)

    @functools.wraps(fn)
    def run(*args, **kwargs):
        _running.guarded.append((name, _guarded_inputs(signature, args, kwargs, mutable)))
        try:
            return fn(*args, **kwargs)
        finally:
            _running.guarded.pop()

    return run


def _body_without_launches(fn):
    @functools.wraps(fn)
    def fake(*args, **kwargs):
        _running.fake_depth += 1
        try:
            return fn(*args, **kwargs)
        finally:
            _running.fake_depth -= 1

    return fake
