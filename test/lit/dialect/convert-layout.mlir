// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @convert_layout
// CHECK: "tile.convert_layout"(%arg0) : (tensor<128xf32>) -> tensor<128xf32>
func.func @convert_layout(%x: tensor<128xf32>) -> tensor<128xf32> {
  %0 = "tile.convert_layout"(%x) : (tensor<128xf32>) -> tensor<128xf32>
  return %0 : tensor<128xf32>
}
