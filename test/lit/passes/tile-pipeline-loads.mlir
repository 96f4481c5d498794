// RUN: tilec-opt %s --split-input-file -p tile-pipeline-loads | FileCheck %s
// RUN: tilec-opt %s --split-input-file -p 'tile-pipeline-loads{depth=2}' | FileCheck %s --check-prefix=DEPTH2

// A load through a loop-carried pointer: the first iteration's load moves before the loop, each
// iteration loads the next one's values (masked off past the end) before using the prefetched ones.
// CHECK-LABEL: func.func @sum_rows
// CHECK: %[[FIRST_OK:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK: %[[FIRST_MASK:.*]] = "tile.splat"(%[[FIRST_OK]]) : (i1) -> tensor<64xi1>
// CHECK: %[[FIRST:.*]] = "tile.load"(%{{.*}}, %[[FIRST_MASK]])
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}, %[[CUR:.*]] = %[[FIRST]])
// CHECK: %[[NEXT_K:.*]] = arith.addi %[[K]], %{{.*}} : i32
// CHECK: %[[NEXT_P:.*]] = "tile.addptr"(%[[P]], %{{.*}})
// CHECK: %[[OK:.*]] = arith.cmpi slt, %[[NEXT_K]], %{{.*}} : i32
// CHECK: %[[NEXT_MASK:.*]] = "tile.splat"(%[[OK]])
// CHECK: %[[NEXT:.*]] = "tile.load"(%[[NEXT_P]], %[[NEXT_MASK]])
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[CUR]]
// CHECK: scf.yield %[[SUM]], %{{.*}}, %[[NEXT]]
// Two iterations ahead: two prologue loads, two tiles carried, the oldest used and the newer moved up.
// DEPTH2-LABEL: func.func @sum_rows
// DEPTH2: %[[L0:.*]] = "tile.load"
// DEPTH2: %[[L1:.*]] = "tile.load"
// DEPTH2: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %[[CUR:.*]] = %[[L0]], %[[NEXT:.*]] = %[[L1]])
// DEPTH2: %[[LATER:.*]] = "tile.load"
// DEPTH2: %[[SUM:.*]] = arith.addf %[[ACC]], %[[CUR]]
// DEPTH2: scf.yield %[[SUM]], %{{.*}}, %[[NEXT]], %[[LATER]]
func.func @sum_rows(%x: !tile.ptr<f32>, %n: i32) -> tensor<64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant dense<64> : tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %r = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
  %p0 = "tile.addptr"(%xs, %r) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
  %res:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero, %p = %p0) -> (tensor<64xf32>, tensor<64x!tile.ptr<f32>>) : i32 {
    %v = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x!tile.ptr<f32>>) -> tensor<64xf32>
    %s = arith.addf %acc, %v : tensor<64xf32>
    %p2 = "tile.addptr"(%p, %c64) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
    scf.yield %s, %p2 : tensor<64xf32>, tensor<64x!tile.ptr<f32>>
  }
  return %res#0 : tensor<64xf32>
}

// -----

// A loop that stores is left alone: a prefetched read must not pass a write.
// CHECK-LABEL: func.func @copy_rows
// CHECK: scf.for
// CHECK: "tile.load"
// CHECK: "tile.store"
func.func @copy_rows(%x: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
  %p = "tile.addptr"(%xs, %r) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
  scf.for %k = %c0 to %n step %c1 : i32 {
    %v = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x!tile.ptr<f32>>) -> tensor<64xf32>
    "tile.store"(%p, %v) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x!tile.ptr<f32>>, tensor<64xf32>) -> ()
  }
  return
}
