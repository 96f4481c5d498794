// RUN: tilec-opt %s -p tile-check-bounds | FileCheck %s

// The kernel takes [lo, hi) of each pointer argument as two more i64 parameters, after its own
// (the launcher fills them); the function says how many pointer arguments have ranges.
// CHECK-LABEL: func.func @k(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32>, %arg2: i32, %arg3: !tile.ptr<i32>, %arg4: i64, %arg5: i64, %arg6: i64, %arg7: i64, %arg8: i64, %arg9: i64)
// CHECK-SAME: tile.bounds_ranges = 3 : i32

// A masked load: the assertion holds where the mask is off or the address lies in an argument's
// range, and the load keeps only the lanes that are both.
// CHECK: %[[ADDR:.*]] = "tile.ptr_cast"(%[[PTRS:.*]]) : (tensor<16x!tile.ptr<f32>>) -> tensor<16xi64>
// CHECK: %[[END:.*]] = arith.addi %[[ADDR]], %{{.*}} : tensor<16xi64>
// CHECK: %[[LO:.*]] = "tile.splat"(%arg4)
// CHECK: arith.cmpi uge, %[[ADDR]], %[[LO]]
// CHECK: %[[HI:.*]] = "tile.splat"(%arg5)
// CHECK: arith.cmpi ule, %[[END]], %[[HI]]
// CHECK: "tile.splat"(%arg8)
// CHECK: "tile.splat"(%arg9)
// CHECK: %[[OFF:.*]] = arith.xori %[[MASK:.*]], %{{.*}} : tensor<16xi1>
// CHECK: %[[OK:.*]] = arith.ori %[[OFF]], %[[IN:.*]] :
// CHECK: "tile.assert"(%[[OK]]) {message = "out-of-bounds load of 4 byte(s): not inside any array passed to the kernel (is a mask missing?)"}
// CHECK: %[[BOTH:.*]] = arith.andi %[[MASK]], %[[IN]]
// CHECK: "tile.load"(%[[PTRS]], %[[BOTH]]) {operandSegmentSizes = array<i32: 1, 1, 0, 0>}

// An unmasked store gets the in-bounds lanes as its mask.
// CHECK: "tile.assert"(%[[SIN:.*]]) {message = "out-of-bounds store of 4 byte(s)
// CHECK: "tile.store"(%{{.*}}, %{{.*}}, %[[SIN]]) {operandSegmentSizes = array<i32: 1, 1, 1>}

// A compare-and-swap has no mask; on a GPU the failed assertion stops the thread before it.
// CHECK: "tile.assert"(%[[CIN:.*]]) {message = "out-of-bounds atomic operation of 4 byte(s)
// CHECK-NEXT: "tile.atomic_cas"(%[[F:.*]], %{{.*}}, %{{.*}})
// CHECK-NOT: arith.select
func.func @k(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32>, %n: i32, %flags: !tile.ptr<i32>) attributes {tile.kernel} {
  %r = "tile.make_range"() {start = 0 : i32, end = 16 : i32} : () -> tensor<16xi32>
  %ns = "tile.splat"(%n) : (i32) -> tensor<16xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<16xi32>
  %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<16x!tile.ptr<f32>>
  %p = "tile.addptr"(%xs, %r) : (tensor<16x!tile.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<f32>>
  %v = "tile.load"(%p, %m) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<16x!tile.ptr<f32>>, tensor<16xi1>) -> tensor<16xf32>
  %os = "tile.splat"(%out) : (!tile.ptr<f32>) -> tensor<16x!tile.ptr<f32>>
  %q = "tile.addptr"(%os, %r) : (tensor<16x!tile.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<f32>>
  "tile.store"(%q, %v) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tile.ptr<f32>>, tensor<16xf32>) -> ()
  %fs = "tile.splat"(%flags) : (!tile.ptr<i32>) -> tensor<16x!tile.ptr<i32>>
  %f = "tile.addptr"(%fs, %r) : (tensor<16x!tile.ptr<i32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<i32>>
  %zero = arith.constant dense<0> : tensor<16xi32>
  %one = arith.constant dense<1> : tensor<16xi32>
  %old = "tile.atomic_cas"(%f, %zero, %one) {sem = "acq_rel", scope = "gpu"} : (tensor<16x!tile.ptr<i32>>, tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
  return
}

// A kernel without pointer arguments keeps its signature.
// CHECK-LABEL: func.func @no_pointers(%arg0: i32)
// CHECK-SAME: tile.bounds_ranges = 0 : i32
func.func @no_pointers(%n: i32) attributes {tile.kernel} {
  return
}
