//===- Pipelines.cpp - named gmm pass pipelines ---------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Pipelines/Pipelines.h"
#include "gmm/Codegen/CPU/Passes.h"
#include "gmm/Codegen/GPU/Passes.h"
#include "gmm/Conversion/Passes.h"
#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"
#include "gmm/Dialect/GMM/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
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
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

namespace {
/// One-shot bufferization of a whole tensor program, function boundaries
/// included, with identity layouts so that callers pass plain strided
/// buffers.
void addOneShotBufferize(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions options;
  options.bufferizeFunctionBoundaries = true;
  options.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(options));
}

/// Bufferizes a tensor program for the CPU (addOneShotBufferize) and inserts
/// the deallocations.
void addBufferization(OpPassManager &pm) {
  // A result materialized in a destination buffer (an output argument) is
  // computed there rather than copied into it.
  pm.addPass(gmm::createGMMForwardDestinations());
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  addOneShotBufferize(pm);
  // The CPU tile program writes a visit's slice of the result inside its
  // loops, under conditions (the last contraction block, a column panel
  // inside the slice or not), and canonicalization has given the slice a
  // more static type than the conditions' results (tensor<?x48xf32> for
  // tensor<?x?xf32>). After bufferization the conditions yield casts of the
  // slice's buffer: CSE merges them, canonicalization folds the conditions
  // and loops that then yield their own buffer, and the copy that inserts
  // the slice into the result becomes a copy of a buffer onto itself, which
  // folds away (test/Pipelines/cpu-in-place.mlir).
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  // Clones that the deallocation pipeline keeps (e.g. for returned function
  // arguments) become allocations and copies.
  pm.addPass(createConvertBufferizationToMemRefPass());
}

/// bf16 conversions become integer arithmetic: no runtime helper needed.
arith::ArithExpandOpsPassOptions expandWithBF16() {
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  return expand;
}

/// Lowers host code on buffers (scf, linalg, memref, arith, math, func) to
/// the LLVM dialect. For the GPU's host code (`gpuHost`), the loop rewrites
/// run on each function (the kernel modules are NVVM by then), and the
/// launches, device memory and the Hopper kernels' tensor maps become mgpu*
/// calls. The NVGPU conversion runs on the module, not on each function: it
/// declares mgpuTensorMapEncodeTiledMemref in the module, which functions
/// converted in parallel would race on (MLIR 22; it can run per function
/// once upstream declares the function without that race).
void addLowerToLLVM(OpPassManager &pm, bool gpuHost = false) {
  OpPassManager &loops = gpuHost ? pm.nest<func::FuncOp>() : pm;
  loops.addPass(createConvertLinalgToLoopsPass());
  loops.addPass(memref::createExpandStridedMetadataPass());
  loops.addPass(createLowerAffinePass());
  loops.addPass(arith::createArithExpandOpsPass(expandWithBF16()));
  loops.addPass(createSCFToControlFlowPass());
  // memref's conversion comes before arith's on the GPU's host and after it
  // on the CPU. Both are correct; each is the order its output has always
  // been generated in (memref first folds static sizes to llvm.extractvalue
  // where arith first leaves an alloca, which LLVM removes).
  if (gpuHost) {
    pm.addPass(createConvertNVGPUToNVVMPass());
    pm.addPass(createGpuToLLVMConversionPass());
    pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  }
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  if (!gpuHost)
    pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
using gmm::CPUPipelineOptions;
using gmm::GPUPipelineOptions;
using gmm::KernelConfigRequest;
using gmm::KernelTarget;
using gmm::TiledPipelineOptions;

/// The tile sizes that either pipeline's options ask of gmm-configure.
template <typename Options>
KernelConfigRequest
tileRequestOf(const TiledPipelineOptions<Options> &options) {
  KernelConfigRequest request;
  request.tileM = options.tileM;
  request.tileN = options.tileN;
  request.tileK = options.tileK;
  return request;
}

/// What the pipeline's options ask of gmm-configure.
KernelConfigRequest requestOf(const CPUPipelineOptions &options) {
  KernelConfigRequest request = tileRequestOf(options);
  request.target = options.tileTarget;
  request.microM = options.microM;
  request.microN = options.microN;
  request.microKernel = options.microKernel;
  // Visits run on one thread without OpenMP, else on the runtime's.
  request.threads = options.parallel ? 0 : 1;
  return request;
}

KernelConfigRequest requestOf(const GPUPipelineOptions &options) {
  KernelConfigRequest request = tileRequestOf(options);
  request.target = KernelTarget::GPU;
  request.warpsM = options.warpsM;
  request.warpsN = options.warpsN;
  request.stages = options.stages;
  request.raster = options.raster;
  request.chip = options.chip;
  request.mma = options.mma;
  return request;
}

} // namespace

void mlir::gmm::buildReferenceToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(createGMMCheckSizes());
  pm.addPass(createConvertGMMToLoops());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  addBufferization(pm);
  addLowerToLLVM(pm);
}

void mlir::gmm::buildCPUPipeline(OpPassManager &pm,
                                 const CPUPipelineOptions &options) {
  pm.addPass(createGMMCheckSizes());
  pm.addPass(createGMMNormalize());
  pm.addPass(createGMMConfigure(requestOf(options)));
  pm.addPass(createGMMTile());
  pm.addPass(createGMMMaterializeMetadata());
  // Whatever could not be normalized takes the reference lowering.
  pm.addPass(createConvertGMMToLoops());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  addBufferization(pm);
  pm.addPass(createForallToParallelLoopPass());
  if (options.parallel) {
    pm.addPass(createConvertSCFToOpenMPPass());
    pm.addPass(createGMMCPUScheduleVisits());
  }
  // 2-D transfers become 1-D (masked) vector loads and stores, unrolled. The
  // GPU-shaped program's whole-tile transfers (a test of the tile program
  // on the CPU) become loops over rows instead: unrolled, each masked row
  // would merge the whole tile in a phi, and LLVM 22's x86 backend takes
  // close to a minute on such phis of bf16 vectors without AVX512-BF16
  // (these transfers can be unrolled too once a later LLVM handles such phis
  // quickly).
  VectorTransferToSCFOptions transfers;
  transfers.enableFullUnroll(options.tileTarget != KernelTarget::GPU);
  pm.addPass(createConvertVectorToSCFPass(transfers));
  pm.addPass(createCanonicalizerPass());
  // Large results are written with streaming stores.
  if (options.streamMinBytes > 0) {
    GMMCPUStreamResultsOptions stream;
    stream.minBytes = options.streamMinBytes;
    // The JIT compiles for the host: on x86, bf16 and f16 results stream
    // through the pass's register-wide barriers (see gmm-cpu-stream-results).
    if (llvm::Triple(llvm::sys::getProcessTriple()).isX86())
      stream.x86RegisterBits = gmm::hostVectorBits();
    pm.addPass(createGMMCPUStreamResults(stream));
  }
  if (options.emulateBF16Dot)
    pm.addPass(createGMMCPUEmulateBF16Dot());
  ConvertVectorToLLVMPassOptions vectors;
  vectors.vectorContractLowering = vector::VectorContractLowering::OuterProduct;
  vectors.vectorTransposeLowering = vector::VectorTransposeLowering::Shuffle1D;
  // The bf16_dot micro-kernel's x86vector.avx512.dot.
  vectors.x86Vector = true;
  pm.addPass(createConvertVectorToLLVMPass(vectors));
  if (options.parallel)
    pm.addPass(createConvertOpenMPToLLVMPass());
  addLowerToLLVM(pm);
}

void mlir::gmm::buildMapToGPUPipeline(OpPassManager &pm, bool convertMma,
                                      bool workspaceArgument) {
  pm.addNestedPass<func::FuncOp>(createGMMGPUForwardBuffers());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createGMMGPUMapBlocks());
  // The Hopper tile kernels (mma = wgmma) whole; the others keep their
  // configuration for the sm_80 passes below.
  pm.addNestedPass<func::FuncOp>(createGMMGPUWgmmaKernel());
  // The tile kernel: shared-memory stages, the epilogue's staging, the
  // warps' share of the math.
  pm.addNestedPass<func::FuncOp>(createGMMGPUPromoteOperands());
  pm.addNestedPass<func::FuncOp>(createGMMGPUStageEpilogue());
  pm.addNestedPass<func::FuncOp>(createGMMGPUDistributeWarps());
  pm.addNestedPass<func::FuncOp>(createGMMGPUAsyncCopies());
  pm.addNestedPass<func::FuncOp>(createGMMGPUPipelineStages());
  if (convertMma) {
    pm.addNestedPass<func::FuncOp>(createGMMGPUVectorToMmaSync());
    pm.addNestedPass<func::FuncOp>(createGMMGPULowerKernelVectors());
    // Last: the swizzle's index math is not the vector lowering's to walk.
    pm.addNestedPass<func::FuncOp>(createGMMGPUSwizzleSharedMemory());
  }
  pm.addPass(createGMMGPUPartitionHost());
  GMMGPUMergeAllocationsOptions merge;
  merge.workspaceArgument = workspaceArgument;
  pm.addPass(createGMMGPUMergeAllocations(merge));
}

void mlir::gmm::buildGPUPipeline(OpPassManager &pm,
                                 const GPUPipelineOptions &options) {
  // The tile program, as on the CPU but with block-sized tiles.
  pm.addPass(createGMMCheckSizes());
  pm.addPass(createGMMNormalize());
  pm.addPass(createGMMConfigure(requestOf(options)));
  pm.addPass(createGMMTile());
  // The group metadata in one kernel, a thread per group.
  GMMMaterializeMetadataOptions metadata;
  metadata.parallel = true;
  pm.addPass(createGMMMaterializeMetadata(metadata));
  pm.addPass(createConvertGMMToLoops());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Buffers without the deallocation pipeline: gmm-gpu-partition-host turns
  // the allocations into device allocations and frees them itself.
  addOneShotBufferize(pm);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // Blocks, warps, shared memory, tensor cores; then kernels.
  buildMapToGPUPipeline(pm, /*convertMma=*/true, options.workspaceArgument);
  // No canonicalization here: it would fold the kernels' lowered vector ops
  // back into n-D forms that convert-gpu-to-nvvm does not handle.
  pm.addPass(createCSEPass());
  pm.addPass(createGpuKernelOutliningPass());
  // Identical ragged dots launch one kernel module, compiled once.
  pm.addPass(createGMMGPUShareKernels());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));

  // Device code to NVVM.
  // The linalg ops left (fills in the metadata kernels) become loops after
  // outlining and sharing, so that only the distinct kernels are walked.
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createConvertLinalgToLoopsPass());
  device.addPass(createLowerAffinePass());
  device.addPass(memref::createExpandStridedMetadataPass());
  device.addPass(createLowerAffinePass());
  device.addPass(arith::createArithExpandOpsPass(expandWithBF16()));
  // NVGPU before the loops become branches: MLIR 22's convert-nvgpu-to-nvvm
  // converts the types that scf loops carry (the Hopper kernel's wgmma
  // accumulators), not those of cf blocks; the order is free once it does.
  device.addPass(createGMMGPULowerBF16MmaSync());
  device.addPass(createConvertNVGPUToNVVMPass());
  device.addPass(createSCFToControlFlowPass());
  device.addPass(createConvertGpuOpsToNVVMOps());
  device.addPass(createConvertIndexToLLVMPass());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());

  // Host code to LLVM: launches and device memory through mgpu* calls.
  GMMGPUAsyncHostOptions async;
  async.callerStream = options.callerStream;
  pm.addPass(createGMMGPUAsyncHost(async));
  addLowerToLLVM(pm, /*gpuHost=*/true);

  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (!options.ptxDir.empty()) {
    GMMGPUWritePTXOptions write;
    write.directory = options.ptxDir;
    pm.addPass(createGMMGPUWritePTX(write));
  }
}

namespace {
/// The reference pipeline takes no options; parsing an empty set still
/// reports a stray one by name.
struct NoPipelineOptions : public PassPipelineOptions<NoPipelineOptions> {};

/// Registers a named pipeline whose options are `CLOptions`, after checking
/// where it is anchored.
template <typename CLOptions>
void registerPipeline(
    StringRef arg, StringRef description,
    std::function<LogicalResult(OpPassManager &, const CLOptions &,
                                function_ref<LogicalResult(const Twine &)>)>
        builder) {
  registerPassPipeline(
      arg, description,
      [arg, builder](OpPassManager &pm, StringRef text,
                     function_ref<LogicalResult(const Twine &)> errorHandler) {
        if (failed(mlir::gmm::verifyPipelineAnchor(pm, arg, errorHandler)))
          return failure();
        // A bad option is reported through `errorHandler`, as one line
        // naming the pipeline, rather than by cl on stderr.
        CLOptions options;
        std::string parseErrors;
        llvm::raw_string_ostream errorStream(parseErrors);
        if (failed(options.parseFromString(text, errorStream))) {
          // A bad value has been reported by cl itself, on stderr: the
          // message is then empty, and so is what goes to the handler.
          StringRef message = StringRef(parseErrors).trim();
          message.consume_front("<Pass-Options-Parser>: ");
          if (message.empty())
            return errorHandler("");
          return errorHandler("'" + arg + "': " + message);
        }
        return builder(pm, options, [&](const Twine &message) {
          return errorHandler("'" + arg + "': " + message);
        });
      },
      [](function_ref<void(const detail::PassOptions &)> optionHandler) {
        optionHandler(CLOptions());
      });
}

using ErrorHandler = function_ref<LogicalResult(const Twine &)>;

} // namespace

LogicalResult
mlir::gmm::verifyGPUPipelineOptions(const GPUPipelineOptions &options,
                                    ErrorHandler errorHandler) {
  if (failed(verifyGPUChip(options.chip, errorHandler)))
    return failure();
  if (options.format != "isa" && options.format != "bin" &&
      options.format != "fatbin")
    return errorHandler("format = '" + options.format +
                        "' is not one of isa, bin and fatbin");
  if (options.optLevel > 3)
    return errorHandler("opt-level = " + Twine(options.optLevel) +
                        " is out of range: 0 to 3");
  return verifyKernelConfigRequest(
      requestOf(options),
      [&](const Twine &message) { (void)errorHandler(message); });
}

LogicalResult
mlir::gmm::verifyCPUPipelineOptions(const CPUPipelineOptions &options,
                                    ErrorHandler errorHandler) {
  return verifyKernelConfigRequest(
      requestOf(options),
      [&](const Twine &message) { (void)errorHandler(message); });
}

LogicalResult mlir::gmm::verifyPipelineAnchor(
    const OpPassManager &pm, StringRef pipeline,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  std::optional<StringRef> anchor = pm.getOpName();
  if (!anchor || *anchor == ModuleOp::getOperationName())
    return success();
  return errorHandler("'" + pipeline +
                      "' runs on builtin.module (it bufferizes and converts "
                      "the whole module), but is nested under '" +
                      *anchor +
                      "'; name it at the top level, as in "
                      "--pass-pipeline='builtin.module(" +
                      pipeline + ")'");
}

ArrayRef<gmm::PipelineDescription> mlir::gmm::getPipelineCatalogue() {
  static const PipelineDescription catalogue[] = {
      {"cpu",
       "tiled over group visits, vectorized and run on OpenMP threads "
       "(gmm-to-cpu)",
       /*gpu=*/false,
       [](OpPassManager &pm, StringRef) { buildCPUPipeline(pm, {}); }},
      {"reference",
       "gmm.ragged_dot lowered directly to loops (gmm-reference-to-llvm)",
       /*gpu=*/false,
       [](OpPassManager &pm, StringRef) { buildReferenceToLLVMPipeline(pm); }},
      {"cuda",
       "tiled into CUDA blocks with tensor cores, PTX for the device's SM "
       "(gmm-to-ptx; --target=cuda)",
       /*gpu=*/true,
       [](OpPassManager &pm, StringRef chip) {
         GPUPipelineOptions options;
         if (!chip.empty())
           options.chip = chip.str();
         // The runner owns the stream and synchronizes it, and passes the
         // workspace.
         options.callerStream = true;
         options.workspaceArgument = true;
         buildGPUPipeline(pm, options);
       }},
  };
  return catalogue;
}

void mlir::gmm::registerGMMPipelines() {
  registerPipeline<CPUPipelineOptions>(
      "gmm-to-cpu",
      "Normalize, tile over group visits, materialize the group metadata, "
      "vectorize and parallelize gmm.ragged_dot for the CPU, down to the LLVM "
      "dialect",
      [](OpPassManager &pm, const CPUPipelineOptions &options,
         ErrorHandler errorHandler) {
        if (failed(verifyCPUPipelineOptions(options, errorHandler)))
          return failure();
        buildCPUPipeline(pm, options);
        return success();
      });
  registerPipeline<GPUPipelineOptions>(
      "gmm-to-ptx",
      "Normalize, tile over group visits into CUDA blocks, stage through "
      "shared memory, use tensor cores (mma.sync) and compile the kernels "
      "to PTX; host code calls the mgpu* runtime ABI",
      [](OpPassManager &pm, const GPUPipelineOptions &options,
         ErrorHandler errorHandler) {
        if (failed(verifyGPUPipelineOptions(options, errorHandler)))
          return failure();
        buildGPUPipeline(pm, options);
        return success();
      });
  registerPipeline<MapToGPUPipelineOptions>(
      "gmm-map-to-gpu",
      "Map a bufferized tile program onto CUDA blocks, warps and shared "
      "memory, and keep the host away from device memory (the GPU mapping "
      "stage of gmm-to-ptx)",
      [](OpPassManager &pm, const MapToGPUPipelineOptions &options,
         ErrorHandler) {
        buildMapToGPUPipeline(pm, options.convertMma);
        return success();
      });
  registerPipeline<NoPipelineOptions>(
      "gmm-reference-to-llvm",
      "Lower gmm.ragged_dot directly to loops, bufferize and convert to the "
      "LLVM dialect (the reference CPU pipeline)",
      [](OpPassManager &pm, const NoPipelineOptions &, ErrorHandler) {
        buildReferenceToLLVMPipeline(pm);
        return success();
      });
}
