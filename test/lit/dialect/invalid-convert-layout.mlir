// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%t: tensor<4xf32>) {
  // expected-error @+1 {{only the layout may change}}
  %0 = "tile.convert_layout"(%t) : (tensor<4xf32>) -> tensor<8xf32>
  return
}
