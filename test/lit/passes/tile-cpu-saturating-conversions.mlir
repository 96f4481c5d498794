// RUN: tilec-opt %s -p tile-cpu-saturating-conversions | FileCheck %s

// float -> int32: converted only inside [-2^31, 2^31) (0 elsewhere, NaN included: its ordered
// comparisons are false), then INT_MAX / INT_MIN selected past the bounds, as PTX's cvt.rzi.s32.f32.
// CHECK-LABEL: func.func @to_i32
// CHECK: %[[HI:.*]] = arith.constant dense<2.14748365E+9> : tensor<64xf32>
// CHECK: %[[ABOVE:.*]] = arith.cmpf oge, %arg0, %[[HI]]
// CHECK: %[[LO:.*]] = arith.constant dense<-2.14748365E+9> : tensor<64xf32>
// CHECK: %[[BELOW:.*]] = arith.cmpf olt, %arg0, %[[LO]]
// CHECK: %[[SAFE:.*]] = arith.select %{{.*}}, %arg0, %{{.*}} : tensor<64xi1>, tensor<64xf32>
// CHECK: %[[I:.*]] = arith.fptosi %[[SAFE]] : tensor<64xf32> to tensor<64xi32>
// CHECK: %[[MAX:.*]] = arith.constant dense<2147483647> : tensor<64xi32>
// CHECK: %[[I2:.*]] = arith.select %[[ABOVE]], %[[MAX]], %[[I]]
// CHECK: %[[MIN:.*]] = arith.constant dense<-2147483648> : tensor<64xi32>
// CHECK: arith.select %[[BELOW]], %[[MIN]], %[[I2]]
func.func @to_i32(%x: tensor<64xf32>) -> tensor<64xi32> {
  %i = arith.fptosi %x : tensor<64xf32> to tensor<64xi32>
  return %i : tensor<64xi32>
}

// float -> uint8 on a scalar: through 16 bits (saturated to [0, 65535]), then truncated, as NVIDIA
// converts 8-bit results.
// CHECK-LABEL: func.func @to_u8
// CHECK: arith.fptoui %{{.*}} : f32 to i16
// CHECK: arith.constant -1 : i16
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
