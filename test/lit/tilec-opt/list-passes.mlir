// RUN: tilec-opt --list-passes | FileCheck %s
// Each pass: its name, its whole summary (wrapped, never cut), its options with types and defaults.
// CHECK:      tile-canonicalize
// CHECK-NEXT:   Simplify tile ops
// CHECK-NEXT:   {max-iterations=10}  (int)
// CHECK:      tile-cpu-pointer-offsets
// CHECK-NEXT:   llvm.inttoptr of a sum inside a loop
// CHECK-NEXT:   the offset those that do.
// CHECK:      tile-cpu-vectorize-dots
// CHECK:        {rows=4}  (int)
// CHECK-NEXT:   {cols=16}  (int)
// CHECK:      tile-verify
// CHECK:      Upstream MLIR passes
func.func @f() {
  return
}
