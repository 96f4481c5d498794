// RUN: tilec-opt %s -p tile-verify | FileCheck %s
// RUN: tilec-opt %s -p tile-verify,tile-canonicalize,tile-verify | FileCheck %s --check-prefix=CANON

// Valid IR passes through unchanged.
// CHECK-LABEL: func.func @valid
// CHECK: "tile.make_range"
// CHECK: "tile.expand_dims"
// CHECK: "tile.broadcast"
// CANON-LABEL: func.func @valid
func.func @valid() -> tensor<32x64xi32> {
  %0 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %1 = "tile.expand_dims"(%0) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  %2 = "tile.broadcast"(%1) : (tensor<1x64xi32>) -> tensor<32x64xi32>
  return %2 : tensor<32x64xi32>
}
