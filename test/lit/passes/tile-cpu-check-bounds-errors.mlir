// RUN: not tilec-opt %s -p tile-cpu-check-bounds 2>&1 | FileCheck %s

// The checks report through tile-cpu-grid's status argument: without it the pass refuses.
// CHECK: error: tile-cpu-check-bounds needs tile-cpu-grid to run first (it reports through its status argument)
func.func @k(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  %v = "tile.load"(%x) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (!tile.ptr<f32>) -> f32
  return
}
