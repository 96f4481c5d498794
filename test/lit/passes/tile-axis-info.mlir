// RUN: tilec-opt %s -p tile-axis-info | FileCheck %s

// offs = pid * 1024 + arange(0, 1024); mask = offs < n with n divisible by 16.
// CHECK-LABEL: func.func @k
// CHECK: "tile.make_range"() {end = 1024 : i32, start = 0 : i32, tile.axis_constancy = array<i32: 1>, tile.axis_contiguity = array<i32: 1024>, tile.axis_divisibility = array<i32: 1073741824>}
// CHECK: arith.addi {{.*}} {tile.axis_constancy = array<i32: 1>, tile.axis_contiguity = array<i32: 1024>, tile.axis_divisibility = array<i32: 1024>}
// CHECK: arith.cmpi {{.*}} {tile.axis_constancy = array<i32: 16>
// CHECK: "tile.addptr"{{.*}}tile.axis_contiguity = array<i32: 1024>, tile.axis_divisibility = array<i32: 16>
func.func @k(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
  %c = arith.constant 1024 : i32
  %base = arith.muli %pid, %c : i32
  %r = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
  %b = "tile.splat"(%base) : (i32) -> tensor<1024xi32>
  %offs = arith.addi %b, %r : tensor<1024xi32>
  %ns = "tile.splat"(%n) : (i32) -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %ps = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %q = "tile.addptr"(%ps, %offs) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %v = "tile.load"(%q, %mask) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi1>) -> tensor<1024xf32>
  "tile.store"(%q, %v, %mask) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>, tensor<1024xi1>) -> ()
  return
}

// Loop-carried values: what holds for the initial value and for every yielded one. A pointer block
// advanced by 16 elements keeps its contiguity and 16-byte alignment; one advanced by 1 element
// keeps its contiguity but only 4-byte alignment.
// CHECK-LABEL: func.func @carried
// CHECK: scf.for
// CHECK: "tile.addptr"{{.*}}tile.axis_contiguity = array<i32: 64>, tile.axis_divisibility = array<i32: 16>
// CHECK: "tile.addptr"{{.*}}tile.axis_contiguity = array<i32: 64>, tile.axis_divisibility = array<i32: 4>
func.func @carried(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.kernel} {
  %r = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %ps = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
  %q0 = "tile.addptr"(%ps, %r) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %sixteen = arith.constant dense<16> : tensor<64xi32>
  %one = arith.constant dense<1> : tensor<64xi32>
  %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %q0, %b = %q0) -> (tensor<64x!tile.ptr<f32>>, tensor<64x!tile.ptr<f32>>) : i32 {
    %a2 = "tile.addptr"(%a, %sixteen) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
    %b2 = "tile.addptr"(%b, %one) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
    scf.yield %a2, %b2 : tensor<64x!tile.ptr<f32>>, tensor<64x!tile.ptr<f32>>
  }
  return
}

// (offs % n) with n divisible by 16: runs of 16 stay contiguous (Triton's matmul tutorial wraps its
// row and column offsets that way).
// CHECK-LABEL: func.func @wrapped
// CHECK: arith.remsi {{.*}} {tile.axis_constancy = array<i32: 1>, tile.axis_contiguity = array<i32: 16>, tile.axis_divisibility = array<i32: 16>}
func.func @wrapped(%n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
  %c = arith.constant 128 : i32
  %base = arith.muli %pid, %c : i32
  %r = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
  %b = "tile.splat"(%base) : (i32) -> tensor<128xi32>
  %offs = arith.addi %b, %r : tensor<128xi32>
  %ns = "tile.splat"(%n) : (i32) -> tensor<128xi32>
  %w = arith.remsi %offs, %ns : tensor<128xi32>
  return
}

// A run that starts off a multiple of n wraps inside its blocks: (1 + arange(16)) % n is
// [1, ..., 15, 0], not contiguous.
// CHECK-LABEL: func.func @wrapped_off_alignment
// CHECK: arith.remsi {{.*}} {tile.axis_constancy = array<i32: 1>, tile.axis_contiguity = array<i32: 1>, tile.axis_divisibility = array<i32: 1>}
func.func @wrapped_off_alignment(%n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = "tile.make_range"() {end = 17 : i32, start = 1 : i32} : () -> tensor<16xi32>
  %ns = "tile.splat"(%n) : (i32) -> tensor<16xi32>
  %w = arith.remsi %r, %ns : tensor<16xi32>
  return
}

// Multiplying by a constant 1 (a stride the launcher specialized to 1) keeps contiguity.
// CHECK-LABEL: func.func @unit_stride
// CHECK: arith.muli {{.*}} {tile.axis_constancy = array<i32: 1>, tile.axis_contiguity = array<i32: 64>
func.func @unit_stride() attributes {tile.kernel} {
  %r = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %c1 = arith.constant 1 : i32
  %s = "tile.splat"(%c1) : (i32) -> tensor<64xi32>
  %m = arith.muli %r, %s : tensor<64xi32>
  return
}

// Comparisons of a contiguous run with a bound divisible by 16: `x < n` and `x >= n` (and `n > x`,
// `n <= x`) are constant over aligned groups of 16; `x <= n`, `x > n`, `x == n` and `x != n` change
// right after n's own element, so each element keeps its own mask bit (vectorizing those masks
// read and wrote past n).
// CHECK-LABEL: func.func @predicates
// CHECK: arith.cmpi slt, {{.*}} {tile.axis_constancy = array<i32: 16>
// CHECK: arith.cmpi sge, {{.*}} {tile.axis_constancy = array<i32: 16>
// CHECK: arith.cmpi ult, {{.*}} {tile.axis_constancy = array<i32: 16>
// CHECK: arith.cmpi uge, {{.*}} {tile.axis_constancy = array<i32: 16>
// CHECK: arith.cmpi sle, {{.*}} {tile.axis_constancy = array<i32: 1>
// CHECK: arith.cmpi sgt, {{.*}} {tile.axis_constancy = array<i32: 1>
// CHECK: arith.cmpi eq, {{.*}} {tile.axis_constancy = array<i32: 1>
// CHECK: arith.cmpi ne, {{.*}} {tile.axis_constancy = array<i32: 1>
// CHECK: arith.cmpi sgt, [[N:%[0-9]+]], [[X:%[0-9]+]] {tile.axis_constancy = array<i32: 16>
// CHECK: arith.cmpi sle, [[N]], [[X]] {tile.axis_constancy = array<i32: 16>
// CHECK: arith.cmpi slt, [[N]], [[X]] {tile.axis_constancy = array<i32: 1>
// CHECK: arith.cmpi sge, [[N]], [[X]] {tile.axis_constancy = array<i32: 1>
func.func @predicates(%n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
  %c = arith.constant 128 : i32
  %base = arith.muli %pid, %c : i32
  %r = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
  %b = "tile.splat"(%base) : (i32) -> tensor<128xi32>
  %x = arith.addi %b, %r : tensor<128xi32>
  %ns = "tile.splat"(%n) : (i32) -> tensor<128xi32>
  %lt = arith.cmpi slt, %x, %ns : tensor<128xi32>
  %ge = arith.cmpi sge, %x, %ns : tensor<128xi32>
  %ult = arith.cmpi ult, %x, %ns : tensor<128xi32>
  %uge = arith.cmpi uge, %x, %ns : tensor<128xi32>
  %le = arith.cmpi sle, %x, %ns : tensor<128xi32>
  %gt = arith.cmpi sgt, %x, %ns : tensor<128xi32>
  %eq = arith.cmpi eq, %x, %ns : tensor<128xi32>
  %ne = arith.cmpi ne, %x, %ns : tensor<128xi32>
  %rgt = arith.cmpi sgt, %ns, %x : tensor<128xi32>
  %rle = arith.cmpi sle, %ns, %x : tensor<128xi32>
  %rlt = arith.cmpi slt, %ns, %x : tensor<128xi32>
  %rge = arith.cmpi sge, %ns, %x : tensor<128xi32>
  return
}
