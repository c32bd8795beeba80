//===- ScheduleVisits.cpp - dynamic schedule for the visit loops ----------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-cpu-schedule-visits: the OpenMP loops over tile visits hand out one
// iteration at a time (schedule(dynamic)), so that visits of unequal work
// (partial visits, a weight gradient's groups) do not leave threads idle
// at the end of a static split.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/CPU/Passes.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMCPUSCHEDULEVISITS
#include "gmm/Codegen/CPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

struct GMMCPUScheduleVisits
    : public mlir::gmm::impl::GMMCPUScheduleVisitsBase<GMMCPUScheduleVisits> {
  void runOnOperation() override {
    auto dynamic = omp::ClauseScheduleKindAttr::get(
        &getContext(), omp::ClauseScheduleKind::Dynamic);
    getOperation()->walk([&](omp::WsloopOp loop) {
      if (!loop.getScheduleKindAttr())
        loop.setScheduleKindAttr(dynamic);
    });
  }
};

} // namespace
