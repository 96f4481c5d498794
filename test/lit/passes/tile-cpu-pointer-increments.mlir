// RUN: tilec-opt %s --split-input-file -p tile-cpu-pointer-increments | FileCheck %s

// A pointer tile advanced by a splat each iteration (a constant, then a scalar computed outside the
// loop) is carried as an i64 offset from its initial value: the body rebuilds the tile as
// base + splat(offset) before its first use, yields offset + step, and the old carried tile only
// yields itself. After the loop its value is base + splat(the final offset).
// CHECK-LABEL: func.func @advance
// CHECK-SAME: (%[[P0:[^:]*]]: tensor<8x!tile.ptr<f32>>, %[[Q0:[^:]*]]: tensor<8x!tile.ptr<f32>>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[STEP:.*]] = arith.constant 8 : i64
// CHECK: %[[R:.*]]:5 = scf.for {{.*}} iter_args(%{{[^ ]*}} = %{{[^,]*}}, %[[P:[^ ]*]] = %[[P0]], %[[Q:[^ ]*]] = %[[Q0]], %[[O:[^ ]*]] = %[[ZERO]], %[[OQ:[^ ]*]] = %[[ZERO]])
// CHECK-NEXT: %[[S:.*]] = "tile.splat"(%[[O]]) : (i64) -> tensor<8xi64>
// CHECK-NEXT: %[[PP:.*]] = "tile.addptr"(%[[P0]], %[[S]])
// CHECK-NEXT: %[[SQ:.*]] = "tile.splat"(%[[OQ]]) : (i64) -> tensor<8xi64>
// CHECK-NEXT: %[[QQ:.*]] = "tile.addptr"(%[[Q0]], %[[SQ]])
// CHECK-NEXT: "tile.load"(%[[PP]])
// CHECK-NEXT: "tile.load"(%[[QQ]])
// CHECK: %[[NEXT:.*]] = arith.addi %[[O]], %[[STEP]] : i64
// CHECK: %[[WIDE:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK-NEXT: %[[NEXTQ:.*]] = arith.addi %[[OQ]], %[[WIDE]] : i64
// CHECK-NEXT: scf.yield %{{.*}}, %[[P]], %[[Q]], %[[NEXT]], %[[NEXTQ]]
// CHECK: %[[F:.*]] = "tile.splat"(%[[R]]#3)
// CHECK-NEXT: %[[END:.*]] = "tile.addptr"(%[[P0]], %[[F]])
// CHECK: return %[[END]]
func.func @advance(%p0: tensor<8x!tile.ptr<f32>>, %q0: tensor<8x!tile.ptr<f32>>, %n: i32, %s: i32) -> tensor<8x!tile.ptr<f32>> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<8xf32>
  %eight = arith.constant dense<8> : tensor<8xi32>
  %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %p = %p0, %q = %q0) -> (tensor<8xf32>, tensor<8x!tile.ptr<f32>>, tensor<8x!tile.ptr<f32>>) : i32 {
    %x = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x!tile.ptr<f32>>) -> tensor<8xf32>
    %y = "tile.load"(%q) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x!tile.ptr<f32>>) -> tensor<8xf32>
    %sum = arith.addf %x, %y : tensor<8xf32>
    %a = arith.addf %acc, %sum : tensor<8xf32>
    %pn = "tile.addptr"(%p, %eight) : (tensor<8x!tile.ptr<f32>>, tensor<8xi32>) -> tensor<8x!tile.ptr<f32>>
    %ss = "tile.splat"(%s) : (i32) -> tensor<8xi32>
    %qn = "tile.addptr"(%q, %ss) : (tensor<8x!tile.ptr<f32>>, tensor<8xi32>) -> tensor<8x!tile.ptr<f32>>
    scf.yield %a, %pn, %qn : tensor<8xf32>, tensor<8x!tile.ptr<f32>>, tensor<8x!tile.ptr<f32>>
  }
  return %r#1 : tensor<8x!tile.ptr<f32>>
}

// -----

// Advanced by a tile that is not one value for all elements: left carried.
// CHECK-LABEL: func.func @uneven
// CHECK: scf.for {{.*}} -> (tensor<4x!tile.ptr<f32>>)
// CHECK-NOT: i64
func.func @uneven(%p0: tensor<4x!tile.ptr<f32>>, %d: tensor<4xi32>, %n: i32) -> tensor<4x!tile.ptr<f32>> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%p = %p0) -> (tensor<4x!tile.ptr<f32>>) : i32 {
    %pn = "tile.addptr"(%p, %d) : (tensor<4x!tile.ptr<f32>>, tensor<4xi32>) -> tensor<4x!tile.ptr<f32>>
    scf.yield %pn : tensor<4x!tile.ptr<f32>>
  }
  return %r : tensor<4x!tile.ptr<f32>>
}

// -----

// A carried value yielded unchanged (a tuple element a dead constexpr branch would have updated,
// as in Triton's attention backward) comes out as the new loop's own argument: the rewrite used to
// leave the old one in the new yield and crash when it erased the old loop.
// CHECK-LABEL: func.func @unchanged
// CHECK: scf.for {{.*}} iter_args(%[[D:[^ ]*]] = %{{[^,]*}}, %{{[^ ]*}} = %{{[^,]*}}, %[[O:[^ ]*]] = %{{[^)]*}})
// CHECK: scf.yield %[[D]], %{{.*}}, %{{.*}} :
func.func @unchanged(%p0: tensor<4x!tile.ptr<f32>>, %d0: tensor<4xi32>, %n: i32) -> tensor<4xi32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %four = arith.constant dense<4> : tensor<4xi32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%d = %d0, %p = %p0) -> (tensor<4xi32>, tensor<4x!tile.ptr<f32>>) : i32 {
    %x = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x!tile.ptr<f32>>) -> tensor<4xf32>
    %pn = "tile.addptr"(%p, %four) : (tensor<4x!tile.ptr<f32>>, tensor<4xi32>) -> tensor<4x!tile.ptr<f32>>
    scf.yield %d, %pn : tensor<4xi32>, tensor<4x!tile.ptr<f32>>
  }
  return %r#0 : tensor<4xi32>
}
