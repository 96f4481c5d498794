// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%t: tensor<4x8xf32>) {
  // expected-error @+1 {{is not a permutation}}
  %0 = "tile.trans"(%t) {order = array<i32: 0, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f1(%t: tensor<4x8xf32>) {
  // expected-error @+1 {{result must be tensor<8x4xf32>}}
  %0 = "tile.trans"(%t) {order = array<i32: 1, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}
