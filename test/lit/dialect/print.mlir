// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @print
// CHECK: "tile.print"(%arg0) {hex = true, prefix = "x: "} : (tensor<4xi32>) -> ()
// CHECK: "tile.print"(%arg1) {prefix = "y: "} : (f32) -> ()
// CHECK: "tile.print"() {prefix = "hello"} : () -> ()
func.func @print(%x: tensor<4xi32>, %y: f32) {
  "tile.print"(%x) {hex = true, prefix = "x: "} : (tensor<4xi32>) -> ()
  "tile.print"(%y) {prefix = "y: "} : (f32) -> ()
  "tile.print"() {prefix = "hello"} : () -> ()
  return
}
