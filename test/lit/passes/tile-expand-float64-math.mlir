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

// float64 erf: the Taylor series near 0 (2/sqrt(pi) first), the exact square of the tail's e^(-x^2)
// by an fma, and the erfcx Chebyshev series (its first coefficient); float32 erf stays a math op.
// CHECK-LABEL: func.func @erf64
// CHECK-NOT: math.erf %
// CHECK-DAG: arith.constant 1.1283791670955126
// CHECK-DAG: math.fma
// CHECK-DAG: arith.constant 0.5038841025492574
// CHECK-LABEL: func.func @erf32
// CHECK: math.erf %{{.*}} : tensor<8xf32>
func.func @erf64(%x: tensor<8xf64>) -> tensor<8xf64> {
  %y = math.erf %x : tensor<8xf64>
  return %y : tensor<8xf64>
}

func.func @erf32(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = math.erf %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
