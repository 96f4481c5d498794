// Option values a pass cannot work with are refused before any pass runs (upstream passes whose
// LLVM assertions would abort the process on them included).
// RUN: not tilec-opt %s -p 'convert-tile-to-gpu{num-warps=3}' 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not tilec-opt %s -p 'convert-tile-to-gpu{num-warps=0}' 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not tilec-opt %s -p 'convert-tile-to-gpu{warp-size=48}' 2>&1 | FileCheck %s --check-prefix=WAVE
// RUN: not tilec-opt %s -p 'convert-tile-to-gpu{vendor=intel}' 2>&1 | FileCheck %s --check-prefix=VENDOR
// RUN: not tilec-opt %s -p 'tile-pipeline-loads{depth=1000}' 2>&1 | FileCheck %s --check-prefix=DEPTH
// RUN: not tilec-opt %s -p 'tile-canonicalize{max-iterations=0}' 2>&1 | FileCheck %s --check-prefix=ITER
// RUN: not tilec-opt %s -p 'tile-canonicalize,rocdl-attach-target{O=64}' 2>&1 | FileCheck %s --check-prefix=OLEVEL
// RUN: not tilec-opt %s -p 'rocdl-attach-target{chip=gfx99999}' 2>&1 | FileCheck %s --check-prefix=AMDCHIP
// RUN: not tilec-opt %s -p 'nvvm-attach-target{chip=sm_9000 O=3}' 2>&1 | FileCheck %s --check-prefix=NVCHIP
// RUN: tilec-opt %s -p 'tile-canonicalize{max-iterations=1000},tile-pipeline-loads{depth=2 num-warps=8}' | FileCheck %s --check-prefix=FINE
// WARPS: tilec-opt: error: option 'num-warps' of pass 'convert-tile-to-gpu' must be a power of two from 1 to 32, got
// WAVE: option 'warp-size' of pass 'convert-tile-to-gpu' must be 32 or 64, got 48
// VENDOR: option 'vendor' of pass 'convert-tile-to-gpu' must be nvidia or amd, got 'intel'
// DEPTH: option 'depth' of pass 'tile-pipeline-loads' must be from 1 to 64, got 1000
// ITER: option 'max-iterations' of pass 'tile-canonicalize' must be from 1 to 1000, got 0
// OLEVEL: tilec-opt: error: option 'O' of pass 'rocdl-attach-target' must be 0, 1, 2 or 3, got '64'
// AMDCHIP: option 'chip' of pass 'rocdl-attach-target' must be an AMD arch such as gfx942, got 'gfx99999'
// NVCHIP: option 'chip' of pass 'nvvm-attach-target' must be an NVIDIA arch such as sm_90a, got 'sm_9000'
// FINE: func.func @f
// CHECK-NOT: Traceback
func.func @f() {
  return
}
