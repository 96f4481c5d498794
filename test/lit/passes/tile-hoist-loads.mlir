// RUN: tilec-opt %s --split-input-file -p tile-hoist-loads | FileCheck %s

// The weight load (and the pointer arithmetic feeding it) moves above the reduction.
// CHECK-LABEL: func.func @hoist
// CHECK: "tile.load"(%{{.*}}) {{.*}} -> tensor<64xf32>
// CHECK: "tile.addptr"(%{{.*}}, %{{.*}})
// CHECK: "tile.load"
// CHECK: "tile.reduce"
func.func @hoist(%x: !tile.ptr<f32>, %w: !tile.ptr<f32>) -> f32 {
  %r = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
  %xp = "tile.addptr"(%xs, %r) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
  %v = "tile.load"(%xp) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64x!tile.ptr<f32>>) -> tensor<64xf32>
  %s = "tile.reduce"(%v) ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    gpu.yield %c : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64xf32>) -> f32
  %ws = "tile.splat"(%w) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
  %wp = "tile.addptr"(%ws, %r) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
  %wv = "tile.load"(%wp) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64x!tile.ptr<f32>>) -> tensor<64xf32>
  %t = "tile.reduce"(%wv) ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    gpu.yield %c : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64xf32>) -> f32
  %u = arith.addf %s, %t : f32
  return %u : f32
}

// -----

// Never above a store: the load may read what the store wrote.
// CHECK-LABEL: func.func @fenced
// CHECK: "tile.store"
// CHECK: "tile.load"
func.func @fenced(%p: !tile.ptr<f32>, %v: f32) -> f32 {
  "tile.store"(%p, %v) {operandSegmentSizes = array<i32: 1, 1, 0>} : (!tile.ptr<f32>, f32) -> ()
  %c = arith.constant 2.0 : f32
  %w = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (!tile.ptr<f32>) -> f32
  %r = arith.mulf %w, %c : f32
  return %r : f32
}
