// RUN: tilec-opt %s --split-input-file -p 'tile-cpu-version-looped-masks' | FileCheck %s

// A K loop's load under `offs_k < K - k * 32` feeding a dot: the test is the bound's (the last
// offset, 31, below K - k * 32, in 64 bits and within i32), taken every iteration; the then-branch
// loads without the mask, the else-branch is the masked load. The store of the loop's result after
// it is versioned on its own mask the same way. A load whose tile feeds elementwise code keeps its
// mask (a branch would cost it its fusion with that code).
// CHECK-LABEL: func.func @k_loop
// CHECK: scf.for
// CHECK: %[[MASK:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<16x32xi32>
// CHECK: %[[C31:.*]] = arith.constant 31 : i64
// CHECK: arith.cmpi slt, %[[C31]], %{{.*}} : i64
// CHECK: %[[X:.*]] = scf.if %{{.*}} -> (tensor<16x32xf32>) {
// CHECK-NEXT: %[[U:.*]] = "tile.load"(%{{.*}}) {operandSegmentSizes = array<i32: 1, 0, 0, 0>}
// CHECK-NEXT: scf.yield %[[U]] : tensor<16x32xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[M:.*]] = "tile.load"(%{{.*}}, %[[MASK]], %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1, 0>}
// CHECK-NEXT: scf.yield %[[M]] : tensor<16x32xf32>
// CHECK: "tile.dot"(%[[X]]
// CHECK-NOT: scf.if
// CHECK: "tile.load"(%{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1, 0>}
// CHECK-NEXT: arith.addf
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
    %row = "tile.expand_dims"(%range) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
    %cols = "tile.broadcast"(%row) : (tensor<1x32xi32>) -> tensor<16x32xi32>
    %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<16x32x!tile.ptr<f32>>
    %zero = arith.constant dense<0.0> : tensor<16x32xf32>
    %b = arith.constant dense<1.0> : tensor<32x16xf32>
    %acc0 = arith.constant dense<0.0> : tensor<16x16xf32>
    %steps = arith.ceildivsi %k, %c32 : i32
    %sum:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%acc = %acc0, %e = %zero) -> (tensor<16x16xf32>, tensor<16x32xf32>) : i32 {
      %start = arith.muli %i, %c32 : i32
      %left = arith.subi %k, %start : i32
      %bound = "tile.splat"(%left) : (i32) -> tensor<16x32xi32>
      %mask = arith.cmpi slt, %cols, %bound : tensor<16x32xi32>
      %base = "tile.splat"(%start) : (i32) -> tensor<16x32xi32>
      %offs = arith.addi %base, %cols : tensor<16x32xi32>
      %p = "tile.addptr"(%xs, %offs) : (tensor<16x32x!tile.ptr<f32>>, tensor<16x32xi32>) -> tensor<16x32x!tile.ptr<f32>>
      %v = "tile.load"(%p, %mask, %zero) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<16x32x!tile.ptr<f32>>, tensor<16x32xi1>, tensor<16x32xf32>) -> tensor<16x32xf32>
      %next = "tile.dot"(%v, %b, %acc) {input_precision = "ieee"} : (tensor<16x32xf32>, tensor<32x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
      %w = "tile.load"(%p, %mask, %zero) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<16x32x!tile.ptr<f32>>, tensor<16x32xi1>, tensor<16x32xf32>) -> tensor<16x32xf32>
      %e2 = arith.addf %e, %w : tensor<16x32xf32>
      scf.yield %next, %e2 : tensor<16x16xf32>, tensor<16x32xf32>
    }
    %r16 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %r2 = "tile.expand_dims"(%r16) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
    %oc = "tile.broadcast"(%r2) : (tensor<1x16xi32>) -> tensor<16x16xi32>
    %outs = "tile.splat"(%out) : (!tile.ptr<f32>) -> tensor<16x16x!tile.ptr<f32>>
    %q = "tile.addptr"(%outs, %oc) : (tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f32>>
    %nb = "tile.splat"(%n) : (i32) -> tensor<16x16xi32>
    %keep = arith.cmpi slt, %oc, %nb : tensor<16x16xi32>
    "tile.store"(%q, %sum#0, %keep) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x16x!tile.ptr<f32>>, tensor<16x16xf32>, tensor<16x16xi1>) -> ()
    return
  }
}

// -----

// A mask its bounds do not give (computed from loaded values) on the store of a loop's result:
// the test reduces the mask. Stores of a loaded tile or of elementwise code's value, a volatile
// load and a loop-free kernel (tile-cpu-version-masks' to version) keep their masks.
// CHECK-LABEL: func.func @reduced
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: "tile.store"(%{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1>}
// CHECK: arith.negf
// CHECK-NEXT: "tile.store"(%{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1>}
// CHECK: "tile.load"(%{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, volatile}
// CHECK: %[[MASK:.*]] = arith.cmpf ogt
// CHECK: arith.extui %[[MASK]]
// CHECK: "tile.reduce"
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: "tile.store"(%{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 0>}
// CHECK-NEXT: } else {
// CHECK-NEXT: "tile.store"(%{{.*}}, %{{.*}}, %[[MASK]])
// CHECK-LABEL: func.func @loop_free
// CHECK-NOT: scf.if
module {
  func.func @reduced(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %range = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<16x!tile.ptr<f32>>
    %p = "tile.addptr"(%xs, %range) : (tensor<16x!tile.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<f32>>
    %ys = "tile.splat"(%y) : (!tile.ptr<f32>) -> tensor<16x!tile.ptr<f32>>
    %q = "tile.addptr"(%ys, %range) : (tensor<16x!tile.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<f32>>
    %zero = arith.constant dense<0.0> : tensor<16xf32>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%s = %zero) -> (tensor<16xf32>) : i32 {
      %v = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x!tile.ptr<f32>>) -> tensor<16xf32>
      %mask = arith.cmpf ogt, %v, %zero : tensor<16xf32>
      "tile.store"(%q, %v, %mask) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x!tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> ()
      %neg = arith.negf %v : tensor<16xf32>
      "tile.store"(%p, %neg, %mask) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x!tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> ()
      %w = "tile.load"(%p, %mask) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, volatile} : (tensor<16x!tile.ptr<f32>>, tensor<16xi1>) -> tensor<16xf32>
      %s2 = arith.addf %s, %w : tensor<16xf32>
      scf.yield %s2 : tensor<16xf32>
    }
    %flags = "tile.load"(%q) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x!tile.ptr<f32>>) -> tensor<16xf32>
    %keep = arith.cmpf ogt, %flags, %zero : tensor<16xf32>
    "tile.store"(%p, %sum, %keep) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x!tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> ()
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

// -----

// Block-pointer masks compare 64-bit positions: `sext(offset) + sext(range) < sext(M)` (the
// offsets widened before they meet a row stride). The test is still the bounds' (no reduction of
// the 2-D mask): the last position, in 64 bits, below M, and the widened i32 range within i32.
// CHECK-LABEL: func.func @wide_positions
// CHECK: scf.for
// CHECK-NOT: tile.reduce
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK: scf.if %{{.*}} -> (tensor<32x16xf32>) {
// CHECK-NEXT: "tile.load"(%{{.*}}) {operandSegmentSizes = array<i32: 1, 0, 0, 0>}
module {
  func.func @wide_positions(%x: !tile.ptr<f32>, %m: i32, %n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %range = "tile.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32>
    %col = "tile.expand_dims"(%range) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
    %wide = arith.extsi %col : tensor<32x1xi32> to tensor<32x1xi64>
    %rows = "tile.broadcast"(%wide) : (tensor<32x1xi64>) -> tensor<32x16xi64>
    %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<32x16x!tile.ptr<f32>>
    %zero = arith.constant dense<0.0> : tensor<32x16xf32>
    %b = arith.constant dense<1.0> : tensor<16x16xf32>
    %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
    %m64 = arith.extsi %m : i32 to i64
    %bound = "tile.splat"(%m64) : (i64) -> tensor<32x16xi64>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<32x16xf32>) : i32 {
      %start = arith.muli %i, %c32 : i32
      %start64 = arith.extsi %start : i32 to i64
      %base = "tile.splat"(%start64) : (i64) -> tensor<32x16xi64>
      %pos = arith.addi %base, %rows : tensor<32x16xi64>
      %mask = arith.cmpi slt, %pos, %bound : tensor<32x16xi64>
      %p = "tile.addptr"(%xs, %pos) : (tensor<32x16x!tile.ptr<f32>>, tensor<32x16xi64>) -> tensor<32x16x!tile.ptr<f32>>
      %v = "tile.load"(%p, %mask, %zero) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<32x16x!tile.ptr<f32>>, tensor<32x16xi1>, tensor<32x16xf32>) -> tensor<32x16xf32>
      %next = "tile.dot"(%v, %b, %acc) {input_precision = "ieee"} : (tensor<32x16xf32>, tensor<16x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
      scf.yield %next : tensor<32x16xf32>
    }
    return
  }
}
