# The frontend's tile IR for a masked vector add; CHECK lines sit beside the kernel.
# RUN: %PYTHON %s | FileCheck %s
import tilec
import tilec.language as tl


# CHECK-LABEL: func.func @add_kernel(
# CHECK-SAME: %arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "x_ptr"}
# CHECK-SAME: %arg3: i32 {tile.name = "n"}
@tilec.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # CHECK: %[[PID:.*]] = "tile.program_id"() {axis = 0 : i32} : () -> i32 loc(#[[L_PID:loc[0-9]+]])
    pid = tl.program_id(0)
    # CHECK: %[[START:.*]] = arith.muli %[[PID]], %c1024_i32 : i32
    # CHECK: "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    # CHECK: %[[MASK:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<1024xi32>
    mask = offs < n
    # CHECK: "tile.load"(%{{.*}}, %[[MASK]]) {{.*}} -> tensor<1024xf32>
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    # CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<1024xf32>
    # CHECK: "tile.store"(%{{.*}}, %[[SUM]], %[[MASK]])
    tl.store(out_ptr + offs, x + y, mask=mask)


# Every op carries the user's file:line:col.
# CHECK: #[[L_PID]] = loc("{{.*}}vector-add.py":13:11)
k = tilec.compile(add_kernel, signature="*fp32,*fp32,*fp32,i32", constexprs={"BLOCK": 1024})
print(k.asm["tile"])
