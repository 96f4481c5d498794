// Inputs on which MLIR's parser (built with assertions) ends the process: refused with a diagnostic.
// RUN: not tilec-opt %s --split-input-file 2>&1 | FileCheck %s
// CHECK: parser-assertions.mlir:8:47: error: a dense array's elements must be integers or floats: array<index: ...> is not valid
// CHECK: parser-assertions.mlir:14:1: error: 'gpu' is not an operation name: it needs a dialect and a name
// CHECK: parser-assertions.mlir:18:8: error: 'tile.' is not an operation name
// CHECK-NOT: LLVM ERROR
func.func @f(%p: tensor<4x!tile.ptr<f32>>) {
  %0 = "tile.load"(%p) {operandSegmentSizes = array<index: 1, 0, 0, 0>} : (tensor<4x!tile.ptr<f32>>) -> tensor<4xf32>
  return
}

// -----

"gpu"() : () -> ()

// -----

  %0 = "tile."() : () -> i32
