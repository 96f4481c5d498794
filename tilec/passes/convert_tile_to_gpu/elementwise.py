"""tile.map (per-element regions) and inline assembly."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlir import ir
from mlir.dialects import llvm

from tilec.dialects import tile

from ..lowering_common import zero
from .common import byte_width, const_i32, scalar_type

if TYPE_CHECKING:
    from .lowering import KernelLowering


def lower_map(self: KernelLowering, op):
    """The body once per register of each thread (in the results' blocked layout), its block
    arguments bound to that register of every argument."""
    results = list(op.results)
    block = op.regions[0].blocks[0]
    layout, arg_regs, count = _per_element(self, list(op.operands), results)
    outs = [[] for _ in results]
    for i in range(count):
        for arg, regs in zip(block.arguments, arg_regs):
            self.scalars[arg] = regs[i]
        for inner in block.operations:
            inner = inner.operation
            if inner.name == "gpu.yield":
                for out, v in zip(outs, inner.operands):
                    out.append(self.scalar(v))
            else:
                self.lower_op(inner)
    _set_per_element(self, results, layout, outs)


def _per_element(self: KernelLowering, args: list, results: list):
    """For ops computed element by element: (the results' default layout, or None for scalars; each
    argument's registers in it; how many registers a thread holds)."""
    shape = tile.shape_of(results[0].type)
    if not shape:
        return None, [[self.scalar(a)] for a in args], 1
    layout = self.layout_for(shape, tile.element_of(results[0].type))
    return layout, [self.regs(a, layout) for a in args], len(layout.registers)


def _set_per_element(self: KernelLowering, results: list, layout, outs: list) -> None:
    for r, values in zip(results, outs):
        if layout is None:
            self.scalars[r] = values[0]
        else:
            self.set_natural(r, layout, values)


def lower_inline_asm(self: KernelLowering, op):
    """One asm statement per `pack` registers of each thread (in the results' blocked layout); values
    narrower than 32 bits are packed k to a register (an integer of k x their width)."""
    args = list(op.operands)  # every argument slot holds one value or none
    results = list(op.results)
    pack = ir.IntegerAttr(op.attributes["pack"]).value
    text = ir.StringAttr(op.attributes["asm"]).value
    constraints = ir.StringAttr(op.attributes["constraints"]).value
    self.vendor.check_inline_asm(op, constraints)
    layout, arg_regs, count = _per_element(self, args, results)
    elems = [scalar_type(tile.element_of(r.type)) for r in results]
    groups = -(-count // pack)
    outs = [[] for _ in results]
    for g in range(groups):
        operands = []
        for a, regs in zip(args, arg_regs):
            elem = scalar_type(tile.element_of(a.type))
            chunk = regs[g * pack : (g + 1) * pack]
            chunk += [zero(elem)] * (pack - len(chunk))  # a partial last group: padding lanes
            operands += _asm_words(elem, chunk, tile.element_of(a.type), pack)
        word_types = []
        for r, elem in zip(results, elems):
            per_word, words = tile.asm_registers(tile.element_of(r.type), pack)
            word_types += [_asm_word_type(elem, per_word)] * words
        if len(word_types) == 1:
            result_type = word_types[0]
        else:
            result_type = ir.Type.parse("!llvm.struct<(" + ", ".join(map(str, word_types)) + ")>")
        call = llvm.InlineAsmOp(
            result_type, operands, text, constraints, has_side_effects="pure" not in op.attributes
        ).result
        words = (
            [call]
            if len(word_types) == 1
            else [llvm.ExtractValueOp(t, call, [i]).result for i, t in enumerate(word_types)]
        )
        for i, (r, elem) in enumerate(zip(results, elems)):
            per_word, n_words = tile.asm_registers(tile.element_of(r.type), pack)
            mine, words = words[:n_words], words[n_words:]
            values = [v for w in mine for v in _asm_unpack(w, elem, per_word)]
            outs[i] += values[: min(pack, count - g * pack)]
    _set_per_element(self, results, layout, outs)


def _asm_word_type(elem: ir.Type, per_word: int) -> ir.Type:
    """The register type of `per_word` elements: the element itself, or an integer holding them."""
    if per_word == 1:
        return ir.IntegerType.get_signless(16) if str(elem) in ("f16", "bf16") else elem
    return ir.IntegerType.get_signless(per_word * byte_width(elem) * 8)


def _asm_words(elem: ir.Type, values: list, tile_elem: ir.Type, pack: int) -> list[ir.Value]:
    per_word, _ = tile.asm_registers(tile_elem, pack)
    word = _asm_word_type(elem, per_word)
    if per_word == 1:
        return [v if word == elem else llvm.BitcastOp(word, v).result for v in values]
    vec_t = ir.VectorType.get([per_word], elem)
    out = []
    for start in range(0, len(values), per_word):
        vec = llvm.UndefOp(vec_t).result
        for lane, v in enumerate(values[start : start + per_word]):
            vec = llvm.InsertElementOp(vec, v, const_i32(lane)).result
        out.append(llvm.BitcastOp(word, vec).result)
    return out


def _asm_unpack(word: ir.Value, elem: ir.Type, per_word: int) -> list[ir.Value]:
    if per_word == 1:
        return [word if word.type == elem else llvm.BitcastOp(elem, word).result]
    vec = llvm.BitcastOp(ir.VectorType.get([per_word], elem), word).result
    return [llvm.ExtractElementOp(vec, const_i32(lane)).result for lane in range(per_word)]
