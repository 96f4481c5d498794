// RUN: tilec-opt %s -p 'tile-canonicalize,tile-pipeline-loads{wgmma-depth=2 num-warps=4},tile-canonicalize,tile-hoist-loads,convert-tile-to-gpu{num-warps=4 mma=1 wgmma=1 tma=1}' | FileCheck %s

// convert-tile-to-gpu-tma.mlir's matmul with its loads' blocks in arrays made of the kernel's
// arguments (a block pointer or tl.make_tensor_descriptor: dialects/kernel_arrays.py) instead of
// descriptor arguments: the same tensor copies, and the maps the launcher encodes name the
// arguments each part comes from; A's rows are computed (mul.i32: the launcher multiplies and
// wraps to 32 bits as the kernel does), B's columns a constant.
// CHECK-LABEL: gpu.func @matmul
// CHECK-SAME: tilec.tensor_map_params = array<i32: 10, 11>
// CHECK-SAME: tilec.tensor_maps = "[{\22descriptor\22: \22array base=a_desc.base rows=mul.i32(a_desc.shape[0],2)
// CHECK-SAME: \22base\22: 0, \22rows\22: {\22op\22: \22mul\22, \22bits\22: 32, \22args\22: {{\[}}[\22arg\22, 1], [\22const\22, 2]]}, \22cols\22: [\22arg\22, 2], \22row_stride\22: [\22arg\22, 3]
// CHECK-SAME: \22base\22: 4, \22rows\22: [\22arg\22, 5], \22cols\22: [\22const\22, 64], \22row_stride\22: [\22arg\22, 7]
// CHECK-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
module {
  func.func @matmul(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "a_desc.base"}, %arg1: i32 {tile.divisibility = 16 : i32, tile.name = "a_desc.shape[0]"}, %arg2: i32 {tile.divisibility = 16 : i32, tile.name = "a_desc.shape[1]"}, %arg3: i32 {tile.divisibility = 16 : i32, tile.name = "a_desc.strides[0]"}, %arg4: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "b_desc.base"}, %arg5: i32 {tile.divisibility = 16 : i32, tile.name = "b_desc.shape[0]"}, %arg6: i32 {tile.divisibility = 16 : i32, tile.name = "b_desc.shape[1]"}, %arg7: i32 {tile.divisibility = 16 : i32, tile.name = "b_desc.strides[0]"}, %arg8: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "c_ptr"}, %arg9: i32 {tile.divisibility = 16 : i32, tile.name = "stride_cm"}) attributes {tile.kernel} {
    %0 = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %c128_i32 = arith.constant 128 : i32
    %1 = arith.muli %0, %c128_i32 : i32
    %2 = "tile.program_id"() {axis = 1 : i32} : () -> i32
    %c64_i32 = arith.constant 64 : i32
    %3 = arith.muli %2, %c64_i32 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %c64_i32_0 = arith.constant 64 : i32
    %4 = arith.addi %arg2, %c64_i32_0 : i32
    %c1_i32 = arith.constant 1 : i32
    %5 = arith.subi %4, %c1_i32 : i32
    %c64_i32_1 = arith.constant 64 : i32
    %6 = arith.divsi %5, %c64_i32_1 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32_2 = arith.constant 1 : i32
    %7 = scf.for %arg10 = %c0_i32 to %6 step %c1_i32_2 iter_args(%arg11 = %cst) -> (tensor<128x64xf32>)  : i32 {
      %c64_i32_3 = arith.constant 64 : i32
      %23 = arith.muli %arg10, %c64_i32_3 : i32
      %24 = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
      %25 = "tile.splat"(%1) : (i32) -> tensor<128xi32>
      %26 = arith.addi %25, %24 : tensor<128xi32>
      %27 = "tile.expand_dims"(%26) {axis = 1 : i32} : (tensor<128xi32>) -> tensor<128x1xi32>
      %28 = "tile.splat"(%arg3) : (i32) -> tensor<128x1xi32>
      %29 = arith.muli %27, %28 : tensor<128x1xi32>
      %30 = "tile.splat"(%arg0) : (!tile.ptr<f16>) -> tensor<128x1x!tile.ptr<f16>>
      %31 = "tile.addptr"(%30, %29) : (tensor<128x1x!tile.ptr<f16>>, tensor<128x1xi32>) -> tensor<128x1x!tile.ptr<f16>>
      %32 = "tile.splat"(%arg1) : (i32) -> tensor<128x1xi32>
      %33 = arith.cmpi slt, %27, %32 : tensor<128x1xi32>
      %c0_i32_4 = arith.constant 0 : i32
      %34 = "tile.splat"(%c0_i32_4) : (i32) -> tensor<128x1xi32>
      %35 = arith.cmpi sge, %27, %34 : tensor<128x1xi32>
      %36 = arith.andi %33, %35 : tensor<128x1xi1>
      %37 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
      %38 = "tile.splat"(%23) : (i32) -> tensor<64xi32>
      %39 = arith.addi %38, %37 : tensor<64xi32>
      %40 = "tile.expand_dims"(%39) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
      %41 = "tile.broadcast"(%31) : (tensor<128x1x!tile.ptr<f16>>) -> tensor<128x64x!tile.ptr<f16>>
      %42 = "tile.broadcast"(%40) : (tensor<1x64xi32>) -> tensor<128x64xi32>
      %43 = "tile.addptr"(%41, %42) : (tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>) -> tensor<128x64x!tile.ptr<f16>>
      %44 = "tile.splat"(%arg2) : (i32) -> tensor<1x64xi32>
      %45 = arith.cmpi slt, %40, %44 : tensor<1x64xi32>
      %c0_i32_5 = arith.constant 0 : i32
      %46 = "tile.splat"(%c0_i32_5) : (i32) -> tensor<1x64xi32>
      %47 = arith.cmpi sge, %40, %46 : tensor<1x64xi32>
      %48 = arith.andi %45, %47 : tensor<1x64xi1>
      %49 = "tile.broadcast"(%36) : (tensor<128x1xi1>) -> tensor<128x64xi1>
      %50 = "tile.broadcast"(%48) : (tensor<1x64xi1>) -> tensor<128x64xi1>
      %51 = arith.andi %49, %50 : tensor<128x64xi1>
      %cst_6 = arith.constant 0.000000e+00 : f16
      %52 = "tile.splat"(%cst_6) : (f16) -> tensor<128x64xf16>
      %53 = "tile.load"(%43, %51, %52, %1, %23) {descriptor = "array base=a_desc.base rows=mul.i32(a_desc.shape[0],2) cols=a_desc.shape[1] row_stride=a_desc.strides[0]", operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi1>, tensor<128x64xf16>, i32, i32) -> tensor<128x64xf16>
      %c64_i32_7 = arith.constant 64 : i32
      %54 = arith.muli %arg10, %c64_i32_7 : i32
      %55 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
      %56 = "tile.splat"(%54) : (i32) -> tensor<64xi32>
      %57 = arith.addi %56, %55 : tensor<64xi32>
      %58 = "tile.expand_dims"(%57) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
      %59 = "tile.splat"(%arg7) : (i32) -> tensor<64x1xi32>
      %60 = arith.muli %58, %59 : tensor<64x1xi32>
      %61 = "tile.splat"(%arg4) : (!tile.ptr<f16>) -> tensor<64x1x!tile.ptr<f16>>
      %62 = "tile.addptr"(%61, %60) : (tensor<64x1x!tile.ptr<f16>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f16>>
      %63 = "tile.splat"(%arg5) : (i32) -> tensor<64x1xi32>
      %64 = arith.cmpi slt, %58, %63 : tensor<64x1xi32>
      %c0_i32_8 = arith.constant 0 : i32
      %65 = "tile.splat"(%c0_i32_8) : (i32) -> tensor<64x1xi32>
      %66 = arith.cmpi sge, %58, %65 : tensor<64x1xi32>
      %67 = arith.andi %64, %66 : tensor<64x1xi1>
      %68 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
      %69 = "tile.splat"(%3) : (i32) -> tensor<64xi32>
      %70 = arith.addi %69, %68 : tensor<64xi32>
      %71 = "tile.expand_dims"(%70) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
      %72 = "tile.broadcast"(%62) : (tensor<64x1x!tile.ptr<f16>>) -> tensor<64x64x!tile.ptr<f16>>
      %73 = "tile.broadcast"(%71) : (tensor<1x64xi32>) -> tensor<64x64xi32>
      %74 = "tile.addptr"(%72, %73) : (tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>) -> tensor<64x64x!tile.ptr<f16>>
      %75 = "tile.splat"(%arg6) : (i32) -> tensor<1x64xi32>
      %76 = arith.cmpi slt, %71, %75 : tensor<1x64xi32>
      %c0_i32_9 = arith.constant 0 : i32
      %77 = "tile.splat"(%c0_i32_9) : (i32) -> tensor<1x64xi32>
      %78 = arith.cmpi sge, %71, %77 : tensor<1x64xi32>
      %79 = arith.andi %76, %78 : tensor<1x64xi1>
      %80 = "tile.broadcast"(%67) : (tensor<64x1xi1>) -> tensor<64x64xi1>
      %81 = "tile.broadcast"(%79) : (tensor<1x64xi1>) -> tensor<64x64xi1>
      %82 = arith.andi %80, %81 : tensor<64x64xi1>
      %cst_10 = arith.constant 0.000000e+00 : f16
      %83 = "tile.splat"(%cst_10) : (f16) -> tensor<64x64xf16>
      %84 = "tile.load"(%74, %82, %83, %54, %3) {descriptor = "array base=b_desc.base rows=b_desc.shape[0] cols=64 row_stride=b_desc.strides[0]", operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi1>, tensor<64x64xf16>, i32, i32) -> tensor<64x64xf16>
      %85 = "tile.dot"(%53, %84, %arg11) {input_precision = "ieee"} : (tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
      scf.yield %85 : tensor<128x64xf32>
    }
    %8 = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
    %9 = "tile.splat"(%1) : (i32) -> tensor<128xi32>
    %10 = arith.addi %9, %8 : tensor<128xi32>
    %11 = "tile.expand_dims"(%10) {axis = 1 : i32} : (tensor<128xi32>) -> tensor<128x1xi32>
    %12 = "tile.splat"(%arg9) : (i32) -> tensor<128x1xi32>
    %13 = arith.muli %11, %12 : tensor<128x1xi32>
    %14 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
    %15 = "tile.splat"(%3) : (i32) -> tensor<64xi32>
    %16 = arith.addi %15, %14 : tensor<64xi32>
    %17 = "tile.expand_dims"(%16) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
    %18 = "tile.broadcast"(%13) : (tensor<128x1xi32>) -> tensor<128x64xi32>
    %19 = "tile.broadcast"(%17) : (tensor<1x64xi32>) -> tensor<128x64xi32>
    %20 = arith.addi %18, %19 : tensor<128x64xi32>
    %21 = "tile.splat"(%arg8) : (!tile.ptr<f32>) -> tensor<128x64x!tile.ptr<f32>>
    %22 = "tile.addptr"(%21, %20) : (tensor<128x64x!tile.ptr<f32>>, tensor<128x64xi32>) -> tensor<128x64x!tile.ptr<f32>>
    "tile.store"(%22, %7) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<128x64x!tile.ptr<f32>>, tensor<128x64xf32>) -> ()
    return
  }
}
