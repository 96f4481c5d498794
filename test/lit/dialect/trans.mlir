// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @trans
// CHECK: "tile.trans"(%arg0) {order = array<i32: 2, 0, 1>} : (tensor<2x4x8xf16>) -> tensor<8x2x4xf16>
func.func @trans(%x: tensor<2x4x8xf16>) -> tensor<8x2x4xf16> {
  %0 = "tile.trans"(%x) {order = array<i32: 2, 0, 1>} : (tensor<2x4x8xf16>) -> tensor<8x2x4xf16>
  return %0 : tensor<8x2x4xf16>
}
