// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0() {
  // expected-error @+1 {{range length 100 must be a power of two}}
  %0 = "tile.make_range"() {end = 100 : i32, start = 0 : i32} : () -> tensor<100xi32>
  return
}

// -----

func.func @f1() {
  // expected-error @+1 {{end (0) must be greater than start (8)}}
  %0 = "tile.make_range"() {end = 0 : i32, start = 8 : i32} : () -> tensor<8xi32>
  return
}

// -----

func.func @f2() {
  // expected-error @+1 {{result must be tensor<8xi32>}}
  %0 = "tile.make_range"() {end = 8 : i32, start = 0 : i32} : () -> tensor<16xi32>
  return
}
