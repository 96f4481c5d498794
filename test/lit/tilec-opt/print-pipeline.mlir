// Each target's pipeline as one list: the stages' passes in order, with the steps outside MLIR.
// RUN: tilec-opt --print-pipeline sm_90a | FileCheck %s --check-prefix=HOPPER
// RUN: tilec-opt --print-pipeline sm_80 --num-stages 1 | FileCheck %s --check-prefix=AMPERE
// RUN: tilec-opt --print-pipeline sm_90a --debug --num-warps 8 | FileCheck %s --check-prefix=DEBUG
// RUN: tilec-opt --print-pipeline gfx942 | FileCheck %s --check-prefix=CDNA
// RUN: tilec-opt --print-pipeline gfx1100 | FileCheck %s --check-prefix=RDNA
// RUN: tilec-opt --print-pipeline cpu | FileCheck %s --check-prefix=CPU
// RUN: not tilec-opt --print-pipeline tpu9 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tilec-opt --print-pipeline cpu --num-warps 3 2>&1 | FileCheck %s --check-prefix=WARPS

// HOPPER: // sm_90a (nvidia): num_warps=4 num_stages=3 debug=0
// HOPPER-NEXT: gpu:
// HOPPER-NEXT:   tile-canonicalize
// HOPPER-NEXT:   tile-lower-fp8{wgmma=1 num-warps=4}
// HOPPER:        tile-pointer-tensor-copies{num-warps=4}
// HOPPER:        tile-pipeline-loads{wgmma-depth=2 num-warps=4}
// HOPPER:        convert-tile-to-gpu{num-warps=4 warp-size=32 mma=1 wgmma=1 tma=1 fp-fusion=1}
// HOPPER:        gpu-rematerialize-thread-values
// HOPPER-NEXT:   // gpu: check shared memory
// HOPPER-NEXT: llvm:
// HOPPER-NEXT:   nvvm-attach-target{chip=sm_90a features=+ptx80 O=3}
// HOPPER:      ptx:
// HOPPER-NEXT:   gpu-module-to-binary{format=isa}
// HOPPER-NEXT:   // cubin: ptxas -arch=sm_90a

// AMPERE:      // sm_80 (nvidia): num_warps=4 num_stages=1
// AMPERE-NEXT:   // tile: drop grid dependency control
// AMPERE-NOT:  tile-pipeline-loads
// AMPERE:        convert-tile-to-gpu{num-warps=4 warp-size=32 mma=1 wgmma=0 tma=0 fp-fusion=1}

// DEBUG:       gpu:
// DEBUG-NEXT:    tile-check-bounds
// DEBUG-NOT:     tile-pointer-tensor-copies
// DEBUG:         convert-tile-to-gpu{num-warps=8

// CDNA:          // tile: refuse inline asm
// CDNA:          convert-tile-to-gpu{num-warps=4 warp-size=64 vendor=amd mfma=1 mfma-i8-k=32 fp-fusion=1}
// CDNA:          // gpu: check LDS
// CDNA:          rocdl-attach-target{chip=gfx942 O=3}
// CDNA:          // hsaco: ld.lld -shared

// RDNA:          convert-tile-to-gpu{num-warps=4 warp-size=32 vendor=amd mfma=0

// CPU:         linalg:
// CPU:           tile-cpu-grid
// CPU-NEXT:      tile-cpu-safe-division
// CPU:           convert-tile-to-linalg
// CPU:         bufferized:
// CPU:           tile-cpu-vectorize-dots{rows={{[0-9]+}} cols=16}
// CPU:           // bufferized: refuse buffers of booleans
// CPU-NEXT:    llvm:
// CPU-NEXT:      tile-cpu-atomics
// CPU:           // so: opt -O3 and llc

// UNKNOWN: tilec-opt: error: unknown target 'tpu9'
// WARPS: tilec-opt: error: --num-warps must be a power of two
