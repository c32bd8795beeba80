//===- Rounding.cpp - f64 arithmetic in the host's directed rounding ------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// add/sub/mul/fma/div/sqrt/rcp.{rz,rm,rp}.f64 are computed by the host FPU
// in the same rounding mode. This file is compiled with -frounding-math so
// that the compiler neither folds nor reorders the operations across the
// mode changes.
//
//===----------------------------------------------------------------------===//

#include "Exec.h"

#include <cfenv>
#include <cmath>

using namespace gmm::sim;

double gmm::sim::roundedF64(int op, double a, double b, double c, Round round) {
  int mode = FE_TONEAREST;
  switch (round) {
  case Round::RZ:
    mode = FE_TOWARDZERO;
    break;
  case Round::RM:
    mode = FE_DOWNWARD;
    break;
  case Round::RP:
    mode = FE_UPWARD;
    break;
  default:
    break;
  }
  int saved = std::fegetround();
  std::fesetround(mode);
  volatile double x = a, y = b, z = c;
  double result = 0;
  switch (op) {
  case kOpAdd:
    result = x + y;
    break;
  case kOpSub:
    result = x - y;
    break;
  case kOpMul:
    result = x * y;
    break;
  case kOpFma:
    result = std::fma(x, y, z);
    break;
  case kOpDiv:
    result = x / y;
    break;
  case kOpRcp:
    result = 1.0 / x;
    break;
  case kOpSqrt:
    result = std::sqrt(x);
    break;
  }
  volatile double kept = result;
  std::fesetround(saved);
  return kept;
}
