// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @reshape
// CHECK: "tile.reshape"(%arg0) : (tensor<4x8xf32>) -> tensor<2x16xf32>
func.func @reshape(%x: tensor<4x8xf32>) -> tensor<2x16xf32> {
  %0 = "tile.reshape"(%x) : (tensor<4x8xf32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}
