// An upstream pass that fails reports MLIR's diagnostic at the op and exit status 1, without aborting.
// RUN: not tilec-opt %s -p 'tile-canonicalize,gpu-module-to-binary' 2>&1 | FileCheck %s
// CHECK: failing-upstream-pass.mlir:7:3: error: the module has no target attributes
// CHECK-NOT: note
// CHECK-NOT: Traceback
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @f() kernel {
      gpu.return
    }
  }
}
