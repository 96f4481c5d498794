# Reductions become tile.reduce with a combiner region; argmax carries (value, index) pairs.
# RUN: %PYTHON %s | FileCheck %s
import tilec
import tilec.language as tl


@tilec.jit
def kernel(x_ptr, out_ptr, idx_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    # CHECK: "tile.reduce"(%{{.*}}) ({
    # CHECK: arith.addf
    # CHECK: gpu.yield
    # CHECK: }) {axis = 0 : i32{{.*}}} : (tensor<128xf16>) -> f16
    tl.store(out_ptr, tl.sum(x, axis=0))
    # CHECK: "tile.reduce"(%{{.*}}, %{{.*}}) ({
    # CHECK: ^bb0(%{{.*}}: f16 {{.*}}: i32 {{.*}}: f16 {{.*}}: i32
    # CHECK: arith.cmpf ogt
    # CHECK: }) {{.*}} : (tensor<128xf16>, tensor<128xi32>) -> (f16, i32)
    tl.store(idx_ptr, tl.argmax(x, axis=0))
    # CHECK: "tile.scan"
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.cumsum(x, axis=0))


print(tilec.compile(kernel, signature="*fp16,*fp16,*i32", constexprs={"BLOCK": 128}).asm["tile"])
