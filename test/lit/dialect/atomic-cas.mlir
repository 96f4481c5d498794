// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @atomic_cas
// CHECK: "tile.atomic_cas"(%arg0, %arg1, %arg2) {scope = "gpu", sem = "acq_rel"} : (!tile.ptr<i32>, i32, i32) -> i32
func.func @atomic_cas(%p: !tile.ptr<i32>, %c: i32, %v: i32) -> i32 {
  %0 = "tile.atomic_cas"(%p, %c, %v) {scope = "gpu", sem = "acq_rel"} : (!tile.ptr<i32>, i32, i32) -> i32
  return %0 : i32
}
