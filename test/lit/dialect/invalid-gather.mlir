// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%t: tensor<4x8xf32>, %i: tensor<4x2xi32>) {
  // expected-error @+1 {{index shape [4, 2] must equal src shape [4, 8] except along axis 0}}
  %0 = "tile.gather"(%t, %i) {axis = 0 : i32} : (tensor<4x8xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @f1(%t: tensor<4x8xf32>, %i: tensor<4x2xi16>) {
  // expected-error @+1 {{index must be a tensor of i32 or i64}}
  %0 = "tile.gather"(%t, %i) {axis = 1 : i32} : (tensor<4x8xf32>, tensor<4x2xi16>) -> tensor<4x2xf32>
  return
}

// -----

func.func @f2(%t: tensor<4x8xf32>, %i: tensor<4x2xi32>) {
  // expected-error @+1 {{result must be tensor<4x2xf32>}}
  %0 = "tile.gather"(%t, %i) {axis = 1 : i32} : (tensor<4x8xf32>, tensor<4x2xi32>) -> tensor<4x2xf16>
  return
}

// -----

func.func @f3(%t: tensor<4x8xf32>, %i: tensor<8xi32>) {
  // expected-error @+1 {{src and index must be tensors of one rank}}
  %0 = "tile.gather"(%t, %i) {axis = 0 : i32} : (tensor<4x8xf32>, tensor<8xi32>) -> tensor<8xf32>
  return
}

// -----

func.func @f4(%t: tensor<4x8xf32>, %i: tensor<4x8xi32>) {
  // expected-error @+1 {{axis 2 is out of range}}
  %0 = "tile.gather"(%t, %i) {axis = 2 : i32} : (tensor<4x8xf32>, tensor<4x8xi32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f5(%t: tensor<8x!tile.ptr<f32>>, %i: tensor<8xi32>) {
  // expected-error @+1 {{src must be a tensor of integers (8 to 64 bits) or floats}}
  %0 = "tile.gather"(%t, %i) {axis = 0 : i32} : (tensor<8x!tile.ptr<f32>>, tensor<8xi32>) -> tensor<8x!tile.ptr<f32>>
  return
}

// -----

func.func @f6(%t: tensor<8xi1>, %i: tensor<8xi32>) {
  // expected-error @+1 {{src must be a tensor of integers (8 to 64 bits) or floats}}
  %0 = "tile.gather"(%t, %i) {axis = 0 : i32} : (tensor<8xi1>, tensor<8xi32>) -> tensor<8xi1>
  return
}
