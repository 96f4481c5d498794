// RUN: tilec-opt %s --split-input-file -p 'tile-pipeline-loads{wgmma-depth=2 num-warps=4},convert-tile-to-gpu{num-warps=4 mma=1 wgmma=1}' | FileCheck %s
// RUN: tilec-opt %s --split-input-file -p 'tile-pipeline-loads,convert-tile-to-gpu{num-warps=4 mma=1 wgmma=1}' | FileCheck %s --check-prefix=ONE
// RUN: tilec-opt %s --split-input-file -p 'tile-pipeline-loads{wgmma-depth=2 num-warps=4},convert-tile-to-gpu{num-warps=4 mma=1}' | FileCheck %s --check-prefix=SM80

// acc = dot(a, b, acc) over loads prefetched two iterations ahead: the loads before the loop become
// cp.async copies into the ring (one commit group per load), the loop carries no tiles, waits for
// the current iteration's two groups (two later ones stay in flight), makes them visible to the
// tensor cores with a barrier (no proxy fence: cp.async needs none), copies the tiles two iterations
// ahead (their buffer's last reader, the MMA two iterations back, is done for every warp past that
// barrier), then runs the MMA; after the loop every copy is waited for.
// The copies land in swizzled rows (16-byte chunk ^= a few row bits), and the descriptors say so in
// bits 62-63: A (64 bytes of K a row) with 64-byte swizzle, SBO 512, LBO unused (1); B (row-major, 128
// bytes of N a row) with 128-byte swizzle, SBO 1024 (8 rows of k), LBO 4096 (the next 64 columns).
// CHECK-LABEL: gpu.func @matmul
// CHECK: arith.xori
// CHECK-COUNT-4: "cp.async.commit_group;"
// CHECK: scf.for
// CHECK-NOT: f16
// CHECK-SAME: -> (f32,
// CHECK: "cp.async.wait_group 2;"
// CHECK-NEXT: gpu.barrier
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;"
// CHECK: "cp.async.commit_group;"
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;"
// CHECK: "cp.async.commit_group;"
// CHECK-DAG: arith.constant -9223371899415756800 : i64
// CHECK-DAG: arith.constant 4611686293322072064 : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// CHECK-NOT: cp.async
// CHECK: scf.yield
// CHECK: "cp.async.wait_group 0;"
// CHECK-NEXT: "wgmma.wait_group.sync.aligned 0; // drain loop 1"
// One iteration ahead (the pass's default depth): three buffers, nothing else in flight at the MMA.
// ONE-LABEL: gpu.func @matmul
// ONE-COUNT-2: "cp.async.commit_group;"
// ONE: scf.for
// ONE: "cp.async.wait_group 0;"
// ONE: arith.remui %{{.*}}, %c3_i32
// Without warpgroup MMA nothing streams: the prefetched tiles are registers.
// SM80-LABEL: gpu.func @matmul
// SM80-NOT: cp.async
// SM80: mma.sync
func.func @matmul(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "a_ptr"}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "b_ptr"}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "c_ptr"}, %arg3: i32 {tile.divisibility = 16 : i32, tile.name = "K"}) attributes {tile.kernel} {
  %0 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %1 = "tile.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32>
  %2 = "tile.expand_dims"(%0) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
  %3 = "tile.splat"(%arg3) : (i32) -> tensor<64x1xi32>
  %4 = arith.muli %2, %3 : tensor<64x1xi32>
  %5 = "tile.splat"(%arg0) : (!tile.ptr<f16>) -> tensor<64x1x!tile.ptr<f16>>
  %6 = "tile.addptr"(%5, %4) : (tensor<64x1x!tile.ptr<f16>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f16>>
  %7 = "tile.expand_dims"(%1) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
  %8 = "tile.broadcast"(%6) : (tensor<64x1x!tile.ptr<f16>>) -> tensor<64x32x!tile.ptr<f16>>
  %9 = "tile.broadcast"(%7) : (tensor<1x32xi32>) -> tensor<64x32xi32>
  %10 = "tile.addptr"(%8, %9) : (tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>) -> tensor<64x32x!tile.ptr<f16>>
  %11 = "tile.expand_dims"(%1) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
  %cst = arith.constant dense<64> : tensor<32x1xi32>
  %12 = arith.muli %11, %cst : tensor<32x1xi32>
  %13 = "tile.splat"(%arg1) : (!tile.ptr<f16>) -> tensor<32x1x!tile.ptr<f16>>
  %14 = "tile.addptr"(%13, %12) : (tensor<32x1x!tile.ptr<f16>>, tensor<32x1xi32>) -> tensor<32x1x!tile.ptr<f16>>
  %15 = "tile.expand_dims"(%0) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  %16 = "tile.broadcast"(%14) : (tensor<32x1x!tile.ptr<f16>>) -> tensor<32x64x!tile.ptr<f16>>
  %17 = "tile.broadcast"(%15) : (tensor<1x64xi32>) -> tensor<32x64xi32>
  %18 = "tile.addptr"(%16, %17) : (tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>) -> tensor<32x64x!tile.ptr<f16>>
  %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %c0_i32 = arith.constant 0 : i32
  %c32_i32 = arith.constant 32 : i32
  %19:3 = scf.for %arg4 = %c0_i32 to %arg3 step %c32_i32 iter_args(%arg5 = %cst_0, %arg6 = %10, %arg7 = %18) -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>)  : i32 {
    %26 = "tile.expand_dims"(%1) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
    %27 = arith.subi %arg3, %arg4 : i32
    %28 = "tile.splat"(%27) : (i32) -> tensor<1x32xi32>
    %29 = arith.cmpi slt, %26, %28 : tensor<1x32xi32>
    %30 = "tile.broadcast"(%29) : (tensor<1x32xi1>) -> tensor<64x32xi1>
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<64x32xf16>
    %31 = "tile.load"(%arg6, %30, %cst_4) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi1>, tensor<64x32xf16>) -> tensor<64x32xf16>
    %32 = "tile.load"(%arg7) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<32x64x!tile.ptr<f16>>) -> tensor<32x64xf16>
    %33 = "tile.dot"(%31, %32, %arg5) {input_precision = "ieee"} : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %cst_6 = arith.constant dense<32> : tensor<64x32xi32>
    %34 = "tile.addptr"(%arg6, %cst_6) : (tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>) -> tensor<64x32x!tile.ptr<f16>>
    %cst_7 = arith.constant dense<2048> : tensor<32x64xi32>
    %35 = "tile.addptr"(%arg7, %cst_7) : (tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>) -> tensor<32x64x!tile.ptr<f16>>
    scf.yield %33, %34, %35 : tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>
  }
  %cst_2 = arith.constant dense<64> : tensor<64x1xi32>
  %20 = arith.muli %2, %cst_2 : tensor<64x1xi32>
  %21 = "tile.splat"(%arg2) : (!tile.ptr<f32>) -> tensor<64x1x!tile.ptr<f32>>
  %22 = "tile.addptr"(%21, %20) : (tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f32>>
  %23 = "tile.broadcast"(%22) : (tensor<64x1x!tile.ptr<f32>>) -> tensor<64x64x!tile.ptr<f32>>
  %24 = "tile.broadcast"(%15) : (tensor<1x64xi32>) -> tensor<64x64xi32>
  %25 = "tile.addptr"(%23, %24) : (tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>) -> tensor<64x64x!tile.ptr<f32>>
  "tile.store"(%25, %19#0) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>) -> ()
  return
}

// -----

// tf32 with a row-major B: the instruction reads tf32 operands K-major only, so the dot is issued
// transposed (wgmma_swapped.py): m64n64k8 with B^T's fragments as A, in four registers loaded from B's
// rows in shared memory, and A^T (A's rows, K-major) by descriptor. Both operands stream in 16-byte
// copies as they lie in memory. The previous iteration's MMA is waited for after the barrier, before
// the fragment loads rewrite the registers it may still read; none is left in flight at the end.
// CHECK-LABEL: gpu.func @matmul_tf32
// CHECK: scf.for
// CHECK: "cp.async.wait_group 2;"
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-2: "cp.async.cg.shared.global [$0], [$1], 16, $2;"
// CHECK: "wgmma.wait_group.sync.aligned 0;{{( // drain loop [0-9]+)?}}"
// CHECK-COUNT-16: llvm.load {{.*}} -> f32
// CHECK: "wgmma.fence.sync.aligned;"
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{.*}}, {$32, $33, $34, $35}, $36, p, 1, 1;
// CHECK: "wgmma.commit_group.sync.aligned;"
// CHECK-NOT: wgmma.wait_group
// CHECK: scf.yield
// CHECK: "cp.async.wait_group 0;"
// CHECK-NEXT: "wgmma.wait_group.sync.aligned 0; // drain loop 1"
// ONE-LABEL: gpu.func @matmul_tf32
// ONE: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{.*}}, {$32, $33, $34, $35}, $36, p, 1, 1;
func.func @matmul_tf32(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "a_ptr"}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "b_ptr"}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "c_ptr"}, %arg3: i32 {tile.divisibility = 16 : i32, tile.name = "K"}) attributes {tile.kernel} {
  %0 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %1 = "tile.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32>
  %2 = "tile.expand_dims"(%0) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
  %3 = "tile.splat"(%arg3) : (i32) -> tensor<64x1xi32>
  %4 = arith.muli %2, %3 : tensor<64x1xi32>
  %5 = "tile.splat"(%arg0) : (!tile.ptr<f32>) -> tensor<64x1x!tile.ptr<f32>>
  %6 = "tile.addptr"(%5, %4) : (tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f32>>
  %7 = "tile.expand_dims"(%1) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
  %8 = "tile.broadcast"(%6) : (tensor<64x1x!tile.ptr<f32>>) -> tensor<64x32x!tile.ptr<f32>>
  %9 = "tile.broadcast"(%7) : (tensor<1x32xi32>) -> tensor<64x32xi32>
  %10 = "tile.addptr"(%8, %9) : (tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>) -> tensor<64x32x!tile.ptr<f32>>
  %11 = "tile.expand_dims"(%1) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
  %cst = arith.constant dense<64> : tensor<32x1xi32>
  %12 = arith.muli %11, %cst : tensor<32x1xi32>
  %13 = "tile.splat"(%arg1) : (!tile.ptr<f32>) -> tensor<32x1x!tile.ptr<f32>>
  %14 = "tile.addptr"(%13, %12) : (tensor<32x1x!tile.ptr<f32>>, tensor<32x1xi32>) -> tensor<32x1x!tile.ptr<f32>>
  %15 = "tile.expand_dims"(%0) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  %16 = "tile.broadcast"(%14) : (tensor<32x1x!tile.ptr<f32>>) -> tensor<32x64x!tile.ptr<f32>>
  %17 = "tile.broadcast"(%15) : (tensor<1x64xi32>) -> tensor<32x64xi32>
  %18 = "tile.addptr"(%16, %17) : (tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>) -> tensor<32x64x!tile.ptr<f32>>
  %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %c0_i32 = arith.constant 0 : i32
  %c32_i32 = arith.constant 32 : i32
  %19:3 = scf.for %arg4 = %c0_i32 to %arg3 step %c32_i32 iter_args(%arg5 = %cst_0, %arg6 = %10, %arg7 = %18) -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<f32>>, tensor<32x64x!tile.ptr<f32>>)  : i32 {
    %26 = "tile.expand_dims"(%1) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
    %27 = arith.subi %arg3, %arg4 : i32
    %28 = "tile.splat"(%27) : (i32) -> tensor<1x32xi32>
    %29 = arith.cmpi slt, %26, %28 : tensor<1x32xi32>
    %30 = "tile.broadcast"(%29) : (tensor<1x32xi1>) -> tensor<64x32xi1>
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<64x32xf32>
    %31 = "tile.load"(%arg6, %30, %cst_4) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi1>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %32 = "tile.load"(%arg7) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<32x64x!tile.ptr<f32>>) -> tensor<32x64xf32>
    %33 = "tile.dot"(%31, %32, %arg5) {input_precision = "tf32"} : (tensor<64x32xf32>, tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %cst_6 = arith.constant dense<32> : tensor<64x32xi32>
    %34 = "tile.addptr"(%arg6, %cst_6) : (tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>) -> tensor<64x32x!tile.ptr<f32>>
    %cst_7 = arith.constant dense<2048> : tensor<32x64xi32>
    %35 = "tile.addptr"(%arg7, %cst_7) : (tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>) -> tensor<32x64x!tile.ptr<f32>>
    scf.yield %33, %34, %35 : tensor<64x64xf32>, tensor<64x32x!tile.ptr<f32>>, tensor<32x64x!tile.ptr<f32>>
  }
  %cst_2 = arith.constant dense<64> : tensor<64x1xi32>
  %20 = arith.muli %2, %cst_2 : tensor<64x1xi32>
  %21 = "tile.splat"(%arg2) : (!tile.ptr<f32>) -> tensor<64x1x!tile.ptr<f32>>
  %22 = "tile.addptr"(%21, %20) : (tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f32>>
  %23 = "tile.broadcast"(%22) : (tensor<64x1x!tile.ptr<f32>>) -> tensor<64x64x!tile.ptr<f32>>
  %24 = "tile.broadcast"(%15) : (tensor<1x64xi32>) -> tensor<64x64xi32>
  %25 = "tile.addptr"(%23, %24) : (tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>) -> tensor<64x64x!tile.ptr<f32>>
  "tile.store"(%25, %19#0) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>) -> ()
  return
}

// -----

// Attention's two dots (softmax left out): each streams its B (K, then V) through a ring of its own
// with depth + 1 buffers (the MMA reading a buffer is done for every warp at the next iteration's
// barrier). The prologue's copies go iteration by iteration, K before V (four commit groups). One
// wait and one barrier serve both rings (merge_waits): at the first dot, for both rings' groups of
// the iteration, leaving the next iteration's two in flight; then both rings' copies two iterations
// ahead. The second dot neither waits for copies nor passes a barrier. A goes from registers (q
// before the loop, s as computed): the buffers hold B alone.
// CHECK-LABEL: gpu.func @attention_core
// CHECK-COUNT-4: "cp.async.commit_group;"
// CHECK: scf.for
// CHECK: arith.remui %{{.*}}, %c3_i32
// CHECK: "cp.async.wait_group 2;"
// CHECK: gpu.barrier
// CHECK-COUNT-4: "cp.async.cg.shared.global [$0], [$1], 16, $2;"
// CHECK-NEXT: "cp.async.commit_group;"
// CHECK-COUNT-4: "cp.async.cg.shared.global [$0], [$1], 16, $2;"
// CHECK-NEXT: "cp.async.commit_group;"
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}}, {$32, $33, $34, $35}
// CHECK: "wgmma.wait_group.sync.aligned 0;{{( // drain loop [0-9]+)?}}"
// CHECK-NOT: gpu.barrier
// CHECK: arith.remui %{{.*}}, %c3_i32
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}}, {$32, $33, $34, $35}
// CHECK: "wgmma.wait_group.sync.aligned 0;{{( // drain loop [0-9]+)?}}"
// CHECK-NOT: cp.async
// CHECK: scf.yield
// CHECK: "cp.async.wait_group 0;"
// One iteration ahead: two buffers per ring, and the one wait lets no group stay in flight.
// ONE-LABEL: gpu.func @attention_core
// ONE-COUNT-2: "cp.async.commit_group;"
// ONE: scf.for
// ONE: arith.remui %{{.*}}, %c2_i32
// ONE: "cp.async.wait_group 0;"
// ONE-NOT: "cp.async.wait_group
// ONE: scf.yield
// SM80-LABEL: gpu.func @attention_core
// SM80-NOT: cp.async
// SM80: mma.sync
func.func @attention_core(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "q_ptr"}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "k_ptr"}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "v_ptr"}, %arg3: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "o_ptr"}, %arg4: i32 {tile.divisibility = 16 : i32, tile.name = "n"}) attributes {tile.kernel} {
  %0 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %1 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %2 = "tile.expand_dims"(%0) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
  %c64_i32 = arith.constant 64 : i32
  %3 = "tile.splat"(%c64_i32) : (i32) -> tensor<64x1xi32>
  %4 = arith.muli %2, %3 : tensor<64x1xi32>
  %5 = "tile.splat"(%arg0) : (!tile.ptr<f16>) -> tensor<64x1x!tile.ptr<f16>>
  %6 = "tile.addptr"(%5, %4) : (tensor<64x1x!tile.ptr<f16>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f16>>
  %7 = "tile.expand_dims"(%1) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  %8 = "tile.broadcast"(%6) : (tensor<64x1x!tile.ptr<f16>>) -> tensor<64x64x!tile.ptr<f16>>
  %9 = "tile.broadcast"(%7) : (tensor<1x64xi32>) -> tensor<64x64xi32>
  %10 = "tile.addptr"(%8, %9) : (tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>) -> tensor<64x64x!tile.ptr<f16>>
  %11 = "tile.load"(%10) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64x64x!tile.ptr<f16>>) -> tensor<64x64xf16>
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %c0_i32 = arith.constant 0 : i32
  %c64_i32_0 = arith.constant 64 : i32
  %12 = scf.for %arg5 = %c0_i32 to %arg4 step %c64_i32_0 iter_args(%arg6 = %cst) -> (tensor<64x64xf32>)  : i32 {
    %22 = "tile.splat"(%arg5) : (i32) -> tensor<64xi32>
    %23 = arith.addi %22, %0 : tensor<64xi32>
    %24 = "tile.expand_dims"(%23) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
    %c64_i32_2 = arith.constant 64 : i32
    %25 = "tile.splat"(%c64_i32_2) : (i32) -> tensor<64x1xi32>
    %26 = arith.muli %24, %25 : tensor<64x1xi32>
    %27 = "tile.splat"(%arg1) : (!tile.ptr<f16>) -> tensor<64x1x!tile.ptr<f16>>
    %28 = "tile.addptr"(%27, %26) : (tensor<64x1x!tile.ptr<f16>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f16>>
    %29 = "tile.expand_dims"(%1) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
    %30 = "tile.broadcast"(%28) : (tensor<64x1x!tile.ptr<f16>>) -> tensor<64x64x!tile.ptr<f16>>
    %31 = "tile.broadcast"(%29) : (tensor<1x64xi32>) -> tensor<64x64xi32>
    %32 = "tile.addptr"(%30, %31) : (tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>) -> tensor<64x64x!tile.ptr<f16>>
    %33 = "tile.load"(%32) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64x64x!tile.ptr<f16>>) -> tensor<64x64xf16>
    %34 = "tile.trans"(%33) {order = array<i32: 1, 0>} : (tensor<64x64xf16>) -> tensor<64x64xf16>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %35 = "tile.dot"(%11, %34, %cst_3) {input_precision = "ieee"} : (tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %36 = "tile.expand_dims"(%23) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
    %c64_i32_4 = arith.constant 64 : i32
    %37 = "tile.splat"(%c64_i32_4) : (i32) -> tensor<64x1xi32>
    %38 = arith.muli %36, %37 : tensor<64x1xi32>
    %39 = "tile.splat"(%arg2) : (!tile.ptr<f16>) -> tensor<64x1x!tile.ptr<f16>>
    %40 = "tile.addptr"(%39, %38) : (tensor<64x1x!tile.ptr<f16>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f16>>
    %41 = "tile.expand_dims"(%1) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
    %42 = "tile.broadcast"(%40) : (tensor<64x1x!tile.ptr<f16>>) -> tensor<64x64x!tile.ptr<f16>>
    %43 = "tile.broadcast"(%41) : (tensor<1x64xi32>) -> tensor<64x64xi32>
    %44 = "tile.addptr"(%42, %43) : (tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>) -> tensor<64x64x!tile.ptr<f16>>
    %45 = "tile.load"(%44) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64x64x!tile.ptr<f16>>) -> tensor<64x64xf16>
    %cst_5 = arith.constant 5.000000e-01 : f32
    %46 = "tile.splat"(%cst_5) : (f32) -> tensor<64x64xf32>
    %47 = arith.mulf %arg6, %46 : tensor<64x64xf32>
    %48 = arith.truncf %35 : tensor<64x64xf32> to tensor<64x64xf16>
    %cst_6 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %49 = "tile.dot"(%48, %45, %cst_6) {input_precision = "ieee"} : (tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %50 = arith.addf %47, %49 : tensor<64x64xf32>
    scf.yield %50 : tensor<64x64xf32>
  }
  %13 = "tile.expand_dims"(%0) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
  %c64_i32_1 = arith.constant 64 : i32
  %14 = "tile.splat"(%c64_i32_1) : (i32) -> tensor<64x1xi32>
  %15 = arith.muli %13, %14 : tensor<64x1xi32>
  %16 = "tile.splat"(%arg3) : (!tile.ptr<f32>) -> tensor<64x1x!tile.ptr<f32>>
  %17 = "tile.addptr"(%16, %15) : (tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f32>>
  %18 = "tile.expand_dims"(%1) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  %19 = "tile.broadcast"(%17) : (tensor<64x1x!tile.ptr<f32>>) -> tensor<64x64x!tile.ptr<f32>>
  %20 = "tile.broadcast"(%18) : (tensor<1x64xi32>) -> tensor<64x64xi32>
  %21 = "tile.addptr"(%19, %20) : (tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>) -> tensor<64x64x!tile.ptr<f32>>
  "tile.store"(%21, %12) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>) -> ()
  return
}
