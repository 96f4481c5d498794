// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @broadcast
// CHECK: "tile.broadcast"(%arg0) : (tensor<1x64xf32>) -> tensor<32x64xf32>
func.func @broadcast(%x: tensor<1x64xf32>) -> tensor<32x64xf32> {
  %0 = "tile.broadcast"(%x) : (tensor<1x64xf32>) -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}
