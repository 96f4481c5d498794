// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%a: i64) {
  // expected-error @+1 {{operand or result must be a !tile.ptr, got i64 and f64}}
  %0 = "tile.ptr_cast"(%a) : (i64) -> f64
  return
}

// -----

func.func @f1(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{the integer side of a pointer cast must be i64, got i32}}
  %0 = "tile.ptr_cast"(%p) : (!tile.ptr<f32>) -> i32
  return
}

// -----

func.func @f2(%t: tensor<64x!tile.ptr<f32>>) {
  // expected-error @+1 {{the shape may not change}}
  %0 = "tile.ptr_cast"(%t) : (tensor<64x!tile.ptr<f32>>) -> tensor<32x!tile.ptr<f32>>
  return
}
