// RUN: not tilec-opt %s -p 'convert-tile-to-gpu{num-warps=1}' 2>&1 | FileCheck %s

// A constraint LLVM's NVPTX back end cannot allocate would abort the process: refused with the op.
// CHECK: inline asm constraint '=x' is not one tilec can pass to PTX
func.func @bad_constraint(%v: i32) attributes {tile.kernel} {
  %t = "tile.splat"(%v) : (i32) -> tensor<32xi32>
  %y = "tile.inline_asm"(%t) {asm = "mov.b32 $0, $1;", constraints = "=x,r", pack = 1 : i32,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
      : (tensor<32xi32>) -> tensor<32xi32>
  return
}
