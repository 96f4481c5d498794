// RUN: tilec-opt %s --split-input-file -p 'convert-tile-to-gpu{num-warps=4}' | FileCheck %s
// RUN: tilec-opt %s --split-input-file -p 'convert-tile-to-gpu{num-warps=4 vendor=amd warp-size=64}' | FileCheck %s --check-prefix=AMD

// A masked copy: 1024 f32 over 128 threads, 4 contiguous elements per thread and access, one mask
// bit per vector (n is divisible by 16).
// CHECK: gpu.module @tilec_kernels
// CHECK: gpu.func @copy(%arg0: !llvm.ptr<1> {llvm.align = 16 : i64}, %arg1: !llvm.ptr<1> {llvm.align = 16 : i64}, %arg2: i32) kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: gpu.thread_id x
// CHECK: gpu.block_id x
// CHECK: scf.if %{{.*}} -> (vector<4xf32>)
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: tile.
// AMD: known_block_size = array<i32: 256, 1, 1>
func.func @copy(%src: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %dst: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
  %c = arith.constant 1024 : i32
  %base = arith.muli %pid, %c : i32
  %r = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
  %b = "tile.splat"(%base) : (i32) -> tensor<1024xi32>
  %offs = arith.addi %b, %r : tensor<1024xi32>
  %ns = "tile.splat"(%n) : (i32) -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %ps = "tile.splat"(%src) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %p = "tile.addptr"(%ps, %offs) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %v = "tile.load"(%p, %mask) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi1>) -> tensor<1024xf32>
  %qs = "tile.splat"(%dst) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %q = "tile.addptr"(%qs, %offs) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  "tile.store"(%q, %v, %mask) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>, tensor<1024xi1>) -> ()
  return
}

// -----

// A sum over 1024 elements and 4 warps: in-thread adds, five butterfly shuffles, then the warps'
// partials through shared memory, one barrier between the writes and the reads (none is needed
// before the first use of shared memory). exp goes through the hardware's exp2.
// On NVIDIA shared memory is dynamic (sized at launch from tilec.shared_bytes); on AMD a static array.
// CHECK: llvm.mlir.global external @__tilec_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// AMD: llvm.mlir.global internal @__tilec_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<{{[1-9][0-9]*}} x i8>
// CHECK-LABEL: gpu.func @total
// CHECK-SAME: tilec.shared_bytes = {{[1-9][0-9]*}} : i32
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"
// AMD-LABEL: gpu.func @total
// AMD: llvm.call_intrinsic "llvm.amdgcn.exp2.f32"
func.func @total(%src: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
  %ps = "tile.splat"(%src) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %p = "tile.addptr"(%ps, %r) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %v = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1024x!tile.ptr<f32>>) -> tensor<1024xf32>
  %s = "tile.reduce"(%v) ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    gpu.yield %c : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1024xf32>) -> f32
  %e = math.exp %s : f32
  "tile.store"(%out, %e) {operandSegmentSizes = array<i32: 1, 1, 0>} : (!tile.ptr<f32>, f32) -> ()
  return
}

// -----

// Pointer casts: to another pointee type the pointer itself (the loads then read i32, still 16 bytes
// a thread: same element size, contiguity kept), to i64 a ptrtoint per element, back an inttoptr.
// CHECK-LABEL: gpu.func @pointer_casts
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
// CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
func.func @pointer_casts(%src: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<i32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = "tile.make_range"() {end = 512 : i32, start = 0 : i32} : () -> tensor<512xi32>
  %ps = "tile.splat"(%src) : (!tile.ptr<f32>) -> tensor<512x!tile.ptr<f32>>
  %p = "tile.addptr"(%ps, %r) : (tensor<512x!tile.ptr<f32>>, tensor<512xi32>) -> tensor<512x!tile.ptr<f32>>
  %w = "tile.ptr_cast"(%p) : (tensor<512x!tile.ptr<f32>>) -> tensor<512x!tile.ptr<i32>>
  %v = "tile.load"(%w) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<512x!tile.ptr<i32>>) -> tensor<512xi32>
  %os = "tile.splat"(%out) : (!tile.ptr<i32>) -> tensor<512x!tile.ptr<i32>>
  %o = "tile.addptr"(%os, %r) : (tensor<512x!tile.ptr<i32>>, tensor<512xi32>) -> tensor<512x!tile.ptr<i32>>
  "tile.store"(%o, %v) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<512x!tile.ptr<i32>>, tensor<512xi32>) -> ()
  %a = "tile.ptr_cast"(%src) : (!tile.ptr<f32>) -> i64
  %q = "tile.ptr_cast"(%a) : (i64) -> !tile.ptr<i32>
  %z = arith.constant 0 : i32
  "tile.store"(%q, %z) {operandSegmentSizes = array<i32: 1, 1, 0>} : (!tile.ptr<i32>, i32) -> ()
  return
}

// -----

// f32 -> f16 rounds two registers at a time: each pair of neighbours goes through one
// vector<2xf32> -> vector<2xf16> truncation (one packed cvt.rn.f16x2.f32 on NVIDIA), here 4 values
// per thread in 2 pairs; no scalar truncation is left.
// CHECK-LABEL: gpu.func @round_to_half
// CHECK-COUNT-2: arith.truncf %{{.*}} : vector<2xf32> to vector<2xf16>
// CHECK-NOT: arith.truncf
// CHECK: llvm.store %{{.*}} : vector<4xf16>, !llvm.ptr<1>
func.func @round_to_half(%src: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %dst: !tile.ptr<f16> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = "tile.make_range"() {end = 512 : i32, start = 0 : i32} : () -> tensor<512xi32>
  %ps = "tile.splat"(%src) : (!tile.ptr<f32>) -> tensor<512x!tile.ptr<f32>>
  %p = "tile.addptr"(%ps, %r) : (tensor<512x!tile.ptr<f32>>, tensor<512xi32>) -> tensor<512x!tile.ptr<f32>>
  %v = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<512x!tile.ptr<f32>>) -> tensor<512xf32>
  %h = arith.truncf %v : tensor<512xf32> to tensor<512xf16>
  %qs = "tile.splat"(%dst) : (!tile.ptr<f16>) -> tensor<512x!tile.ptr<f16>>
  %q = "tile.addptr"(%qs, %r) : (tensor<512x!tile.ptr<f16>>, tensor<512xi32>) -> tensor<512x!tile.ptr<f16>>
  "tile.store"(%q, %h) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<512x!tile.ptr<f16>>, tensor<512xf16>) -> ()
  return
}

// -----

// tl.gather: src written to shared memory once, a barrier, then each element read back at its row
// and the column its index gives (clamped to 0 outside src), 0 there.
// CHECK-LABEL: gpu.func @gather
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c16_i32{{.*}} : i32
// CHECK: arith.select %[[IN]], %{{.*}}, %c0_i32{{.*}} : i32
// CHECK: %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: arith.select %[[IN]], %[[V]], %cst{{.*}} : f32
func.func @gather(%src: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %idx: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
  %rows = "tile.expand_dims"(%r) {axis = 1 : i32} : (tensor<16xi32>) -> tensor<16x1xi32>
  %c16 = arith.constant 16 : i32
  %s16 = "tile.splat"(%c16) : (i32) -> tensor<16x1xi32>
  %row_start = arith.muli %rows, %s16 : tensor<16x1xi32>
  %cols = "tile.expand_dims"(%r) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
  %a = "tile.broadcast"(%row_start) : (tensor<16x1xi32>) -> tensor<16x16xi32>
  %b = "tile.broadcast"(%cols) : (tensor<1x16xi32>) -> tensor<16x16xi32>
  %offs = arith.addi %a, %b : tensor<16x16xi32>
  %ps = "tile.splat"(%src) : (!tile.ptr<f32>) -> tensor<16x16x!tile.ptr<f32>>
  %p = "tile.addptr"(%ps, %offs) : (tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f32>>
  %x = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x16x!tile.ptr<f32>>) -> tensor<16x16xf32>
  %is = "tile.splat"(%idx) : (!tile.ptr<i32>) -> tensor<16x16x!tile.ptr<i32>>
  %ip = "tile.addptr"(%is, %offs) : (tensor<16x16x!tile.ptr<i32>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<i32>>
  %i = "tile.load"(%ip) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x16x!tile.ptr<i32>>) -> tensor<16x16xi32>
  %g = "tile.gather"(%x, %i) {axis = 1 : i32} : (tensor<16x16xf32>, tensor<16x16xi32>) -> tensor<16x16xf32>
  %os = "tile.splat"(%out) : (!tile.ptr<f32>) -> tensor<16x16x!tile.ptr<f32>>
  %o = "tile.addptr"(%os, %offs) : (tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f32>>
  "tile.store"(%o, %g) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x16x!tile.ptr<f32>>, tensor<16x16xf32>) -> ()
  return
}

// -----

// tl.histogram: counters in shared memory zeroed by a loop over the bins (a thread every 128),
// a barrier, an atomic add per in-range element (negative values fail the unsigned compare), a
// barrier, then the counters read back.
// CHECK-LABEL: gpu.func @histogram
// CHECK: scf.for %{{.*}} = %{{.*}} to %c256_i32{{.*}} step %c128_i32
// CHECK: llvm.store %c0_i32{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %{{.*}}, %c256_i32{{.*}} : i32
// CHECK: llvm.atomicrmw add %{{.*}}, %c1_i32{{.*}} monotonic : !llvm.ptr<3>, i32
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
func.func @histogram(%src: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<i32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = "tile.make_range"() {end = 512 : i32, start = 0 : i32} : () -> tensor<512xi32>
  %ps = "tile.splat"(%src) : (!tile.ptr<i32>) -> tensor<512x!tile.ptr<i32>>
  %p = "tile.addptr"(%ps, %r) : (tensor<512x!tile.ptr<i32>>, tensor<512xi32>) -> tensor<512x!tile.ptr<i32>>
  %x = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<512x!tile.ptr<i32>>) -> tensor<512xi32>
  %h = "tile.histogram"(%x) {num_bins = 256 : i32, operandSegmentSizes = array<i32: 1, 0>} : (tensor<512xi32>) -> tensor<256xi32>
  %b = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32>
  %os = "tile.splat"(%out) : (!tile.ptr<i32>) -> tensor<256x!tile.ptr<i32>>
  %o = "tile.addptr"(%os, %b) : (tensor<256x!tile.ptr<i32>>, tensor<256xi32>) -> tensor<256x!tile.ptr<i32>>
  "tile.store"(%o, %h) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<256x!tile.ptr<i32>>, tensor<256xi32>) -> ()
  return
}
