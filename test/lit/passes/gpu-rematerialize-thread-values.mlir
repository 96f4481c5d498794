// RUN: tilec-opt %s --split-input-file -p 'gpu-rematerialize-thread-values' | FileCheck %s

// A loop around a loop (a persistent kernel's tile loop around its K loop): the thread-derived
// offsets it uses are recomputed from a fresh read of %tid.x in its body, once before the inner
// loop and once after it, so that neither copy lives through the inner loop; values that do not
// depend on the thread id (%n4) and the entry's own uses stay where they were.
// CHECK-LABEL: gpu.func @persistent
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[N4:.*]] = arith.muli %{{.*}}, %c4
// CHECK: %[[ROW:.*]] = arith.muli %[[TID]], %c8
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[ROW]]]
// CHECK: scf.for
// CHECK-NEXT: %[[T1:.*]] = llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;", "=r"  : () -> i32
// CHECK-NEXT: %[[I1:.*]] = arith.index_cast %[[T1]] : i32 to index
// CHECK-NEXT: %[[R1:.*]] = arith.muli %[[I1]], %c8
// CHECK-NEXT: %[[A1:.*]] = arith.addi %[[R1]], %[[N4]]
// CHECK-NEXT: memref.load %{{.*}}[%[[A1]]]
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[A1]]]
// CHECK: }
// CHECK-NEXT: %[[T2:.*]] = llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;"
// CHECK-NEXT: %[[I2:.*]] = arith.index_cast %[[T2]]
// CHECK-NEXT: %[[R2:.*]] = arith.muli %[[I2]], %c8
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[R2]]]
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @persistent(%buf: memref<?xf32>, %n: index, %tiles: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %f = arith.constant 1.0 : f32
      %tid = gpu.thread_id x
      %n4 = arith.muli %n, %c4 : index
      %row = arith.muli %tid, %c8 : index
      %at = arith.addi %row, %n4 : index
      memref.store %f, %buf[%row] : memref<?xf32>
      scf.for %t = %c0 to %tiles step %c1 {
        %v = memref.load %buf[%at] : memref<?xf32>
        scf.for %k = %c0 to %n step %c1 {
          memref.store %v, %buf[%at] : memref<?xf32>
        }
        memref.store %v, %buf[%row] : memref<?xf32>
      }
      gpu.return
    }
  }
}

// -----

// A single loop (the plain kernel's K loop) keeps its thread-derived values computed once.
// CHECK-LABEL: gpu.func @plain
// CHECK-NOT: llvm.inline_asm
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @plain(%buf: memref<?xf32>, %n: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %tid = gpu.thread_id x
      %row = arith.muli %tid, %c8 : index
      scf.for %k = %c0 to %n step %c1 {
        %v = memref.load %buf[%row] : memref<?xf32>
        memref.store %v, %buf[%k] : memref<?xf32>
      }
      gpu.return
    }
  }
}

// -----

// Nested three deep: the middle loop clones from the outer loop's copy, not from the entry.
// CHECK-LABEL: gpu.func @nest
// CHECK: scf.for
// CHECK-NEXT: %[[T1:.*]] = llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;"
// CHECK: scf.for
// CHECK-NEXT: %[[T2:.*]] = llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;"
// CHECK-NEXT: %[[I2:.*]] = arith.index_cast %[[T2]]
// CHECK-NEXT: arith.muli %[[I2]], %c8
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @nest(%buf: memref<?xf32>, %n: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %tid = gpu.thread_id x
      %row = arith.muli %tid, %c8 : index
      scf.for %i = %c0 to %n step %c1 {
        %a = memref.load %buf[%row] : memref<?xf32>
        scf.for %j = %c0 to %n step %c1 {
          scf.for %k = %c0 to %n step %c1 {
            memref.store %a, %buf[%row] : memref<?xf32>
          }
        }
      }
      gpu.return
    }
  }
}
