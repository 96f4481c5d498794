# The frontend's output (with locations) parses again in tilec-opt and keeps the locations.
# RUN: %PYTHON %s > %t.mlir
# RUN: tilec-opt %t.mlir -p tile-canonicalize,tile-verify --mlir-print-debuginfo | FileCheck %s
# CHECK: "tile.make_range"{{.*}} loc(#[[L:loc[0-9]*]])
# CHECK: #[[L]] = loc("{{.*}}round-trip.py":12:25)
import tilec
import tilec.language as tl


@tilec.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK), x * 2)


print(tilec.compile(kernel, signature="*fp32", constexprs={"BLOCK": 64}).asm["tile"])
