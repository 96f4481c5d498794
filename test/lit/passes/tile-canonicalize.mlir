// RUN: tilec-opt %s --split-input-file -p tile-canonicalize | FileCheck %s

// A broadcast of a splat is a splat of the broadcast shape.
// CHECK-LABEL: func.func @broadcast_of_splat
// CHECK-NEXT: %[[S:.*]] = "tile.splat"(%arg0) : (f32) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[S]]
func.func @broadcast_of_splat(%x: f32) -> tensor<4x8xf32> {
  %0 = "tile.splat"(%x) : (f32) -> tensor<1x8xf32>
  %1 = "tile.broadcast"(%0) : (tensor<1x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// expand_dims, reshape and trans of a splat fold the same way.
// CHECK-LABEL: func.func @shape_ops_of_splat
// CHECK-NEXT: "tile.splat"(%arg0) : (i32) -> tensor<1x64xi32>
// CHECK-NEXT: "tile.splat"(%arg0) : (i32) -> tensor<8x8xi32>
// CHECK-NEXT: "tile.splat"(%arg0) : (i32) -> tensor<8x4xi32>
// CHECK-NOT: tile.expand_dims
func.func @shape_ops_of_splat(%x: i32) -> (tensor<1x64xi32>, tensor<8x8xi32>, tensor<8x4xi32>) {
  %0 = "tile.splat"(%x) : (i32) -> tensor<64xi32>
  %1 = "tile.expand_dims"(%0) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  %2 = "tile.reshape"(%0) : (tensor<64xi32>) -> tensor<8x8xi32>
  %3 = "tile.splat"(%x) : (i32) -> tensor<4x8xi32>
  %4 = "tile.trans"(%3) {order = array<i32: 1, 0>} : (tensor<4x8xi32>) -> tensor<8x4xi32>
  return %1, %2, %4 : tensor<1x64xi32>, tensor<8x8xi32>, tensor<8x4xi32>
}

// -----

// Adding a zero offset is the pointer itself.
// CHECK-LABEL: func.func @addptr_zero
// CHECK-NOT: tile.addptr
// CHECK: return %arg0
func.func @addptr_zero(%p: tensor<128x!tile.ptr<f32>>) -> tensor<128x!tile.ptr<f32>> {
  %c0 = arith.constant 0 : i32
  %z = "tile.splat"(%c0) : (i32) -> tensor<128xi32>
  %q = "tile.addptr"(%p, %z) : (tensor<128x!tile.ptr<f32>>, tensor<128xi32>) -> tensor<128x!tile.ptr<f32>>
  return %q : tensor<128x!tile.ptr<f32>>
}

// -----

// A non-zero offset stays.
// CHECK-LABEL: func.func @addptr_nonzero
// CHECK: "tile.addptr"
func.func @addptr_nonzero(%p: !tile.ptr<f32>) -> !tile.ptr<f32> {
  %c4 = arith.constant 4 : i32
  %q = "tile.addptr"(%p, %c4) : (!tile.ptr<f32>, i32) -> !tile.ptr<f32>
  return %q : !tile.ptr<f32>
}

// -----

// Loads and stores whose mask is all true lose the mask (and `other`).
// CHECK-LABEL: func.func @true_masks
// CHECK: %[[V:.*]] = "tile.load"(%arg0) {operandSegmentSizes = array<i32: 1, 0, 0, 0>}
// CHECK: "tile.store"(%arg0, %[[V]]) {operandSegmentSizes = array<i32: 1, 1, 0>}
func.func @true_masks(%p: tensor<128x!tile.ptr<f32>>, %o: tensor<128xf32>) {
  %true = arith.constant dense<true> : tensor<128xi1>
  %v = "tile.load"(%p, %true, %o) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<128x!tile.ptr<f32>>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>
  %t = arith.constant true
  %m = "tile.splat"(%t) : (i1) -> tensor<128xi1>
  "tile.store"(%p, %v, %m) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>) -> ()
  return
}

// -----

// A mask that is not constant stays.
// CHECK-LABEL: func.func @dynamic_mask
// CHECK: "tile.load"(%arg0, %arg1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>}
func.func @dynamic_mask(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>) -> tensor<128xf32> {
  %v = "tile.load"(%p, %m) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<128x!tile.ptr<f32>>, tensor<128xi1>) -> tensor<128xf32>
  return %v : tensor<128xf32>
}

// -----

// A splat of a constant is a dense constant.
// CHECK-LABEL: func.func @splat_of_constant
// CHECK: %[[C:.*]] = arith.constant dense<1.500000e+00> : tensor<16xf32>
// CHECK-NEXT: return %[[C]]
func.func @splat_of_constant() -> tensor<16xf32> {
  %c = arith.constant 1.5 : f32
  %0 = "tile.splat"(%c) : (f32) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// Identical pure tile ops merge; unused ones disappear; unused loads disappear, stores stay.
// CHECK-LABEL: func.func @cse_dce
// CHECK-COUNT-1: "tile.make_range"
// CHECK-NOT: "tile.make_range"
// CHECK-NOT: "tile.load"
// CHECK: "tile.store"
func.func @cse_dce(%p: tensor<64x!tile.ptr<i32>>) {
  %a = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %b = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %unused = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64x!tile.ptr<i32>>) -> tensor<64xi32>
  %s = arith.addi %a, %b : tensor<64xi32>
  "tile.store"(%p, %s) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x!tile.ptr<i32>>, tensor<64xi32>) -> ()
  return
}

// -----

// x + dot(a, b, 0) accumulates into the dot (attention's acc * alpha + dot(p, v)).
// CHECK-LABEL: func.func @add_into_dot
// CHECK: %[[X:.*]] = arith.mulf
// CHECK-NEXT: %[[D:.*]] = "tile.dot"(%{{.*}}, %{{.*}}, %[[X]])
// CHECK-NOT: arith.addf
// CHECK: "tile.store"(%{{.*}}, %[[D]])
func.func @add_into_dot(%p: !tile.ptr<f32>, %a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<16x16xf32>, %s: tensor<16x16xf32>) {
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %x = arith.mulf %acc, %s : tensor<16x16xf32>
  %d = "tile.dot"(%a, %b, %zero) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = arith.addf %x, %d : tensor<16x16xf32>
  %ps = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<16x16x!tile.ptr<f32>>
  "tile.store"(%ps, %y) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x16x!tile.ptr<f32>>, tensor<16x16xf32>) -> ()
  return
}
