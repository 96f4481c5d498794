// RUN: tilec-opt %s -p tile-exact-float-remainder | FileCheck %s

// A float remainder becomes integer arithmetic (AMD has no instruction for frem): the mantissas as
// int64, eight multiply-modulo steps for 2^(ex - ey) mod my, the result scaled by a power of two
// built from its bits and given x's sign.
// CHECK-LABEL: func.func @remainder
// CHECK-NOT: arith.remf
// CHECK: arith.bitcast %{{.*}} : tensor<8xf32> to tensor<8xi32>
// CHECK-COUNT-18: arith.remsi %{{.*}}, %{{.*}} : tensor<8xi64>
// CHECK: math.copysign
// CHECK-NOT: arith.remf
func.func @remainder(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %r = arith.remf %x, %y : tensor<8xf32>
  return %r : tensor<8xf32>
}

// float16 goes through float32.
// CHECK-LABEL: func.func @half
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @half(%x: f16, %y: f16) -> f16 {
  %r = arith.remf %x, %y : f16
  return %r : f16
}
