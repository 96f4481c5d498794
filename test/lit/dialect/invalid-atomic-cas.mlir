// Invalid IR: each rule of the verifier gives a diagnostic at the op.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

func.func @f0(%p: !tile.ptr<i32>, %c: i64, %v: i32) {
  // expected-error @+1 {{cmp, value and result must be i32}}
  %0 = "tile.atomic_cas"(%p, %c, %v) : (!tile.ptr<i32>, i64, i32) -> i32
  return
}
