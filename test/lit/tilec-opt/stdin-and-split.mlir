// Input from stdin, and --split-input-file keeps going after a failing chunk, with real line numbers.
// RUN: not tilec-opt --split-input-file < %s 2>&1 | FileCheck %s
// CHECK: <stdin>:13:8: error: 'tile.make_range' op range length 3 must be a power of two
// CHECK: func.func @second

func.func @first() {
  return
}

// -----

func.func @bad() {
  %0 = "tile.make_range"() {end = 3 : i32, start = 0 : i32} : () -> tensor<3xi32>
  return
}

// -----

func.func @second() {
  return
}
