// RUN: tilec-opt %s -p tile-expand-sort | FileCheck %s

// A descending sort of 8 floats on GPUs: the row viewed as 3 axes of size 2; each of the 6
// compare-and-swap steps picks both halves of one axis (through their integer bits), compares them
// with NaN after every number, and selects. Unsigned integers compare unsigned.
// CHECK-LABEL: func.func @sort
// CHECK-NOT: tile.sort
// CHECK: "tile.reshape"(%arg0) : (tensor<4x8xf32>) -> tensor<4x2x2x2xf32>
// CHECK: arith.cmpf ogt, %{{.*}} : tensor<4x2x2x1xf32>
// CHECK: arith.cmpf une
// CHECK: arith.cmpf oeq
// CHECK-COUNT-6: "tile.reduce"(%{{.*}}) ({
// CHECK: "tile.reshape"(%{{.*}}) : (tensor<4x2x2x2xf32>) -> tensor<4x8xf32>
// CHECK-LABEL: func.func @merge
// A merge is the last stage alone: 3 steps for 8 elements (a sort takes 6), 2 picks each.
// CHECK-COUNT-6: "tile.reduce"
// CHECK-NOT: "tile.reduce"
// CHECK-LABEL: func.func @sort_unsigned
// CHECK: arith.cmpi ugt, %{{.*}} : tensor<1x2xi16>
// CHECK-NOT: arith.cmpi sgt
// CHECK: return
func.func @sort(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = "tile.sort"(%x) {axis = 1 : i32, descending} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

func.func @merge(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = "tile.sort"(%x) {axis = 0 : i32, merge} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

func.func @sort_unsigned(%x: tensor<4xi16>) -> tensor<4xi16> {
  %0 = "tile.sort"(%x) {axis = 0 : i32, unsigned} : (tensor<4xi16>) -> tensor<4xi16>
  return %0 : tensor<4xi16>
}
