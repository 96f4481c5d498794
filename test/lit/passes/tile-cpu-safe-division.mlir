// RUN: tilec-opt %s -p tile-cpu-safe-division | FileCheck %s

// A signed division divides by 1 where the divisor is 0 or the division overflows (MIN / -1).
// CHECK-LABEL: func.func @signed
// CHECK: %[[ZERO:.*]] = arith.constant dense<0> : tensor<64xi32>
// CHECK: %[[Z:.*]] = arith.cmpi eq, %arg1, %[[ZERO]]
// CHECK: %[[MIN:.*]] = arith.constant dense<-2147483648> : tensor<64xi32>
// CHECK: %[[S:.*]] = arith.cmpi eq, %arg0, %[[MIN]]
// CHECK: %[[M1:.*]] = arith.constant dense<-1> : tensor<64xi32>
// CHECK: %[[N:.*]] = arith.cmpi eq, %arg1, %[[M1]]
// CHECK: %[[O:.*]] = arith.andi %[[S]], %[[N]]
// CHECK: %[[BAD:.*]] = arith.ori %[[Z]], %[[O]]
// CHECK: %[[ONE:.*]] = arith.constant dense<1> : tensor<64xi32>
// CHECK: %[[D:.*]] = arith.select %[[BAD]], %[[ONE]], %arg1
// CHECK: arith.divsi %arg0, %[[D]] : tensor<64xi32>
func.func @signed(%a: tensor<64xi32>, %b: tensor<64xi32>) -> tensor<64xi32> {
  %q = arith.divsi %a, %b : tensor<64xi32>
  return %q : tensor<64xi32>
}

// Unsigned remainders of scalars: only the zero divisor.
// CHECK-LABEL: func.func @unsigned
// CHECK: %[[Z:.*]] = arith.cmpi eq, %arg1, %{{.*}} : i64
// CHECK-NOT: arith.andi
// CHECK: %[[D:.*]] = arith.select %[[Z]], %{{.*}}, %arg1 : i64
// CHECK: arith.remui %arg0, %[[D]] : i64
func.func @unsigned(%a: i64, %b: i64) -> i64 {
  %r = arith.remui %a, %b : i64
  return %r : i64
}
