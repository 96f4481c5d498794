// RUN: tilec-opt %s -p tile-cpu-grid,tile-cpu-check-bounds | FileCheck %s

// Each pointer argument's [lo, hi) comes from the status block (words 2 + 2j, 3 + 2j); word 1 is
// the scratch word a compare-and-swap goes to when out of bounds.
// CHECK-LABEL: func.func private @k_program
// CHECK: %[[WORDS:.*]] = "tile.ptr_cast"(%arg10) : (i64) -> !tile.ptr<i64>
// CHECK: %[[P2:.*]] = "tile.addptr"(%[[WORDS]], %c2_i32)
// CHECK: "tile.load"(%[[P2]])
// CHECK-COUNT-7: "tile.load"
// CHECK-NOT: "tile.load"
// CHECK: %[[SCRATCH:.*]] = "tile.addptr"(%[[WORDS]], %c1_i32)

// A masked load: the assertion holds where the mask is off or the address lies in an argument,
// and the load keeps only the lanes that are both.
// CHECK: %[[ADDR:.*]] = "tile.ptr_cast"(%[[PTRS:.*]]) : (tensor<16x!tile.ptr<f32>>) -> tensor<16xi64>
// CHECK: %[[END:.*]] = arith.addi %[[ADDR]], %{{.*}} : tensor<16xi64>
// CHECK: arith.cmpi uge, %[[ADDR]]
// CHECK: arith.cmpi ule, %[[END]]
// CHECK: %[[OFF:.*]] = arith.xori %[[MASK:.*]], %{{.*}} : tensor<16xi1>
// CHECK: %[[OK:.*]] = arith.ori %[[OFF]], %[[IN:.*]] :
// CHECK: "tile.assert"(%[[OK]]) {message = "out-of-bounds load of 4 byte(s): not inside any array passed to the kernel (is a mask missing?)"}
// CHECK: %[[BOTH:.*]] = arith.andi %[[MASK]], %[[IN]]
// CHECK: "tile.load"(%[[PTRS]], %[[BOTH]]) {operandSegmentSizes = array<i32: 1, 1, 0, 0>}

// An unmasked store gets the in-bounds lanes as its mask.
// CHECK: "tile.assert"(%[[SIN:.*]]) {message = "out-of-bounds store of 4 byte(s)
// CHECK: "tile.store"(%{{.*}}, %{{.*}}, %[[SIN]]) {operandSegmentSizes = array<i32: 1, 1, 1>}

// A pointer read from memory may point anywhere in the process: the load through it is left alone
// (the load of the table itself, an argument, is checked).
// CHECK: "tile.assert"(%{{.*}}) {message = "out-of-bounds load of 8 byte(s)
// CHECK: %[[A:.*]] = "tile.load"(%arg2, %{{.*}})
// CHECK: %[[AP:.*]] = "tile.ptr_cast"(%[[A]]) : (i64) -> !tile.ptr<f32>
// CHECK-NEXT: "tile.load"(%[[AP]]) {operandSegmentSizes = array<i32: 1, 0, 0, 0>}

// A compare-and-swap has no mask: out of bounds, it swaps the scratch word instead.
// CHECK: "tile.assert"(%[[CIN:.*]]) {message = "out-of-bounds atomic operation of 4 byte(s)
// CHECK: %[[S:.*]] = "tile.ptr_cast"(%[[SCRATCH]]) : (!tile.ptr<i64>) -> !tile.ptr<i32>
// CHECK: %[[SS:.*]] = "tile.splat"(%[[S]])
// CHECK: %[[SAFE:.*]] = arith.select %[[CIN]], %{{.*}}, %[[SS]]
// CHECK: "tile.atomic_cas"(%[[SAFE]]
func.func @k(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %table: !tile.ptr<i64>, %flags: !tile.ptr<i32>) attributes {tile.kernel} {
  %r = "tile.make_range"() {start = 0 : i32, end = 16 : i32} : () -> tensor<16xi32>
  %n = arith.constant dense<10> : tensor<16xi32>
  %m = arith.cmpi slt, %r, %n : tensor<16xi32>
  %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<16x!tile.ptr<f32>>
  %p = "tile.addptr"(%xs, %r) : (tensor<16x!tile.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<f32>>
  %v = "tile.load"(%p, %m) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<16x!tile.ptr<f32>>, tensor<16xi1>) -> tensor<16xf32>
  %os = "tile.splat"(%out) : (!tile.ptr<f32>) -> tensor<16x!tile.ptr<f32>>
  %q = "tile.addptr"(%os, %r) : (tensor<16x!tile.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<f32>>
  "tile.store"(%q, %v) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tile.ptr<f32>>, tensor<16xf32>) -> ()
  %a = "tile.load"(%table) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (!tile.ptr<i64>) -> i64
  %ap = "tile.ptr_cast"(%a) : (i64) -> !tile.ptr<f32>
  %w = "tile.load"(%ap) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (!tile.ptr<f32>) -> f32
  %fs = "tile.splat"(%flags) : (!tile.ptr<i32>) -> tensor<16x!tile.ptr<i32>>
  %f = "tile.addptr"(%fs, %r) : (tensor<16x!tile.ptr<i32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<i32>>
  %zero = arith.constant dense<0> : tensor<16xi32>
  %one = arith.constant dense<1> : tensor<16xi32>
  %old = "tile.atomic_cas"(%f, %zero, %one) {sem = "acq_rel", scope = "gpu"} : (tensor<16x!tile.ptr<i32>>, tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
  return
}
