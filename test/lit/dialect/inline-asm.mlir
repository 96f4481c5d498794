// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// Round trip: arguments and results in slots (up to 8 and 4), asm text, constraints, pack, pure.
// CHECK-LABEL: func.func @f
// CHECK: %{{.*}}:2 = "tile.inline_asm"(%arg0, %arg1) {asm = "{ add.f32 $0, $2, $3; mov.b32 $1, $2; }", constraints = "=f,=r,f,f", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, pack = 1 : i32, pure, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xi32>)
func.func @f(%a: tensor<16xf32>, %b: tensor<16xf32>) {
  %0, %1 = "tile.inline_asm"(%a, %b) {asm = "{ add.f32 $0, $2, $3; mov.b32 $1, $2; }", constraints = "=f,=r,f,f",
      pack = 1 : i32, pure, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>,
      resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xi32>)
  return
}
