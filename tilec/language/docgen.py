"""Renders docs/language.md from `tilec.language` itself: every public function with its signature and
docstring, in the sections of builtins.py, reductions.py and dot_product.py (their `# ---` banners), plus
the dtypes.

    python -m tilec.language.docgen > docs/language.md      (a test fails when the file is stale)
"""

from __future__ import annotations

import ast
import inspect
import pathlib

import tilec.language as tl
from tilec.language import builtins, core, dot_product, reductions

_MODULES = (builtins, reductions, dot_product)  # the functions of tl, section by section

HEADER = """# The tile language (`tilec.language`, imported as `tl`)

Generated from the source by `python -m tilec.language.docgen`; do not edit by hand. The functions
have Triton's names and semantics (see [porting-from-triton.md](porting-from-triton.md) for what
differs). They are only valid inside a `@tilec.jit` function; `TILEC_INTERPRET=1` runs kernels in the
NumPy interpreter for debugging.
"""


def _sections() -> list[tuple[str, list[str]]]:
    """(section title, function names) in the order of the modules' `# ---` banners."""
    sections: list[tuple[str, list[str]]] = [("General", [])]
    for module in _MODULES:
        sections += _module_sections(pathlib.Path(module.__file__).read_text())
    merged: dict[str, list[str]] = {}
    for title, names in sections:
        merged.setdefault(title, []).extend(names)
    return [(title, names) for title, names in merged.items() if names]


def _module_sections(source: str) -> list[tuple[str, list[str]]]:
    """(banner title, public function names below it) of one module."""
    lines = source.splitlines()
    banners = []
    for i in range(1, len(lines) - 1):
        if (
            lines[i - 1].startswith("# ---")
            and lines[i + 1].startswith("# ---")
            and lines[i].startswith("# ")
        ):
            banners.append((i + 1, lines[i][2:].strip()))
    sections: list[tuple[str, list[str]]] = [("General", [])]
    banner_index = 0
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
            continue
        while banner_index < len(banners) and banners[banner_index][0] < node.lineno:
            sections.append((banners[banner_index][1], []))
            banner_index += 1
        sections[-1][1].append(node.name)
    return sections


def _entry(name: str, fn) -> str:
    target = inspect.unwrap(fn)
    try:
        signature = str(inspect.signature(target).replace(return_annotation=inspect.Signature.empty))
    except (TypeError, ValueError):
        signature = "(...)"
    doc = inspect.getdoc(fn) or inspect.getdoc(target) or ""
    text = f"#### `tl.{name}{signature}`\n"
    if doc:
        text += "\n" + doc + "\n"
    return text


def _descriptors() -> str:
    """Tensor descriptors: tl.make_tensor_descriptor and the methods of a descriptor."""
    from tilec.language import descriptors

    text = "## Tensor descriptors\n\n" + inspect.getdoc(descriptors).split("\n\n", 1)[1] + "\n\n"
    text += _entry("make_tensor_descriptor", tl.make_tensor_descriptor) + "\n"
    for method in (
        "load",
        "store",
        "gather",
        "scatter",
        *(f"atomic_{k}" for k in ("add", "min", "max", "and", "or", "xor")),
    ):
        entry = _entry(method, getattr(descriptors.tensor_descriptor, method))
        text += entry.replace("`tl.", "`desc.").replace("(self, ", "(") + "\n"
    for name in ("load_tensor_descriptor", "store_tensor_descriptor"):
        text += _entry(name, getattr(tl, name)) + "\n"
    return text


def _module_section(title: str, module, names: list[str], prefix: str = "tl.") -> str:
    """A section for a language module of its own: its doc (less the first paragraph) and functions."""
    text = f"## {title}\n\n" + inspect.getdoc(module).split("\n\n", 1)[1] + "\n\n"
    entries = [_entry(name, getattr(module, name)).replace("`tl.", f"`{prefix}", 1) for name in names]
    return text + "\n".join(entries)


def _libdevice() -> str:
    from tilec.language.extra import libdevice

    own = sorted(
        n for n, v in vars(libdevice).items() if getattr(v, "__tilec_builtin__", False) and n[0] != "_"
    )
    section = _module_section("libdevice (`tilec.language.extra.libdevice`)", libdevice, own, "libdevice.")
    return section + "\n"


RANDOM = ["randint", "rand", "randn", "randint4x", "rand4x", "randn4x", "philox", "philox_impl",
          "uint_to_uniform_float", "pair_uniform_to_normal"]  # fmt: skip


REORDER = ["join", "split", "interleave", "cat", "flip", "sort", "bitonic_merge", "gather", "histogram", "swizzle2d",
           "assume"]  # fmt: skip

TARGET_INFO = ["current_target", "is_cuda", "cuda_capability_geq", "is_hip", "is_hip_cdna3", "is_hip_cdna4"]


def render() -> str:
    out = [HEADER]
    public = {n for n in dir(tl) if not n.startswith("_")}
    listed = set()
    for title, names in _sections():
        names = [
            n for n in names if n in public and any(getattr(tl, n) is getattr(m, n, None) for m in _MODULES)
        ]
        if not names:
            continue
        out.append(f"## {title}\n")
        for name in names:
            out.append(_entry(name, getattr(tl, name)))
            listed.add(name)
    out.append(_descriptors())
    listed.update(["make_tensor_descriptor", "load_tensor_descriptor", "store_tensor_descriptor"])
    from tilec.language import block_pointers, random, reorder, target_info

    out.append(_module_section("Block pointers", block_pointers, ["make_block_ptr", "advance"]))
    out.append(_module_section("Random numbers", random, RANDOM))
    out.append(_module_section("Joining, splitting and reordering", reorder, REORDER))
    out.append(
        _module_section("Target information (`tl.target_info`)", target_info, TARGET_INFO, "tl.target_info.")
    )
    out.append(_libdevice())
    listed.update(["make_block_ptr", "advance", *RANDOM, *REORDER])
    aliases = sorted(
        n
        for n in public - listed
        if callable(getattr(tl, n)) and getattr(getattr(tl, n), "__tilec_builtin__", False)
    )
    if aliases:
        out.append("## Unary math and aliases\n")
        for name in aliases:
            out.append(_entry(name, getattr(tl, name)))
    dtypes = sorted({repr(v) for v in vars(tl).values() if isinstance(v, core.dtype) and not v.is_ptr()})
    out.append("## Types\n")
    out.append(
        "Scalar dtypes: " + ", ".join(f"`{d}`" for d in dtypes) + ". Pointers are `tl.pointer_type(dtype)`; "
        "`x.dtype.element_ty` is a pointer's element type. Annotate compile-time parameters with "
        "`tl.constexpr`.\n"
    )
    return "\n".join(out)


if __name__ == "__main__":
    print(render(), end="")
