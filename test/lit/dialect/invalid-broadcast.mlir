// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%t: tensor<4x1xf32>) {
  // expected-error @+1 {{cannot broadcast shape [4, 1] to [2, 8]}}
  %0 = "tile.broadcast"(%t) : (tensor<4x1xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @f1(%t: tensor<4x1xf32>) {
  // expected-error @+1 {{element types differ}}
  %0 = "tile.broadcast"(%t) : (tensor<4x1xf32>) -> tensor<4x8xf16>
  return
}
