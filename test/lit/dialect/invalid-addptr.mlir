// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%t: tensor<4xf32>, %i: tensor<4xi32>) {
  // expected-error @+1 {{ptr must be a !tile.ptr or a tensor of them}}
  %0 = "tile.addptr"(%t, %i) : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @f1(%p: tensor<4x!tile.ptr<f32>>, %f: tensor<4xf32>) {
  // expected-error @+1 {{offset must be an integer}}
  %0 = "tile.addptr"(%p, %f) : (tensor<4x!tile.ptr<f32>>, tensor<4xf32>) -> tensor<4x!tile.ptr<f32>>
  return
}

// -----

func.func @f2(%p: tensor<4x!tile.ptr<f32>>, %i: tensor<8xi32>) {
  // expected-error @+1 {{offset shape [8] must match pointer shape [4]}}
  %0 = "tile.addptr"(%p, %i) : (tensor<4x!tile.ptr<f32>>, tensor<8xi32>) -> tensor<4x!tile.ptr<f32>>
  return
}
