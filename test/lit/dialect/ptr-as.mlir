// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @ptr_as
// CHECK: "tile.load"(%arg0) {{.*}} : (!tile.ptr_as<f32, 3 : i32>) -> f32
func.func @ptr_as(%p: !tile.ptr_as<f32, 3 : i32>) -> f32 {
  %0 = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (!tile.ptr_as<f32, 3 : i32>) -> f32
  return %0 : f32
}
