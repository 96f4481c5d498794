// tilec and upstream passes mix in one pipeline, including nested upstream pipelines, given with -p
// or one flag a pass (mlir-opt's spelling).
// RUN: tilec-opt %s -p 'tile-canonicalize,canonicalize,func.func(cse),tile-verify' | FileCheck %s
// RUN: tilec-opt %s -p 'builtin.module(tile-canonicalize,cse)' | FileCheck %s
// RUN: tilec-opt %s --tile-canonicalize --canonicalize --cse --tile-verify | FileCheck %s
// RUN: tilec-opt %s --tile-canonicalize=max-iterations=4 --cse | FileCheck %s
// CHECK-LABEL: func.func @f
// CHECK: %[[C:.*]] = arith.constant dense<3> : tensor<8xi32>
// CHECK-NEXT: return %[[C]], %[[C]]
func.func @f() -> (tensor<8xi32>, tensor<8xi32>) {
  %c = arith.constant 3 : i32
  %a = "tile.splat"(%c) : (i32) -> tensor<8xi32>
  %b = "tile.splat"(%c) : (i32) -> tensor<8xi32>
  return %a, %b : tensor<8xi32>, tensor<8xi32>
}
