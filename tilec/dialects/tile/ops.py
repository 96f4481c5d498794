"""Every tile op as an OpSpec (the dialect's single definition), and the IRDL text made from them."""

from __future__ import annotations

from mlir import ir

from .specs import SPECS, Operand, OpSpec
from .types import DIALECT, TYPES_IRDL
from .verifiers import (
    verify_addptr,
    verify_assert,
    verify_atomic_cas,
    verify_atomic_rmw,
    verify_broadcast,
    verify_convert_layout,
    verify_dot,
    verify_expand_dims,
    verify_gather,
    verify_histogram,
    verify_inline_asm,
    verify_load,
    verify_make_range,
    verify_map,
    verify_print,
    verify_program_id,
    verify_ptr_cast,
    verify_reduce,
    verify_reshape,
    verify_scan,
    verify_sort,
    verify_splat,
    verify_store,
    verify_trans,
)

_I32 = "irdl.is i32"


# IRDL unifies a constraint variable across every value it constrains, so a variadic operand would
# force all its values to one type. Ops that take several differently typed tensors (an argmax
# reduces values and indices together) use MAX_SLOTS optional operands instead.
MAX_SLOTS = 4


def _slots(name: str, count: int = MAX_SLOTS, first: str = "single") -> tuple[Operand, ...]:
    return (Operand(f"{name}0", first),) + tuple(Operand(f"{name}{i}", "optional") for i in range(1, count))


ELEMENTWISE_ARG_SLOTS = 8  # tile.map and tile.inline_asm: at most 8 arguments (and MAX_SLOTS results)


def _ops() -> list[OpSpec]:
    one = Operand
    return [
        OpSpec(
            "program_id",
            "The index of this program instance along grid axis `axis` (0, 1 or 2).",
            '%pid = "tile.program_id"() {axis = 0 : i32} : () -> i32',
            results=(one("result", constraint=_I32),),
            attributes=("axis",),
            verify=verify_program_id,
        ),
        OpSpec(
            "num_programs",
            "The number of program instances along grid axis `axis`.",
            '%n = "tile.num_programs"() {axis = 1 : i32} : () -> i32',
            results=(one("result", constraint=_I32),),
            attributes=("axis",),
            verify=verify_program_id,
        ),
        OpSpec(
            "make_range",
            "The i32 tensor `[start, start+1, ..., end-1]`; its length must be a power of two.",
            '%r = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>',
            results=(one("result"),),
            attributes=("start", "end"),
            verify=verify_make_range,
        ),
        OpSpec(
            "splat",
            "A tensor whose every element is the scalar operand.",
            '%t = "tile.splat"(%x) : (f32) -> tensor<128xf32>',
            operands=(one("src"),),
            results=(one("result"),),
            verify=verify_splat,
        ),
        OpSpec(
            "broadcast",
            "Repeats size-1 dimensions of the operand to the result shape (same rank).",
            '%t = "tile.broadcast"(%x) : (tensor<1x64xf32>) -> tensor<32x64xf32>',
            operands=(one("src"),),
            results=(one("result"),),
            verify=verify_broadcast,
        ),
        OpSpec(
            "expand_dims",
            "Inserts a dimension of size 1 at `axis`.",
            '%t = "tile.expand_dims"(%x) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>',
            operands=(one("src"),),
            results=(one("result"),),
            attributes=("axis",),
            verify=verify_expand_dims,
        ),
        OpSpec(
            "reshape",
            "The same elements, in row-major order, with another shape.",
            '%t = "tile.reshape"(%x) : (tensor<4x8xf32>) -> tensor<32xf32>',
            operands=(one("src"),),
            results=(one("result"),),
            verify=verify_reshape,
        ),
        OpSpec(
            "trans",
            "Permutes the dimensions: result dim i is operand dim `order[i]`.",
            '%t = "tile.trans"(%x) {order = array<i32: 1, 0>} : (tensor<16x32xf16>) -> tensor<32x16xf16>',
            operands=(one("src"),),
            results=(one("result"),),
            attributes=("order",),
            verify=verify_trans,
        ),
        OpSpec(
            "gather",
            "Elements of `src` picked along `axis` by `index` (a tensor of src's rank, with src's shape "
            "except along `axis`): `result[..., j, ...] = src[..., index[..., j, ...], ...]`; an index "
            "outside `[0, src.shape[axis])` gives 0.",
            '%g = "tile.gather"(%x, %i) {axis = 1 : i32} : (tensor<4x8xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>',
            operands=(one("src"), one("index")),
            results=(one("result"),),
            attributes=("axis",),
            verify=verify_gather,
        ),
        OpSpec(
            "histogram",
            "i32 counts of the values `0 .. num_bins - 1` in the 1-D integer tensor `src` (signed; "
            "values outside that range, and elements where `mask` is false, are not counted).",
            '%h = "tile.histogram"(%x) {num_bins = 16 : i32, operandSegmentSizes = array<i32: 1, 0>} : '
            "(tensor<128xi32>) -> tensor<16xi32>",
            operands=(one("src"), one("mask", "optional")),
            results=(one("result"),),
            attributes=("num_bins",),
            verify=verify_histogram,
        ),
        OpSpec(
            "sort",
            "`src` sorted along `axis` (a power of two) by a bitonic sorting network, ascending unless "
            "`descending` (unit); integers compare signed unless `unsigned` (unit); NaNs order after "
            "every number (last ascending, first descending); equal elements never swap, so the network "
            "fixes where -0.0 and 0.0, or NaNs with different payloads, land on every target. With "
            "`merge` (unit) only the network's last stage runs (tl.bitonic_merge): it sorts a bitonic "
            "`src` and permutes any other.",
            '%s = "tile.sort"(%x) {axis = 1 : i32, descending} : (tensor<4x8xf32>) -> tensor<4x8xf32>',
            operands=(one("src"),),
            results=(one("result"),),
            attributes=("axis",),
            optional_attributes=("descending", "unsigned", "merge"),
            verify=verify_sort,
        ),
        OpSpec(
            "addptr",
            "Pointer arithmetic in elements: `ptr + offset * sizeof(T)`, elementwise for tensors.",
            '%q = "tile.addptr"(%p, %off) : (tensor<128x!tile.ptr<f32>>, tensor<128xi32>)'
            " -> tensor<128x!tile.ptr<f32>>",
            operands=(one("ptr"), one("offset")),
            results=(one("result"),),
            verify=verify_addptr,
        ),
        OpSpec(
            "load",
            "Reads memory at every pointer. Where `mask` is false nothing is read and the element is "
            "`other` (undefined without `other`). Optional hints: `cache` (ca, cg, cs, cv), "
            "`eviction` (evict_first, evict_last), `volatile` (unit). A block read through a tensor "
            "descriptor argument also names it (`descriptor`, the argument's name; for a 2-D array "
            "made of the kernel's arguments, its parts: `array base=a_ptr rows=M cols=K "
            "row_stride=stride_am`, see dialects/kernel_arrays.py) and gives the block's coordinates in it "
            "(`coords`, one i32 per dimension): a target with tensor copy hardware may copy the "
            "block with them instead (pointers and mask say the same).",
            '%x = "tile.load"(%p, %m, %zero) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : '
            "(tensor<128x!tile.ptr<f32>>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>",
            operands=(
                one("ptr"),
                one("mask", "optional"),
                one("other", "optional"),
                one("coords", "variadic", _I32),
            ),
            results=(one("result"),),
            optional_attributes=("cache", "eviction", "volatile", "descriptor"),
            verify=verify_load,
        ),
        OpSpec(
            "store",
            "Writes `value` at every pointer where `mask` is true. Hints as for `tile.load`.",
            '"tile.store"(%p, %x, %m) {operandSegmentSizes = array<i32: 1, 1, 1>} : '
            "(tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>) -> ()",
            operands=(one("ptr"), one("value"), one("mask", "optional")),
            optional_attributes=("cache", "eviction"),
            pure=False,
        ),
        OpSpec(
            "reduce",
            "Reduces N tensors along `axis` with the combiner region, which takes 2N scalars "
            "(N accumulated, N new) and ends in `gpu.yield` of N scalars. The combiner must be "
            "associative and commutative, and compute on its arguments alone (it may not use a value "
            "defined outside its region); the reduction order is unspecified.",
            '%s = "tile.reduce"(%x) ({\n^bb0(%a: f32, %b: f32):\n  %c = arith.addf %a, %b : f32\n'
            "  gpu.yield %c : f32\n}) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>,"
            " resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<128xf32>) -> f32",
            operands=_slots("src"),
            results=_slots("result"),
            attributes=("axis",),
            regions=("combiner",),
            verify=verify_reduce,
        ),
        OpSpec(
            "scan",
            "Inclusive prefix scan of N tensors along `axis` with an associative combiner region "
            "(as for `tile.reduce`); `reverse` (unit) scans from the end.",
            '%s = "tile.scan"(%x) ({\n^bb0(%a: i32, %b: i32):\n  %c = arith.addi %a, %b : i32\n'
            "  gpu.yield %c : i32\n}) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>,"
            " resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<128xi32>) -> tensor<128xi32>",
            operands=_slots("src"),
            results=_slots("result"),
            attributes=("axis",),
            optional_attributes=("reverse",),
            regions=("combiner",),
            verify=verify_scan,
        ),
        OpSpec(
            "dot",
            "Matrix product `a @ b + acc` of 2-D tensors (any sizes: tensor cores take the shapes that fit them, FMAs the rest). "
            "`input_precision` is ieee, tf32 or tf32x3 for f32 inputs; `max_num_imprecise_acc` (fp8 "
            "inputs) is how many K values a tensor core may sum in its own reduced precision before "
            "the sum is added to the fp32 accumulator.",
            '%d = "tile.dot"(%a, %b, %c) {input_precision = "ieee"} : '
            "(tensor<32x16xf16>, tensor<16x64xf16>, tensor<32x64xf32>) -> tensor<32x64xf32>",
            operands=(one("a"), one("b"), one("acc")),
            results=(one("result"),),
            optional_attributes=("input_precision", "max_num_imprecise_acc"),
            verify=verify_dot,
        ),
        OpSpec(
            "atomic_rmw",
            "Atomically applies `kind` (add, fadd, max, min, umax, umin, and, or, xor, xchg) at every "
            "pointer where `mask` is true and returns the old values. `sem` (relaxed, acquire, "
            "release, acq_rel) and `scope` (gpu, cta, sys) as in Triton.",
            '%old = "tile.atomic_rmw"(%p, %v) {kind = "fadd", operandSegmentSizes = array<i32: 1, 1, 0>}'
            " : (tensor<64x!tile.ptr<f32>>, tensor<64xf32>) -> tensor<64xf32>",
            operands=(one("ptr"), one("value"), one("mask", "optional")),
            results=(one("result"),),
            attributes=("kind",),
            optional_attributes=("sem", "scope"),
            pure=False,
        ),
        OpSpec(
            "atomic_cas",
            "Atomically stores `value` where memory equals `cmp`; returns the old values.",
            '%old = "tile.atomic_cas"(%p, %c, %v) : (!tile.ptr<i32>, i32, i32) -> i32',
            operands=(one("ptr"), one("cmp"), one("value")),
            results=(one("result"),),
            optional_attributes=("sem", "scope"),
            pure=False,
        ),
        OpSpec(
            "ptr_cast",
            "Reinterprets pointers: as pointers to another type (the same address), or as i64 "
            "addresses and back.",
            '%q = "tile.ptr_cast"(%p) : (tensor<64x!tile.ptr<f32>>) -> tensor<64x!tile.ptr<i8>>',
            operands=(one("src"),),
            results=(one("result"),),
            verify=verify_ptr_cast,
        ),
        OpSpec(
            "convert_layout",
            "Moves a tensor into another layout (the encoding of its type); the values are unchanged.",
            '%y = "tile.convert_layout"(%x) : (tensor<128xf32>) -> tensor<128xf32>',
            operands=(one("src"),),
            results=(one("result"),),
            verify=verify_convert_layout,
        ),
        OpSpec(
            "print",
            "Device-side print of `prefix` and the optional operand, one line per element with the "
            "program id and element index (`hex` prints integers in hexadecimal).",
            '"tile.print"(%x) {prefix = "x: "} : (tensor<4xi32>) -> ()',
            operands=(one("arg", "optional"),),
            attributes=("prefix",),
            optional_attributes=("hex",),
            pure=False,
            verify=verify_print,
        ),
        OpSpec(
            "assert",
            "Device-side assertion: stops the kernel with `message` where `condition` is false.",
            '"tile.assert"(%ok) {message = "index out of range"} : (tensor<128xi1>) -> ()',
            operands=(one("condition"),),
            attributes=("message",),
            pure=False,
            verify=verify_assert,
        ),
        OpSpec(
            "map",
            "Applies the body to every element: it takes one scalar per argument (all of one shape) "
            "and yields one scalar per result (`gpu.yield`). The body may branch and loop per "
            "element and may have side effects (it runs once per element, in no particular order).",
            '%y = "tile.map"(%x) ({\n^bb0(%a: f32):\n  %c = arith.mulf %a, %a : f32\n'
            "  gpu.yield %c : f32\n}) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>,"
            " resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64xf32>) -> tensor<64xf32>",
            operands=_slots("arg", ELEMENTWISE_ARG_SLOTS, first="optional"),
            results=_slots("result"),
            regions=("body",),
            pure=False,
            verify=verify_map,
        ),
        OpSpec(
            "inline_asm",
            "Runs the assembly statement `asm` (the target's: PTX on NVIDIA, AMDGCN on AMD) once per "
            "`pack` elements of every operand; `constraints` lists its registers as in LLVM inline "
            "asm, outputs first: per result and per argument pack / k registers, where k elements "
            "narrower than 32 bits share one (4 x i8, 2 x f16). `pure` (unit) lets it be merged or "
            "erased; otherwise it may have side effects. All operands and results share one shape.",
            '%y = "tile.inline_asm"(%x) {asm = "shl.b32 $0, $1, 3;", constraints = "=r,r", '
            "pack = 1 : i32, pure, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, "
            "resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<128xi32>) -> tensor<128xi32>",
            operands=_slots("arg", ELEMENTWISE_ARG_SLOTS, first="optional"),
            results=_slots("result"),
            attributes=("asm", "constraints", "pack"),
            optional_attributes=("pure",),
            pure=False,
            verify=verify_inline_asm,
        ),
    ]


_VERIFIERS_LATE = {
    "store": verify_store,
    "atomic_rmw": verify_atomic_rmw,
    "atomic_cas": verify_atomic_cas,
}


for _spec in _ops():
    if _spec.name in _VERIFIERS_LATE:
        _spec = OpSpec(**{**_spec.__dict__, "verify": _VERIFIERS_LATE[_spec.name]})
    SPECS[_spec.name] = _spec


PURE_OPS = frozenset(s.full_name for s in SPECS.values() if s.pure)


def is_pure(op: ir.Operation) -> bool:
    """No side effects: a tile op in PURE_OPS, or an inline asm statement marked `pure`."""
    return op.name in PURE_OPS or (op.name == "tile.inline_asm" and "pure" in op.attributes)


def irdl_source() -> str:
    """The whole dialect as IRDL text."""
    body = "\n".join(s.irdl() for s in SPECS.values())
    return f"irdl.dialect @{DIALECT} {{\n{TYPES_IRDL}\n{body}\n}}\n"
