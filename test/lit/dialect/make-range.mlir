// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @make_range
// CHECK: "tile.make_range"() {end = 96 : i32, start = 32 : i32} : () -> tensor<64xi32>
func.func @make_range() -> tensor<64xi32> {
  %0 = "tile.make_range"() {end = 96 : i32, start = 32 : i32} : () -> tensor<64xi32>
  return %0 : tensor<64xi32>
}
