// RUN: tilec-opt %s -p tile-cpu-atomics | FileCheck %s

// CHECK-LABEL: func.func private @__tilec_atomic_fadd_relaxed_f32(%arg0: i64, %arg1: f32) -> f32
// CHECK: %[[P:.*]] = llvm.inttoptr %arg0 : i64 to !llvm.ptr
// CHECK: %[[OLD:.*]] = llvm.atomicrmw fadd %[[P]], %arg1 monotonic : !llvm.ptr, f32
// CHECK: return %[[OLD]] : f32
func.func private @__tilec_atomic_fadd_relaxed_f32(i64, f32) -> f32 attributes {tile.atomic = {kind = "fadd", sem = "relaxed"}}

// CHECK-LABEL: func.func private @__tilec_atomic_cas_acq_rel_i32(%arg0: i64, %arg1: i32, %arg2: i32) -> i32
// CHECK: llvm.cmpxchg %{{.*}}, %arg1, %arg2 acq_rel monotonic : !llvm.ptr, i32
// CHECK: llvm.extractvalue %{{.*}}[0] : !llvm.struct<(i32, i1)>
func.func private @__tilec_atomic_cas_acq_rel_i32(i64, i32, i32) -> i32 attributes {tile.atomic = {kind = "cas", sem = "acq_rel"}}
