# Run-time control flow becomes scf; compile-time branches disappear.
# RUN: %PYTHON %s | FileCheck %s
import tilec
import tilec.language as tl


@tilec.jit
def kernel(x_ptr, out_ptr, n, MODE: tl.constexpr):
    # CHECK-LABEL: func.func @kernel
    acc = 0.0
    # CHECK: %[[LOOP:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, i32) : i32
    i = 0
    for k in range(0, n):
        acc += tl.load(x_ptr + k)
        i += 1
    # CHECK: scf.while (%{{.*}} = %[[LOOP]]#0) : (f32) -> f32
    # CHECK: scf.condition
    while acc > 100.0:
        acc = acc / 2.0
    # MODE is a constexpr: only one branch is compiled, with no scf.if.
    # CHECK-NOT: arith.negf
    if MODE == 1:
        acc = acc * 3.0
    else:
        acc = -acc
    # CHECK: scf.if %{{.*}} -> (f32)
    if i > 10:
        acc = acc + 1.0
    tl.store(out_ptr, acc)


print(tilec.compile(kernel, signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, constexprs={"MODE": 1}).asm["tile"])
