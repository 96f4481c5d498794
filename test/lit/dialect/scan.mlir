// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @scan
// CHECK: "tile.scan"(%arg0) ({
// CHECK: arith.addi
// CHECK: }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>, reverse} : (tensor<128xi32>) -> tensor<128xi32>
func.func @scan(%x: tensor<128xi32>) -> tensor<128xi32> {
  %0 = "tile.scan"(%x) ({
  ^bb0(%a: i32, %b: i32):
    %c = arith.addi %a, %b : i32
    gpu.yield %c : i32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>, reverse} : (tensor<128xi32>) -> tensor<128xi32>
  return %0 : tensor<128xi32>
}
