// RUN: tilec-opt %s --split-input-file -p 'convert-tile-to-gpu{num-warps=1}' | FileCheck %s
// RUN: not tilec-opt %s --split-input-file -p 'convert-tile-to-gpu{num-warps=1 vendor=amd warp-size=64}' 2>&1 | FileCheck %s --check-prefix=AMD

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
