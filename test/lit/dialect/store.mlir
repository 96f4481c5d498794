// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @store
// CHECK: "tile.store"(%arg0, %arg1, %arg2) {operandSegmentSizes = array<i32: 1, 1, 1>}
// CHECK: "tile.store"(%arg0, %arg1) {cache = "wb", operandSegmentSizes = array<i32: 1, 1, 0>}
func.func @store(%p: tensor<128x!tile.ptr<f16>>, %v: tensor<128xf16>, %m: tensor<128xi1>) {
  "tile.store"(%p, %v, %m) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<128x!tile.ptr<f16>>, tensor<128xf16>, tensor<128xi1>) -> ()
  "tile.store"(%p, %v) {cache = "wb", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<128x!tile.ptr<f16>>, tensor<128xf16>) -> ()
  return
}
