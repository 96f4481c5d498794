// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @program_id
// CHECK: "tile.program_id"() {axis = 0 : i32} : () -> i32
// CHECK: "tile.num_programs"() {axis = 2 : i32} : () -> i32
func.func @program_id() -> (i32, i32) {
  %0 = "tile.program_id"() {axis = 0 : i32} : () -> i32
  %1 = "tile.num_programs"() {axis = 2 : i32} : () -> i32
  return %0, %1 : i32, i32
}
