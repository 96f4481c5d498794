// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @assert
// CHECK: "tile.assert"(%arg0) {message = "index out of range"} : (tensor<128xi1>) -> ()
func.func @assert(%ok: tensor<128xi1>) {
  "tile.assert"(%ok) {message = "index out of range"} : (tensor<128xi1>) -> ()
  return
}
