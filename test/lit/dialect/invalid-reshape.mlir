// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%t: tensor<4x8xf32>) {
  // expected-error @+1 {{reshape must keep the number of elements: 32 vs 16}}
  %0 = "tile.reshape"(%t) : (tensor<4x8xf32>) -> tensor<16xf32>
  return
}
