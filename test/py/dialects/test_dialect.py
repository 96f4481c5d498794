"""The tile dialect: every documented example parses and verifies, builders make valid IR."""

import pathlib

import pytest
from mlir import ir
from mlir.dialects import arith, func

from tilec.dialects import docgen, tile

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _wrap_example(spec: tile.OpSpec) -> str:
    """Declares every %name the example uses (but does not define) as a function argument."""
    import re

    text = spec.example
    defined = set(re.findall(r"(%\w+)(?::\d+)?\s*=", text)) | set(re.findall(r"(%\w+):", text))
    sig = re.search(r":\s*\((.*?)\)\s*->", text.replace("\n", " ").split("})")[-1])
    operand_names = re.findall(r'"\((.*?)\)', text)
    args = []
    if operand_names and operand_names[0].strip():
        names = [n.strip() for n in operand_names[0].split(",")]
        types = [t.strip() for t in _split_types(sig.group(1))] if sig else []
        for n, t in zip(names, types):
            if n not in defined:
                args.append(f"{n}: {t}")
    return f"func.func @f({', '.join(args)}) {{\n{text}\n  return\n}}"


def _split_types(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + ([cur] if cur.strip() else [])


@pytest.mark.parametrize("name", sorted(tile.SPECS))
def test_example_parses_and_verifies(name):
    ctx = tile.make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(_wrap_example(tile.SPECS[name]))
        assert module.operation.verify()
        assert tile.verify_tile_ops(module.operation) == []


def test_docs_are_generated_from_the_definitions():
    assert (ROOT / "docs" / "dialect.md").read_text() == docgen.render(), (
        "docs/dialect.md is stale: python -m tilec.dialects.docgen > docs/dialect.md"
    )


def test_every_op_has_doc_and_example():
    for spec in tile.SPECS.values():
        assert spec.doc and spec.example and spec.full_name in spec.example


def test_builders_make_verified_ir():
    ctx = tile.make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        f32, i32 = ir.F32Type.get(), ir.IntegerType.get_signless(32)
        ptr = tile.ptr_type(f32)
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("k", ([ptr, i32], []))
            block = fn.add_entry_block()
        with ir.InsertionPoint(block):
            base, n = block.arguments
            pid = tile.program_id(0)
            rng = tile.make_range(0, 128)
            offs = arith.addi(tile.splat(arith.muli(pid, arith.constant(i32, 128)), [128]), rng)
            ptrs = tile.addptr(tile.splat(base, [128]), offs)
            mask = arith.cmpi(arith.CmpIPredicate.slt, offs, tile.splat(n, [128]))
            x = tile.load(ptrs, mask, tile.splat(arith.constant(f32, 0.0), [128]))
            total = tile.reduce([x], 0, lambda a: [arith.addf(a[0], a[1])])[0]
            csum = tile.scan([x], 0, lambda a: [arith.addf(a[0], a[1])])[0]
            tile.store(ptrs, arith.addf(csum, tile.splat(total, [128])), mask)
            two_d = tile.broadcast(tile.expand_dims(x, 0), [16, 128])
            tile.trans(tile.reshape(two_d, [128, 16]), [1, 0])
            tile.atomic_rmw("fadd", ptrs, x, mask)
            tile.atomic_cas(tile.addptr(base, pid), arith.constant(f32, 0.0), total)
            tile.print_("x: ", x)
            tile.assert_(mask, "in range")
            func.ReturnOp([])
        assert module.operation.verify(), module
        assert tile.verify_tile_ops(module.operation) == []


def test_verifier_reports_the_op():
    ctx = tile.make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(
            "func.func @f(%x: tensor<4x1xf32>) {\n"
            '  %0 = "tile.broadcast"(%x) : (tensor<4x1xf32>) -> tensor<2x8xf32>\n  return\n}'
        )
        errors = tile.verify_tile_ops(module.operation)
        assert len(errors) == 1
        assert errors[0].op.name == "tile.broadcast"
        assert "cannot broadcast shape [4, 1] to [2, 8]" in errors[0].message


def test_pointer_types():
    ctx = tile.make_context()
    with ctx:
        p = tile.ptr_type(ir.BF16Type.get())
        assert str(p) == "!tile.ptr<bf16>" and tile.is_ptr(p)
        assert str(tile.pointee_type(p)) == "bf16" and tile.address_space(p) is None
        s = tile.ptr_type(ir.F32Type.get(), 3)
        assert str(s) == "!tile.ptr_as<f32, 3 : i32>"
        assert tile.address_space(s) == 3 and str(tile.pointee_type(s)) == "f32"


def test_language_docs_are_fresh():
    from tilec.language import docgen as language_docgen

    assert (ROOT / "docs" / "language.md").read_text() == language_docgen.render(), (
        "docs/language.md is stale: python -m tilec.language.docgen > docs/language.md"
    )


def test_bindings_find_a_module_for_the_tile_namespace():
    """MLIR's bindings look up a Python module per dialect namespace at every op view and cache only
    a found one: without tilec's (tilec.dialects.opviews.tile) each view of a tile op retried a failing
    import of `mlir.dialects.tile` (2372 times while compiling a matmul)."""
    import sys

    import tilec
    import tilec.language as tl

    @tilec.jit
    def double(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

    looked_up = []

    class Spy:
        def find_spec(self, name, path=None, target=None):
            looked_up.append(name)

    sys.meta_path.insert(0, Spy())
    try:
        tilec.compile(double, signature="*fp32,i32", constexprs={"BLOCK": 64}, target="cpu")
    finally:
        sys.meta_path.remove(next(f for f in sys.meta_path if isinstance(f, Spy)))
    # at most the first lookup (the bindings try their own prefix first; then tilec's is cached)
    assert looked_up.count("mlir.dialects.tile") <= 1
