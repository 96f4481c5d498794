// RUN: tilec-opt %s -p tile-exact-float-remainder | FileCheck %s
// RUN: tilec-opt %s -p "tile-exact-float-remainder{float64=0}" | FileCheck %s --check-prefix=KEEP64

// A float remainder becomes exact reduction steps (neither GPU back end computes frem exactly): the
// exponents from the bits, y scaled by 2^k, the quotient truncated, the fma that leaves the remainder,
// a negative one corrected by adding y' back; 12 steps for float32, the result given x's sign.
// CHECK-LABEL: func.func @remainder
// CHECK-NOT: arith.remf
// CHECK: arith.bitcast %{{.*}} : tensor<8xf32> to tensor<8xi32>
// CHECK-COUNT-12: math.trunc %{{.*}} : tensor<8xf32>
// CHECK: math.copysign
// CHECK-NOT: arith.remf
func.func @remainder(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %r = arith.remf %x, %y : tensor<8xf32>
  return %r : tensor<8xf32>
}

// Each step divides correctly rounded (no `afn`) and multiplies-adds fused.
// CHECK-LABEL: func.func @scalar
// CHECK: %[[Q:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: math.trunc %[[Q]] : f32
// CHECK: math.fma
func.func @scalar(%x: f32, %y: f32) -> f32 {
  %r = arith.remf %x, %y : f32
  return %r : f32
}

// float16 goes through float32.
// CHECK-LABEL: func.func @half
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @half(%x: f16, %y: f16) -> f16 {
  %r = arith.remf %x, %y : f16
  return %r : f16
}

// float64 takes 41 steps; with float64=0 (NVIDIA, whose back end expands an exact loop) it stays.
// CHECK-LABEL: func.func @double
// CHECK-COUNT-41: math.trunc %{{.*}} : f64
// CHECK-NOT: arith.remf
// KEEP64-LABEL: func.func @double
// KEEP64: arith.remf %{{.*}}, %{{.*}} : f64
func.func @double(%x: f64, %y: f64) -> f64 {
  %r = arith.remf %x, %y : f64
  return %r : f64
}
