// RUN: tilec-opt %s --split-input-file -p tile-cpu-expand-maps | FileCheck %s

// A 2-D map: two nested loops carrying the result tensor; the body (a branch) between the extract
// of the argument's element and the insert of the yielded value.
// CHECK-LABEL: func.func @selu
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[EMPTY]])
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[B:.*]] = %[[A]])
// CHECK: %[[X:.*]] = tensor.extract %arg0[%[[I]], %[[J]]] : tensor<4x8xf32>
// CHECK: scf.if
// CHECK: math.exp
// CHECK: tensor.insert %{{.*}} into %[[B]][%[[I]], %[[J]]] : tensor<4x8xf32>
// CHECK-NOT: tile.map
func.func @selu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = "tile.map"(%x) ({
  ^bb0(%a: f32):
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %a, %zero : f32
    %r = scf.if %pos -> f32 {
      scf.yield %a : f32
    } else {
      %e = math.exp %a : f32
      scf.yield %e : f32
    }
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
     : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Booleans cross the loops as bytes: the argument widened before, narrowed per element inside; the
// result built as i8 and narrowed after the loop.
// CHECK-LABEL: func.func @flags
// CHECK: arith.extui %arg0 : tensor<16xi1> to tensor<16xi8>
// CHECK: tensor.empty() : tensor<16xi8>
// CHECK: tensor.extract %{{.*}} : tensor<16xi8>
// CHECK: arith.trunci %{{.*}} : i8 to i1
// CHECK: arith.xori
// CHECK: arith.extui %{{.*}} : i1 to i8
// CHECK: tensor.insert
// CHECK: arith.trunci %{{.*}} : tensor<16xi8> to tensor<16xi1>
func.func @flags(%m: tensor<16xi1>) -> tensor<16xi1> {
  %y = "tile.map"(%m) ({
  ^bb0(%a: i1):
    %t = arith.constant true
    %n = arith.xori %a, %t : i1
    gpu.yield %n : i1
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
     : (tensor<16xi1>) -> tensor<16xi1>
  return %y : tensor<16xi1>
}

// -----

// Scalars: the body in place of the op.
// CHECK-LABEL: func.func @scalar
// CHECK-NEXT: %[[R:.*]] = arith.mulf %arg0, %arg0 : f32
// CHECK-NEXT: return %[[R]] : f32
func.func @scalar(%x: f32) -> f32 {
  %y = "tile.map"(%x) ({
  ^bb0(%a: f32):
    %r = arith.mulf %a, %a : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
     : (f32) -> f32
  return %y : f32
}
