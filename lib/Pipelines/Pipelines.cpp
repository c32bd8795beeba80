//===- Pipelines.cpp - named gmm pass pipelines ---------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Pipelines/Pipelines.h"
#include "gmm/Conversion/Passes.h"
#include "gmm/Dialect/GMM/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
/// Bufferizes a tensor program (function boundaries included, identity
/// layouts so that callers pass plain strided buffers) and inserts the
/// deallocations.
void addBufferization(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions options;
  options.bufferizeFunctionBoundaries = true;
  options.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(options));
  bufferization::buildBufferDeallocationPipeline(pm);
  // Clones that the deallocation pipeline keeps (e.g. for returned function
  // arguments) become allocations and copies.
  pm.addPass(createConvertBufferizationToMemRefPass());
}

/// Lowers loops on buffers (scf, linalg, memref, arith) to the LLVM dialect.
void addLowerToLLVM(OpPassManager &pm) {
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // bf16 conversions become integer arithmetic: no runtime helper needed.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
} // namespace

void mlir::gmm::buildReferenceToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(createConvertGMMToLoops());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  addBufferization(pm);
  addLowerToLLVM(pm);
}

void mlir::gmm::buildCPUPipeline(OpPassManager &pm,
                                 const CPUPipelineOptions &options) {
  pm.addPass(createGMMNormalize());
  GMMTileOptions tile;
  tile.tileM = options.tileM;
  tile.tileN = options.tileN;
  tile.tileK = options.tileK;
  pm.addPass(createGMMTile(tile));
  pm.addPass(createGMMMaterializeMetadata());
  // Whatever could not be normalized takes the reference lowering.
  pm.addPass(createConvertGMMToLoops());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  addBufferization(pm);
  pm.addPass(createForallToParallelLoopPass());
  if (options.parallel)
    pm.addPass(createConvertSCFToOpenMPPass());
  // 2-D transfers become 1-D (masked) vector loads and stores.
  VectorTransferToSCFOptions transfers;
  transfers.enableFullUnroll(true);
  pm.addPass(createConvertVectorToSCFPass(transfers));
  pm.addPass(createCanonicalizerPass());
  ConvertVectorToLLVMPassOptions vectors;
  vectors.vectorContractLowering = vector::VectorContractLowering::OuterProduct;
  vectors.vectorTransposeLowering = vector::VectorTransposeLowering::Shuffle1D;
  pm.addPass(createConvertVectorToLLVMPass(vectors));
  if (options.parallel)
    pm.addPass(createConvertOpenMPToLLVMPass());
  addLowerToLLVM(pm);
}

namespace {
struct CPUPipelineCLOptions : public PassPipelineOptions<CPUPipelineCLOptions> {
  Option<int64_t> tileM{*this, "tile-m",
                        llvm::cl::desc("Rows of a tile (0: heuristic)"),
                        llvm::cl::init(0)};
  Option<int64_t> tileN{*this, "tile-n",
                        llvm::cl::desc("Columns of a tile (0: heuristic)"),
                        llvm::cl::init(0)};
  Option<int64_t> tileK{*this, "tile-k",
                        llvm::cl::desc("Contraction step (0: heuristic)"),
                        llvm::cl::init(0)};
  Option<bool> parallel{*this, "parallel",
                        llvm::cl::desc("Run tile visits on OpenMP threads"),
                        llvm::cl::init(true)};
};
} // namespace

void mlir::gmm::registerGMMPipelines() {
  PassPipelineRegistration<CPUPipelineCLOptions>(
      "gmm-to-cpu",
      "Normalize, tile over group visits, materialize the group metadata, "
      "vectorize and parallelize gmm.ragged_dot for the CPU, down to the LLVM "
      "dialect",
      [](OpPassManager &pm, const CPUPipelineCLOptions &cl) {
        CPUPipelineOptions options;
        options.tileM = cl.tileM;
        options.tileN = cl.tileN;
        options.tileK = cl.tileK;
        options.parallel = cl.parallel;
        buildCPUPipeline(pm, options);
      });
  PassPipelineRegistration<>(
      "gmm-reference-to-llvm",
      "Lower gmm.ragged_dot directly to loops, bufferize and convert to the "
      "LLVM dialect (the reference CPU pipeline)",
      buildReferenceToLLVMPipeline);
}
