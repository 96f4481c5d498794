// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @histogram
// CHECK: "tile.histogram"(%arg0) {num_bins = 16 : i32, operandSegmentSizes = array<i32: 1, 0>} : (tensor<128xi32>) -> tensor<16xi32>
// CHECK: "tile.histogram"(%arg1, %arg2) {num_bins = 512 : i32, operandSegmentSizes = array<i32: 1, 1>} : (tensor<64xi8>, tensor<64xi1>) -> tensor<512xi32>
func.func @histogram(%x: tensor<128xi32>, %y: tensor<64xi8>, %m: tensor<64xi1>) -> (tensor<16xi32>, tensor<512xi32>) {
  %0 = "tile.histogram"(%x) {num_bins = 16 : i32, operandSegmentSizes = array<i32: 1, 0>} : (tensor<128xi32>) -> tensor<16xi32>
  %1 = "tile.histogram"(%y, %m) {num_bins = 512 : i32, operandSegmentSizes = array<i32: 1, 1>} : (tensor<64xi8>, tensor<64xi1>) -> tensor<512xi32>
  return %0, %1 : tensor<16xi32>, tensor<512xi32>
}
