// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf16>) {
  // expected-error @+1 {{value must be tensor<4xf32>}}
  "tile.store"(%p, %v) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4x!tile.ptr<f32>>, tensor<4xf16>) -> ()
  return
}
