// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// Round trip: pointer to pointer, pointer to i64, i64 to pointer.
// CHECK-LABEL: func.func @casts
// CHECK: "tile.ptr_cast"(%arg0) : (tensor<64x!tile.ptr<f32>>) -> tensor<64x!tile.ptr<i8>>
// CHECK: "tile.ptr_cast"(%arg1) : (!tile.ptr<f32>) -> i64
// CHECK: "tile.ptr_cast"(%arg2) : (i64) -> !tile.ptr<f16>
func.func @casts(%t: tensor<64x!tile.ptr<f32>>, %p: !tile.ptr<f32>, %a: i64) {
  %0 = "tile.ptr_cast"(%t) : (tensor<64x!tile.ptr<f32>>) -> tensor<64x!tile.ptr<i8>>
  %1 = "tile.ptr_cast"(%p) : (!tile.ptr<f32>) -> i64
  %2 = "tile.ptr_cast"(%a) : (i64) -> !tile.ptr<f16>
  return
}
