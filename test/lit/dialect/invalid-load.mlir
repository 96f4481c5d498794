// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%p: tensor<4x!tile.ptr<f32>>) {
  // expected-error @+1 {{result must be tensor<4xf32>}}
  %0 = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x!tile.ptr<f32>>) -> tensor<4xf16>
  return
}

// -----

func.func @f1(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-error @+1 {{mask must be i1 with shape [4]}}
  %0 = "tile.load"(%p, %m) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<4x!tile.ptr<f32>>, tensor<8xi1>) -> tensor<4xf32>
  return
}

// -----

func.func @f2(%p: tensor<4x!tile.ptr<f32>>) {
  // expected-error @+1 {{cache modifier 'zz' is not one of}}
  %0 = "tile.load"(%p) {cache = "zz", operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x!tile.ptr<f32>>) -> tensor<4xf32>
  return
}

// -----

func.func @f3(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<4xf32>) {
  // expected-error @+1 {{'other' requires a mask}}
  %0 = "tile.load"(%p, %o) {operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<4x!tile.ptr<f32>>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @bad_array_text(%p: tensor<4x4x!tile.ptr<f32>> {tile.name = "p"}, %i: i32 {tile.name = "n"}) {
  // expected-error @+1 {{descriptor: kernel array 'array base=p rows=mul.i32(n cols=4 row_stride=16': expected ',' in 'mul.i32(n'}}
  %0 = "tile.load"(%p, %i, %i) {descriptor = "array base=p rows=mul.i32(n cols=4 row_stride=16", operandSegmentSizes = array<i32: 1, 0, 0, 2>} : (tensor<4x4x!tile.ptr<f32>>, i32, i32) -> tensor<4x4xf32>
  return
}

// -----

func.func @unknown_argument(%p: tensor<4x4x!tile.ptr<f32>> {tile.name = "p"}, %i: i32 {tile.name = "n"}) {
  // expected-error @+1 {{no argument of the function is named 'M'}}
  %0 = "tile.load"(%p, %i, %i) {descriptor = "array base=p rows=M cols=4 row_stride=16", operandSegmentSizes = array<i32: 1, 0, 0, 2>} : (tensor<4x4x!tile.ptr<f32>>, i32, i32) -> tensor<4x4xf32>
  return
}
