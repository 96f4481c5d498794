// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%t: tensor<4xf32>) {
  // expected-error @+1 {{results must have the operand types}}
  %0 = "tile.scan"(%t) ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    gpu.yield %c : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

// A combiner capturing a value of the function (the GPU lowering would destroy it with uses left).
func.func @captures(%t: tensor<4xi32>, %s: i32) {
  // expected-error @+1 {{the combiner uses %arg1, a value defined outside its region}}
  %0 = "tile.scan"(%t) ({
  ^bb0(%a: i32, %b: i32):
    %c = arith.addi %a, %s : i32
    gpu.yield %c : i32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @reduce_captures(%t: tensor<4xf32>, %s: f32) {
  // expected-error @+1 {{the combiner uses %arg1, a value defined outside its region}}
  %0 = "tile.reduce"(%t) ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %s : f32
    gpu.yield %c : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4xf32>) -> f32
  return
}
