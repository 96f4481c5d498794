// RUN: tilec-opt %s -p 'nvvm-tensor-map-params' | FileCheck %s

// The parameters listed in tilec.tensor_map_params become 128-byte, 64-aligned byval grid constants
// (in PTX: `.param .align 64 .b8 k_param_1[128]`); the others keep their attributes.
// CHECK-LABEL: llvm.func @k
// CHECK-SAME: (%{{.*}}: !llvm.ptr<1> {llvm.align = 16 : i64},
// CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// CHECK-SAME: %{{.*}}: i32)
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @k(%out: !llvm.ptr<1> {llvm.align = 16 : i64}, %map: !llvm.ptr, %n: i32) attributes {gpu.kernel, nvvm.kernel, tilec.tensor_map_params = array<i32: 1>} {
      %a = llvm.ptrtoint %map : !llvm.ptr to i64
      llvm.inline_asm has_side_effects "prefetch.tensormap [$0];", "l" %a : (i64) -> ()
      llvm.return
    }
  }
}
