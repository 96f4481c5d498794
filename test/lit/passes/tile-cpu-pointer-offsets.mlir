// RUN: tilec-opt %s -p tile-cpu-pointer-offsets | FileCheck %s

// An address `base + offset` with the base defined outside the loop becomes a GEP from the base
// pointer, which LLVM's vectorizer sees as consecutive (inttoptr hid it).
// CHECK-LABEL: func.func @load
// CHECK: linalg.generic
// CHECK: %[[B:.*]] = llvm.inttoptr %arg0 : i64 to !llvm.ptr
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[B]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT: llvm.load %[[P]] : !llvm.ptr -> f32
func.func @load(%base: i64) -> tensor<16xf32> {
  %c4 = arith.constant 4 : i64
  %e = tensor.empty() : tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<16xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %i64 = arith.index_cast %i : index to i64
    %off = arith.muli %i64, %c4 : i64
    %a = arith.addi %base, %off : i64
    %p = llvm.inttoptr %a : i64 to !llvm.ptr
    %v = llvm.load %p : !llvm.ptr -> f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// Either operand may be the base; an address whose parts both vary in the loop, or an inttoptr
// outside any loop, stays.
// CHECK-LABEL: func.func @store
// CHECK: scf.for
// CHECK: llvm.getelementptr
// CHECK: llvm.store
// CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
// CHECK-NOT: llvm.getelementptr
// CHECK: return
func.func @store(%base: i64, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %i64 = arith.index_cast %i : index to i64
    %a = arith.addi %i64, %base : i64
    %p = llvm.inttoptr %a : i64 to !llvm.ptr
    llvm.store %v, %p : f32, !llvm.ptr
    %both = arith.addi %i64, %i64 : i64
    %q = llvm.inttoptr %both : i64 to !llvm.ptr
    llvm.store %v, %q : f32, !llvm.ptr
  }
  %top = arith.addi %base, %base : i64
  %r = llvm.inttoptr %top : i64 to !llvm.ptr
  llvm.store %v, %r : f32, !llvm.ptr
  return
}

// A sum of several terms (a matmul's tile copy: the array, the row's offset, the column and the
// K loop's advance) is split by whether a term changes along the innermost index (dim 1): the
// others make the base, LLVM hoists it, and the column alone is the GEP's offset.
// CHECK-LABEL: func.func @tile_copy
// CHECK: linalg.generic
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %arg1 : i64
// CHECK: %[[COL:.*]] = arith.muli %{{.*}}, %{{.*}} : i64
// CHECK: %[[K:.*]] = arith.muli %arg2, %{{.*}} : i64
// CHECK: %[[B1:.*]] = arith.addi %[[K]], %[[ROW]] : i64
// CHECK: %[[B2:.*]] = arith.addi %[[B1]], %arg0 : i64
// CHECK: %[[P:.*]] = llvm.inttoptr %[[B2]] : i64 to !llvm.ptr
// CHECK: llvm.getelementptr %[[P]][%[[COL]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
func.func @tile_copy(%base: i64, %stride: i64, %k: i64) -> tensor<8x16xf32> {
  %c4 = arith.constant 4 : i64
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x16xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %row = arith.muli %i64, %stride : i64
    %col = arith.muli %j64, %c4 : i64
    %kb = arith.muli %k, %c4 : i64
    %a0 = arith.addi %base, %row : i64
    %a1 = arith.addi %a0, %col : i64
    %a2 = arith.addi %a1, %kb : i64
    %p = llvm.inttoptr %a2 : i64 to !llvm.ptr
    %v = llvm.load %p : !llvm.ptr -> f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
