// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0() {
  // expected-error @+1 {{axis must be 0, 1 or 2, got 3}}
  %0 = "tile.program_id"() {axis = 3 : i32} : () -> i32
  return
}

// -----

func.func @f1() {
  // expected-error @+1 {{expected 'i32' but got 'f32'}}
  %0 = "tile.program_id"() {axis = 0 : i32} : () -> f32
  return
}
