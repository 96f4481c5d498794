// MemRefToLLVM asserts that a loaded or stored element is a whole byte: refused at the op instead.
// RUN: not tilec-opt %s -p 'finalize-memref-to-llvm' 2>&1 | FileCheck %s
// RUN: not tilec-opt %s -p 'convert-to-llvm' 2>&1 | FileCheck %s
// CHECK: memref-of-bits.mlir:[[@LINE+4]]:8: error: {{.*}} cannot lower a memref of i1 ('memref.load' op): elements narrower than a byte have no address
// CHECK-NOT: Assertion
func.func @flags(%in: memref<?xi1>, %i: index) -> i1 {
  %m = memref.alloc() : memref<4xi1>
  %v = memref.load %in[%i] : memref<?xi1>
  memref.dealloc %m : memref<4xi1>
  return %v : i1
}
