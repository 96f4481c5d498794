// RUN: tilec-opt %s -p 'tile-canonicalize,cse' --print-ir-after=tile-canonicalize -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=OUT < %t
// RUN: tilec-opt %s -p 'tile-canonicalize,cse' --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=ALL
// CHECK: // -----// IR Dump After tile-canonicalize //----- //
// CHECK: arith.constant dense<2> : tensor<4xi32>
// CHECK-NOT: IR Dump After cse
// OUT: func.func @f
// ALL: IR Dump After tile-canonicalize
// ALL: IR Dump After cse
func.func @f() -> tensor<4xi32> {
  %c = arith.constant 2 : i32
  %a = "tile.splat"(%c) : (i32) -> tensor<4xi32>
  return %a : tensor<4xi32>
}
