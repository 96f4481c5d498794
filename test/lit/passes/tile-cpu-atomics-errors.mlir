// RUN: tilec-opt %s -p tile-cpu-atomics --split-input-file --verify-diagnostics

// A helper declared with a type the atomic cannot take is refused before LLVM's builders see it.

// expected-error @+1 {{atomic helper 'fadd' must have the type (i64, T) -> T (one T), got (i64, tensor<8xf32>) -> f32}}
func.func private @__tilec_atomic_fadd_relaxed_f32(i64, tensor<8xf32>) -> f32 attributes {tile.atomic = {kind = "fadd", sem = "relaxed"}}

// -----

// expected-error @+1 {{atomic helper 'add' works on a scalar integer or float, got vector<4xi32>}}
func.func private @__tilec_atomic_add_relaxed_v4(i64, vector<4xi32>) -> vector<4xi32> attributes {tile.atomic = {kind = "add", sem = "relaxed"}}

// -----

// expected-error @+1 {{atomic helper 'cas' must have the type (i64, T, T) -> T, got (i64, i32) -> i32}}
func.func private @__tilec_atomic_cas_acq_rel_i32(i64, i32) -> i32 attributes {tile.atomic = {kind = "cas", sem = "acq_rel"}}

// -----

// expected-error @+1 {{atomic helper 'xor' works on integers only, got f32}}
func.func private @__tilec_atomic_xor_relaxed_f32(i64, f32) -> f32 attributes {tile.atomic = {kind = "xor", sem = "relaxed"}}

// -----

// expected-error @+1 {{atomic helper 'cas' must have the type (i64, T, T) -> T (one T), got (i64, i32, i64) -> i32}}
func.func private @__tilec_atomic_cas_relaxed_mixed(i64, i32, i64) -> i32 attributes {tile.atomic = {kind = "cas", sem = "relaxed"}}

// -----

// expected-error @+1 {{unknown atomic kind 'nand' (known: add, fadd, max, min, umax, umin, and, or, xor, xchg, cas)}}
func.func private @__tilec_atomic_nand_relaxed_i32(i64, i32) -> i32 attributes {tile.atomic = {kind = "nand", sem = "relaxed"}}

// -----

// expected-error @+1 {{tile.atomic must be a dictionary with string entries 'kind' and 'sem'}}
func.func private @__tilec_atomic_add_i32(i64, i32) -> i32 attributes {tile.atomic = {kind = "add"}}

// -----

// expected-error @+1 {{unknown memory semantics 'seq'}}
func.func private @__tilec_atomic_add_seq_i32(i64, i32) -> i32 attributes {tile.atomic = {kind = "add", sem = "seq"}}
