// RUN: tilec-opt %s -p tile-cpu-strided-copies | FileCheck %s

// A copy into a strided column becomes linalg.copy (convert-linalg-to-loops makes it loops; as
// memref.copy it lowered to a call of memrefCopy, which kernels are not linked against).
// CHECK-LABEL: func.func @column
// CHECK-NOT: memref.copy
// CHECK: linalg.copy {{.*}}ins(%arg0 : memref<4xf32>) outs(%{{.*}} : memref<4xf32, strided<[8], offset: ?>>)
func.func @column(%src: memref<4xf32>, %dst: memref<4x8xf32>, %j: index) {
  %col = memref.subview %dst[0, %j] [4, 1] [1, 1] : memref<4x8xf32> to memref<4xf32, strided<[8], offset: ?>>
  memref.copy %src, %col : memref<4xf32> to memref<4xf32, strided<[8], offset: ?>>
  return
}

// Contiguous copies stay memref.copy (an llvm.memcpy).
// CHECK-LABEL: func.func @dense
// CHECK: memref.copy %arg0, %arg1 : memref<4x8xf32> to memref<4x8xf32>
// CHECK-NOT: linalg.copy
func.func @dense(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  return
}
