// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%a: tensor<32x16xf16>, %b: tensor<32x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{inner dimensions differ}}
  %0 = "tile.dot"(%a, %b, %c) : (tensor<32x16xf16>, tensor<32x16xf16>, tensor<32x16xf32>) -> tensor<32x16xf32>
  return
}

// -----

func.func @f1(%a: tensor<8x16xf16>, %b: tensor<16x16xf16>, %c: tensor<8x32xf32>) {
  // expected-error @+1 {{accumulator and result must be [8, 16]}}
  %0 = "tile.dot"(%a, %b, %c) : (tensor<8x16xf16>, tensor<16x16xf16>, tensor<8x32xf32>) -> tensor<8x32xf32>
  return
}

// -----

func.func @f2(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{input_precision 'fast'}}
  %0 = "tile.dot"(%a, %b, %c) {input_precision = "fast"} : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return
}
