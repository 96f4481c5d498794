// RUN: tilec-opt %s -p tile-cpu-widen-bool-buffers | FileCheck %s

// CHECK-LABEL: func.func @flags(%arg0: memref<?xi8>, %arg1: i1, %arg2: index) -> i1
// CHECK: %[[M:.*]] = memref.alloc() : memref<4xi8>
// CHECK: %[[E:.*]] = arith.extui %arg1 : i1 to i8
// CHECK: memref.store %[[E]], %[[M]][%arg2] : memref<4xi8>
// CHECK: %[[L:.*]] = memref.load %arg0[%arg2] : memref<?xi8>
// CHECK: %[[T:.*]] = arith.trunci %[[L]] : i8 to i1
// CHECK: return %[[T]] : i1
func.func @flags(%in: memref<?xi1>, %b: i1, %i: index) -> i1 {
  %m = memref.alloc() : memref<4xi1>
  memref.store %b, %m[%i] : memref<4xi1>
  %v = memref.load %in[%i] : memref<?xi1>
  memref.dealloc %m : memref<4xi1>
  return %v : i1
}
