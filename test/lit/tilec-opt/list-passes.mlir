// RUN: tilec-opt --list-passes | FileCheck %s
// CHECK: tile-canonicalize  Simplify tile ops
// CHECK: tile-verify
func.func @f() {
  return
}
