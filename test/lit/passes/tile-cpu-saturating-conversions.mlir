// RUN: tilec-opt %s -p tile-cpu-saturating-conversions | FileCheck %s

// float -> int32: NaN becomes 0, the value is clamped in float32 to [-2^31, 2147483520] (the largest
// float32 below 2^31) and converted, then INT_MAX is chosen from 2^31 on, as PTX's cvt.rzi.s32.f32.
// CHECK-LABEL: func.func @to_i32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %arg0, %arg0
// CHECK: %[[LO:.*]] = arith.constant dense<-2.14748365E+9> : tensor<64xf32>
// CHECK: %[[A:.*]] = arith.maxnumf %arg0, %[[LO]]
// CHECK: %[[HI:.*]] = arith.constant dense<2.14748352E+9> : tensor<64xf32>
// CHECK: %[[B:.*]] = arith.minnumf %[[A]], %[[HI]]
// CHECK: %[[SAFE:.*]] = arith.select %[[NAN]], %{{.*}}, %[[B]]
// CHECK: %[[I:.*]] = arith.fptosi %[[SAFE]] : tensor<64xf32> to tensor<64xi32>
// CHECK: %[[ABOVE:.*]] = arith.cmpf oge, %arg0, %{{.*}}
// CHECK: %[[MAX:.*]] = arith.constant dense<2147483647> : tensor<64xi32>
// CHECK: arith.select %[[ABOVE]], %[[MAX]], %[[I]]
func.func @to_i32(%x: tensor<64xf32>) -> tensor<64xi32> {
  %i = arith.fptosi %x : tensor<64xf32> to tensor<64xi32>
  return %i : tensor<64xi32>
}

// float -> uint8 on a scalar: clamped to [0, 65535] (exact floats: the clamp is all), converted to 16
// bits and truncated, as NVIDIA converts 8-bit results.
// CHECK-LABEL: func.func @to_u8
// CHECK: arith.constant 6.553500e+04 : f32
// CHECK: arith.minnumf
// CHECK: arith.fptoui %{{.*}} : f32 to i16
// CHECK: arith.trunci %{{.*}} : i16 to i8
func.func @to_u8(%x: f32) -> i8 {
  %i = arith.fptoui %x : f32 to i8
  return %i : i8
}

// A conversion to bool (i1) is left alone.
// CHECK-LABEL: func.func @to_i1
// CHECK: arith.fptoui %arg0 : f32 to i1
func.func @to_i1(%x: f32) -> i1 {
  %i = arith.fptoui %x : f32 to i1
  return %i : i1
}

// From float64, and into 64 bits, NVIDIA gives NaN the sign bit alone (measured on an H200): after
// the clamp and conversion, NaN's lanes are replaced by it (-32768 for i16, INT64_MIN for i64).
// CHECK-LABEL: func.func @f64_to_i16
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %arg0, %arg0 : f64
// CHECK: %[[I:.*]] = arith.fptosi %{{.*}} : f64 to i16
// CHECK: %[[SIGN:.*]] = arith.constant -32768 : i16
// CHECK: arith.select %[[NAN]], %[[SIGN]], %[[I]] : i16
func.func @f64_to_i16(%x: f64) -> i16 {
  %i = arith.fptosi %x : f64 to i16
  return %i : i16
}

// CHECK-LABEL: func.func @f32_to_u64
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %arg0, %arg0 : f32
// CHECK: %[[ALL:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK: %[[SIGN:.*]] = arith.constant -9223372036854775808 : i64
// CHECK: arith.select %[[NAN]], %[[SIGN]], %[[ALL]] : i64
func.func @f32_to_u64(%x: f32) -> i64 {
  %i = arith.fptoui %x : f32 to i64
  return %i : i64
}
