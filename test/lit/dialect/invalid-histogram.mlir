// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%x: tensor<128xf32>) {
  // expected-error @+1 {{src must be a 1-D tensor of integers}}
  %0 = "tile.histogram"(%x) {num_bins = 16 : i32, operandSegmentSizes = array<i32: 1, 0>} : (tensor<128xf32>) -> tensor<16xi32>
  return
}

// -----

func.func @f1(%x: tensor<128xi32>) {
  // expected-error @+1 {{num_bins must be a power of two, got 12}}
  %0 = "tile.histogram"(%x) {num_bins = 12 : i32, operandSegmentSizes = array<i32: 1, 0>} : (tensor<128xi32>) -> tensor<12xi32>
  return
}

// -----

func.func @f2(%x: tensor<128xi32>) {
  // expected-error @+1 {{result must be tensor<16xi32>}}
  %0 = "tile.histogram"(%x) {num_bins = 16 : i32, operandSegmentSizes = array<i32: 1, 0>} : (tensor<128xi32>) -> tensor<16xi64>
  return
}

// -----

func.func @f3(%x: tensor<128xi32>, %m: tensor<64xi1>) {
  // expected-error @+1 {{mask must be i1 with shape [128]}}
  %0 = "tile.histogram"(%x, %m) {num_bins = 16 : i32, operandSegmentSizes = array<i32: 1, 1>} : (tensor<128xi32>, tensor<64xi1>) -> tensor<16xi32>
  return
}

// -----

func.func @f4(%x: tensor<128xi1>) {
  // expected-error @+1 {{src must be a 1-D tensor of integers (8 to 64 bits)}}
  %0 = "tile.histogram"(%x) {num_bins = 16 : i32, operandSegmentSizes = array<i32: 1, 0>} : (tensor<128xi1>) -> tensor<16xi32>
  return
}
