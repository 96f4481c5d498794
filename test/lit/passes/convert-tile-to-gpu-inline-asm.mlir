// RUN: tilec-opt %s --split-input-file -p 'convert-tile-to-gpu{num-warps=1}' | FileCheck %s
// RUN: not tilec-opt %s --split-input-file -p 'convert-tile-to-linalg' 2>&1 | FileCheck %s --check-prefix=CPU

// One statement per element (pack = 1): 64 elements on 32 lanes are 2 per thread, so 2 statements,
// each reading its i32 register; pure, so no side effects.
// CHECK-LABEL: gpu.func @shift
// CHECK-COUNT-2: llvm.inline_asm "shl.b32 $0, $1, 3;", "=r,r" %{{.*}} : (i32) -> i32
// CPU: tl.inline_asm_elementwise runs GPU assembly (PTX or AMDGCN), which the CPU target cannot run
func.func @shift(%v: i32) attributes {tile.kernel} {
  %t = "tile.splat"(%v) : (i32) -> tensor<64xi32>
  %y = "tile.inline_asm"(%t) {asm = "shl.b32 $0, $1, 3;", constraints = "=r,r", pack = 1 : i32, pure,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
      : (tensor<64xi32>) -> tensor<64xi32>
  %p = "tile.splat"(%v) : (i32) -> tensor<64xi32>
  return
}

// -----

// pack = 4 of i8: 128 elements are 4 per thread, one statement on one 32-bit register made of the four
// bytes (a vector<4xi8> bitcast), its output unpacked the same way; not pure: has_side_effects.
// CHECK-LABEL: gpu.func @packed
// CHECK: llvm.insertelement
// CHECK: llvm.bitcast %{{.*}} : vector<4xi8> to i32
// CHECK: llvm.inline_asm has_side_effects "and.b32 $0, $1, 0x1F1F1F1F;", "=r,r" %{{.*}} : (i32) -> i32
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.bitcast %{{.*}} : i32 to vector<4xi8>
// CHECK: llvm.extractelement
func.func @packed(%v: i8) attributes {tile.kernel} {
  %t = "tile.splat"(%v) : (i8) -> tensor<128xi8>
  %y = "tile.inline_asm"(%t) {asm = "and.b32 $0, $1, 0x1F1F1F1F;", constraints = "=r,r", pack = 4 : i32,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
      : (tensor<128xi8>) -> tensor<128xi8>
  return
}

// -----

// Two results of different types from two arguments: one statement returns a struct of both.
// CHECK-LABEL: gpu.func @two_results
// CHECK: llvm.inline_asm "cvt.rn.f32.s32 $0, $2; mov.b32 $1, $3;", "=f,=r,r,f" %{{.*}}, %{{.*}} : (i32, f32) -> !llvm.struct<(f32, i32)>
// CHECK: llvm.extractvalue %{{.*}}[0]
// CHECK: llvm.extractvalue %{{.*}}[1]
func.func @two_results(%a: i32, %b: f32) attributes {tile.kernel} {
  %x = "tile.splat"(%a) : (i32) -> tensor<32xi32>
  %y = "tile.splat"(%b) : (f32) -> tensor<32xf32>
  %f, %i = "tile.inline_asm"(%x, %y) {asm = "cvt.rn.f32.s32 $0, $2; mov.b32 $1, $3;", constraints = "=f,=r,r,f",
      pack = 1 : i32, pure, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>,
      resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<32xi32>, tensor<32xf32>) -> (tensor<32xf32>, tensor<32xi32>)
  return
}
