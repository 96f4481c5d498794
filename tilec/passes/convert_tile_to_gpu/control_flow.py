"""scf.for, scf.if and scf.while with tensor values carried as per-thread registers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlir import ir
from mlir.dialects import scf

from tilec.dialects import tile

from .. import tensor_cores
from .common import scalar_type

if TYPE_CHECKING:
    from .lowering import KernelLowering


def _flatten(self, values, layouts):
    out = []
    for v, layout in zip(values, layouts):
        out.extend(self.regs(v, layout) if layout is not None else [self.scalar(v)])
    return out


def _carried_layouts(self, values):
    in_smem = set().union(*(ring.carried for ring in self.rings.values())) if self.rings else set()
    return [
        tensor_cores.IN_SHARED_MEMORY
        if v in in_smem
        else (
            self.preferred.get(v)
            or self.load_layouts.get(v)
            or self.layout_for(tile.shape_of(v.type), tile.element_of(v.type))
        )
        if tile.shape_of(v.type)
        else None
        for v in values
    ]


def _bind(self, olds, layouts, news):
    it = iter(news)
    for old, layout in zip(olds, layouts):
        if layout is None:
            self.scalars[old] = next(it)
        else:
            self.set_natural(old, layout, [next(it) for _ in layout.registers])


def carried_types(self, olds, layouts):
    out = []
    for old, layout in zip(olds, layouts):
        t = scalar_type(old.type)
        out.extend([t] * (len(layout.registers) if layout is not None else 1))
    return out


def lower_for(self: KernelLowering, op):
    self.smem_dirty = True
    state = self.vendor.before_loop(self, op)
    lb, ub, step = (self.scalar(v) for v in list(op.operands)[:3])
    inits = list(op.operands)[3:]
    layouts = _carried_layouts(self, inits)
    flat = _flatten(self, inits, layouts)
    loop = scf.ForOp(lb, ub, step, flat)
    body = op.regions[0].blocks[0]
    with ir.InsertionPoint(loop.body):
        self.smem_dirty = True
        self.scalars[body.arguments[0]] = loop.induction_variable
        _bind(self, list(body.arguments)[1:], layouts, list(loop.inner_iter_args))
        self._anchor(list(body.arguments))
        self.lower_block_ops(body)
        yielded = list(list(body.operations)[-1].operands)
        scf.YieldOp(_flatten(self, yielded, layouts))
    self.smem_dirty = True
    _bind(self, list(op.results), layouts, list(loop.results))
    self.vendor.after_loop(self, op, state)


def lower_if(self: KernelLowering, op):
    self.smem_dirty = True
    cond = self.scalar(op.operands[0])
    layouts = _carried_layouts(self, list(op.results))
    types = carried_types(self, list(op.results), layouts)
    has_else = len(op.regions[1].blocks) > 0
    branch = scf.IfOp(cond, types, has_else=has_else or bool(types))
    # The branches never run together: the shared-memory regions each one takes (rings, a looped
    # dot's buffers, all used only inside it) may overlap the other's (tile-pointer-tensor-copies'
    # two copies of a kernel body take one set of rings' memory, not two).
    regions_start, regions_end = self.region_bytes, self.region_bytes
    for region, new_block in (
        (op.regions[0], branch.then_block),
        (op.regions[1], branch.else_block if has_else else None),
    ):
        if new_block is None:
            continue
        self.region_bytes = regions_start
        old_block = region.blocks[0]
        with ir.InsertionPoint(new_block):
            self.smem_dirty = True
            state = self.vendor.branch_state(self)
            self.lower_block_ops(old_block)
            self.vendor.end_branch(self, state)
            yielded = list(list(old_block.operations)[-1].operands)
            scf.YieldOp(_flatten(self, yielded, layouts))
        regions_end = max(regions_end, self.region_bytes)
    self.region_bytes = regions_end
    self.smem_dirty = True
    _bind(self, list(op.results), layouts, list(branch.results))


def lower_while(self: KernelLowering, op):
    self.smem_dirty = True
    inits = list(op.operands)
    layouts = _carried_layouts(self, inits)
    types = carried_types(self, inits, layouts)
    result_layouts = _carried_layouts(self, list(op.results))
    loop = scf.WhileOp(carried_types(self, list(op.results), result_layouts), _flatten(self, inits, layouts))
    before_old, after_old = op.regions[0].blocks[0], op.regions[1].blocks[0]
    before = loop.before.blocks.append(*types)
    after = loop.after.blocks.append(*carried_types(self, list(after_old.arguments), result_layouts))
    with ir.InsertionPoint(before):
        self.smem_dirty = True
        _bind(self, list(before_old.arguments), layouts, list(before.arguments))
        self._anchor(list(before_old.arguments))
        self.lower_block_ops(before_old)
        cond_op = list(before_old.operations)[-1]
        scf.ConditionOp(
            self.scalar(cond_op.operands[0]), _flatten(self, list(cond_op.operands)[1:], result_layouts)
        )
    with ir.InsertionPoint(after):
        self.smem_dirty = True
        _bind(self, list(after_old.arguments), result_layouts, list(after.arguments))
        self._anchor(list(after_old.arguments))
        self.lower_block_ops(after_old)
        yielded = list(list(after_old.operations)[-1].operands)
        scf.YieldOp(_flatten(self, yielded, layouts))
    self.smem_dirty = True
    _bind(self, list(op.results), result_layouts, list(loop.results))
