// RUN: tilec-opt %s --split-input-file -p 'tile-cpu-version-remainders' | FileCheck %s

// Triton's matmul rows: `(pid * 16 + arange(0, 16)) % M` addresses the loads in a K loop. The
// scalars the bounds need come first, then the test (0 <= pid * 16 and pid * 16 + 15 < M, in 64
// bits); the then-branch is the body with the remainder replaced by its operand (no arith.remsi,
// the loop copied with it), the else-branch the body as it was.
// CHECK-LABEL: func.func @rows
// CHECK: %[[PID:.*]] = "tile.program_id"
// CHECK: %[[START:.*]] = arith.muli %[[PID]], %{{.*}} : i32
// CHECK-NOT: tile.make_range
// CHECK: %[[M:.*]] = arith.extsi %arg2 : i32 to i64
// CHECK: %[[LOW:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : i64
// CHECK: %[[HIGH:.*]] = arith.cmpi slt, %{{.*}}, %[[M]] : i64
// CHECK: %[[OK:.*]] = arith.andi %[[LOW]], %[[HIGH]] : i1
// CHECK: scf.if %[[OK]] {
// CHECK-NOT: arith.remsi
// CHECK: scf.for
// CHECK: } else {
// CHECK: arith.remsi %{{.*}}, %{{.*}} : tensor<16xi32>
// CHECK: scf.for
module {
  func.func @rows(%a: !tile.ptr<f32>, %out: !tile.ptr<f32>, %m: i32, %k: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %start = arith.muli %pid, %c16 : i32
    %starts = "tile.splat"(%start) : (i32) -> tensor<16xi32>
    %range = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %offs = arith.addi %starts, %range : tensor<16xi32>
    %ms = "tile.splat"(%m) : (i32) -> tensor<16xi32>
    %rows = arith.remsi %offs, %ms : tensor<16xi32>
    %as = "tile.splat"(%a) : (!tile.ptr<f32>) -> tensor<16x!tile.ptr<f32>>
    %ptrs = "tile.addptr"(%as, %rows) : (tensor<16x!tile.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<f32>>
    %zero = arith.constant dense<0.0> : tensor<16xf32>
    %sum = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero) -> (tensor<16xf32>) : i32 {
      %x = "tile.load"(%ptrs) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x!tile.ptr<f32>>) -> tensor<16xf32>
      %next = arith.addf %acc, %x : tensor<16xf32>
      scf.yield %next : tensor<16xf32>
    }
    %outs = "tile.splat"(%out) : (!tile.ptr<f32>) -> tensor<16x!tile.ptr<f32>>
    %dst = "tile.addptr"(%outs, %range) : (tensor<16x!tile.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<f32>>
    "tile.store"(%dst, %sum) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tile.ptr<f32>>, tensor<16xf32>) -> ()
    return
  }
}

// -----

// A loop-free kernel is left to tile-cpu-version-masks; a remainder by a value that is not a splat
// of a scalar, or one that feeds no address, is left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.if
// CHECK: arith.remsi
// CHECK-LABEL: func.func @not_an_address
// CHECK-NOT: scf.if
// CHECK: return
module {
  func.func @left_alone(%a: !tile.ptr<f32>, %m: i32) attributes {tile.kernel} {
    %range = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %ms = "tile.splat"(%m) : (i32) -> tensor<16xi32>
    %rows = arith.remsi %range, %ms : tensor<16xi32>
    %as = "tile.splat"(%a) : (!tile.ptr<f32>) -> tensor<16x!tile.ptr<f32>>
    %ptrs = "tile.addptr"(%as, %rows) : (tensor<16x!tile.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<f32>>
    %x = "tile.load"(%ptrs) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x!tile.ptr<f32>>) -> tensor<16xf32>
    "tile.store"(%ptrs, %x) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tile.ptr<f32>>, tensor<16xf32>) -> ()
    return
  }
  func.func @not_an_address(%out: !tile.ptr<i32>, %m: i32, %k: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %range = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %ms = "tile.splat"(%m) : (i32) -> tensor<16xi32>
    %values = arith.remsi %range, %ms : tensor<16xi32>
    %sum = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %values) -> (tensor<16xi32>) : i32 {
      %next = arith.addi %acc, %values : tensor<16xi32>
      scf.yield %next : tensor<16xi32>
    }
    %outs = "tile.splat"(%out) : (!tile.ptr<i32>) -> tensor<16x!tile.ptr<i32>>
    %dst = "tile.addptr"(%outs, %range) : (tensor<16x!tile.ptr<i32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<i32>>
    "tile.store"(%dst, %sum) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tile.ptr<i32>>, tensor<16xi32>) -> ()
    return
  }
}

// -----

// A persistent kernel (tutorial 09): the kernel's body has no wrap of its own, its tile loop has
// two (rows and columns clamped with tl.where, which count as `% M` does). Each tile tests its
// own offsets inside the tile loop; both copies yield the counter the loop carries.
// CHECK-LABEL: func.func @wrapped_persistent
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (i32)
// CHECK: %[[TILE:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK-NOT: arith.select
// CHECK: "tile.dot"
// CHECK: scf.yield %{{.*}} : i32
// CHECK: } else {
// CHECK-COUNT-2: arith.select %{{.*}} : tensor<32xi1>, tensor<32xi32>
// CHECK: "tile.dot"
// CHECK: scf.yield %{{.*}} : i32
// CHECK: scf.yield %[[TILE]] : i32
module {
  func.func @wrapped_persistent(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "a_ptr"}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "b_ptr"}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "c_ptr"}, %arg3: i32 {tile.name = "M"}, %arg4: i32 {tile.name = "N"}, %arg5: i32 {tile.name = "K"}) attributes {tile.kernel} {
    %c32_i32 = arith.constant 32 : i32
    %0 = arith.addi %arg4, %c32_i32 : i32
    %c1_i32 = arith.constant 1 : i32
    %1 = arith.subi %0, %c1_i32 : i32
    %c32_i32_0 = arith.constant 32 : i32
    %2 = arith.divsi %1, %c32_i32_0 : i32
    %3 = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %c4_i32 = arith.constant 4 : i32
    %4 = arith.subi %3, %c4_i32 : i32
    %c32_i32_1 = arith.constant 32 : i32
    %5 = arith.addi %arg3, %c32_i32_1 : i32
    %c1_i32_2 = arith.constant 1 : i32
    %6 = arith.subi %5, %c1_i32_2 : i32
    %c32_i32_3 = arith.constant 32 : i32
    %7 = arith.divsi %6, %c32_i32_3 : i32
    %8 = arith.muli %7, %2 : i32
    %c4_i32_4 = arith.constant 4 : i32
    %9 = scf.for %arg6 = %3 to %8 step %c4_i32_4 iter_args(%arg7 = %4) -> (i32)  : i32 {
      %10 = arith.divsi %arg6, %2 : i32
      %c32_i32_5 = arith.constant 32 : i32
      %11 = arith.muli %10, %c32_i32_5 : i32
      %12 = "tile.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32>
      %13 = "tile.splat"(%11) : (i32) -> tensor<32xi32>
      %14 = arith.addi %13, %12 : tensor<32xi32>
      %15 = arith.remsi %arg6, %2 : i32
      %c32_i32_6 = arith.constant 32 : i32
      %16 = arith.muli %15, %c32_i32_6 : i32
      %17 = "tile.splat"(%16) : (i32) -> tensor<32xi32>
      %18 = arith.addi %17, %12 : tensor<32xi32>
      %19 = "tile.splat"(%arg3) : (i32) -> tensor<32xi32>
      %20 = arith.cmpi slt, %14, %19 : tensor<32xi32>
      %c0_i32 = arith.constant 0 : i32
      %cst = arith.constant dense<0> : tensor<32xi32>
      %21 = arith.select %20, %14, %cst : tensor<32xi1>, tensor<32xi32>
      %22 = "tile.splat"(%arg4) : (i32) -> tensor<32xi32>
      %23 = arith.cmpi slt, %18, %22 : tensor<32xi32>
      %c0_i32_7 = arith.constant 0 : i32
      %cst_8 = arith.constant dense<0> : tensor<32xi32>
      %24 = arith.select %23, %18, %cst_8 : tensor<32xi1>, tensor<32xi32>
      %25 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
      %cst_9 = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
      %c16_i32 = arith.constant 16 : i32
      %26 = arith.addi %arg5, %c16_i32 : i32
      %c1_i32_10 = arith.constant 1 : i32
      %27 = arith.subi %26, %c1_i32_10 : i32
      %c16_i32_11 = arith.constant 16 : i32
      %28 = arith.divsi %27, %c16_i32_11 : i32
      %c0_i32_12 = arith.constant 0 : i32
      %c1_i32_13 = arith.constant 1 : i32
      %29 = scf.for %arg8 = %c0_i32_12 to %28 step %c1_i32_13 iter_args(%arg9 = %cst_9) -> (tensor<32x32xf32>)  : i32 {
        %55 = "tile.expand_dims"(%21) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
        %56 = "tile.splat"(%arg5) : (i32) -> tensor<32x1xi32>
        %57 = arith.muli %55, %56 : tensor<32x1xi32>
        %58 = "tile.splat"(%arg0) : (!tile.ptr<f32>) -> tensor<32x1x!tile.ptr<f32>>
        %59 = "tile.addptr"(%58, %57) : (tensor<32x1x!tile.ptr<f32>>, tensor<32x1xi32>) -> tensor<32x1x!tile.ptr<f32>>
        %c16_i32_17 = arith.constant 16 : i32
        %60 = arith.muli %arg8, %c16_i32_17 : i32
        %61 = "tile.splat"(%60) : (i32) -> tensor<16xi32>
        %62 = arith.addi %61, %25 : tensor<16xi32>
        %63 = "tile.expand_dims"(%62) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
        %64 = "tile.broadcast"(%59) : (tensor<32x1x!tile.ptr<f32>>) -> tensor<32x16x!tile.ptr<f32>>
        %65 = "tile.broadcast"(%63) : (tensor<1x16xi32>) -> tensor<32x16xi32>
        %66 = "tile.addptr"(%64, %65) : (tensor<32x16x!tile.ptr<f32>>, tensor<32x16xi32>) -> tensor<32x16x!tile.ptr<f32>>
        %67 = "tile.expand_dims"(%25) {axis = 0 : i32} : (tensor<16xi32>) -> tensor<1x16xi32>
        %c16_i32_18 = arith.constant 16 : i32
        %68 = arith.muli %arg8, %c16_i32_18 : i32
        %69 = arith.subi %arg5, %68 : i32
        %70 = "tile.splat"(%69) : (i32) -> tensor<1x16xi32>
        %71 = arith.cmpi slt, %67, %70 : tensor<1x16xi32>
        %72 = "tile.broadcast"(%71) : (tensor<1x16xi1>) -> tensor<32x16xi1>
        %cst_19 = arith.constant 0.000000e+00 : f32
        %cst_20 = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
        %73 = "tile.load"(%66, %72, %cst_20) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<32x16x!tile.ptr<f32>>, tensor<32x16xi1>, tensor<32x16xf32>) -> tensor<32x16xf32>
        %c16_i32_21 = arith.constant 16 : i32
        %74 = arith.muli %arg8, %c16_i32_21 : i32
        %75 = "tile.splat"(%74) : (i32) -> tensor<16xi32>
        %76 = arith.addi %75, %25 : tensor<16xi32>
        %77 = "tile.expand_dims"(%76) {axis = 1 : i32} : (tensor<16xi32>) -> tensor<16x1xi32>
        %78 = "tile.splat"(%arg4) : (i32) -> tensor<16x1xi32>
        %79 = arith.muli %77, %78 : tensor<16x1xi32>
        %80 = "tile.splat"(%arg1) : (!tile.ptr<f32>) -> tensor<16x1x!tile.ptr<f32>>
        %81 = "tile.addptr"(%80, %79) : (tensor<16x1x!tile.ptr<f32>>, tensor<16x1xi32>) -> tensor<16x1x!tile.ptr<f32>>
        %82 = "tile.expand_dims"(%24) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
        %83 = "tile.broadcast"(%81) : (tensor<16x1x!tile.ptr<f32>>) -> tensor<16x32x!tile.ptr<f32>>
        %84 = "tile.broadcast"(%82) : (tensor<1x32xi32>) -> tensor<16x32xi32>
        %85 = "tile.addptr"(%83, %84) : (tensor<16x32x!tile.ptr<f32>>, tensor<16x32xi32>) -> tensor<16x32x!tile.ptr<f32>>
        %86 = "tile.expand_dims"(%25) {axis = 1 : i32} : (tensor<16xi32>) -> tensor<16x1xi32>
        %c16_i32_22 = arith.constant 16 : i32
        %87 = arith.muli %arg8, %c16_i32_22 : i32
        %88 = arith.subi %arg5, %87 : i32
        %89 = "tile.splat"(%88) : (i32) -> tensor<16x1xi32>
        %90 = arith.cmpi slt, %86, %89 : tensor<16x1xi32>
        %91 = "tile.broadcast"(%90) : (tensor<16x1xi1>) -> tensor<16x32xi1>
        %cst_23 = arith.constant 0.000000e+00 : f32
        %cst_24 = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
        %92 = "tile.load"(%85, %91, %cst_24) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<16x32x!tile.ptr<f32>>, tensor<16x32xi1>, tensor<16x32xf32>) -> tensor<16x32xf32>
        %93 = "tile.dot"(%73, %92, %arg9) {input_precision = "tf32"} : (tensor<32x16xf32>, tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
        scf.yield %93 : tensor<32x32xf32>
      }
      %c4_i32_14 = arith.constant 4 : i32
      %30 = arith.addi %arg7, %c4_i32_14 : i32
      %31 = arith.divsi %30, %2 : i32
      %c32_i32_15 = arith.constant 32 : i32
      %32 = arith.muli %31, %c32_i32_15 : i32
      %33 = "tile.splat"(%32) : (i32) -> tensor<32xi32>
      %34 = arith.addi %33, %12 : tensor<32xi32>
      %35 = arith.remsi %30, %2 : i32
      %c32_i32_16 = arith.constant 32 : i32
      %36 = arith.muli %35, %c32_i32_16 : i32
      %37 = "tile.splat"(%36) : (i32) -> tensor<32xi32>
      %38 = arith.addi %37, %12 : tensor<32xi32>
      %39 = "tile.expand_dims"(%34) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
      %40 = "tile.splat"(%arg3) : (i32) -> tensor<32x1xi32>
      %41 = arith.cmpi slt, %39, %40 : tensor<32x1xi32>
      %42 = "tile.expand_dims"(%38) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
      %43 = "tile.splat"(%arg4) : (i32) -> tensor<1x32xi32>
      %44 = arith.cmpi slt, %42, %43 : tensor<1x32xi32>
      %45 = "tile.broadcast"(%41) : (tensor<32x1xi1>) -> tensor<32x32xi1>
      %46 = "tile.broadcast"(%44) : (tensor<1x32xi1>) -> tensor<32x32xi1>
      %47 = arith.andi %45, %46 : tensor<32x32xi1>
      %48 = "tile.splat"(%arg4) : (i32) -> tensor<32x1xi32>
      %49 = arith.muli %39, %48 : tensor<32x1xi32>
      %50 = "tile.splat"(%arg2) : (!tile.ptr<f32>) -> tensor<32x1x!tile.ptr<f32>>
      %51 = "tile.addptr"(%50, %49) : (tensor<32x1x!tile.ptr<f32>>, tensor<32x1xi32>) -> tensor<32x1x!tile.ptr<f32>>
      %52 = "tile.broadcast"(%51) : (tensor<32x1x!tile.ptr<f32>>) -> tensor<32x32x!tile.ptr<f32>>
      %53 = "tile.broadcast"(%42) : (tensor<1x32xi32>) -> tensor<32x32xi32>
      %54 = "tile.addptr"(%52, %53) : (tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>) -> tensor<32x32x!tile.ptr<f32>>
      "tile.store"(%54, %29, %47) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>, tensor<32x32xi1>) -> ()
      scf.yield %30 : i32
    }
    return
  }
}
