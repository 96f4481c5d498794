// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @reduce
// CHECK: "tile.reduce"(%arg0, %arg1) ({
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: i32, %{{.*}}: f32, %{{.*}}: i32):
// CHECK: gpu.yield %{{.*}}, %{{.*}} : f32, i32
// CHECK: }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<16x32xf32>, tensor<16x32xi32>) -> (tensor<16xf32>, tensor<16xi32>)
func.func @reduce(%x: tensor<16x32xf32>, %i: tensor<16x32xi32>) -> (tensor<16xf32>, tensor<16xi32>) {
  %0:2 = "tile.reduce"(%x, %i) ({
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %v = arith.select %gt, %a, %b : f32
    %j = arith.select %gt, %ai, %bi : i32
    gpu.yield %v, %j : f32, i32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<16x32xf32>, tensor<16x32xi32>) -> (tensor<16xf32>, tensor<16xi32>)
  return %0#0, %0#1 : tensor<16xf32>, tensor<16xi32>
}
