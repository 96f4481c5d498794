// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @dot
// CHECK: "tile.dot"(%arg0, %arg1, %arg2) {input_precision = "ieee"} : (tensor<32x16xf16>, tensor<16x64xf16>, tensor<32x64xf32>) -> tensor<32x64xf32>
func.func @dot(%a: tensor<32x16xf16>, %b: tensor<16x64xf16>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %0 = "tile.dot"(%a, %b, %c) {input_precision = "ieee"} : (tensor<32x16xf16>, tensor<16x64xf16>, tensor<32x64xf32>) -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}
