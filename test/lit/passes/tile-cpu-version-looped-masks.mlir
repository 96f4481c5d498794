// RUN: tilec-opt %s --split-input-file -p 'tile-cpu-version-looped-masks' | FileCheck %s

// A K loop's load under `offs_k < K - k * 32`: the test is the bound's (the last offset, 31,
// below K - k * 32, in 64 bits and within i32), taken every iteration; the then-branch loads
// without the mask, the else-branch is the masked load; the store after the loop is versioned
// on its own mask the same way.
// CHECK-LABEL: func.func @k_loop
// CHECK: scf.for
// CHECK: %[[MASK:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<32xi32>
// CHECK: %[[C31:.*]] = arith.constant 31 : i64
// CHECK: arith.cmpi slt, %[[C31]], %{{.*}} : i64
// CHECK: %[[X:.*]] = scf.if %{{.*}} -> (tensor<32xf32>) {
// CHECK-NEXT: %[[U:.*]] = "tile.load"(%{{.*}}) {operandSegmentSizes = array<i32: 1, 0, 0, 0>}
// CHECK-NEXT: scf.yield %[[U]] : tensor<32xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[M:.*]] = "tile.load"(%{{.*}}, %[[MASK]], %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1, 0>}
// CHECK-NEXT: scf.yield %[[M]] : tensor<32xf32>
// CHECK: arith.addf %{{.*}}, %[[X]]
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: "tile.store"(%{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 0>}
// CHECK-NEXT: } else {
// CHECK-NEXT: "tile.store"(%{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1>}
module {
  func.func @k_loop(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %k: i32, %n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %range = "tile.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32>
    %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<32x!tile.ptr<f32>>
    %zero = arith.constant dense<0.0> : tensor<32xf32>
    %steps = arith.ceildivsi %k, %c32 : i32
    %sum = scf.for %i = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (tensor<32xf32>) : i32 {
      %start = arith.muli %i, %c32 : i32
      %left = arith.subi %k, %start : i32
      %bound = "tile.splat"(%left) : (i32) -> tensor<32xi32>
      %mask = arith.cmpi slt, %range, %bound : tensor<32xi32>
      %base = "tile.splat"(%start) : (i32) -> tensor<32xi32>
      %offs = arith.addi %base, %range : tensor<32xi32>
      %p = "tile.addptr"(%xs, %offs) : (tensor<32x!tile.ptr<f32>>, tensor<32xi32>) -> tensor<32x!tile.ptr<f32>>
      %v = "tile.load"(%p, %mask, %zero) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<32x!tile.ptr<f32>>, tensor<32xi1>, tensor<32xf32>) -> tensor<32xf32>
      %next = arith.addf %acc, %v : tensor<32xf32>
      scf.yield %next : tensor<32xf32>
    }
    %outs = "tile.splat"(%out) : (!tile.ptr<f32>) -> tensor<32x!tile.ptr<f32>>
    %q = "tile.addptr"(%outs, %range) : (tensor<32x!tile.ptr<f32>>, tensor<32xi32>) -> tensor<32x!tile.ptr<f32>>
    %nb = "tile.splat"(%n) : (i32) -> tensor<32xi32>
    %keep = arith.cmpi slt, %range, %nb : tensor<32xi32>
    "tile.store"(%q, %sum, %keep) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<32x!tile.ptr<f32>>, tensor<32xf32>, tensor<32xi1>) -> ()
    return
  }
}

// -----

// A mask its bounds do not give (computed from loaded values): the test reduces the mask. A
// volatile load keeps its mask unversioned. A loop-free kernel is tile-cpu-version-masks' to
// version, not this pass's.
// CHECK-LABEL: func.func @reduced
// CHECK: scf.for
// CHECK: %[[MASK:.*]] = arith.cmpf ogt
// CHECK: arith.extui %[[MASK]]
// CHECK: "tile.reduce"
// CHECK: scf.if %{{.*}} {
// CHECK: "tile.store"(%{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 0>}
// CHECK: } else {
// CHECK: "tile.store"(%{{.*}}, %{{.*}}, %[[MASK]])
// CHECK-NOT: scf.if
// CHECK: "tile.load"(%{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, volatile}
// CHECK-LABEL: func.func @loop_free
// CHECK-NOT: scf.if
module {
  func.func @reduced(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %range = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<16x!tile.ptr<f32>>
    %p = "tile.addptr"(%xs, %range) : (tensor<16x!tile.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<f32>>
    %zero = arith.constant dense<0.0> : tensor<16xf32>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %v = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x!tile.ptr<f32>>) -> tensor<16xf32>
      %mask = arith.cmpf ogt, %v, %zero : tensor<16xf32>
      "tile.store"(%p, %zero, %mask) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x!tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> ()
      %w = "tile.load"(%p, %mask) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, volatile} : (tensor<16x!tile.ptr<f32>>, tensor<16xi1>) -> tensor<16xf32>
      scf.yield
    }
    return
  }
  func.func @loop_free(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
    %range = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<16x!tile.ptr<f32>>
    %p = "tile.addptr"(%xs, %range) : (tensor<16x!tile.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<f32>>
    %nb = "tile.splat"(%n) : (i32) -> tensor<16xi32>
    %mask = arith.cmpi slt, %range, %nb : tensor<16xi32>
    %v = "tile.load"(%p, %mask) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<16x!tile.ptr<f32>>, tensor<16xi1>) -> tensor<16xf32>
    "tile.store"(%p, %v, %mask) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x!tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> ()
    return
  }
}
