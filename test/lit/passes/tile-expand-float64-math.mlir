// RUN: tilec-opt %s -p tile-expand-float64-math | FileCheck %s

// float64 exp becomes float64 arithmetic: n = floor(x / ln 2 + 1/2), the two-part reduction, a
// polynomial, two powers of two built from exponent bits. float32 stays a math op.
// CHECK-LABEL: func.func @exp64
// CHECK-NOT: math.exp %
// CHECK: math.floor
// CHECK: arith.constant 0.69314718036912382
// CHECK: arith.bitcast %{{.*}} : tensor<8xi64> to tensor<8xf64>
// CHECK-LABEL: func.func @exp32
// CHECK: math.exp %{{.*}} : tensor<8xf32>
func.func @exp64(%x: tensor<8xf64>) -> tensor<8xf64> {
  %y = math.exp %x : tensor<8xf64>
  return %y : tensor<8xf64>
}

func.func @exp32(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = math.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
