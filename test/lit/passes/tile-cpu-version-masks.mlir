// RUN: tilec-opt %s --split-input-file -p 'tile-cpu-version-masks' | FileCheck %s

// A block of `offs < n` (a vector add): the test is the last offset's, max(pid * 64 + range) < n,
// in 64 bits and within i32; the then-branch loads and stores without masks, the else-branch is
// the original body.
// CHECK-LABEL: func.func @add
// CHECK: %[[MASK:.*]] = arith.cmpi slt, %[[OFFS:.*]], %{{.*}} : tensor<64xi32>
// CHECK: %[[BASE:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[C63:.*]] = arith.constant 63 : i64
// CHECK: %[[LAST:.*]] = arith.addi %[[BASE]], %[[C63]] : i64
// CHECK: %[[N:.*]] = arith.extsi %arg3 : i32 to i64
// CHECK: arith.cmpi slt, %[[LAST]], %[[N]] : i64
// CHECK: arith.cmpi sle, %[[LAST]], %{{.*}} : i64
// CHECK: scf.if %{{.*}} {
// CHECK: "tile.load"(%{{.*}}) {operandSegmentSizes = array<i32: 1, 0, 0, 0>}
// CHECK: "tile.load"(%{{.*}}) {operandSegmentSizes = array<i32: 1, 0, 0, 0>}
// CHECK: "tile.store"(%{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 0>}
// CHECK: } else {
// CHECK: "tile.load"(%{{.*}}, %[[MASK]], %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1, 0>}
// CHECK: "tile.load"(%{{.*}}, %[[MASK]]) {operandSegmentSizes = array<i32: 1, 1, 0, 0>}
// CHECK: "tile.store"(%{{.*}}, %{{.*}}, %[[MASK]]) {operandSegmentSizes = array<i32: 1, 1, 1>}
// CHECK: }
// CHECK-NEXT: return
module {
  func.func @add(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
    %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %c64 = arith.constant 64 : i32
    %start = arith.muli %pid, %c64 : i32
    %range = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
    %base = "tile.splat"(%start) : (i32) -> tensor<64xi32>
    %offs = arith.addi %base, %range : tensor<64xi32>
    %bound = "tile.splat"(%n) : (i32) -> tensor<64xi32>
    %mask = arith.cmpi slt, %offs, %bound : tensor<64xi32>
    %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
    %xp = "tile.addptr"(%xs, %offs) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
    %zero = arith.constant dense<0.0> : tensor<64xf32>
    %a = "tile.load"(%xp, %mask, %zero) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<64x!tile.ptr<f32>>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf32>
    %ys = "tile.splat"(%y) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
    %yp = "tile.addptr"(%ys, %offs) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
    %b = "tile.load"(%yp, %mask) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64x!tile.ptr<f32>>, tensor<64xi1>) -> tensor<64xf32>
    %os = "tile.splat"(%out) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
    %op = "tile.addptr"(%os, %offs) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
    %sum = arith.addf %a, %b : tensor<64xf32>
    "tile.store"(%op, %sum, %mask) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<64x!tile.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> ()
    return
  }
}

// -----

// A mask the bounds do not cover (`x > 0` of a loaded x is not even pure: its store keeps its mask
// in both branches); `offs != n` is tested by reducing the mask.
// CHECK-LABEL: func.func @other_masks
// CHECK: %[[MASK:.*]] = arith.cmpi ne
// CHECK: %[[WIDE:.*]] = arith.extui %[[MASK]] : tensor<64xi1> to tensor<64xi32>
// CHECK: "tile.reduce"(%[[WIDE]])
// CHECK: arith.minui
// CHECK: scf.if
// CHECK: "tile.load"(%{{.*}}) {operandSegmentSizes = array<i32: 1, 0, 0, 0>}
// CHECK: "tile.store"(%{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1>}
// CHECK: } else {
module {
  func.func @other_masks(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
    %range = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
    %bound = "tile.splat"(%n) : (i32) -> tensor<64xi32>
    %mask = arith.cmpi ne, %range, %bound : tensor<64xi32>
    %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
    %xp = "tile.addptr"(%xs, %range) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
    %a = "tile.load"(%xp, %mask) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64x!tile.ptr<f32>>, tensor<64xi1>) -> tensor<64xf32>
    %zero = arith.constant dense<0.0> : tensor<64xf32>
    %positive = arith.cmpf ogt, %a, %zero : tensor<64xf32>
    "tile.store"(%xp, %a, %positive) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<64x!tile.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> ()
    return
  }
}

// -----

// A kernel with a loop is left alone.
// CHECK-LABEL: func.func @with_loop
// CHECK-NOT: scf.if
// CHECK: scf.for
module {
  func.func @with_loop(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
    %range = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
    %bound = "tile.splat"(%n) : (i32) -> tensor<64xi32>
    %mask = arith.cmpi slt, %range, %bound : tensor<64xi32>
    %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
    %xp = "tile.addptr"(%xs, %range) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %a = "tile.load"(%xp, %mask) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64x!tile.ptr<f32>>, tensor<64xi1>) -> tensor<64xf32>
      "tile.store"(%xp, %a, %mask) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<64x!tile.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> ()
    }
    return
  }
}
