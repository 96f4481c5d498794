// RUN: tilec-opt %s --split-input-file -p 'convert-tile-to-gpu{num-warps=4 mma=1 wgmma=1}' | FileCheck %s
// RUN: tilec-opt %s --split-input-file -p 'convert-tile-to-gpu{num-warps=2 mma=1 wgmma=1}' | FileCheck %s --check-prefix=TWO

// fp16 [64x32] @ [32x64] + fp32 on one warpgroup: A and B stored to shared memory, made visible to
// the async proxy, one m64n64k16 instruction per 16-deep k-step, then a wait for all of them.
// CHECK-LABEL: gpu.func @dot_f16
// CHECK: llvm.inline_asm has_side_effects "fence.proxy.async.shared::cta;"
// CHECK-NEXT: gpu.barrier
// CHECK: "wgmma.fence.sync.aligned;"
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: "wgmma.commit_group.sync.aligned;"
// CHECK: "wgmma.wait_group.sync.aligned 0;{{( // drain loop [0-9]+)?}}"
// TWO-LABEL: gpu.func @dot_f16
// TWO-NOT: wgmma
// TWO: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
func.func @dot_f16(%x: f16, %y: f16) attributes {tile.kernel} {
  %a = "tile.splat"(%x) : (f16) -> tensor<64x32xf16>
  %b = "tile.splat"(%y) : (f16) -> tensor<32x64xf16>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = "tile.dot"(%a, %b, %c) : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return
}

// -----

// acc = dot(a, b, acc) in a loop: the MMA stays in flight into the next iteration (wait_group 1,
// three buffers selected by the iteration number), and the loop's result is waited for after it.
// CHECK-LABEL: gpu.func @dot_loop
// CHECK: scf.for
// CHECK: arith.remui %{{.*}}, %c3_i32
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// CHECK: scf.yield
// CHECK: "wgmma.wait_group.sync.aligned 0;{{( // drain loop [0-9]+)?}}"
// CHECK-NEXT: llvm.extractvalue
func.func @dot_loop(%x: bf16, %y: bf16, %n: i32) attributes {tile.kernel} {
  %a = "tile.splat"(%x) : (bf16) -> tensor<64x16xbf16>
  %b = "tile.splat"(%y) : (bf16) -> tensor<16x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %zero) -> (tensor<64x128xf32>) : i32 {
    %d = "tile.dot"(%a, %b, %c) : (tensor<64x16xbf16>, tensor<16x128xbf16>, tensor<64x128xf32>) -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  return
}

// -----

// Two dots per iteration that do not accumulate across the loop (attention's): the first reads A,
// defined before the loop, and the second reads A, the first's accumulator converted to f16, as
// register fragments (four 32-bit registers where a descriptor would be). Each stages its B in a
// buffer of its own, written with no barrier before it: the other dot's barrier already separates
// one iteration's MMA from the next iteration's stores.
// CHECK-LABEL: gpu.func @two_dots
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store
// CHECK: "fence.proxy.async.shared::cta;"
// CHECK-NEXT: gpu.barrier
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;
// CHECK: "wgmma.wait_group.sync.aligned 0;{{( // drain loop [0-9]+)?}}"
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store
// CHECK: "fence.proxy.async.shared::cta;"
// CHECK-NEXT: gpu.barrier
// CHECK: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {{.*}}, {$16, $17, $18, $19}, $20, p, 1, 1, 1;
// CHECK: "wgmma.wait_group.sync.aligned 0;{{( // drain loop [0-9]+)?}}"
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
func.func @two_dots(%x: f16, %y: f16, %n: i32) attributes {tile.kernel} {
  %q = "tile.splat"(%x) : (f16) -> tensor<64x32xf16>
  %zero = arith.constant dense<0.0> : tensor<64x32xf32>
  %zs = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %zero) -> (tensor<64x32xf32>) : i32 {
    %k = "tile.splat"(%y) : (f16) -> tensor<32x64xf16>
    %s = "tile.dot"(%q, %k, %zs) : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf16>
    %v = "tile.splat"(%y) : (f16) -> tensor<64x32xf16>
    %scaled = arith.mulf %c, %c : tensor<64x32xf32>
    %d = "tile.dot"(%p, %v, %scaled) : (tensor<64x64xf16>, tensor<64x32xf16>, tensor<64x32xf32>) -> tensor<64x32xf32>
    scf.yield %d : tensor<64x32xf32>
  }
  return
}

// -----

// The accumulator stored (as fp16) to rows of a 16-aligned C: the four lanes of a row swap their
// 2-element fragments (two butterfly steps, shfl xor 1 and 2) and each stores 8 consecutive
// elements at once; 64x64 over 4 warps leaves 32 per thread, in 4 stores.
// CHECK-LABEL: gpu.func @store_accumulator
// CHECK: wgmma.mma_async
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<1>
// CHECK-NOT: llvm.store
func.func @store_accumulator(%x: f16, %y: f16, %c: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %ldc: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %a = "tile.splat"(%x) : (f16) -> tensor<64x32xf16>
  %b = "tile.splat"(%y) : (f16) -> tensor<32x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = "tile.dot"(%a, %b, %zero) : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %h = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xf16>
  %r = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %rows = "tile.expand_dims"(%r) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
  %ld = "tile.splat"(%ldc) : (i32) -> tensor<64x1xi32>
  %row_offs = arith.muli %rows, %ld : tensor<64x1xi32>
  %row_b = "tile.broadcast"(%row_offs) : (tensor<64x1xi32>) -> tensor<64x64xi32>
  %cols = "tile.expand_dims"(%r) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  %col_b = "tile.broadcast"(%cols) : (tensor<1x64xi32>) -> tensor<64x64xi32>
  %offs = arith.addi %row_b, %col_b : tensor<64x64xi32>
  %base = "tile.splat"(%c) : (!tile.ptr<f16>) -> tensor<64x64x!tile.ptr<f16>>
  %p = "tile.addptr"(%base, %offs) : (tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>) -> tensor<64x64x!tile.ptr<f16>>
  "tile.store"(%p, %h) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x64x!tile.ptr<f16>>, tensor<64x64xf16>) -> ()
  return
}

// -----

// fp32 with input_precision "tf32": m64nNk8 instructions (32 bytes of K each), A and B K-major (the
// tf32 form has no transpose immediates: a row-major B is stored transposed); "tf32x3" stays on
// mma.sync, whose operands are split into high and low parts in registers.
// CHECK-LABEL: gpu.func @dot_tf32
// CHECK: "wgmma.fence.sync.aligned;"
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{.*}}, p, 1, 1; }
// CHECK: "wgmma.wait_group.sync.aligned 0;{{( // drain loop [0-9]+)?}}"
// CHECK-NOT: wgmma.mma_async
// CHECK: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// TWO-LABEL: gpu.func @dot_tf32
// TWO-NOT: wgmma
// TWO: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
func.func @dot_tf32(%x: f32, %y: f32) attributes {tile.kernel} {
  %a = "tile.splat"(%x) : (f32) -> tensor<64x32xf32>
  %b = "tile.splat"(%y) : (f32) -> tensor<32x64xf32>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = "tile.dot"(%a, %b, %c) {input_precision = "tf32"} : (tensor<64x32xf32>, tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %e = "tile.dot"(%a, %b, %c) {input_precision = "tf32x3"} : (tensor<64x32xf32>, tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return
}
