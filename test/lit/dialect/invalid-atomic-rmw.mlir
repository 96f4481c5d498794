// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%p: !tile.ptr<i32>, %v: i32) {
  // expected-error @+1 {{atomic kind 'mul' is not one of}}
  %0 = "tile.atomic_rmw"(%p, %v) {kind = "mul", operandSegmentSizes = array<i32: 1, 1, 0>} : (!tile.ptr<i32>, i32) -> i32
  return
}

// -----

func.func @f1(%p: !tile.ptr<i32>, %v: i32) {
  // expected-error @+1 {{'fadd' needs a float pointee}}
  %0 = "tile.atomic_rmw"(%p, %v) {kind = "fadd", operandSegmentSizes = array<i32: 1, 1, 0>} : (!tile.ptr<i32>, i32) -> i32
  return
}

// -----

func.func @f2(%p: !tile.ptr<i32>, %v: i32) {
  // expected-error @+1 {{memory semantics 'weird'}}
  %0 = "tile.atomic_rmw"(%p, %v) {kind = "add", operandSegmentSizes = array<i32: 1, 1, 0>, sem = "weird"} : (!tile.ptr<i32>, i32) -> i32
  return
}
