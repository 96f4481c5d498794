// RUN: tilec-opt %s -p tile-cpu-duplicate-producers | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// The offsets feed the mask and the pointers: each consumer gets its own copy (which elementwise
// fusion then folds into it), and the store loop's extracts compute the element in place.
// CHECK-LABEL: func.func @offsets
// CHECK-COUNT-2: linalg.index 0
// CHECK: arith.cmpi slt
// CHECK: scf.for %[[I:.*]] =
// CHECK-NOT: tensor.extract
// CHECK: arith.index_cast %[[I]] : index to i32
// CHECK: arith.addi
// CHECK: arith.extsi
// CHECK: llvm.store
func.func @offsets(%pid: i32, %n: i32, %base: i64, %v: f32) -> tensor<16xi8> {
  %e32 = tensor.empty() : tensor<16xi32>
  %offs = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e32 : tensor<16xi32>) {
  ^bb0(%out: i32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    %o = arith.addi %pid, %c : i32
    linalg.yield %o : i32
  } -> tensor<16xi32>
  %e8 = tensor.empty() : tensor<16xi8>
  %mask = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%offs : tensor<16xi32>) outs(%e8 : tensor<16xi8>) {
  ^bb0(%o: i32, %out: i8):
    %lt = arith.cmpi slt, %o, %n : i32
    %b = arith.extui %lt : i1 to i8
    linalg.yield %b : i8
  } -> tensor<16xi8>
  %e64 = tensor.empty() : tensor<16xi64>
  %ptrs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%offs : tensor<16xi32>) outs(%e64 : tensor<16xi64>) {
  ^bb0(%o: i32, %out: i64):
    %w = arith.extsi %o : i32 to i64
    %a = arith.addi %base, %w : i64
    linalg.yield %a : i64
  } -> tensor<16xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %p = tensor.extract %ptrs[%i] : tensor<16xi64>
    %q = llvm.inttoptr %p : i64 to !llvm.ptr
    llvm.store %v, %q : f32, !llvm.ptr
  }
  return %mask : tensor<16xi8>
}

// Float math is not copied (its repetition costs more than the buffer it saves).
// CHECK-LABEL: func.func @floats
// CHECK-COUNT-1: math.exp
// CHECK-NOT: math.exp
func.func @floats(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%ex : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%ex : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  return %u, %w : tensor<16xf32>, tensor<16xf32>
}
// Ten consumers (layernorm's columns feed nine: the loads of x, w and b, the mask, the store, in
// both versions tile-cpu-version-masks makes): each still gets a copy (more than 32 would not).
// CHECK-LABEL: func.func @ten_uses
// CHECK-COUNT-10: linalg.index 0
// CHECK-NOT: linalg.index
func.func @ten_uses(%base: i64) -> (tensor<16xi64>, tensor<16xi64>, tensor<16xi64>, tensor<16xi64>, tensor<16xi64>, tensor<16xi64>, tensor<16xi64>, tensor<16xi64>, tensor<16xi64>, tensor<16xi64>) {
  %e32 = tensor.empty() : tensor<16xi32>
  %offs = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e32 : tensor<16xi32>) {
  ^bb0(%out: i32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    linalg.yield %c : i32
  } -> tensor<16xi32>
  %e64 = tensor.empty() : tensor<16xi64>
  %p0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%offs : tensor<16xi32>) outs(%e64 : tensor<16xi64>) {
  ^bb0(%o: i32, %out: i64):
    %w = arith.extsi %o : i32 to i64
    %k = arith.constant 0 : i64
    %a = arith.addi %base, %w : i64
    %b = arith.addi %a, %k : i64
    linalg.yield %b : i64
  } -> tensor<16xi64>
  %p1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%offs : tensor<16xi32>) outs(%e64 : tensor<16xi64>) {
  ^bb0(%o: i32, %out: i64):
    %w = arith.extsi %o : i32 to i64
    %k = arith.constant 4096 : i64
    %a = arith.addi %base, %w : i64
    %b = arith.addi %a, %k : i64
    linalg.yield %b : i64
  } -> tensor<16xi64>
  %p2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%offs : tensor<16xi32>) outs(%e64 : tensor<16xi64>) {
  ^bb0(%o: i32, %out: i64):
    %w = arith.extsi %o : i32 to i64
    %k = arith.constant 8192 : i64
    %a = arith.addi %base, %w : i64
    %b = arith.addi %a, %k : i64
    linalg.yield %b : i64
  } -> tensor<16xi64>
  %p3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%offs : tensor<16xi32>) outs(%e64 : tensor<16xi64>) {
  ^bb0(%o: i32, %out: i64):
    %w = arith.extsi %o : i32 to i64
    %k = arith.constant 12288 : i64
    %a = arith.addi %base, %w : i64
    %b = arith.addi %a, %k : i64
    linalg.yield %b : i64
  } -> tensor<16xi64>
  %p4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%offs : tensor<16xi32>) outs(%e64 : tensor<16xi64>) {
  ^bb0(%o: i32, %out: i64):
    %w = arith.extsi %o : i32 to i64
    %k = arith.constant 16384 : i64
    %a = arith.addi %base, %w : i64
    %b = arith.addi %a, %k : i64
    linalg.yield %b : i64
  } -> tensor<16xi64>
  %p5 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%offs : tensor<16xi32>) outs(%e64 : tensor<16xi64>) {
  ^bb0(%o: i32, %out: i64):
    %w = arith.extsi %o : i32 to i64
    %k = arith.constant 20480 : i64
    %a = arith.addi %base, %w : i64
    %b = arith.addi %a, %k : i64
    linalg.yield %b : i64
  } -> tensor<16xi64>
  %p6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%offs : tensor<16xi32>) outs(%e64 : tensor<16xi64>) {
  ^bb0(%o: i32, %out: i64):
    %w = arith.extsi %o : i32 to i64
    %k = arith.constant 24576 : i64
    %a = arith.addi %base, %w : i64
    %b = arith.addi %a, %k : i64
    linalg.yield %b : i64
  } -> tensor<16xi64>
  %p7 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%offs : tensor<16xi32>) outs(%e64 : tensor<16xi64>) {
  ^bb0(%o: i32, %out: i64):
    %w = arith.extsi %o : i32 to i64
    %k = arith.constant 28672 : i64
    %a = arith.addi %base, %w : i64
    %b = arith.addi %a, %k : i64
    linalg.yield %b : i64
  } -> tensor<16xi64>
  %p8 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%offs : tensor<16xi32>) outs(%e64 : tensor<16xi64>) {
  ^bb0(%o: i32, %out: i64):
    %w = arith.extsi %o : i32 to i64
    %k = arith.constant 32768 : i64
    %a = arith.addi %base, %w : i64
    %b = arith.addi %a, %k : i64
    linalg.yield %b : i64
  } -> tensor<16xi64>
  %p9 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%offs : tensor<16xi32>) outs(%e64 : tensor<16xi64>) {
  ^bb0(%o: i32, %out: i64):
    %w = arith.extsi %o : i32 to i64
    %k = arith.constant 36864 : i64
    %a = arith.addi %base, %w : i64
    %b = arith.addi %a, %k : i64
    linalg.yield %b : i64
  } -> tensor<16xi64>
  return %p0, %p1, %p2, %p3, %p4, %p5, %p6, %p7, %p8, %p9 : tensor<16xi64>, tensor<16xi64>, tensor<16xi64>, tensor<16xi64>, tensor<16xi64>, tensor<16xi64>, tensor<16xi64>, tensor<16xi64>, tensor<16xi64>, tensor<16xi64>
}
