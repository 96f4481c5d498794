// RUN: tilec-opt %s --split-input-file -p 'tile-pointer-tensor-copies{num-warps=4}' | FileCheck %s

// Triton's matmul: A's rows wrap with `% M`, K is masked with `offs_k < K - k * 16`, B's columns
// with `< N`. The loads are boxes of A [M, K] and B [K, N] when the rows do not wrap: the test
// (0 <= pid * 64, pid * 64 + 63 < M, then every extent >= 1: M, K, N), and in the then-branch the
// body without the remainder whose loads carry their arrays and coordinates (A at row pid * 64,
// column 16 k; B at row 16 k, column 0); the else-branch is the body as it was.
// CHECK-LABEL: func.func @mm
// CHECK: %[[PID:.*]] = "tile.program_id"
// CHECK: %[[ROW:.*]] = arith.muli %[[PID]], %{{.*}} : i32
// CHECK: %[[LOW:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : i64
// CHECK: %[[HIGH:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK: arith.andi %[[LOW]], %[[HIGH]] : i1
// CHECK-DAG: arith.cmpi sge, %arg3, %{{.*}} : i32
// CHECK-DAG: arith.cmpi sge, %arg5, %{{.*}} : i32
// CHECK-DAG: arith.cmpi sge, %arg4, %{{.*}} : i32
// CHECK: scf.if %{{.*}} {
// CHECK-NOT: arith.remsi
// CHECK: scf.for %[[K:.*]] = %c0_i32 to
// CHECK: %[[A_ROW:.*]] = arith.muli %[[PID]], %{{.*}} : i32
// CHECK: %[[A_COL:.*]] = arith.muli %[[K]], %{{.*}} : i32
// CHECK: "tile.load"(%{{.*}}, %{{.*}}, %{{.*}}, %[[A_ROW]], %[[A_COL]]) {descriptor = "array base=a_ptr rows=M cols=K row_stride=stride_am", operandSegmentSizes = array<i32: 1, 1, 1, 2>}
// CHECK: arith.andi %{{.*}}, %{{.*}} : tensor<16x16xi1>
// CHECK: %[[B_ROW:.*]] = arith.muli %[[K]], %{{.*}} : i32
// CHECK: %[[B_COL:.*]] = arith.constant 0 : i32
// CHECK: "tile.load"(%{{.*}}, %{{.*}}, %{{.*}}, %[[B_ROW]], %[[B_COL]]) {descriptor = "array base=b_ptr rows=K cols=N row_stride=16", operandSegmentSizes = array<i32: 1, 1, 1, 2>}
// CHECK: "tile.dot"
// CHECK: } else {
// CHECK: arith.remsi %{{.*}}, %{{.*}} : tensor<64xi32>
// CHECK-NOT: descriptor
// CHECK: "tile.dot"
module {
  func.func @mm(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "a_ptr"}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "b_ptr"}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "c_ptr"}, %arg3: i32 {tile.name = "M"}, %arg4: i32 {tile.name = "N"}, %arg5: i32 {tile.name = "K"}, %arg6: i32 {tile.divisibility = 16 : i32, tile.name = "stride_am"}) attributes {tile.kernel} {
    %0 = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %c64_i32 = arith.constant 64 : i32
    %1 = arith.muli %0, %c64_i32 : i32
    %2 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
    %3 = "tile.splat"(%1) : (i32) -> tensor<64xi32>
    %4 = arith.addi %3, %2 : tensor<64xi32>
    %5 = "tile.splat"(%arg3) : (i32) -> tensor<64xi32>
    %6 = arith.remsi %4, %5 : tensor<64xi32>
    %7 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %8 = "tile.expand_dims"(%6) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
    %9 = "tile.splat"(%arg6) : (i32) -> tensor<64x1xi32>
    %10 = arith.muli %8, %9 : tensor<64x1xi32>
    %11 = "tile.splat"(%arg0) : (!tile.ptr<f16>) -> tensor<64x1x!tile.ptr<f16>>
    %12 = "tile.addptr"(%11, %10) : (tensor<64x1x!tile.ptr<f16>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f16>>
    %13 = "tile.expand_dims"(%7) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
    %14 = "tile.broadcast"(%12) : (tensor<64x1x!tile.ptr<f16>>) -> tensor<64x16x!tile.ptr<f16>>
    %15 = "tile.broadcast"(%13) : (tensor<1x16xi32>) -> tensor<64x16xi32>
    %16 = "tile.addptr"(%14, %15) : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f16>>
    %17 = "tile.expand_dims"(%7) {axis = 1 : i32} : (tensor<16xi32>) -> tensor<16x1xi32>
    %c16_i32 = arith.constant 16 : i32
    %cst = arith.constant dense<16> : tensor<16x1xi32>
    %18 = arith.muli %17, %cst : tensor<16x1xi32>
    %19 = "tile.splat"(%arg1) : (!tile.ptr<f16>) -> tensor<16x1x!tile.ptr<f16>>
    %20 = "tile.addptr"(%19, %18) : (tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>) -> tensor<16x1x!tile.ptr<f16>>
    %21 = "tile.broadcast"(%20) : (tensor<16x1x!tile.ptr<f16>>) -> tensor<16x16x!tile.ptr<f16>>
    %22 = "tile.broadcast"(%13) : (tensor<1x16xi32>) -> tensor<16x16xi32>
    %23 = "tile.addptr"(%21, %22) : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f16>>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x16xf32>
    %c16_i32_1 = arith.constant 16 : i32
    %24 = arith.addi %arg5, %c16_i32_1 : i32
    %c1_i32 = arith.constant 1 : i32
    %25 = arith.subi %24, %c1_i32 : i32
    %c16_i32_2 = arith.constant 16 : i32
    %26 = arith.divsi %25, %c16_i32_2 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32_3 = arith.constant 1 : i32
    %27:3 = scf.for %arg7 = %c0_i32 to %26 step %c1_i32_3 iter_args(%arg8 = %cst_0, %arg9 = %16, %arg10 = %23) -> (tensor<64x16xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x16x!tile.ptr<f16>>)  : i32 {
      %37 = "tile.expand_dims"(%7) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
      %c16_i32_8 = arith.constant 16 : i32
      %38 = arith.muli %arg7, %c16_i32_8 : i32
      %39 = arith.subi %arg5, %38 : i32
      %40 = "tile.splat"(%39) : (i32) -> tensor<1x16xi32>
      %41 = arith.cmpi slt, %37, %40 : tensor<1x16xi32>
      %42 = "tile.broadcast"(%41) : (tensor<1x16xi1>) -> tensor<64x16xi1>
      %cst_9 = arith.constant 0.000000e+00 : f16
      %cst_10 = arith.constant dense<0.000000e+00> : tensor<64x16xf16>
      %43 = "tile.load"(%arg9, %42, %cst_10) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi1>, tensor<64x16xf16>) -> tensor<64x16xf16>
      %44 = "tile.expand_dims"(%7) {axis = 1 : i32} : (tensor<16xi32>) -> tensor<16x1xi32>
      %c16_i32_11 = arith.constant 16 : i32
      %45 = arith.muli %arg7, %c16_i32_11 : i32
      %46 = arith.subi %arg5, %45 : i32
      %47 = "tile.splat"(%46) : (i32) -> tensor<16x1xi32>
      %48 = arith.cmpi slt, %44, %47 : tensor<16x1xi32>
      %49 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
      %50 = "tile.expand_dims"(%49) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
      %51 = "tile.splat"(%arg4) : (i32) -> tensor<1x16xi32>
      %52 = arith.cmpi slt, %50, %51 : tensor<1x16xi32>
      %53 = "tile.broadcast"(%48) : (tensor<16x1xi1>) -> tensor<16x16xi1>
      %54 = "tile.broadcast"(%52) : (tensor<1x16xi1>) -> tensor<16x16xi1>
      %55 = arith.andi %53, %54 : tensor<16x16xi1>
      %cst_12 = arith.constant 0.000000e+00 : f16
      %cst_13 = arith.constant dense<0.000000e+00> : tensor<16x16xf16>
      %56 = "tile.load"(%arg10, %55, %cst_13) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi1>, tensor<16x16xf16>) -> tensor<16x16xf16>
      %57 = "tile.dot"(%43, %56, %arg8) {input_precision = "ieee"} : (tensor<64x16xf16>, tensor<16x16xf16>, tensor<64x16xf32>) -> tensor<64x16xf32>
      %c16_i32_14 = arith.constant 16 : i32
      %cst_15 = arith.constant dense<16> : tensor<64x16xi32>
      %58 = "tile.addptr"(%arg9, %cst_15) : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f16>>
      %c256_i32 = arith.constant 256 : i32
      %cst_16 = arith.constant dense<256> : tensor<16x16xi32>
      %59 = "tile.addptr"(%arg10, %cst_16) : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f16>>
      scf.yield %57, %58, %59 : tensor<64x16xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x16x!tile.ptr<f16>>
    }
    %c64_i32_4 = arith.constant 64 : i32
    %28 = arith.muli %0, %c64_i32_4 : i32
    %c16_i32_5 = arith.constant 16 : i32
    %29 = arith.muli %28, %c16_i32_5 : i32
    %30 = "tile.addptr"(%arg2, %29) : (!tile.ptr<f32>, i32) -> !tile.ptr<f32>
    %31 = "tile.expand_dims"(%2) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
    %c16_i32_6 = arith.constant 16 : i32
    %cst_7 = arith.constant dense<16> : tensor<64x1xi32>
    %32 = arith.muli %31, %cst_7 : tensor<64x1xi32>
    %33 = "tile.splat"(%30) : (!tile.ptr<f32>) -> tensor<64x1x!tile.ptr<f32>>
    %34 = "tile.addptr"(%33, %32) : (tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f32>>
    %35 = "tile.broadcast"(%34) : (tensor<64x1x!tile.ptr<f32>>) -> tensor<64x16x!tile.ptr<f32>>
    %36 = "tile.addptr"(%35, %15) : (tensor<64x16x!tile.ptr<f32>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f32>>
    "tile.store"(%36, %27#0) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x16x!tile.ptr<f32>>, tensor<64x16xf32>) -> ()
    return
  }
}

// -----

// A's mask compares the first column (`offs_k < K`), not the advanced one, with K: no extent of
// A's array zero-fills exactly where that mask is false, so A keeps its pointers, and B with it
// (a ring goes by tensor copies only when all its streams do): nothing changes.
// CHECK-LABEL: func.func @not_a_bound
// CHECK-NOT: scf.if
// CHECK-NOT: descriptor
// CHECK: return
module {
  func.func @not_a_bound(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "a_ptr"}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "b_ptr"}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "c_ptr"}, %arg3: i32 {tile.name = "M"}, %arg4: i32 {tile.name = "N"}, %arg5: i32 {tile.name = "K"}, %arg6: i32 {tile.divisibility = 16 : i32, tile.name = "stride_am"}) attributes {tile.kernel} {
    %0 = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %c64_i32 = arith.constant 64 : i32
    %1 = arith.muli %0, %c64_i32 : i32
    %2 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
    %3 = "tile.splat"(%1) : (i32) -> tensor<64xi32>
    %4 = arith.addi %3, %2 : tensor<64xi32>
    %5 = "tile.splat"(%arg3) : (i32) -> tensor<64xi32>
    %6 = arith.remsi %4, %5 : tensor<64xi32>
    %7 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %8 = "tile.expand_dims"(%6) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
    %9 = "tile.splat"(%arg6) : (i32) -> tensor<64x1xi32>
    %10 = arith.muli %8, %9 : tensor<64x1xi32>
    %11 = "tile.splat"(%arg0) : (!tile.ptr<f16>) -> tensor<64x1x!tile.ptr<f16>>
    %12 = "tile.addptr"(%11, %10) : (tensor<64x1x!tile.ptr<f16>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f16>>
    %13 = "tile.expand_dims"(%7) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
    %14 = "tile.broadcast"(%12) : (tensor<64x1x!tile.ptr<f16>>) -> tensor<64x16x!tile.ptr<f16>>
    %15 = "tile.broadcast"(%13) : (tensor<1x16xi32>) -> tensor<64x16xi32>
    %16 = "tile.addptr"(%14, %15) : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f16>>
    %17 = "tile.expand_dims"(%7) {axis = 1 : i32} : (tensor<16xi32>) -> tensor<16x1xi32>
    %c16_i32 = arith.constant 16 : i32
    %cst = arith.constant dense<16> : tensor<16x1xi32>
    %18 = arith.muli %17, %cst : tensor<16x1xi32>
    %19 = "tile.splat"(%arg1) : (!tile.ptr<f16>) -> tensor<16x1x!tile.ptr<f16>>
    %20 = "tile.addptr"(%19, %18) : (tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>) -> tensor<16x1x!tile.ptr<f16>>
    %21 = "tile.broadcast"(%20) : (tensor<16x1x!tile.ptr<f16>>) -> tensor<16x16x!tile.ptr<f16>>
    %22 = "tile.broadcast"(%13) : (tensor<1x16xi32>) -> tensor<16x16xi32>
    %23 = "tile.addptr"(%21, %22) : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f16>>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x16xf32>
    %c16_i32_1 = arith.constant 16 : i32
    %24 = arith.addi %arg5, %c16_i32_1 : i32
    %c1_i32 = arith.constant 1 : i32
    %25 = arith.subi %24, %c1_i32 : i32
    %c16_i32_2 = arith.constant 16 : i32
    %26 = arith.divsi %25, %c16_i32_2 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32_3 = arith.constant 1 : i32
    %27:3 = scf.for %arg7 = %c0_i32 to %26 step %c1_i32_3 iter_args(%arg8 = %cst_0, %arg9 = %16, %arg10 = %23) -> (tensor<64x16xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x16x!tile.ptr<f16>>)  : i32 {
      %37 = "tile.expand_dims"(%7) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
      %c16_i32_8 = arith.constant 16 : i32
      %38 = arith.muli %arg7, %c16_i32_8 : i32
      %39 = arith.subi %arg5, %38 : i32
      %40 = "tile.splat"(%arg5) : (i32) -> tensor<1x16xi32>
      %41 = arith.cmpi slt, %37, %40 : tensor<1x16xi32>
      %42 = "tile.broadcast"(%41) : (tensor<1x16xi1>) -> tensor<64x16xi1>
      %cst_9 = arith.constant 0.000000e+00 : f16
      %cst_10 = arith.constant dense<0.000000e+00> : tensor<64x16xf16>
      %43 = "tile.load"(%arg9, %42, %cst_10) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi1>, tensor<64x16xf16>) -> tensor<64x16xf16>
      %44 = "tile.expand_dims"(%7) {axis = 1 : i32} : (tensor<16xi32>) -> tensor<16x1xi32>
      %c16_i32_11 = arith.constant 16 : i32
      %45 = arith.muli %arg7, %c16_i32_11 : i32
      %46 = arith.subi %arg5, %45 : i32
      %47 = "tile.splat"(%46) : (i32) -> tensor<16x1xi32>
      %48 = arith.cmpi slt, %44, %47 : tensor<16x1xi32>
      %49 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
      %50 = "tile.expand_dims"(%49) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
      %51 = "tile.splat"(%arg4) : (i32) -> tensor<1x16xi32>
      %52 = arith.cmpi slt, %50, %51 : tensor<1x16xi32>
      %53 = "tile.broadcast"(%48) : (tensor<16x1xi1>) -> tensor<16x16xi1>
      %54 = "tile.broadcast"(%52) : (tensor<1x16xi1>) -> tensor<16x16xi1>
      %55 = arith.andi %53, %54 : tensor<16x16xi1>
      %cst_12 = arith.constant 0.000000e+00 : f16
      %cst_13 = arith.constant dense<0.000000e+00> : tensor<16x16xf16>
      %56 = "tile.load"(%arg10, %55, %cst_13) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi1>, tensor<16x16xf16>) -> tensor<16x16xf16>
      %57 = "tile.dot"(%43, %56, %arg8) {input_precision = "ieee"} : (tensor<64x16xf16>, tensor<16x16xf16>, tensor<64x16xf32>) -> tensor<64x16xf32>
      %c16_i32_14 = arith.constant 16 : i32
      %cst_15 = arith.constant dense<16> : tensor<64x16xi32>
      %58 = "tile.addptr"(%arg9, %cst_15) : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f16>>
      %c256_i32 = arith.constant 256 : i32
      %cst_16 = arith.constant dense<256> : tensor<16x16xi32>
      %59 = "tile.addptr"(%arg10, %cst_16) : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f16>>
      scf.yield %57, %58, %59 : tensor<64x16xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x16x!tile.ptr<f16>>
    }
    %c64_i32_4 = arith.constant 64 : i32
    %28 = arith.muli %0, %c64_i32_4 : i32
    %c16_i32_5 = arith.constant 16 : i32
    %29 = arith.muli %28, %c16_i32_5 : i32
    %30 = "tile.addptr"(%arg2, %29) : (!tile.ptr<f32>, i32) -> !tile.ptr<f32>
    %31 = "tile.expand_dims"(%2) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
    %c16_i32_6 = arith.constant 16 : i32
    %cst_7 = arith.constant dense<16> : tensor<64x1xi32>
    %32 = arith.muli %31, %cst_7 : tensor<64x1xi32>
    %33 = "tile.splat"(%30) : (!tile.ptr<f32>) -> tensor<64x1x!tile.ptr<f32>>
    %34 = "tile.addptr"(%33, %32) : (tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f32>>
    %35 = "tile.broadcast"(%34) : (tensor<64x1x!tile.ptr<f32>>) -> tensor<64x16x!tile.ptr<f32>>
    %36 = "tile.addptr"(%35, %15) : (tensor<64x16x!tile.ptr<f32>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f32>>
    "tile.store"(%36, %27#0) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x16x!tile.ptr<f32>>, tensor<64x16xf32>) -> ()
    return
  }
}

// -----

// Rows masked (`rm < M` with rm = pid * 64 - 3 + i: the row coordinate 64 pid - 3 may be negative,
// where the pointers read before A and a tensor copy would fill zeros: tested at run time), K
// walked by the induction variable in steps of 16 (the iteration number is (k - 0) / 16), B's masks
// written `rk <= K - 1` and `N > rn` (the extents K and N).
// CHECK-LABEL: func.func @shifted
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi sge, %[[ROW]], %{{.*}} : i32
// CHECK: scf.if
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %arg5 step %[[STEP:.*]] iter_args
// CHECK: %[[OFF:.*]] = arith.subi %[[K]], %{{.*}} : i32
// CHECK: %[[ITER:.*]] = arith.divsi %[[OFF]], %[[STEP]] : i32
// CHECK: %[[COL:.*]] = arith.muli %[[ITER]], %{{.*}} : i32
// CHECK: "tile.load"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[COL]]) {descriptor = "array base=a_ptr rows=M cols=K row_stride=stride_am"
// CHECK: "tile.load"({{.*}}) {descriptor = "array base=b_ptr rows=K cols=N row_stride=16"
// CHECK: } else {
module {
  func.func @shifted(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "a_ptr"}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "b_ptr"}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "c_ptr"}, %arg3: i32 {tile.name = "M"}, %arg4: i32 {tile.name = "N"}, %arg5: i32 {tile.name = "K"}, %arg6: i32 {tile.divisibility = 16 : i32, tile.name = "stride_am"}) attributes {tile.kernel} {
    %0 = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %c64_i32 = arith.constant 64 : i32
    %1 = arith.muli %0, %c64_i32 : i32
    %2 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
    %3 = "tile.splat"(%1) : (i32) -> tensor<64xi32>
    %4 = arith.addi %3, %2 : tensor<64xi32>
    %c3_i32 = arith.constant 3 : i32
    %cst = arith.constant dense<3> : tensor<64xi32>
    %5 = arith.subi %4, %cst : tensor<64xi32>
    %6 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x16xf32>
    %c0_i32 = arith.constant 0 : i32
    %c16_i32 = arith.constant 16 : i32
    %7 = scf.for %arg7 = %c0_i32 to %arg5 step %c16_i32 iter_args(%arg8 = %cst_0) -> (tensor<64x16xf32>)  : i32 {
      %19 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
      %20 = "tile.splat"(%arg7) : (i32) -> tensor<16xi32>
      %21 = arith.addi %20, %19 : tensor<16xi32>
      %22 = "tile.expand_dims"(%5) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
      %23 = "tile.splat"(%arg6) : (i32) -> tensor<64x1xi32>
      %24 = arith.muli %22, %23 : tensor<64x1xi32>
      %25 = "tile.splat"(%arg0) : (!tile.ptr<f16>) -> tensor<64x1x!tile.ptr<f16>>
      %26 = "tile.addptr"(%25, %24) : (tensor<64x1x!tile.ptr<f16>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f16>>
      %27 = "tile.expand_dims"(%21) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
      %28 = "tile.broadcast"(%26) : (tensor<64x1x!tile.ptr<f16>>) -> tensor<64x16x!tile.ptr<f16>>
      %29 = "tile.broadcast"(%27) : (tensor<1x16xi32>) -> tensor<64x16xi32>
      %30 = "tile.addptr"(%28, %29) : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f16>>
      %31 = "tile.splat"(%arg3) : (i32) -> tensor<64x1xi32>
      %32 = arith.cmpi slt, %22, %31 : tensor<64x1xi32>
      %33 = "tile.splat"(%arg5) : (i32) -> tensor<1x16xi32>
      %34 = arith.cmpi slt, %27, %33 : tensor<1x16xi32>
      %35 = "tile.broadcast"(%32) : (tensor<64x1xi1>) -> tensor<64x16xi1>
      %36 = "tile.broadcast"(%34) : (tensor<1x16xi1>) -> tensor<64x16xi1>
      %37 = arith.andi %35, %36 : tensor<64x16xi1>
      %cst_4 = arith.constant 0.000000e+00 : f16
      %cst_5 = arith.constant dense<0.000000e+00> : tensor<64x16xf16>
      %38 = "tile.load"(%30, %37, %cst_5) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi1>, tensor<64x16xf16>) -> tensor<64x16xf16>
      %39 = "tile.expand_dims"(%21) {axis = 1 : i32} : (tensor<16xi32>) -> tensor<16x1xi32>
      %c16_i32_6 = arith.constant 16 : i32
      %cst_7 = arith.constant dense<16> : tensor<16x1xi32>
      %40 = arith.muli %39, %cst_7 : tensor<16x1xi32>
      %41 = "tile.splat"(%arg1) : (!tile.ptr<f16>) -> tensor<16x1x!tile.ptr<f16>>
      %42 = "tile.addptr"(%41, %40) : (tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>) -> tensor<16x1x!tile.ptr<f16>>
      %43 = "tile.expand_dims"(%6) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
      %44 = "tile.broadcast"(%42) : (tensor<16x1x!tile.ptr<f16>>) -> tensor<16x16x!tile.ptr<f16>>
      %45 = "tile.broadcast"(%43) : (tensor<1x16xi32>) -> tensor<16x16xi32>
      %46 = "tile.addptr"(%44, %45) : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f16>>
      %c1_i32 = arith.constant 1 : i32
      %47 = arith.subi %arg5, %c1_i32 : i32
      %48 = "tile.splat"(%47) : (i32) -> tensor<16x1xi32>
      %49 = arith.cmpi sle, %39, %48 : tensor<16x1xi32>
      %50 = "tile.splat"(%arg4) : (i32) -> tensor<1x16xi32>
      %51 = arith.cmpi sgt, %50, %43 : tensor<1x16xi32>
      %52 = "tile.broadcast"(%49) : (tensor<16x1xi1>) -> tensor<16x16xi1>
      %53 = "tile.broadcast"(%51) : (tensor<1x16xi1>) -> tensor<16x16xi1>
      %54 = arith.andi %52, %53 : tensor<16x16xi1>
      %cst_8 = arith.constant 0.000000e+00 : f16
      %cst_9 = arith.constant dense<0.000000e+00> : tensor<16x16xf16>
      %55 = "tile.load"(%46, %54, %cst_9) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi1>, tensor<16x16xf16>) -> tensor<16x16xf16>
      %56 = "tile.dot"(%38, %55, %arg8) {input_precision = "ieee"} : (tensor<64x16xf16>, tensor<16x16xf16>, tensor<64x16xf32>) -> tensor<64x16xf32>
      scf.yield %56 : tensor<64x16xf32>
    }
    %c64_i32_1 = arith.constant 64 : i32
    %8 = arith.muli %0, %c64_i32_1 : i32
    %9 = "tile.splat"(%8) : (i32) -> tensor<64xi32>
    %10 = arith.addi %9, %2 : tensor<64xi32>
    %11 = "tile.expand_dims"(%10) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
    %c16_i32_2 = arith.constant 16 : i32
    %cst_3 = arith.constant dense<16> : tensor<64x1xi32>
    %12 = arith.muli %11, %cst_3 : tensor<64x1xi32>
    %13 = "tile.splat"(%arg2) : (!tile.ptr<f32>) -> tensor<64x1x!tile.ptr<f32>>
    %14 = "tile.addptr"(%13, %12) : (tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f32>>
    %15 = "tile.expand_dims"(%6) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
    %16 = "tile.broadcast"(%14) : (tensor<64x1x!tile.ptr<f32>>) -> tensor<64x16x!tile.ptr<f32>>
    %17 = "tile.broadcast"(%15) : (tensor<1x16xi32>) -> tensor<64x16xi32>
    %18 = "tile.addptr"(%16, %17) : (tensor<64x16x!tile.ptr<f32>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f32>>
    "tile.store"(%18, %7) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x16x!tile.ptr<f32>>, tensor<64x16xf32>) -> ()
    return
  }
}

// -----

// A's masked-off elements read as 1.0 (`other`): a tensor copy fills zeros, so nothing changes.
// CHECK-LABEL: func.func @other_one
// CHECK-NOT: scf.if
// CHECK-NOT: descriptor
// CHECK: return
module {
  func.func @other_one(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "a_ptr"}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "b_ptr"}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "c_ptr"}, %arg3: i32 {tile.name = "M"}, %arg4: i32 {tile.name = "N"}, %arg5: i32 {tile.name = "K"}, %arg6: i32 {tile.divisibility = 16 : i32, tile.name = "stride_am"}) attributes {tile.kernel} {
    %0 = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %c64_i32 = arith.constant 64 : i32
    %1 = arith.muli %0, %c64_i32 : i32
    %2 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
    %3 = "tile.splat"(%1) : (i32) -> tensor<64xi32>
    %4 = arith.addi %3, %2 : tensor<64xi32>
    %5 = "tile.splat"(%arg3) : (i32) -> tensor<64xi32>
    %6 = arith.remsi %4, %5 : tensor<64xi32>
    %7 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %8 = "tile.expand_dims"(%6) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
    %9 = "tile.splat"(%arg6) : (i32) -> tensor<64x1xi32>
    %10 = arith.muli %8, %9 : tensor<64x1xi32>
    %11 = "tile.splat"(%arg0) : (!tile.ptr<f16>) -> tensor<64x1x!tile.ptr<f16>>
    %12 = "tile.addptr"(%11, %10) : (tensor<64x1x!tile.ptr<f16>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f16>>
    %13 = "tile.expand_dims"(%7) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
    %14 = "tile.broadcast"(%12) : (tensor<64x1x!tile.ptr<f16>>) -> tensor<64x16x!tile.ptr<f16>>
    %15 = "tile.broadcast"(%13) : (tensor<1x16xi32>) -> tensor<64x16xi32>
    %16 = "tile.addptr"(%14, %15) : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f16>>
    %17 = "tile.expand_dims"(%7) {axis = 1 : i32} : (tensor<16xi32>) -> tensor<16x1xi32>
    %c16_i32 = arith.constant 16 : i32
    %cst = arith.constant dense<16> : tensor<16x1xi32>
    %18 = arith.muli %17, %cst : tensor<16x1xi32>
    %19 = "tile.splat"(%arg1) : (!tile.ptr<f16>) -> tensor<16x1x!tile.ptr<f16>>
    %20 = "tile.addptr"(%19, %18) : (tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>) -> tensor<16x1x!tile.ptr<f16>>
    %21 = "tile.broadcast"(%20) : (tensor<16x1x!tile.ptr<f16>>) -> tensor<16x16x!tile.ptr<f16>>
    %22 = "tile.broadcast"(%13) : (tensor<1x16xi32>) -> tensor<16x16xi32>
    %23 = "tile.addptr"(%21, %22) : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f16>>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x16xf32>
    %c16_i32_1 = arith.constant 16 : i32
    %24 = arith.addi %arg5, %c16_i32_1 : i32
    %c1_i32 = arith.constant 1 : i32
    %25 = arith.subi %24, %c1_i32 : i32
    %c16_i32_2 = arith.constant 16 : i32
    %26 = arith.divsi %25, %c16_i32_2 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32_3 = arith.constant 1 : i32
    %27:3 = scf.for %arg7 = %c0_i32 to %26 step %c1_i32_3 iter_args(%arg8 = %cst_0, %arg9 = %16, %arg10 = %23) -> (tensor<64x16xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x16x!tile.ptr<f16>>)  : i32 {
      %37 = "tile.expand_dims"(%7) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
      %c16_i32_8 = arith.constant 16 : i32
      %38 = arith.muli %arg7, %c16_i32_8 : i32
      %39 = arith.subi %arg5, %38 : i32
      %40 = "tile.splat"(%39) : (i32) -> tensor<1x16xi32>
      %41 = arith.cmpi slt, %37, %40 : tensor<1x16xi32>
      %42 = "tile.broadcast"(%41) : (tensor<1x16xi1>) -> tensor<64x16xi1>
      %cst_9 = arith.constant 0.000000e+00 : f16
      %cst_10 = arith.constant dense<1.000000e+00> : tensor<64x16xf16>
      %43 = "tile.load"(%arg9, %42, %cst_10) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi1>, tensor<64x16xf16>) -> tensor<64x16xf16>
      %44 = "tile.expand_dims"(%7) {axis = 1 : i32} : (tensor<16xi32>) -> tensor<16x1xi32>
      %c16_i32_11 = arith.constant 16 : i32
      %45 = arith.muli %arg7, %c16_i32_11 : i32
      %46 = arith.subi %arg5, %45 : i32
      %47 = "tile.splat"(%46) : (i32) -> tensor<16x1xi32>
      %48 = arith.cmpi slt, %44, %47 : tensor<16x1xi32>
      %49 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
      %50 = "tile.expand_dims"(%49) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
      %51 = "tile.splat"(%arg4) : (i32) -> tensor<1x16xi32>
      %52 = arith.cmpi slt, %50, %51 : tensor<1x16xi32>
      %53 = "tile.broadcast"(%48) : (tensor<16x1xi1>) -> tensor<16x16xi1>
      %54 = "tile.broadcast"(%52) : (tensor<1x16xi1>) -> tensor<16x16xi1>
      %55 = arith.andi %53, %54 : tensor<16x16xi1>
      %cst_12 = arith.constant 0.000000e+00 : f16
      %cst_13 = arith.constant dense<0.000000e+00> : tensor<16x16xf16>
      %56 = "tile.load"(%arg10, %55, %cst_13) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi1>, tensor<16x16xf16>) -> tensor<16x16xf16>
      %57 = "tile.dot"(%43, %56, %arg8) {input_precision = "ieee"} : (tensor<64x16xf16>, tensor<16x16xf16>, tensor<64x16xf32>) -> tensor<64x16xf32>
      %c16_i32_14 = arith.constant 16 : i32
      %cst_15 = arith.constant dense<16> : tensor<64x16xi32>
      %58 = "tile.addptr"(%arg9, %cst_15) : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f16>>
      %c256_i32 = arith.constant 256 : i32
      %cst_16 = arith.constant dense<256> : tensor<16x16xi32>
      %59 = "tile.addptr"(%arg10, %cst_16) : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f16>>
      scf.yield %57, %58, %59 : tensor<64x16xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x16x!tile.ptr<f16>>
    }
    %c64_i32_4 = arith.constant 64 : i32
    %28 = arith.muli %0, %c64_i32_4 : i32
    %c16_i32_5 = arith.constant 16 : i32
    %29 = arith.muli %28, %c16_i32_5 : i32
    %30 = "tile.addptr"(%arg2, %29) : (!tile.ptr<f32>, i32) -> !tile.ptr<f32>
    %31 = "tile.expand_dims"(%2) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
    %c16_i32_6 = arith.constant 16 : i32
    %cst_7 = arith.constant dense<16> : tensor<64x1xi32>
    %32 = arith.muli %31, %cst_7 : tensor<64x1xi32>
    %33 = "tile.splat"(%30) : (!tile.ptr<f32>) -> tensor<64x1x!tile.ptr<f32>>
    %34 = "tile.addptr"(%33, %32) : (tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f32>>
    %35 = "tile.broadcast"(%34) : (tensor<64x1x!tile.ptr<f32>>) -> tensor<64x16x!tile.ptr<f32>>
    %36 = "tile.addptr"(%35, %15) : (tensor<64x16x!tile.ptr<f32>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f32>>
    "tile.store"(%36, %27#0) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x16x!tile.ptr<f32>>, tensor<64x16xf32>) -> ()
    return
  }
}

// -----

// A persistent kernel (tutorial 09's shape): the tile loop carries a counter for its epilogue, and
// rows past M are clamped to 0 with tl.where instead of wrapped. Inside the tile loop the test
// (rows within [0, M), extents >= 1, B's column coordinate >= 0) chooses between the body without
// the select, its loads carrying their arrays, and the body as it was; both yield the counter.
// CHECK-LABEL: func.func @tiles
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (i32)
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK: %[[TILE:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK-NOT: arith.select
// CHECK: "tile.load"{{.*}}descriptor = "array base=a_ptr rows=M cols=K row_stride=stride_am"
// CHECK: "tile.load"{{.*}}descriptor = "array base=b_ptr rows=K cols=N row_stride=stride_bk"
// CHECK: "tile.store"
// CHECK: scf.yield %{{.*}} : i32
// CHECK: } else {
// CHECK: arith.select
// CHECK-NOT: descriptor
// CHECK: "tile.store"
// CHECK: scf.yield %{{.*}} : i32
// CHECK: scf.yield %[[TILE]] : i32
module {
  func.func @tiles(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "a_ptr"}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "b_ptr"}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "c_ptr"}, %arg3: i32 {tile.name = "M"}, %arg4: i32 {tile.name = "N"}, %arg5: i32 {tile.name = "K"}, %arg6: i32 {tile.divisibility = 16 : i32, tile.name = "stride_am"}, %arg7: i32 {tile.divisibility = 16 : i32, tile.name = "stride_bk"}) attributes {tile.kernel} {
    %c16_i32 = arith.constant 16 : i32
    %0 = arith.addi %arg4, %c16_i32 : i32
    %c1_i32 = arith.constant 1 : i32
    %1 = arith.subi %0, %c1_i32 : i32
    %c16_i32_0 = arith.constant 16 : i32
    %2 = arith.divsi %1, %c16_i32_0 : i32
    %c64_i32 = arith.constant 64 : i32
    %3 = arith.addi %arg3, %c64_i32 : i32
    %c1_i32_1 = arith.constant 1 : i32
    %4 = arith.subi %3, %c1_i32_1 : i32
    %c64_i32_2 = arith.constant 64 : i32
    %5 = arith.divsi %4, %c64_i32_2 : i32
    %6 = arith.muli %5, %2 : i32
    %7 = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %c4_i32 = arith.constant 4 : i32
    %8 = arith.subi %7, %c4_i32 : i32
    %c4_i32_3 = arith.constant 4 : i32
    %9 = scf.for %arg8 = %7 to %6 step %c4_i32_3 iter_args(%arg9 = %8) -> (i32)  : i32 {
      %10 = arith.divsi %arg8, %2 : i32
      %c64_i32_4 = arith.constant 64 : i32
      %11 = arith.muli %10, %c64_i32_4 : i32
      %12 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
      %13 = "tile.splat"(%11) : (i32) -> tensor<64xi32>
      %14 = arith.addi %13, %12 : tensor<64xi32>
      %15 = "tile.splat"(%arg3) : (i32) -> tensor<64xi32>
      %16 = arith.cmpi slt, %14, %15 : tensor<64xi32>
      %c0_i32 = arith.constant 0 : i32
      %cst = arith.constant dense<0> : tensor<64xi32>
      %17 = arith.select %16, %14, %cst : tensor<64xi1>, tensor<64xi32>
      %18 = arith.remsi %arg8, %2 : i32
      %c16_i32_5 = arith.constant 16 : i32
      %19 = arith.muli %18, %c16_i32_5 : i32
      %20 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
      %21 = "tile.splat"(%19) : (i32) -> tensor<16xi32>
      %22 = arith.addi %21, %20 : tensor<16xi32>
      %cst_6 = arith.constant dense<0.000000e+00> : tensor<64x16xf32>
      %c0_i32_7 = arith.constant 0 : i32
      %c16_i32_8 = arith.constant 16 : i32
      %23 = scf.for %arg10 = %c0_i32_7 to %arg5 step %c16_i32_8 iter_args(%arg11 = %cst_6) -> (tensor<64x16xf32>)  : i32 {
        %40 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
        %41 = "tile.splat"(%arg10) : (i32) -> tensor<16xi32>
        %42 = arith.addi %41, %40 : tensor<16xi32>
        %43 = "tile.expand_dims"(%17) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
        %44 = "tile.splat"(%arg6) : (i32) -> tensor<64x1xi32>
        %45 = arith.muli %43, %44 : tensor<64x1xi32>
        %46 = "tile.splat"(%arg0) : (!tile.ptr<f16>) -> tensor<64x1x!tile.ptr<f16>>
        %47 = "tile.addptr"(%46, %45) : (tensor<64x1x!tile.ptr<f16>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f16>>
        %48 = "tile.expand_dims"(%42) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
        %49 = "tile.broadcast"(%47) : (tensor<64x1x!tile.ptr<f16>>) -> tensor<64x16x!tile.ptr<f16>>
        %50 = "tile.broadcast"(%48) : (tensor<1x16xi32>) -> tensor<64x16xi32>
        %51 = "tile.addptr"(%49, %50) : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f16>>
        %52 = "tile.splat"(%arg5) : (i32) -> tensor<1x16xi32>
        %53 = arith.cmpi slt, %48, %52 : tensor<1x16xi32>
        %54 = "tile.broadcast"(%53) : (tensor<1x16xi1>) -> tensor<64x16xi1>
        %cst_13 = arith.constant 0.000000e+00 : f16
        %cst_14 = arith.constant dense<0.000000e+00> : tensor<64x16xf16>
        %55 = "tile.load"(%51, %54, %cst_14) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi1>, tensor<64x16xf16>) -> tensor<64x16xf16>
        %56 = "tile.expand_dims"(%42) {axis = 1 : i32} : (tensor<16xi32>) -> tensor<16x1xi32>
        %57 = "tile.splat"(%arg7) : (i32) -> tensor<16x1xi32>
        %58 = arith.muli %56, %57 : tensor<16x1xi32>
        %59 = "tile.splat"(%arg1) : (!tile.ptr<f16>) -> tensor<16x1x!tile.ptr<f16>>
        %60 = "tile.addptr"(%59, %58) : (tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>) -> tensor<16x1x!tile.ptr<f16>>
        %61 = "tile.expand_dims"(%22) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
        %62 = "tile.broadcast"(%60) : (tensor<16x1x!tile.ptr<f16>>) -> tensor<16x16x!tile.ptr<f16>>
        %63 = "tile.broadcast"(%61) : (tensor<1x16xi32>) -> tensor<16x16xi32>
        %64 = "tile.addptr"(%62, %63) : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f16>>
        %65 = "tile.splat"(%arg5) : (i32) -> tensor<16x1xi32>
        %66 = arith.cmpi slt, %56, %65 : tensor<16x1xi32>
        %67 = "tile.splat"(%arg4) : (i32) -> tensor<1x16xi32>
        %68 = arith.cmpi slt, %61, %67 : tensor<1x16xi32>
        %69 = "tile.broadcast"(%66) : (tensor<16x1xi1>) -> tensor<16x16xi1>
        %70 = "tile.broadcast"(%68) : (tensor<1x16xi1>) -> tensor<16x16xi1>
        %71 = arith.andi %69, %70 : tensor<16x16xi1>
        %cst_15 = arith.constant 0.000000e+00 : f16
        %cst_16 = arith.constant dense<0.000000e+00> : tensor<16x16xf16>
        %72 = "tile.load"(%64, %71, %cst_16) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi1>, tensor<16x16xf16>) -> tensor<16x16xf16>
        %73 = "tile.dot"(%55, %72, %arg11) {input_precision = "ieee"} : (tensor<64x16xf16>, tensor<16x16xf16>, tensor<64x16xf32>) -> tensor<64x16xf32>
        scf.yield %73 : tensor<64x16xf32>
      }
      %c4_i32_9 = arith.constant 4 : i32
      %24 = arith.addi %arg9, %c4_i32_9 : i32
      %25 = arith.divsi %24, %2 : i32
      %c64_i32_10 = arith.constant 64 : i32
      %26 = arith.muli %25, %c64_i32_10 : i32
      %27 = "tile.splat"(%26) : (i32) -> tensor<64xi32>
      %28 = arith.addi %27, %12 : tensor<64xi32>
      %29 = "tile.expand_dims"(%28) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
      %c16_i32_11 = arith.constant 16 : i32
      %cst_12 = arith.constant dense<16> : tensor<64x1xi32>
      %30 = arith.muli %29, %cst_12 : tensor<64x1xi32>
      %31 = "tile.splat"(%arg2) : (!tile.ptr<f32>) -> tensor<64x1x!tile.ptr<f32>>
      %32 = "tile.addptr"(%31, %30) : (tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f32>>
      %33 = "tile.expand_dims"(%22) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
      %34 = "tile.broadcast"(%32) : (tensor<64x1x!tile.ptr<f32>>) -> tensor<64x16x!tile.ptr<f32>>
      %35 = "tile.broadcast"(%33) : (tensor<1x16xi32>) -> tensor<64x16xi32>
      %36 = "tile.addptr"(%34, %35) : (tensor<64x16x!tile.ptr<f32>>, tensor<64x16xi32>) -> tensor<64x16x!tile.ptr<f32>>
      %37 = "tile.splat"(%arg3) : (i32) -> tensor<64x1xi32>
      %38 = arith.cmpi slt, %29, %37 : tensor<64x1xi32>
      %39 = "tile.broadcast"(%38) : (tensor<64x1xi1>) -> tensor<64x16xi1>
      "tile.store"(%36, %23, %39) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<64x16x!tile.ptr<f32>>, tensor<64x16xf32>, tensor<64x16xi1>) -> ()
      scf.yield %24 : i32
    }
    return
  }
}

// -----

// A column-major A (`x.T @ w`: M contiguous, K rows stride_ak apart) is the transpose of the box
// of X [K, M] at (32 k, 64 pid0): the raised copy loads that box (pointers and mask made from it)
// and a tile.trans gives the dot its A; convert-tile-to-gpu streams it M-major.
// CHECK-LABEL: func.func @column_major_a
// CHECK: scf.if
// CHECK: scf.for
// CHECK: %[[BOX:.*]] = "tile.load"({{.*}}) {descriptor = "array base=a_ptr rows=K cols=M row_stride=stride_ak"{{.*}} -> tensor<32x64xf16>
// CHECK-NEXT: %[[A:.*]] = "tile.trans"(%[[BOX]]) {order = array<i32: 1, 0>} : (tensor<32x64xf16>) -> tensor<64x32xf16>
// CHECK: %[[B:.*]] = "tile.load"({{.*}}) {descriptor = "array base=b_ptr rows=K cols=N row_stride=stride_bk"
// CHECK: "tile.dot"(%[[A]], %[[B]],
// CHECK: } else {
// CHECK-NOT: descriptor
// CHECK: "tile.dot"
// CHECK: return
module {
  func.func @column_major_a(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "a_ptr"}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "b_ptr"}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "c_ptr"}, %arg3: i32 {tile.name = "M"}, %arg4: i32 {tile.name = "N"}, %arg5: i32 {tile.name = "K"}, %arg6: i32 {tile.divisibility = 16 : i32, tile.name = "stride_ak"}, %arg7: i32 {tile.divisibility = 16 : i32, tile.name = "stride_bk"}, %arg8: i32 {tile.divisibility = 16 : i32, tile.name = "stride_cm"}) attributes {tile.kernel} {
    %0 = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %c64_i32 = arith.constant 64 : i32
    %1 = arith.muli %0, %c64_i32 : i32
    %2 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
    %3 = "tile.splat"(%1) : (i32) -> tensor<64xi32>
    %4 = arith.addi %3, %2 : tensor<64xi32>
    %5 = "tile.program_id"() {axis = 1 : i32} : () -> i32
    %c64_i32_0 = arith.constant 64 : i32
    %6 = arith.muli %5, %c64_i32_0 : i32
    %7 = "tile.splat"(%6) : (i32) -> tensor<64xi32>
    %8 = arith.addi %7, %2 : tensor<64xi32>
    %9 = "tile.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32>
    %10 = "tile.expand_dims"(%4) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
    %c1_i32 = arith.constant 1 : i32
    %cst = arith.constant dense<1> : tensor<64x1xi32>
    %11 = arith.muli %10, %cst : tensor<64x1xi32>
    %12 = "tile.splat"(%arg0) : (!tile.ptr<f16>) -> tensor<64x1x!tile.ptr<f16>>
    %13 = "tile.addptr"(%12, %11) : (tensor<64x1x!tile.ptr<f16>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f16>>
    %14 = "tile.expand_dims"(%9) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
    %15 = "tile.splat"(%arg6) : (i32) -> tensor<1x32xi32>
    %16 = arith.muli %14, %15 : tensor<1x32xi32>
    %17 = "tile.broadcast"(%13) : (tensor<64x1x!tile.ptr<f16>>) -> tensor<64x32x!tile.ptr<f16>>
    %18 = "tile.broadcast"(%16) : (tensor<1x32xi32>) -> tensor<64x32xi32>
    %19 = "tile.addptr"(%17, %18) : (tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>) -> tensor<64x32x!tile.ptr<f16>>
    %20 = "tile.expand_dims"(%9) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
    %21 = "tile.splat"(%arg7) : (i32) -> tensor<32x1xi32>
    %22 = arith.muli %20, %21 : tensor<32x1xi32>
    %23 = "tile.splat"(%arg1) : (!tile.ptr<f16>) -> tensor<32x1x!tile.ptr<f16>>
    %24 = "tile.addptr"(%23, %22) : (tensor<32x1x!tile.ptr<f16>>, tensor<32x1xi32>) -> tensor<32x1x!tile.ptr<f16>>
    %25 = "tile.expand_dims"(%8) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
    %c1_i32_1 = arith.constant 1 : i32
    %cst_2 = arith.constant dense<1> : tensor<1x64xi32>
    %26 = arith.muli %25, %cst_2 : tensor<1x64xi32>
    %27 = "tile.broadcast"(%24) : (tensor<32x1x!tile.ptr<f16>>) -> tensor<32x64x!tile.ptr<f16>>
    %28 = "tile.broadcast"(%26) : (tensor<1x64xi32>) -> tensor<32x64xi32>
    %29 = "tile.addptr"(%27, %28) : (tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>) -> tensor<32x64x!tile.ptr<f16>>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %c32_i32 = arith.constant 32 : i32
    %30 = arith.addi %arg5, %c32_i32 : i32
    %c1_i32_4 = arith.constant 1 : i32
    %31 = arith.subi %30, %c1_i32_4 : i32
    %c32_i32_5 = arith.constant 32 : i32
    %32 = arith.divsi %31, %c32_i32_5 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32_6 = arith.constant 1 : i32
    %33:3 = scf.for %arg9 = %c0_i32 to %32 step %c1_i32_6 iter_args(%arg10 = %cst_3, %arg11 = %19, %arg12 = %29) -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>)  : i32 {
      %48 = "tile.expand_dims"(%4) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
      %49 = "tile.splat"(%arg3) : (i32) -> tensor<64x1xi32>
      %50 = arith.cmpi slt, %48, %49 : tensor<64x1xi32>
      %51 = "tile.expand_dims"(%9) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
      %c32_i32_7 = arith.constant 32 : i32
      %52 = arith.muli %arg9, %c32_i32_7 : i32
      %53 = arith.subi %arg5, %52 : i32
      %54 = "tile.splat"(%53) : (i32) -> tensor<1x32xi32>
      %55 = arith.cmpi slt, %51, %54 : tensor<1x32xi32>
      %56 = "tile.broadcast"(%50) : (tensor<64x1xi1>) -> tensor<64x32xi1>
      %57 = "tile.broadcast"(%55) : (tensor<1x32xi1>) -> tensor<64x32xi1>
      %58 = arith.andi %56, %57 : tensor<64x32xi1>
      %cst_8 = arith.constant 0.000000e+00 : f16
      %cst_9 = arith.constant dense<0.000000e+00> : tensor<64x32xf16>
      %59 = "tile.load"(%arg11, %58, %cst_9) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi1>, tensor<64x32xf16>) -> tensor<64x32xf16>
      %60 = "tile.expand_dims"(%9) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
      %c32_i32_10 = arith.constant 32 : i32
      %61 = arith.muli %arg9, %c32_i32_10 : i32
      %62 = arith.subi %arg5, %61 : i32
      %63 = "tile.splat"(%62) : (i32) -> tensor<32x1xi32>
      %64 = arith.cmpi slt, %60, %63 : tensor<32x1xi32>
      %65 = "tile.expand_dims"(%8) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
      %66 = "tile.splat"(%arg4) : (i32) -> tensor<1x64xi32>
      %67 = arith.cmpi slt, %65, %66 : tensor<1x64xi32>
      %68 = "tile.broadcast"(%64) : (tensor<32x1xi1>) -> tensor<32x64xi1>
      %69 = "tile.broadcast"(%67) : (tensor<1x64xi1>) -> tensor<32x64xi1>
      %70 = arith.andi %68, %69 : tensor<32x64xi1>
      %cst_11 = arith.constant 0.000000e+00 : f16
      %cst_12 = arith.constant dense<0.000000e+00> : tensor<32x64xf16>
      %71 = "tile.load"(%arg12, %70, %cst_12) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi1>, tensor<32x64xf16>) -> tensor<32x64xf16>
      %72 = "tile.dot"(%59, %71, %arg10) {input_precision = "ieee"} : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
      %c32_i32_13 = arith.constant 32 : i32
      %73 = arith.muli %c32_i32_13, %arg6 : i32
      %74 = "tile.splat"(%73) : (i32) -> tensor<64x32xi32>
      %75 = "tile.addptr"(%arg11, %74) : (tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>) -> tensor<64x32x!tile.ptr<f16>>
      %c32_i32_14 = arith.constant 32 : i32
      %76 = arith.muli %c32_i32_14, %arg7 : i32
      %77 = "tile.splat"(%76) : (i32) -> tensor<32x64xi32>
      %78 = "tile.addptr"(%arg12, %77) : (tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>) -> tensor<32x64x!tile.ptr<f16>>
      scf.yield %72, %75, %78 : tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>
    }
    %34 = "tile.splat"(%arg8) : (i32) -> tensor<64x1xi32>
    %35 = arith.muli %10, %34 : tensor<64x1xi32>
    %36 = "tile.splat"(%arg2) : (!tile.ptr<f32>) -> tensor<64x1x!tile.ptr<f32>>
    %37 = "tile.addptr"(%36, %35) : (tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>) -> tensor<64x1x!tile.ptr<f32>>
    %38 = "tile.broadcast"(%37) : (tensor<64x1x!tile.ptr<f32>>) -> tensor<64x64x!tile.ptr<f32>>
    %39 = "tile.broadcast"(%25) : (tensor<1x64xi32>) -> tensor<64x64xi32>
    %40 = "tile.addptr"(%38, %39) : (tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>) -> tensor<64x64x!tile.ptr<f32>>
    %41 = "tile.splat"(%arg3) : (i32) -> tensor<64x1xi32>
    %42 = arith.cmpi slt, %10, %41 : tensor<64x1xi32>
    %43 = "tile.splat"(%arg4) : (i32) -> tensor<1x64xi32>
    %44 = arith.cmpi slt, %25, %43 : tensor<1x64xi32>
    %45 = "tile.broadcast"(%42) : (tensor<64x1xi1>) -> tensor<64x64xi1>
    %46 = "tile.broadcast"(%44) : (tensor<1x64xi1>) -> tensor<64x64xi1>
    %47 = arith.andi %45, %46 : tensor<64x64xi1>
    "tile.store"(%40, %33#0, %47) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>, tensor<64x64xi1>) -> ()
    return
  }
}
