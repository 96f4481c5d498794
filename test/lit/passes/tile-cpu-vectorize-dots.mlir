// RUN: tilec-opt %s --split-input-file -p tile-cpu-vectorize-dots | FileCheck %s
// RUN: tilec-opt %s --split-input-file -p 'tile-cpu-vectorize-dots{rows=8 cols=16}' | FileCheck %s --check-prefix=WIDE

// A [16x4] @ [4x32] matmul: tiled into 4 x 16 accumulator blocks (the defaults; two loops), each
// block one read of A, B and the accumulator, then K = 4 steps of 4 row FMAs (A's value broadcast
// times B's row).
// CHECK-LABEL: func.func @dot
// CHECK-NOT: linalg.matmul
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c4
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK-COUNT-3: vector.transfer_read
// CHECK-COUNT-16: vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT: vector.fma
// CHECK: vector.transfer_write {{.*}} : vector<4x16xf32>
// With rows=8 (what the CPU target picks on AVX-512: 8 accumulators of 16 lanes), 8 x 16 blocks.
// WIDE-LABEL: func.func @dot
// WIDE: scf.for %{{.*}} = %c0 to %c16 step %c8
// WIDE-COUNT-32: vector.fma {{.*}} : vector<16xf32>
// WIDE: vector.transfer_write {{.*}} : vector<8x16xf32>
// CHECK-NOT: transform.
func.func @dot(%a: tensor<16x4xf32>, %b: tensor<4x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x4xf32>, tensor<4x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// Sizes the blocks do not divide: the largest powers of two that do (4 rows of 12, 8 columns of
// 24); integer elements multiply and add.
// CHECK-LABEL: func.func @ragged
// CHECK: scf.for %{{.*}} = %c0 to %c12 step %c4
// CHECK: scf.for %{{.*}} = %c0 to %c24 step %c8
// CHECK: vector.transfer_write {{.*}} : vector<4x8xi32>
func.func @ragged(%a: tensor<12x2xi32>, %b: tensor<2x24xi32>, %c: tensor<12x24xi32>) -> tensor<12x24xi32> {
  %r = linalg.matmul ins(%a, %b : tensor<12x2xi32>, tensor<2x24xi32>) outs(%c : tensor<12x24xi32>) -> tensor<12x24xi32>
  return %r : tensor<12x24xi32>
}

// -----

// A matmul on memrefs (after bufferization) is left as it is.
// CHECK-LABEL: func.func @buffers
// CHECK: linalg.matmul
func.func @buffers(%a: memref<16x4xf32>, %b: memref<4x32xf32>, %c: memref<16x32xf32>) {
  linalg.matmul ins(%a, %b : memref<16x4xf32>, memref<4x32xf32>) outs(%c : memref<16x32xf32>)
  return
}

// -----

// A K of 64 is taken 32 at a time (option `depth`): a third loop, each step 32 unrolled FMAs per
// accumulator row. Over all 64 at once the contraction's A rows were 64-wide vectors read back
// element by element through the stack (a 64x64x64 fp32 matmul: 47 GFLOP/s, 221 so).
// CHECK-LABEL: func.func @deep
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c4
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c16
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK-COUNT-128: vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT: vector.fma
func.func @deep(%a: tensor<8x64xf32>, %b: tensor<64x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
