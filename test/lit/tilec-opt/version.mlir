// RUN: tilec-opt --version | FileCheck %s
// CHECK: tilec-opt (tilec {{[0-9]+\.[0-9]+\.[0-9]+}}), MLIR/LLVM {{[0-9]+\.[0-9]+\.[0-9]+}}
func.func @f() {
  return
}
