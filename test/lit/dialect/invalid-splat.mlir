// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%t: tensor<4xf32>) {
  // expected-error @+1 {{operand must be a scalar}}
  %0 = "tile.splat"(%t) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f1(%x: f32) {
  // expected-error @+1 {{result must be a tensor of f32}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<4xf16>
  return
}
