// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%t: tensor<4xf32>) {
  // expected-error @+1 {{condition must be an integer}}
  "tile.assert"(%t) {message = "m"} : (tensor<4xf32>) -> ()
  return
}
