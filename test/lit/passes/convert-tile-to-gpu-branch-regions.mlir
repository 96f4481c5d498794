// RUN: tilec-opt %s -p 'tile-pipeline-loads{wgmma-depth=2 num-warps=4},tile-canonicalize,convert-tile-to-gpu{num-warps=4 mma=1 wgmma=1 tma=1}' | FileCheck %s

// The two copies of a matmul's body that tile-pointer-tensor-copies makes (input: its output for
// the first case of tile-pointer-tensor-copies.mlir): the then-branch's loop streams A and B by
// tensor copies into a ring of four buffers (4 x (64x16 + 16x16) fp16 = 10 KiB, and its
// mbarriers), the else-branch's loop stages them from registers in its own buffers. The branches
// never run together, so their shared-memory regions overlap: the kernel takes 13 KiB, not the
// 22 KiB of both regions side by side. Each branch ends with a PTX comment naming the loop it
// drained, so that LLVM cannot merge the two copies' epilogues after the branches (ptxas then
// serialized the MMAs of the first copy: C7514).
// CHECK: gpu.func @mm
// CHECK-SAME: tilec.shared_bytes = 13312
// CHECK: scf.if
// CHECK-COUNT-2: cp.async.bulk.tensor.2d
// CHECK: "wgmma.wait_group.sync.aligned 0; // drain loop 1"
// CHECK: llvm.inline_asm has_side_effects "// end of the branch of drained loop 1"
// CHECK-NEXT: } else {
// CHECK-NOT: cp.async.bulk.tensor
// CHECK: "wgmma.wait_group.sync.aligned 0; // drain loop 2"
// CHECK: llvm.inline_asm has_side_effects "// end of the branch of drained loop 2"
// CHECK-NEXT: }
// CHECK: gpu.return
module {
  func.func @mm(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "a_ptr"}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "b_ptr"}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "c_ptr"}, %arg3: i32 {tile.name = "M"}, %arg4: i32 {tile.name = "N"}, %arg5: i32 {tile.name = "K"}, %arg6: i32 {tile.divisibility = 16 : i32, tile.name = "stride_am"}) attributes {tile.kernel} {
    %0 = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %c64_i32 = arith.constant 64 : i32
    %1 = arith.muli %0, %c64_i32 : i32
    %2 = arith.extsi %1 : i32 to i64
    %c0_i64 = arith.constant 0 : i64
    %c63_i64 = arith.constant 63 : i64
    %3 = arith.addi %2, %c0_i64 : i64
    %4 = arith.addi %2, %c63_i64 : i64
    %5 = arith.extsi %arg3 : i32 to i64
    %c0_i64_0 = arith.constant 0 : i64
    %6 = arith.cmpi sge, %3, %c0_i64_0 : i64
    %7 = arith.cmpi slt, %4, %5 : i64
    %8 = arith.andi %6, %7 : i1
    %c1_i32 = arith.constant 1 : i32
    %9 = arith.cmpi sge, %arg3, %c1_i32 : i32
    %c1_i32_1 = arith.constant 1 : i32
    %10 = arith.cmpi sge, %arg5, %c1_i32_1 : i32
    %c1_i32_2 = arith.constant 1 : i32
    %11 = arith.cmpi sge, %arg4, %c1_i32_2 : i32
    %12 = arith.andi %8, %9 : i1
    %13 = arith.andi %12, %10 : i1
    %14 = arith.andi %13, %11 : i1
    scf.if %14 {
      %15 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
      %16 = "tile.splat"(%1) : (i32) -> tensor<64xi32>
      %17 = arith.addi %16, %15 : tensor<64xi32>
      %18 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
      %19 = "tile.expand_dims"(%17) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
      %20 = "tile.splat"(%arg6) : (i32) -> tensor<64x1xi32>
      %21 = arith.muli %19, %20 : tensor<64x1xi32>
      %22 = "tile.splat"(%arg0) : (!tile.ptr<f16>) -> tensor<64x1x!tile.ptr<f16>>
      %23 = "tile.addptr"(%22, %21) : (tensor<64x1x!tile.ptr<f16>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f16>>
      %24 = "tile.expand_dims"(%18) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
      %25 = "tile.broadcast"(%23) : (tensor<64x1x!tile.ptr<f16>>) -> tensor<64x16x!tile.ptr<f16>>
      %26 = "tile.broadcast"(%24) : (tensor<1x16xi32>) -> tensor<64x16xi32>
      %27 = "tile.addptr"(%25, %26) : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f16>>
      %28 = "tile.expand_dims"(%18) {axis = 1 : i32} : (tensor<16xi32>) -> tensor<16x1xi32>
      %c16_i32 = arith.constant 16 : i32
      %cst = arith.constant dense<16> : tensor<16x1xi32>
      %29 = arith.muli %28, %cst : tensor<16x1xi32>
      %30 = "tile.splat"(%arg1) : (!tile.ptr<f16>) -> tensor<16x1x!tile.ptr<f16>>
      %31 = "tile.addptr"(%30, %29) : (tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>) -> tensor<16x1x!tile.ptr<f16>>
      %32 = "tile.broadcast"(%31) : (tensor<16x1x!tile.ptr<f16>>) -> tensor<16x16x!tile.ptr<f16>>
      %33 = "tile.broadcast"(%24) : (tensor<1x16xi32>) -> tensor<16x16xi32>
      %34 = "tile.addptr"(%32, %33) : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f16>>
      %cst_3 = arith.constant dense<0.000000e+00> : tensor<64x16xf32>
      %c16_i32_4 = arith.constant 16 : i32
      %35 = arith.addi %arg5, %c16_i32_4 : i32
      %c1_i32_5 = arith.constant 1 : i32
      %36 = arith.subi %35, %c1_i32_5 : i32
      %c16_i32_6 = arith.constant 16 : i32
      %37 = arith.divsi %36, %c16_i32_6 : i32
      %c0_i32 = arith.constant 0 : i32
      %c1_i32_7 = arith.constant 1 : i32
      %38:3 = scf.for %arg7 = %c0_i32 to %37 step %c1_i32_7 iter_args(%arg8 = %cst_3, %arg9 = %27, %arg10 = %34) -> (tensor<64x16xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x16x!tile.ptr<f16>>)  : i32 {
        %48 = "tile.expand_dims"(%18) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
        %c16_i32_12 = arith.constant 16 : i32
        %49 = arith.muli %arg7, %c16_i32_12 : i32
        %50 = arith.subi %arg5, %49 : i32
        %51 = "tile.splat"(%50) : (i32) -> tensor<1x16xi32>
        %52 = arith.cmpi slt, %48, %51 : tensor<1x16xi32>
        %53 = "tile.broadcast"(%52) : (tensor<1x16xi1>) -> tensor<64x16xi1>
        %cst_13 = arith.constant 0.000000e+00 : f16
        %cst_14 = arith.constant dense<0.000000e+00> : tensor<64x16xf16>
        %c64_i32_15 = arith.constant 64 : i32
        %54 = arith.muli %0, %c64_i32_15 : i32
        %c16_i32_16 = arith.constant 16 : i32
        %55 = arith.muli %arg7, %c16_i32_16 : i32
        %56 = "tile.load"(%arg9, %53, %cst_14, %54, %55) {descriptor = "array base=a_ptr rows=M cols=K row_stride=stride_am", operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi1>, tensor<64x16xf16>, i32, i32) -> tensor<64x16xf16>
        %57 = "tile.expand_dims"(%18) {axis = 1 : i32} : (tensor<16xi32>) -> tensor<16x1xi32>
        %c16_i32_17 = arith.constant 16 : i32
        %58 = arith.muli %arg7, %c16_i32_17 : i32
        %59 = arith.subi %arg5, %58 : i32
        %60 = "tile.splat"(%59) : (i32) -> tensor<16x1xi32>
        %61 = arith.cmpi slt, %57, %60 : tensor<16x1xi32>
        %62 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
        %63 = "tile.expand_dims"(%62) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
        %64 = "tile.splat"(%arg4) : (i32) -> tensor<1x16xi32>
        %65 = arith.cmpi slt, %63, %64 : tensor<1x16xi32>
        %66 = "tile.broadcast"(%61) : (tensor<16x1xi1>) -> tensor<16x16xi1>
        %67 = "tile.broadcast"(%65) : (tensor<1x16xi1>) -> tensor<16x16xi1>
        %68 = arith.andi %66, %67 : tensor<16x16xi1>
        %cst_18 = arith.constant 0.000000e+00 : f16
        %cst_19 = arith.constant dense<0.000000e+00> : tensor<16x16xf16>
        %c16_i32_20 = arith.constant 16 : i32
        %69 = arith.muli %arg7, %c16_i32_20 : i32
        %c0_i32_21 = arith.constant 0 : i32
        %70 = "tile.load"(%arg10, %68, %cst_19, %69, %c0_i32_21) {descriptor = "array base=b_ptr rows=K cols=N row_stride=16", operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi1>, tensor<16x16xf16>, i32, i32) -> tensor<16x16xf16>
        %71 = "tile.dot"(%56, %70, %arg8) {input_precision = "ieee"} : (tensor<64x16xf16>, tensor<16x16xf16>, tensor<64x16xf32>) -> tensor<64x16xf32>
        %c16_i32_22 = arith.constant 16 : i32
        %cst_23 = arith.constant dense<16> : tensor<64x16xi32>
        %72 = "tile.addptr"(%arg9, %cst_23) : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f16>>
        %c256_i32 = arith.constant 256 : i32
        %cst_24 = arith.constant dense<256> : tensor<16x16xi32>
        %73 = "tile.addptr"(%arg10, %cst_24) : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f16>>
        scf.yield %71, %72, %73 : tensor<64x16xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x16x!tile.ptr<f16>>
      }
      %c64_i32_8 = arith.constant 64 : i32
      %39 = arith.muli %0, %c64_i32_8 : i32
      %c16_i32_9 = arith.constant 16 : i32
      %40 = arith.muli %39, %c16_i32_9 : i32
      %41 = "tile.addptr"(%arg2, %40) : (!tile.ptr<f32>, i32) -> !tile.ptr<f32>
      %42 = "tile.expand_dims"(%15) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
      %c16_i32_10 = arith.constant 16 : i32
      %cst_11 = arith.constant dense<16> : tensor<64x1xi32>
      %43 = arith.muli %42, %cst_11 : tensor<64x1xi32>
      %44 = "tile.splat"(%41) : (!tile.ptr<f32>) -> tensor<64x1x!tile.ptr<f32>>
      %45 = "tile.addptr"(%44, %43) : (tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f32>>
      %46 = "tile.broadcast"(%45) : (tensor<64x1x!tile.ptr<f32>>) -> tensor<64x16x!tile.ptr<f32>>
      %47 = "tile.addptr"(%46, %26) : (tensor<64x16x!tile.ptr<f32>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f32>>
      "tile.store"(%47, %38#0) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x16x!tile.ptr<f32>>, tensor<64x16xf32>) -> ()
    } else {
      %15 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
      %16 = "tile.splat"(%1) : (i32) -> tensor<64xi32>
      %17 = arith.addi %16, %15 : tensor<64xi32>
      %18 = "tile.splat"(%arg3) : (i32) -> tensor<64xi32>
      %19 = arith.remsi %17, %18 : tensor<64xi32>
      %20 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
      %21 = "tile.expand_dims"(%19) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
      %22 = "tile.splat"(%arg6) : (i32) -> tensor<64x1xi32>
      %23 = arith.muli %21, %22 : tensor<64x1xi32>
      %24 = "tile.splat"(%arg0) : (!tile.ptr<f16>) -> tensor<64x1x!tile.ptr<f16>>
      %25 = "tile.addptr"(%24, %23) : (tensor<64x1x!tile.ptr<f16>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f16>>
      %26 = "tile.expand_dims"(%20) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
      %27 = "tile.broadcast"(%25) : (tensor<64x1x!tile.ptr<f16>>) -> tensor<64x16x!tile.ptr<f16>>
      %28 = "tile.broadcast"(%26) : (tensor<1x16xi32>) -> tensor<64x16xi32>
      %29 = "tile.addptr"(%27, %28) : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f16>>
      %30 = "tile.expand_dims"(%20) {axis = 1 : i32} : (tensor<16xi32>) -> tensor<16x1xi32>
      %c16_i32 = arith.constant 16 : i32
      %cst = arith.constant dense<16> : tensor<16x1xi32>
      %31 = arith.muli %30, %cst : tensor<16x1xi32>
      %32 = "tile.splat"(%arg1) : (!tile.ptr<f16>) -> tensor<16x1x!tile.ptr<f16>>
      %33 = "tile.addptr"(%32, %31) : (tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>) -> tensor<16x1x!tile.ptr<f16>>
      %34 = "tile.broadcast"(%33) : (tensor<16x1x!tile.ptr<f16>>) -> tensor<16x16x!tile.ptr<f16>>
      %35 = "tile.broadcast"(%26) : (tensor<1x16xi32>) -> tensor<16x16xi32>
      %36 = "tile.addptr"(%34, %35) : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f16>>
      %cst_3 = arith.constant dense<0.000000e+00> : tensor<64x16xf32>
      %c16_i32_4 = arith.constant 16 : i32
      %37 = arith.addi %arg5, %c16_i32_4 : i32
      %c1_i32_5 = arith.constant 1 : i32
      %38 = arith.subi %37, %c1_i32_5 : i32
      %c16_i32_6 = arith.constant 16 : i32
      %39 = arith.divsi %38, %c16_i32_6 : i32
      %c0_i32 = arith.constant 0 : i32
      %c1_i32_7 = arith.constant 1 : i32
      %40:3 = scf.for %arg7 = %c0_i32 to %39 step %c1_i32_7 iter_args(%arg8 = %cst_3, %arg9 = %29, %arg10 = %36) -> (tensor<64x16xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x16x!tile.ptr<f16>>)  : i32 {
        %50 = "tile.expand_dims"(%20) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
        %c16_i32_12 = arith.constant 16 : i32
        %51 = arith.muli %arg7, %c16_i32_12 : i32
        %52 = arith.subi %arg5, %51 : i32
        %53 = "tile.splat"(%52) : (i32) -> tensor<1x16xi32>
        %54 = arith.cmpi slt, %50, %53 : tensor<1x16xi32>
        %55 = "tile.broadcast"(%54) : (tensor<1x16xi1>) -> tensor<64x16xi1>
        %cst_13 = arith.constant 0.000000e+00 : f16
        %cst_14 = arith.constant dense<0.000000e+00> : tensor<64x16xf16>
        %56 = "tile.load"(%arg9, %55, %cst_14) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi1>, tensor<64x16xf16>) -> tensor<64x16xf16>
        %57 = "tile.expand_dims"(%20) {axis = 1 : i32} : (tensor<16xi32>) -> tensor<16x1xi32>
        %c16_i32_15 = arith.constant 16 : i32
        %58 = arith.muli %arg7, %c16_i32_15 : i32
        %59 = arith.subi %arg5, %58 : i32
        %60 = "tile.splat"(%59) : (i32) -> tensor<16x1xi32>
        %61 = arith.cmpi slt, %57, %60 : tensor<16x1xi32>
        %62 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
        %63 = "tile.expand_dims"(%62) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
        %64 = "tile.splat"(%arg4) : (i32) -> tensor<1x16xi32>
        %65 = arith.cmpi slt, %63, %64 : tensor<1x16xi32>
        %66 = "tile.broadcast"(%61) : (tensor<16x1xi1>) -> tensor<16x16xi1>
        %67 = "tile.broadcast"(%65) : (tensor<1x16xi1>) -> tensor<16x16xi1>
        %68 = arith.andi %66, %67 : tensor<16x16xi1>
        %cst_16 = arith.constant 0.000000e+00 : f16
        %cst_17 = arith.constant dense<0.000000e+00> : tensor<16x16xf16>
        %69 = "tile.load"(%arg10, %68, %cst_17) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi1>, tensor<16x16xf16>) -> tensor<16x16xf16>
        %70 = "tile.dot"(%56, %69, %arg8) {input_precision = "ieee"} : (tensor<64x16xf16>, tensor<16x16xf16>, tensor<64x16xf32>) -> tensor<64x16xf32>
        %c16_i32_18 = arith.constant 16 : i32
        %cst_19 = arith.constant dense<16> : tensor<64x16xi32>
        %71 = "tile.addptr"(%arg9, %cst_19) : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f16>>
        %c256_i32 = arith.constant 256 : i32
        %cst_20 = arith.constant dense<256> : tensor<16x16xi32>
        %72 = "tile.addptr"(%arg10, %cst_20) : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f16>>
        scf.yield %70, %71, %72 : tensor<64x16xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x16x!tile.ptr<f16>>
      }
      %c64_i32_8 = arith.constant 64 : i32
      %41 = arith.muli %0, %c64_i32_8 : i32
      %c16_i32_9 = arith.constant 16 : i32
      %42 = arith.muli %41, %c16_i32_9 : i32
      %43 = "tile.addptr"(%arg2, %42) : (!tile.ptr<f32>, i32) -> !tile.ptr<f32>
      %44 = "tile.expand_dims"(%15) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
      %c16_i32_10 = arith.constant 16 : i32
      %cst_11 = arith.constant dense<16> : tensor<64x1xi32>
      %45 = arith.muli %44, %cst_11 : tensor<64x1xi32>
      %46 = "tile.splat"(%43) : (!tile.ptr<f32>) -> tensor<64x1x!tile.ptr<f32>>
      %47 = "tile.addptr"(%46, %45) : (tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f32>>
      %48 = "tile.broadcast"(%47) : (tensor<64x1x!tile.ptr<f32>>) -> tensor<64x16x!tile.ptr<f32>>
      %49 = "tile.addptr"(%48, %28) : (tensor<64x16x!tile.ptr<f32>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f32>>
      "tile.store"(%49, %40#0) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x16x!tile.ptr<f32>>, tensor<64x16xf32>) -> ()
    }
    return
  }
}
