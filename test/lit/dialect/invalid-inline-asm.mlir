// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%t: tensor<16xi8>) {
  // expected-error @+1 {{constraints list 2 operands, the statement has 2 output and 1 input registers (pack=2}}
  %0 = "tile.inline_asm"(%t) {asm = "", constraints = "=r,h", pack = 2 : i32,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
      : (tensor<16xi8>) -> tensor<16xi32>
  return
}

// -----

func.func @f1(%t: tensor<16xi32>) {
  // expected-error @+1 {{pack must be a power of two, got 3}}
  %0 = "tile.inline_asm"(%t) {asm = "", constraints = "=r,r", pack = 3 : i32,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
      : (tensor<16xi32>) -> tensor<16xi32>
  return
}

// -----

func.func @f2(%t: tensor<16xi32>) {
  // expected-error @+1 {{every argument and result must have shape [8], got argument tensor<16xi32>}}
  %0 = "tile.inline_asm"(%t) {asm = "", constraints = "=r,r", pack = 1 : i32,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
      : (tensor<16xi32>) -> tensor<8xi32>
  return
}

// -----

func.func @f3(%t: tensor<16xi1>) {
  // expected-error @+1 {{argument element type i1 cannot go to an asm statement}}
  %0 = "tile.inline_asm"(%t) {asm = "", constraints = "=r,r", pack = 1 : i32,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
      : (tensor<16xi1>) -> tensor<16xi32>
  return
}

// -----

func.func @f4(%t: tensor<16xi32>) {
  // expected-error @+1 {{constraints must list the 1 outputs (=...) first, then the 1 inputs}}
  %0 = "tile.inline_asm"(%t) {asm = "", constraints = "r,=r", pack = 1 : i32,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
      : (tensor<16xi32>) -> tensor<16xi32>
  return
}
