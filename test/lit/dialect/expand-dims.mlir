// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @expand_dims
// CHECK: "tile.expand_dims"(%arg0) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
func.func @expand_dims(%x: tensor<64xi32>) -> tensor<1x64xi32> {
  %0 = "tile.expand_dims"(%x) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  return %0 : tensor<1x64xi32>
}
