// RUN: tilec-opt %s --split-input-file -p 'tile-cpu-version-remainders' | FileCheck %s

// Triton's matmul rows: `(pid * 16 + arange(0, 16)) % M` addresses the loads in a K loop. The
// scalars the bounds need come first, then the test (0 <= pid * 16 and pid * 16 + 15 < M, in 64
// bits); the then-branch is the body with the remainder replaced by its operand (no arith.remsi,
// the loop copied with it), the else-branch the body as it was.
// CHECK-LABEL: func.func @rows
// CHECK: %[[PID:.*]] = "tile.program_id"
// CHECK: %[[START:.*]] = arith.muli %[[PID]], %{{.*}} : i32
// CHECK-NOT: tile.make_range
// CHECK: %[[M:.*]] = arith.extsi %arg2 : i32 to i64
// CHECK: %[[LOW:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : i64
// CHECK: %[[HIGH:.*]] = arith.cmpi slt, %{{.*}}, %[[M]] : i64
// CHECK: %[[OK:.*]] = arith.andi %[[LOW]], %[[HIGH]] : i1
// CHECK: scf.if %[[OK]] {
// CHECK-NOT: arith.remsi
// CHECK: scf.for
// CHECK: } else {
// CHECK: arith.remsi %{{.*}}, %{{.*}} : tensor<16xi32>
// CHECK: scf.for
module {
  func.func @rows(%a: !tile.ptr<f32>, %out: !tile.ptr<f32>, %m: i32, %k: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %start = arith.muli %pid, %c16 : i32
    %starts = "tile.splat"(%start) : (i32) -> tensor<16xi32>
    %range = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %offs = arith.addi %starts, %range : tensor<16xi32>
    %ms = "tile.splat"(%m) : (i32) -> tensor<16xi32>
    %rows = arith.remsi %offs, %ms : tensor<16xi32>
    %as = "tile.splat"(%a) : (!tile.ptr<f32>) -> tensor<16x!tile.ptr<f32>>
    %ptrs = "tile.addptr"(%as, %rows) : (tensor<16x!tile.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<f32>>
    %zero = arith.constant dense<0.0> : tensor<16xf32>
    %sum = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero) -> (tensor<16xf32>) : i32 {
      %x = "tile.load"(%ptrs) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x!tile.ptr<f32>>) -> tensor<16xf32>
      %next = arith.addf %acc, %x : tensor<16xf32>
      scf.yield %next : tensor<16xf32>
    }
    %outs = "tile.splat"(%out) : (!tile.ptr<f32>) -> tensor<16x!tile.ptr<f32>>
    %dst = "tile.addptr"(%outs, %range) : (tensor<16x!tile.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<f32>>
    "tile.store"(%dst, %sum) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tile.ptr<f32>>, tensor<16xf32>) -> ()
    return
  }
}

// -----

// A loop-free kernel is left to tile-cpu-version-masks; a remainder by a value that is not a splat
// of a scalar, or one that feeds no address, is left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.if
// CHECK: arith.remsi
// CHECK-LABEL: func.func @not_an_address
// CHECK-NOT: scf.if
// CHECK: return
module {
  func.func @left_alone(%a: !tile.ptr<f32>, %m: i32) attributes {tile.kernel} {
    %range = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %ms = "tile.splat"(%m) : (i32) -> tensor<16xi32>
    %rows = arith.remsi %range, %ms : tensor<16xi32>
    %as = "tile.splat"(%a) : (!tile.ptr<f32>) -> tensor<16x!tile.ptr<f32>>
    %ptrs = "tile.addptr"(%as, %rows) : (tensor<16x!tile.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<f32>>
    %x = "tile.load"(%ptrs) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x!tile.ptr<f32>>) -> tensor<16xf32>
    "tile.store"(%ptrs, %x) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tile.ptr<f32>>, tensor<16xf32>) -> ()
    return
  }
  func.func @not_an_address(%out: !tile.ptr<i32>, %m: i32, %k: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %range = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %ms = "tile.splat"(%m) : (i32) -> tensor<16xi32>
    %values = arith.remsi %range, %ms : tensor<16xi32>
    %sum = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %values) -> (tensor<16xi32>) : i32 {
      %next = arith.addi %acc, %values : tensor<16xi32>
      scf.yield %next : tensor<16xi32>
    }
    %outs = "tile.splat"(%out) : (!tile.ptr<i32>) -> tensor<16x!tile.ptr<i32>>
    %dst = "tile.addptr"(%outs, %range) : (tensor<16x!tile.ptr<i32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<i32>>
    "tile.store"(%dst, %sum) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tile.ptr<i32>>, tensor<16xi32>) -> ()
    return
  }
}
