// An invalid tile op is reported before any pass runs, as file:line:col: error.
// RUN: not tilec-opt %s -p tile-canonicalize 2>&1 | FileCheck %s
// CHECK: invalid-op.mlir:8:8: error: 'tile.splat' op result must be a tensor of f32, got tensor<4xf16>
// CHECK-NOT: Traceback

func.func @f(%x: f32) -> tensor<4xf16> {
  // The splat below changes the element type, which the verifier rejects.
  %0 = "tile.splat"(%x) : (f32) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
