// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%t: tensor<4x6xf32>) {
  // expected-error @+1 {{the sorted dimension must be a power of two, got 6}}
  %0 = "tile.sort"(%t) {axis = 1 : i32} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @f1(%t: tensor<4x8xf32>) {
  // expected-error @+1 {{axis 2 is out of range for a tensor of rank 2}}
  %0 = "tile.sort"(%t) {axis = 2 : i32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f2(%t: tensor<8xi1>) {
  // expected-error @+1 {{src must be a tensor of i8/i16/i32/i64 or f16/bf16/f32/f64, got tensor<8xi1>}}
  %0 = "tile.sort"(%t) {axis = 0 : i32} : (tensor<8xi1>) -> tensor<8xi1>
  return
}

// -----

func.func @f3(%t: tensor<8xf32>) {
  // expected-error @+1 {{'unsigned' applies to integers, not f32}}
  %0 = "tile.sort"(%t) {axis = 0 : i32, unsigned} : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @f4(%t: tensor<8xf32>) {
  // expected-error @+1 {{result must be tensor<8xf32>, got tensor<8xf16>}}
  %0 = "tile.sort"(%t) {axis = 0 : i32} : (tensor<8xf32>) -> tensor<8xf16>
  return
}

// -----

func.func @f5(%t: f32) {
  // expected-error @+1 {{src must be a tensor, got f32}}
  %0 = "tile.sort"(%t) {axis = 0 : i32} : (f32) -> f32
  return
}
