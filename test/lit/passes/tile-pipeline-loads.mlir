// RUN: tilec-opt %s --split-input-file -p tile-pipeline-loads | FileCheck %s
// RUN: tilec-opt %s --split-input-file -p 'tile-pipeline-loads{depth=2}' | FileCheck %s --check-prefix=DEPTH2
// RUN: tilec-opt %s --split-input-file -p 'tile-pipeline-loads{wgmma-depth=3 num-warps=4}' | FileCheck %s --check-prefix=WGMMA

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
    %v = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64x!tile.ptr<f32>>) -> tensor<64xf32>
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
    %v = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64x!tile.ptr<f32>>) -> tensor<64xf32>
    "tile.store"(%p, %v) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x!tile.ptr<f32>>, tensor<64xf32>) -> ()
  }
  return
}

// -----

// wgmma-depth: the operands of a warpgroup-MMA dot that accumulates across the loop go three
// iterations ahead (A masked with a zero `other`, B unmasked); a load that feeds no dot stays one
// ahead.
// WGMMA-LABEL: func.func @matmul
// WGMMA-COUNT-7: "tile.load"
// WGMMA: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[A0:[^ ]*]] = %{{.*}}, %[[A1:[^ ]*]] = %{{.*}}, %[[A2:[^ ]*]] = %{{.*}}, %[[B0:[^ ]*]] = %{{.*}}, %[[B1:[^ ]*]] = %{{.*}}, %[[B2:[^ ]*]] = %{{.*}}, %[[S0:[^ ]*]] = %{{.*}})
// WGMMA: %[[A3:.*]] = "tile.load"
// WGMMA: %[[B3:.*]] = "tile.load"
// WGMMA: %[[S1:.*]] = "tile.load"
// WGMMA: "tile.dot"(%[[A0]], %[[B0]], %{{.*}})
// WGMMA: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[A1]], %[[A2]], %[[A3]], %[[B1]], %[[B2]], %[[B3]], %[[S1]] :
func.func @matmul(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %s: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) -> (tensor<64x64xf32>, tensor<64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %r64 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %r32 = "tile.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32>
  %rows = "tile.expand_dims"(%r64) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
  %kcol = "tile.expand_dims"(%r32) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
  %krow = "tile.expand_dims"(%r32) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
  %cols = "tile.expand_dims"(%r64) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  %c64x1 = arith.constant dense<64> : tensor<64x1xi32>
  %c32x1 = arith.constant dense<64> : tensor<32x1xi32>
  %ra = arith.muli %rows, %c64x1 : tensor<64x1xi32>
  %rb = arith.muli %krow, %c32x1 : tensor<32x1xi32>
  %ra2 = "tile.broadcast"(%ra) : (tensor<64x1xi32>) -> tensor<64x32xi32>
  %ka2 = "tile.broadcast"(%kcol) : (tensor<1x32xi32>) -> tensor<64x32xi32>
  %oa = arith.addi %ra2, %ka2 : tensor<64x32xi32>
  %rb2 = "tile.broadcast"(%rb) : (tensor<32x1xi32>) -> tensor<32x64xi32>
  %nb2 = "tile.broadcast"(%cols) : (tensor<1x64xi32>) -> tensor<32x64xi32>
  %ob = arith.addi %rb2, %nb2 : tensor<32x64xi32>
  %as = "tile.splat"(%a) : (!tile.ptr<f16>) -> tensor<64x32x!tile.ptr<f16>>
  %pa0 = "tile.addptr"(%as, %oa) : (tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>) -> tensor<64x32x!tile.ptr<f16>>
  %bs = "tile.splat"(%b) : (!tile.ptr<f16>) -> tensor<32x64x!tile.ptr<f16>>
  %pb0 = "tile.addptr"(%bs, %ob) : (tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>) -> tensor<32x64x!tile.ptr<f16>>
  %ss = "tile.splat"(%s) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
  %ps0 = "tile.addptr"(%ss, %r64) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %zs = arith.constant dense<0.0> : tensor<64xf32>
  %res:5 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %sum = %zs, %pa = %pa0, %pb = %pb0, %ps = %ps0) -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>, tensor<64x!tile.ptr<f32>>) : i32 {
    %left = arith.subi %K, %k : i32
    %lefts = "tile.splat"(%left) : (i32) -> tensor<1x32xi32>
    %in = arith.cmpi slt, %kcol, %lefts : tensor<1x32xi32>
    %mask = "tile.broadcast"(%in) : (tensor<1x32xi1>) -> tensor<64x32xi1>
    %z = arith.constant dense<0.0> : tensor<64x32xf16>
    %x = "tile.load"(%pa, %mask, %z) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi1>, tensor<64x32xf16>) -> tensor<64x32xf16>
    %y = "tile.load"(%pb) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<32x64x!tile.ptr<f16>>) -> tensor<32x64xf16>
    %ones = arith.constant dense<1.0> : tensor<64xf32>
    %smask = arith.constant dense<true> : tensor<64xi1>
    %v = "tile.load"(%ps, %smask, %ones) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<64x!tile.ptr<f32>>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf32>
    %d = "tile.dot"(%x, %y, %acc) {input_precision = "ieee"} : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %sum2 = arith.addf %sum, %v : tensor<64xf32>
    %sa = arith.constant dense<32> : tensor<64x32xi32>
    %pa2 = "tile.addptr"(%pa, %sa) : (tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>) -> tensor<64x32x!tile.ptr<f16>>
    %sb = arith.constant dense<2048> : tensor<32x64xi32>
    %pb2 = "tile.addptr"(%pb, %sb) : (tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>) -> tensor<32x64x!tile.ptr<f16>>
    %s64 = arith.constant dense<64> : tensor<64xi32>
    %ps2 = "tile.addptr"(%ps, %s64) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
    scf.yield %d, %sum2, %pa2, %pb2, %ps2 : tensor<64x64xf32>, tensor<64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>, tensor<64x!tile.ptr<f32>>
  }
  return %res#0, %res#1 : tensor<64x64xf32>, tensor<64xf32>
}
