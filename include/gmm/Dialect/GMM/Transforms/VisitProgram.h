//===- VisitProgram.h - what gmm-tile computes per tile visit ---*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-tile builds the target-neutral part of the tile program: the loops
// over batches, tile schedules and tile visits, each visit's rows, columns
// and group, and the result slice it owns. What a visit computes into its
// slice is a VisitProgram. gmm-tile has one of its own (vector contractions
// of whole tiles, the program the GPU backend maps onto CUDA blocks); a
// backend offers another through CPUVisitProgramInterface, a dialect
// interface of the gmm dialect, as the CPU backend (lib/Codegen/CPU) does
// with its packed register-block program. A backend attaches it from a
// DialectRegistry extension, so that gmm's transforms do not link the
// backend's dialects.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_TRANSFORMS_VISITPROGRAM_H
#define GMM_DIALECT_GMM_TRANSFORMS_VISITPROGRAM_H

#include "gmm/Dialect/GMM/IR/GMMOps.h"

#include "mlir/IR/DialectInterface.h"
#include "mlir/Support/TypeID.h"

#include <memory>

namespace mlir {
namespace gmm {

/// The tile sizes of a configuration.
struct TileSizes {
  int64_t m, n, k;

  static TileSizes of(KernelConfigAttr config) {
    return {config.getTileM(), config.getTileN(), config.getTileK()};
  }
};

/// One visit of mode 1 (lhs [B, X, M, K], rhs [B, G, K, N] or [B, G, N, K]):
/// lhs rows [rowStart, rowStart + rows) of batch `batch` and row `row`
/// times local group `local`'s rhs, contraction [0, kEnd), columns
/// [colStart, colStart + cols), written into `slice` ([rows, cols] of the
/// result). A visit past the schedule's count has no rows; a fill visit has
/// rows and kEnd 0.
struct NonContractingVisit {
  Value batch, row, rowStart, rows, local, kEnd, colStart, cols, slice;
};

/// One visit of mode 2 (lhs [B, Kr, Kc, M] or [B, M, Kr, Kc], rhs
/// [B, Kr, Kc, N] or [B, N, Kr, Kc]): the group's ragged rows
/// [kStart, kEnd) of batch `batch`, all `numKc` indices of the other
/// contracting dimensions, result rows [rowStart, rowStart + rows) and
/// columns [colStart, colStart + cols), written into `slice`. A group
/// outside the local range has kStart = kEnd.
struct ContractingVisit {
  Value batch, kStart, kEnd, numKc, rowStart, rows, colStart, cols, slice;
};

/// What one visit computes: the new value of its slice (which gmm-tile
/// inserts into the result). Built with the builder inside the visit loop.
class VisitProgram {
public:
  virtual ~VisitProgram() = default;

  /// Whether `contracting` writes every element of its slice, the slices of
  /// empty and non-local groups included, so that the result needs no zero
  /// fill first.
  virtual bool writesWholeSlices() const { return false; }

  virtual Value nonContracting(OpBuilder &b, Location loc,
                               const NonContractingVisit &visit) = 0;
  virtual Value contracting(OpBuilder &b, Location loc,
                            const ContractingVisit &visit) = 0;
};

/// The CPU backend's visit program for configurations with target = cpu,
/// attached to the gmm dialect by the backend (registerGMMDialects does it
/// for gmm's own backend). gmm-tile refuses a CPU configuration when no
/// program is attached.
class CPUVisitProgramInterface
    : public DialectInterface::Base<CPUVisitProgramInterface> {
public:
  CPUVisitProgramInterface(Dialect *dialect) : Base(dialect) {}

  /// The program for `op` tiled by its complete CPU configuration
  /// `config`. `b` is positioned before `op`, for values that the visits
  /// share (views of the operands).
  virtual std::unique_ptr<VisitProgram>
  build(OpBuilder &b, RaggedDotOp op, KernelConfigAttr config) const = 0;
};

} // namespace gmm
} // namespace mlir

MLIR_DECLARE_EXPLICIT_TYPE_ID(mlir::gmm::CPUVisitProgramInterface)

#endif // GMM_DIALECT_GMM_TRANSFORMS_VISITPROGRAM_H
