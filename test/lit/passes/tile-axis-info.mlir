// RUN: tilec-opt %s -p tile-axis-info | FileCheck %s

// offs = pid * 1024 + arange(0, 1024); mask = offs < n with n divisible by 16.
// CHECK-LABEL: func.func @k
// CHECK: "tile.make_range"() {end = 1024 : i32, start = 0 : i32, tile.axis_constancy = array<i32: 1>, tile.axis_contiguity = array<i32: 1024>, tile.axis_divisibility = array<i32: 1073741824>}
// CHECK: arith.addi {{.*}} {tile.axis_constancy = array<i32: 1>, tile.axis_contiguity = array<i32: 1024>, tile.axis_divisibility = array<i32: 1024>}
// CHECK: arith.cmpi {{.*}} {tile.axis_constancy = array<i32: 16>
// CHECK: "tile.addptr"{{.*}}tile.axis_contiguity = array<i32: 1024>, tile.axis_divisibility = array<i32: 16>
func.func @k(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
  %c = arith.constant 1024 : i32
  %base = arith.muli %pid, %c : i32
  %r = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
  %b = "tile.splat"(%base) : (i32) -> tensor<1024xi32>
  %offs = arith.addi %b, %r : tensor<1024xi32>
  %ns = "tile.splat"(%n) : (i32) -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %ps = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %q = "tile.addptr"(%ps, %offs) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %v = "tile.load"(%q, %mask) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi1>) -> tensor<1024xf32>
  "tile.store"(%q, %v, %mask) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>, tensor<1024xi1>) -> ()
  return
}
