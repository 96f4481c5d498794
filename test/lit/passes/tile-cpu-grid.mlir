// RUN: tilec-opt %s -p tile-cpu-grid | FileCheck %s

// The kernel becomes a private per-program function taking program ids as arguments, and a grid
// function of the kernel's name loops over a range of linear program ids.
// CHECK-LABEL: func.func private @k_program(%arg0: !tile.ptr<i32>, %arg1: i32, %arg2: i32, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: i32, %arg7: i64)
// CHECK-SAME: tile.status_arg = 7 : i32
// CHECK-NOT: tile.program_id
// CHECK-NOT: tile.num_programs
// CHECK: arith.addi %arg2, %arg4 : i32
// CHECK-LABEL: func.func @k(%arg0: !tile.ptr<i32>, %arg1: i64, %arg2: i64, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: i64)
// CHECK-SAME: tile.grid_entry
// CHECK: scf.for %[[I:.*]] = %arg1 to %arg2 step %{{.*}} : i64
// CHECK: arith.remui %[[I]]
// CHECK: call @k_program(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %arg3, %arg4, %arg5, %arg6)
func.func @k(%out: !tile.ptr<i32>) attributes {tile.kernel} {
  %y = "tile.program_id"() {axis = 1 : i32} : () -> i32
  %nx = "tile.num_programs"() {axis = 0 : i32} : () -> i32
  %v = arith.addi %y, %nx : i32
  "tile.store"(%out, %v) {operandSegmentSizes = array<i32: 1, 1, 0>} : (!tile.ptr<i32>, i32) -> ()
  return
}
