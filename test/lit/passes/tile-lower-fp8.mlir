// RUN: tilec-opt %s --split-input-file -p tile-lower-fp8 | FileCheck %s
// RUN: tilec-opt %s --split-input-file -p 'tile-lower-fp8{wgmma=1 num-warps=4}' | FileCheck %s --check-prefix=KEEP

// A conversion to fp8 is integer code on the fp32 bits, saturating at 448 (0x43E00000); the stored
// tensor and its pointers become bytes.
// CHECK-LABEL: func.func @store_fp8(%arg0: tensor<128x!tile.ptr<i8>>, %arg1: tensor<128xf32>)
// CHECK: arith.bitcast %arg1 : tensor<128xf32> to tensor<128xi32>
// CHECK: arith.constant dense<1138753536> : tensor<128xi32>
// CHECK: arith.minui
// CHECK: %[[B:.*]] = arith.trunci {{.*}} : tensor<128xi32> to tensor<128xi8>
// CHECK: "tile.store"(%arg0, %[[B]]) {{.*}} : (tensor<128x!tile.ptr<i8>>, tensor<128xi8>) -> ()
// CHECK-NOT: f8E4M3FN
func.func @store_fp8(%p: tensor<128x!tile.ptr<f8E4M3FN>>, %x: tensor<128xf32>) {
  %y = arith.truncf %x : tensor<128xf32> to tensor<128xf8E4M3FN>
  "tile.store"(%p, %y) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<128x!tile.ptr<f8E4M3FN>>, tensor<128xf8E4M3FN>) -> ()
  return
}

// -----

// Arithmetic on fp8 computes in fp32; constants become their byte (1.0 in e5m2 is 0x3C).
// CHECK-LABEL: func.func @arith_fp8(%arg0: tensor<64xi8>, %arg1: tensor<64xi8>) -> (tensor<64xi8>, tensor<64xi1>)
// CHECK: arith.constant dense<60> : tensor<64xi8>
// CHECK: arith.addf {{.*}} : tensor<64xf32>
// CHECK: arith.mulf {{.*}} : tensor<64xf32>
// CHECK: arith.cmpf olt, {{.*}} : tensor<64xf32>
// CHECK: return {{.*}} : tensor<64xi8>, tensor<64xi1>
func.func @arith_fp8(%a: tensor<64xf8E5M2>, %b: tensor<64xf8E5M2>) -> (tensor<64xf8E5M2>, tensor<64xi1>) {
  %c = arith.constant dense<1.0> : tensor<64xf8E5M2>
  %s = arith.addf %a, %b : tensor<64xf8E5M2>
  %t = arith.mulf %s, %c : tensor<64xf8E5M2>
  %l = arith.cmpf olt, %a, %b : tensor<64xf8E5M2>
  return %t, %l : tensor<64xf8E5M2>, tensor<64xi1>
}

// -----

// Loop-carried fp8 values are bytes too.
// CHECK-LABEL: func.func @loop_fp8
// CHECK: scf.for {{.*}} iter_args({{.*}} = %arg0) -> (tensor<16xi8>)
func.func @loop_fp8(%x: tensor<16xf8E4M3FN>, %n: index) -> tensor<16xf8E4M3FN> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %x) -> (tensor<16xf8E4M3FN>) {
    scf.yield %v : tensor<16xf8E4M3FN>
  }
  return %r : tensor<16xf8E4M3FN>
}

// -----

// Without fp8 tensor cores a dot reads its fp8 operands as fp16 (exact). With wgmma=1 a dot that
// warpgroup MMA takes keeps them: bytes seen as fp8 right before the dot.
// CHECK-LABEL: func.func @dot_fp8
// CHECK: "tile.dot"({{.*}}) : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
// KEEP-LABEL: func.func @dot_fp8(%arg0: tensor<64x32xi8>, %arg1: tensor<32x64xi8>
// KEEP-NEXT: %[[A:.*]] = arith.bitcast %arg0 : tensor<64x32xi8> to tensor<64x32xf8E4M3FN>
// KEEP-NEXT: %[[B:.*]] = arith.bitcast %arg1 : tensor<32x64xi8> to tensor<32x64xf8E5M2>
// KEEP-NEXT: "tile.dot"(%[[A]], %[[B]], %arg2)
func.func @dot_fp8(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E5M2>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %d = "tile.dot"(%a, %b, %c) : (tensor<64x32xf8E4M3FN>, tensor<32x64xf8E5M2>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

// 32 rows are not whole 64-row instructions for 4 warps: the dot is not kept even with wgmma=1.
// KEEP-LABEL: func.func @dot_fp8_small
// KEEP: "tile.dot"({{.*}}) : (tensor<32x32xf16>, tensor<32x64xf16>, tensor<32x64xf32>)
func.func @dot_fp8_small(%a: tensor<32x32xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %d = "tile.dot"(%a, %b, %c) : (tensor<32x32xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<32x64xf32>) -> tensor<32x64xf32>
  return %d : tensor<32x64xf32>
}

// -----

// AMD's FNUZ e4m3 saturates at 240 (0x43700000); NaN becomes 0x80 (-128) and a zero loses its sign
// (there is no -0); decoding maps 0x80 to NaN. No fp8 tensor cores take it: a dot reads fp16.
// CHECK-LABEL: func.func @fnuz
// CHECK: arith.constant dense<1131413504> : tensor<64xi32>
// CHECK: arith.minui
// CHECK: arith.constant dense<128> : tensor<64xi32>
// CHECK: arith.trunci {{.*}} : tensor<64xi32> to tensor<64xi8>
// CHECK: arith.constant dense<2143289344> : tensor<64xi32>
// KEEP-LABEL: func.func @fnuz
// KEEP: "tile.dot"({{.*}}){{.*}}: (tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK-NOT: f8E4M3FNUZ
func.func @fnuz(%x: tensor<64xf32>, %a: tensor<64x64xf8E4M3FNUZ>, %b: tensor<64x64xf8E4M3FNUZ>) -> (tensor<64xf8E4M3FNUZ>, tensor<64xf32>, tensor<64x64xf32>) {
  %y = arith.truncf %x : tensor<64xf32> to tensor<64xf8E4M3FNUZ>
  %z = arith.extf %y : tensor<64xf8E4M3FNUZ> to tensor<64xf32>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = "tile.dot"(%a, %b, %acc) : (tensor<64x64xf8E4M3FNUZ>, tensor<64x64xf8E4M3FNUZ>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y, %z, %d : tensor<64xf8E4M3FNUZ>, tensor<64xf32>, tensor<64x64xf32>
}
