// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%x: tensor<16xf32>) {
  // expected-error @+1 {{body must take one scalar per argument: (f32)}}
  %y = "tile.map"(%x) ({
  ^bb0(%a: i32):
    gpu.yield %a : i32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
     : (tensor<16xf32>) -> tensor<16xi32>
  return
}

// -----

func.func @f1(%x: tensor<16xf32>) {
  // expected-error @+1 {{body must end in gpu.yield of (i32)}}
  %y = "tile.map"(%x) ({
  ^bb0(%a: f32):
    gpu.yield %a : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
     : (tensor<16xf32>) -> tensor<16xi32>
  return
}

// -----

func.func @f2(%x: tensor<16xf32>) {
  // expected-error @+1 {{every argument and result must have shape [16], got result tensor<8xf32>}}
  %y = "tile.map"(%x) ({
  ^bb0(%a: f32):
    gpu.yield %a : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
     : (tensor<16xf32>) -> tensor<8xf32>
  return
}
