// RUN: not tilec-opt %s -p 'tile-canonicalize,no-such-pass' 2>&1 | FileCheck %s
// RUN: not tilec-opt %s -p 'tile-canonicalize{bogus=1}' 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not tilec-opt %s -p 'tile-canonicalize{max-iterations=many}' 2>&1 | FileCheck %s --check-prefix=VAL
// RUN: not tilec-opt %s -p 'tile-canonicalize,(' 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not tilec-opt %s --tile-canonicalize --no-such-pass 2>&1 | FileCheck %s
// RUN: not tilec-opt %s stray 2>&1 | FileCheck %s --check-prefix=STRAY
// STRAY: tilec-opt: error: unrecognized argument 'stray'
// CHECK: tilec-opt: error: unknown pass or pass pipeline 'no-such-pass'
// OPT: tilec-opt: error: pass 'tile-canonicalize' has no option 'bogus' (options: max-iterations)
// VAL: tilec-opt: error: option 'max-iterations' of pass 'tile-canonicalize' expects int, got 'many'
// SYNTAX: tilec-opt: error: unbalanced brackets in the pipeline
// CHECK-NOT: Traceback
func.func @f() {
  return
}
