// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%t: tensor<4xf32>) {
  // expected-error @+1 {{axis 1 is out of range}}
  %0 = "tile.reduce"(%t) ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    gpu.yield %c : f32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4xf32>) -> f32
  return
}

// -----

func.func @f1(%t: tensor<4xf32>) {
  // expected-error @+1 {{combiner arguments must be (f32, f32)}}
  %0 = "tile.reduce"(%t) ({
  ^bb0(%a: f32):
    gpu.yield %a : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4xf32>) -> f32
  return
}

// -----

func.func @f2(%t: tensor<4x8xf32>) {
  // expected-error @+1 {{result must be tensor<8xf32>}}
  %0 = "tile.reduce"(%t) ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    gpu.yield %c : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}
