// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @sort
// CHECK: "tile.sort"(%arg0) {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: "tile.sort"(%arg1) {axis = 0 : i32, descending, unsigned} : (tensor<16x2xi8>) -> tensor<16x2xi8>
// CHECK: "tile.sort"(%arg0) {axis = 1 : i32, merge} : (tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @sort(%x: tensor<4x8xf32>, %u: tensor<16x2xi8>) -> (tensor<4x8xf32>, tensor<16x2xi8>, tensor<4x8xf32>) {
  %0 = "tile.sort"(%x) {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "tile.sort"(%u) {axis = 0 : i32, descending, unsigned} : (tensor<16x2xi8>) -> tensor<16x2xi8>
  %2 = "tile.sort"(%x) {axis = 1 : i32, merge} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<16x2xi8>, tensor<4x8xf32>
}
