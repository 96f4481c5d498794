// RUN: tilec-opt %s --split-input-file -p convert-tile-to-linalg | FileCheck %s

// Pointers become i64 addresses; a masked load is a linalg.generic whose body loads under scf.if;
// boolean tensors travel as i8.
// CHECK-LABEL: func.func @load_store(%arg0: i64, %arg1: i32)
// The range is the loop index (so that, fused into its users, addresses are affine in it).
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<8xi32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: arith.index_cast %[[I]] : index to i32
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<8xi8>)
// CHECK: arith.cmpi slt
// CHECK: arith.extui %{{.*}} : i1 to i8
// CHECK: %[[C4:.*]] = arith.constant 4 : i64
// CHECK: arith.muli %{{.*}}, %[[C4]] : i64
// CHECK: scf.if %{{.*}} -> (f32)
// CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK-NOT: tile.
func.func @load_store(%p: !tile.ptr<f32>, %n: i32) {
  %r = "tile.make_range"() {end = 8 : i32, start = 0 : i32} : () -> tensor<8xi32>
  %ns = "tile.splat"(%n) : (i32) -> tensor<8xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<8xi32>
  %ps = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<8x!tile.ptr<f32>>
  %q = "tile.addptr"(%ps, %r) : (tensor<8x!tile.ptr<f32>>, tensor<8xi32>) -> tensor<8x!tile.ptr<f32>>
  %v = "tile.load"(%q, %m) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<8x!tile.ptr<f32>>, tensor<8xi1>) -> tensor<8xf32>
  %t = "tile.reshape"(%v) : (tensor<8xf32>) -> tensor<2x4xf32>
  %q2 = "tile.reshape"(%q) : (tensor<8x!tile.ptr<f32>>) -> tensor<2x4x!tile.ptr<f32>>
  "tile.store"(%q2, %t) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x4x!tile.ptr<f32>>, tensor<2x4xf32>) -> ()
  return
}

// -----

// A 1-D reduction is a loop carrying scalars, with the combiner cloned into it. A max is
// idempotent: it starts from element 0 and also combines it (16 steps, no scalar tail after a
// vector loop); a combiner of several operations starts from element 0 and runs from 1.
// CHECK-LABEL: func.func @reduce
// CHECK: %[[FIRST:.*]] = tensor.extract %arg0[%{{.*}}] : tensor<16xf32>
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c16 step %{{.*}} iter_args(%[[ACC:.*]] = %[[FIRST]]) -> (f32)
// CHECK: arith.maxnumf %[[ACC]], %{{.*}} : f32
// CHECK-NOT: tile.reduce
// CHECK-LABEL: func.func @reduce_two_ops
// CHECK: %[[FIRST:.*]] = tensor.extract %arg0[%{{.*}}] : tensor<16xf32>
// CHECK: scf.for %{{.*}} = %c1 to %c16 step %{{.*}} iter_args(%{{.*}} = %[[FIRST]]) -> (f32)
func.func @reduce(%x: tensor<16xf32>) -> f32 {
  %0 = "tile.reduce"(%x) ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.maxnumf %a, %b : f32
    gpu.yield %c : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16xf32>) -> f32
  return %0 : f32
}
func.func @reduce_two_ops(%x: tensor<16xf32>) -> f32 {
  %0 = "tile.reduce"(%x) ({
  ^bb0(%a: f32, %b: f32):
    %m = arith.maxnumf %a, %b : f32
    %c = arith.mulf %m, %m : f32
    gpu.yield %c : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16xf32>) -> f32
  return %0 : f32
}

// -----

// A sum's additions may be reassociated (a reduction's order is unspecified), so that LLVM can
// keep partial sums in vector lanes; a scan's may not. It starts from -0.0, which adds exactly
// (x + -0.0 is x, +0.0 and NaN included), and runs over all 16 elements.
// CHECK-LABEL: func.func @sum
// CHECK: %[[ZERO:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c16 step %{{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32)
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
func.func @sum(%x: tensor<16xf32>) -> f32 {
  %0 = "tile.reduce"(%x) ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    gpu.yield %c : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16xf32>) -> f32
  return %0 : f32
}

// -----

// Atomics become calls to helpers that tile-cpu-atomics defines after bufferization.
// CHECK: func.func private @__tilec_atomic_add_acq_rel_i32(i64, i32) -> i32 attributes {tile.atomic = {kind = "add", sem = "acq_rel"}}
// CHECK-LABEL: func.func @atomic
// CHECK: call @__tilec_atomic_add_acq_rel_i32(%arg0, %arg1) : (i64, i32) -> i32
func.func @atomic(%p: !tile.ptr<i32>, %v: i32) -> i32 {
  %0 = "tile.atomic_rmw"(%p, %v) {kind = "add", operandSegmentSizes = array<i32: 1, 1, 0>} : (!tile.ptr<i32>, i32) -> i32
  return %0 : i32
}

// -----

// A matrix product is linalg.matmul on operands widened to the accumulator type.
// CHECK-LABEL: func.func @dot
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x16xf32>, tensor<16x16xf32>) outs(%arg2 : tensor<16x16xf32>)
func.func @dot(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = "tile.dot"(%a, %b, %c) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

// tl.where between tensors of pointers selects i64 addresses.
// CHECK-LABEL: func.func @select_pointers(%arg0: i64, %arg1: i64, %arg2: tensor<8xi8>) -> tensor<8xi64>
// CHECK: linalg.generic {{.*}} ins(%arg2, %{{.*}}, %{{.*}} : tensor<8xi8>, tensor<8xi64>, tensor<8xi64>) outs(%{{.*}} : tensor<8xi64>)
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
func.func @select_pointers(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>, %c: tensor<8xi1>) -> tensor<8x!tile.ptr<f32>> {
  %ps = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<8x!tile.ptr<f32>>
  %qs = "tile.splat"(%q) : (!tile.ptr<f32>) -> tensor<8x!tile.ptr<f32>>
  %s = arith.select %c, %ps, %qs : tensor<8xi1>, tensor<8x!tile.ptr<f32>>
  return %s : tensor<8x!tile.ptr<f32>>
}

// -----

// Booleans travel as i8; the combiner sees i1 (a reduction of a 2-D boolean block, in place).
// CHECK-LABEL: func.func @reduce_bools(%arg0: tensor<4x8xi8>) -> tensor<8xi8>
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK: arith.trunci %{{.*}} : i8 to i1
// CHECK: arith.maxui %{{.*}}, %{{.*}} : i1
// CHECK: arith.extui %{{.*}} : i1 to i8
func.func @reduce_bools(%x: tensor<4x8xi1>) -> tensor<8xi1> {
  %0 = "tile.reduce"(%x) ({
  ^bb0(%a: i1, %b: i1):
    %c = arith.maxui %a, %b : i1
    gpu.yield %c : i1
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xi1>) -> tensor<8xi1>
  return %0 : tensor<8xi1>
}

// -----

// A range that starts past 0 adds its start to the loop index.
// CHECK-LABEL: func.func @range_from
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK: %[[S:.*]] = arith.constant 3 : i32
// CHECK: arith.addi %[[C]], %[[S]] : i32
func.func @range_from() -> tensor<4xi32> {
  %r = "tile.make_range"() {end = 7 : i32, start = 3 : i32} : () -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// A unit dimension inserted into a range is a generic reading the range without it (not a
// tensor.reshape, which elementwise fusion cannot see through); other values stay reshaped (their
// work would be repeated in every fused loop).
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @expand_dims
// CHECK: %[[RANGE:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[ROW]], #{{.*}}], {{.*}} ins(%[[RANGE]] : tensor<8xi32>) outs(%{{.*}} : tensor<1x8xi32>)
// CHECK: arith.remsi
// CHECK: tensor.reshape %{{.*}} : (tensor<8xi32>, tensor<2xindex>) -> tensor<8x1xi32>
func.func @expand_dims(%n: i32) -> (tensor<1x8xi32>, tensor<8x1xi32>) {
  %r = "tile.make_range"() {end = 8 : i32, start = 0 : i32} : () -> tensor<8xi32>
  %row = "tile.expand_dims"(%r) {axis = 0 : i32} : (tensor<8xi32>) -> tensor<1x8xi32>
  %ns = "tile.splat"(%n) : (i32) -> tensor<8xi32>
  %wrapped = arith.remsi %r, %ns : tensor<8xi32>
  %column = "tile.expand_dims"(%wrapped) {axis = 1 : i32} : (tensor<8xi32>) -> tensor<8x1xi32>
  return %row, %column : tensor<1x8xi32>, tensor<8x1xi32>
}

// -----

// Sums and products of ranges and splats (`pid * BLOCK + offs`) are as cheap to recompute as the
// range: expanded by a generic too, so the loads they address fuse them and see affine indices.
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @expand_dims_of_offsets
// CHECK: %[[OFFS:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8xi32>, tensor<8xi32>) outs(%{{.*}} : tensor<8xi32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addi
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #{{.*}}], {{.*}} ins(%[[OFFS]] : tensor<8xi32>) outs(%{{.*}} : tensor<8x1xi32>)
// CHECK-NOT: tensor.reshape
func.func @expand_dims_of_offsets(%pid: i32) -> tensor<8x1xi32> {
  %r = "tile.make_range"() {end = 8 : i32, start = 0 : i32} : () -> tensor<8xi32>
  %c8 = arith.constant 8 : i32
  %start = arith.muli %pid, %c8 : i32
  %s = "tile.splat"(%start) : (i32) -> tensor<8xi32>
  %offs = arith.addi %s, %r : tensor<8xi32>
  %column = "tile.expand_dims"(%offs) {axis = 1 : i32} : (tensor<8xi32>) -> tensor<8x1xi32>
  return %column : tensor<8x1xi32>
}

// -----

// tl.gather: a generic over the index's elements extracting from src at the index (clamped to 0
// where it is outside src, negative ones included by the unsigned compare), 0 there.
// CHECK-LABEL: func.func @gather
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<4x2xi32>) outs(%{{.*}} : tensor<4x2xf32>)
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c8_i32 : i32
// CHECK: %[[SAFE:.*]] = arith.select %[[IN]], %{{.*}}, %c0_i32 : i32
// CHECK: %[[AT:.*]] = arith.index_cast %[[SAFE]] : i32 to index
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[V:.*]] = tensor.extract %arg0[%[[ROW]], %[[AT]]] : tensor<4x8xf32>
// CHECK: arith.select %[[IN]], %[[V]], %cst : f32
func.func @gather(%x: tensor<4x8xf32>, %i: tensor<4x2xi32>) -> tensor<4x2xf32> {
  %0 = "tile.gather"(%x, %i) {axis = 1 : i32} : (tensor<4x8xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// tl.histogram: a generic over [bins, n] reducing along n into zeroed counters; values compared as
// i64 with the bin number (in i8, bin 257 would be 1).
// CHECK-LABEL: func.func @histogram
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%c0_i32 : i32) outs(%{{.*}} : tensor<512xi32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg1 : tensor<64xi8>, tensor<64xi8>) outs(%[[ZEROS]] : tensor<512xi32>)
// CHECK: %[[V:.*]] = arith.extsi %{{.*}} : i8 to i64
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[B64:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK: %[[HIT:.*]] = arith.cmpi eq, %[[V]], %[[B64]] : i64
// CHECK: arith.andi %[[HIT]], %{{.*}} : i1
func.func @histogram(%x: tensor<64xi8>, %m: tensor<64xi1>) -> tensor<512xi32> {
  %0 = "tile.histogram"(%x, %m) {num_bins = 512 : i32, operandSegmentSizes = array<i32: 1, 1>} : (tensor<64xi8>, tensor<64xi1>) -> tensor<512xi32>
  return %0 : tensor<512xi32>
}

// -----

// tl.sort: the bitonic network's steps in two loops (stages, then the bit each step pairs by), each
// step one generic where every element reads its partner (index xor 2^bit) and takes its value when
// the pair is out of order for the block's direction; floats compare with NaN after every number.
// CHECK-LABEL: func.func @sort
// CHECK: scf.for %[[STAGE:.*]] = %c1 to %c4 step
// CHECK: scf.for %{{.*}} = %c0 to %[[STAGE]] step %{{.*}} iter_args(%[[X:.*]] = %{{.*}}) -> (tensor<4x8xf32>)
// CHECK: %[[DIST:.*]] = arith.shli
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[P:.*]] = arith.xori %[[I]], %[[DIST]] : index
// CHECK: %[[MINE:.*]] = tensor.extract %[[X]][%{{.*}}, %[[I]]]
// CHECK: %[[THEIRS:.*]] = tensor.extract %[[X]][%{{.*}}, %[[P]]]
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf ogt
// CHECK: %[[SWAP:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i1
// CHECK: arith.select %[[SWAP]], %[[THEIRS]], %[[MINE]] : f32
func.func @sort(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = "tile.sort"(%x) {axis = 1 : i32, descending} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
