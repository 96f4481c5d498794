// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @addptr
// CHECK: "tile.addptr"(%arg0, %arg1) : (tensor<128x!tile.ptr<f32>>, tensor<128xi64>) -> tensor<128x!tile.ptr<f32>>
// CHECK: "tile.addptr"(%arg2, %arg3) : (!tile.ptr<i8>, i32) -> !tile.ptr<i8>
func.func @addptr(%p: tensor<128x!tile.ptr<f32>>, %o: tensor<128xi64>, %s: !tile.ptr<i8>, %n: i32) -> (tensor<128x!tile.ptr<f32>>, !tile.ptr<i8>) {
  %0 = "tile.addptr"(%p, %o) : (tensor<128x!tile.ptr<f32>>, tensor<128xi64>) -> tensor<128x!tile.ptr<f32>>
  %1 = "tile.addptr"(%s, %n) : (!tile.ptr<i8>, i32) -> !tile.ptr<i8>
  return %0, %1 : tensor<128x!tile.ptr<f32>>, !tile.ptr<i8>
}
