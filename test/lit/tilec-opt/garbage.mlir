// Unparsable input: one diagnostic with file:line:col, exit status 1, no traceback.
// RUN: not tilec-opt %s 2>&1 | FileCheck %s
// CHECK: garbage.mlir:6:1: error: custom op 'this' is unknown
// CHECK-NOT: Traceback

this is not IR
