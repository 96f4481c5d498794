// one-shot-bufferize asserts (MemRefType::get) on a tensor of tile pointers: refused at the op.
// RUN: not tilec-opt %s -p 'one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}' 2>&1 | FileCheck %s
// CHECK: bufferize-tile-pointers.mlir:[[@LINE+4]]:8: error: one-shot-bufferize cannot bufferize a tensor of !tile.ptr<f32> ('tile.ptr_cast' op)
// CHECK-NOT: Assertion
// CHECK-NOT: Traceback
func.func @casts(%t: tensor<64x!tile.ptr<f32>>, %a: i64) {
  %0 = "tile.ptr_cast"(%t) : (tensor<64x!tile.ptr<f32>>) -> tensor<64x!tile.ptr<i8>>
  return
}
