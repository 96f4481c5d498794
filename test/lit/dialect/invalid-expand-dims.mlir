// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%t: tensor<4xf32>) {
  // expected-error @+1 {{axis 2 is out of range for a tensor of rank 1}}
  %0 = "tile.expand_dims"(%t) {axis = 2 : i32} : (tensor<4xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @f1(%t: tensor<4xf32>) {
  // expected-error @+1 {{result must be tensor<1x4xf32>}}
  %0 = "tile.expand_dims"(%t) {axis = 0 : i32} : (tensor<4xf32>) -> tensor<4x1xf32>
  return
}
