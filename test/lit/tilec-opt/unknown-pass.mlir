// RUN: not tilec-opt %s -p 'tile-canonicalize,no-such-pass' 2>&1 | FileCheck %s
// RUN: not tilec-opt %s -p 'tile-canonicalize{bogus=1}' 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not tilec-opt %s -p 'tile-canonicalize{max-iterations=many}' 2>&1 | FileCheck %s --check-prefix=VAL
// RUN: not tilec-opt %s -p 'tile-canonicalize,(' 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not tilec-opt %s --tile-canonicalize --no-such-pass 2>&1 | FileCheck %s
// RUN: not tilec-opt %s stray 2>&1 | FileCheck %s --check-prefix=STRAY
// RUN: not tilec-opt %s -p 'tile-canonicalise' 2>&1 | FileCheck %s --check-prefix=NEAR
// RUN: not tilec-opt %s -p 'canonicalise' 2>&1 | FileCheck %s --check-prefix=UPSTREAM
// RUN: not tilec-opt %s -p 'tile-canonicalize{max-iteration=3}' 2>&1 | FileCheck %s --check-prefix=NEAROPT
// NEAR: tilec-opt: error: unknown pass or pass pipeline 'tile-canonicalise' (did you mean 'tile-canonicalize'?)
// UPSTREAM: tilec-opt: error: unknown pass or pass pipeline 'canonicalise' (did you mean 'canonicalize'?)
// NEAROPT: has no option 'max-iteration' (did you mean 'max-iterations'? options: max-iterations)
// STRAY: tilec-opt: error: unrecognized argument 'stray'
// CHECK: tilec-opt: error: unknown pass or pass pipeline 'no-such-pass'
// OPT: tilec-opt: error: pass 'tile-canonicalize' has no option 'bogus' (options: max-iterations)
// VAL: tilec-opt: error: option 'max-iterations' of pass 'tile-canonicalize' expects int, got 'many'
// SYNTAX: tilec-opt: error: unbalanced brackets in the pipeline
// CHECK-NOT: Traceback
func.func @f() {
  return
}
