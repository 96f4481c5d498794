// RUN: tilec-opt %s --split-input-file -p 'convert-tile-to-gpu{num-warps=1}' | FileCheck %s
// RUN: not tilec-opt %s --split-input-file -p 'convert-tile-to-gpu{num-warps=1 vendor=amd warp-size=64}' 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: tilec-opt %s --split-input-file -p 'convert-tile-to-gpu{num-warps=4 mma=1 wgmma=1}' | FileCheck %s --check-prefix=WGMMA

// device_print: one printf per element, by the thread that owns it (64 elements over 32 lanes: 2 each).
// CHECK-LABEL: gpu.func @print_tensor
// CHECK-COUNT-2: gpu.printf "pid (%d, %d, %d) idx (%d,) x=%f\0A"
// AMD: tl.device_print is not supported by the AMD lowering
func.func @print_tensor(%v: f32) attributes {tile.kernel} {
  %t = "tile.splat"(%v) : (f32) -> tensor<64xf32>
  "tile.print"(%t) {prefix = "x="} : (tensor<64xf32>) -> ()
  return
}

// -----

// device_assert: every element's condition and-ed per thread, then cf.assert with the message.
// CHECK-LABEL: gpu.func @assert_tensor
// CHECK: arith.andi
// CHECK: cf.assert %{{.*}}, "{{.*}}index out of range"
func.func @assert_tensor(%n: i32) attributes {tile.kernel} {
  %r = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %s = "tile.splat"(%n) : (i32) -> tensor<64xi32>
  %ok = arith.cmpi slt, %r, %s : tensor<64xi32>
  "tile.assert"(%ok) {message = "index out of range"} : (tensor<64xi1>) -> ()
  return
}

// -----

// With warpgroup MMAs an assertion is checked where its block ends (after the block's MMAs), not
// between two dots: Hopper gave wrong flash-attention results with one there (convert_tile_to_gpu.
// _assert_at_block_ends). Without them it stays in place.
// WGMMA-LABEL: gpu.func @assert_between_dots
// WGMMA: wgmma.mma_async
// WGMMA: wgmma.wait_group
// WGMMA: wgmma.mma_async
// WGMMA: wgmma.wait_group
// WGMMA: cf.assert %{{.*}}, "{{.*}}second operand in range"
// WGMMA-NEXT: scf.yield
// CHECK-LABEL: gpu.func @assert_between_dots
// CHECK: scf.for
// CHECK: cf.assert %{{.*}}, "{{.*}}second operand in range"
// CHECK: scf.for
// AMD: tl.device_assert is not supported by the AMD lowering
func.func @assert_between_dots(%x: f16, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = "tile.splat"(%x) : (f16) -> tensor<64x16xf16>
  %b = "tile.splat"(%x) : (f16) -> tensor<16x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
    %s = "tile.dot"(%a, %b, %z) : (tensor<64x16xf16>, tensor<16x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf16>
    %ps = "tile.reshape"(%p) : (tensor<64x64xf16>) -> tensor<64x64xf16>
    %ok = arith.cmpi slt, %i, %n : i32
    "tile.assert"(%ok) {message = "second operand in range"} : (i1) -> ()
    %v = "tile.splat"(%x) : (f16) -> tensor<64x64xf16>
    %o = "tile.dot"(%ps, %v, %acc) : (tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
    scf.yield %o : tensor<64x64xf32>
  }
  return
}
