//===- Utils.cpp - helpers shared by the GPU codegen passes ---------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Utils.h"
#include "gmm/Codegen/GPU/Passes.h"
#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

void mlir::gmm::eraseDeadOps(RewriterBase &rewriter, Operation *root,
                             function_ref<bool(Operation *)> erasable) {
  auto dead = [&](Operation *op) {
    return op != root && op->use_empty() &&
           !op->hasTrait<OpTrait::IsTerminator>() && erasable(op);
  };
  llvm::SetVector<Operation *> worklist;
  root->walk([&](Operation *op) {
    if (dead(op))
      worklist.insert(op);
  });
  // Erasing an op may leave its operands' producers dead: they follow.
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    SmallVector<Operation *> producers;
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        if (root->isProperAncestor(producer))
          producers.push_back(producer);
    // Ops nested in it go with it.
    op->walk([&](Operation *nested) {
      if (nested != op)
        worklist.remove(nested);
    });
    rewriter.eraseOp(op);
    for (Operation *producer : producers)
      if (dead(producer))
        worklist.insert(producer);
  }
}

LogicalResult mlir::gmm::appendArgumentEverywhere(
    ArrayRef<func::FuncOp> funcs, Type type, StringRef attrName,
    function_ref<Value(OpBuilder &, func::CallOp, Value)> forward) {
  if (funcs.empty())
    return success();
  OpBuilder b(type.getContext());
  llvm::DenseSet<StringAttr> callees;
  for (func::FuncOp func : funcs) {
    if (failed(func.insertArgument(
            func.getNumArguments(), type,
            b.getDictionaryAttr(b.getNamedAttr(attrName, b.getUnitAttr())),
            func.getLoc())))
      return failure();
    callees.insert(func.getSymNameAttr());
  }
  for (func::FuncOp func : funcs) {
    Value argument = func.getArguments().back();
    func.walk([&](func::CallOp call) {
      if (!callees.contains(call.getCalleeAttr().getAttr()))
        return;
      b.setInsertionPoint(call);
      Value operand = forward(b, call, argument);
      call.getOperandsMutable().append(operand);
    });
  }
  return success();
}

void mlir::gmm::nameLaunch(gpu::LaunchOp launch, StringRef role,
                           KernelConfigAttr config) {
  std::string name;
  llvm::raw_string_ostream os(name);
  auto func = launch->getParentOfType<FunctionOpInterface>();
  os << (func ? func.getName() : StringRef("kernel")) << "_" << role;
  if (config) {
    ArrayRef<int64_t> warps = config.getWarps();
    os << "_" << config.getTileM() << "x" << config.getTileN() << "x"
       << config.getTileK() << "_w" << warps[0] << "x" << warps[1] << "_s"
       << config.getStages();
    if (config.getMmaOrDefault() == GPUMma::Wgmma)
      os << "_wgmma";
    if (config.getRaster())
      os << "_r" << config.getRaster();
  }
  launch->setAttr("gmm.kernel", StringAttr::get(launch.getContext(), role));
  launch.setFunctionAttr(FlatSymbolRefAttr::get(launch.getContext(), name));
}

SmallVector<func::FuncOp> mlir::gmm::hostFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && !func->hasAttr(kWorkspaceSizeOfAttrName))
      funcs.push_back(func);
  return funcs;
}

SmallVector<gpu::LaunchOp> mlir::gmm::tileKernelsInProgress(Operation *root) {
  SmallVector<gpu::LaunchOp> launches;
  root->walk([&](gpu::LaunchOp op) {
    if (op->hasAttr(kKernelConfigAttrName))
      launches.push_back(op);
  });
  return launches;
}

void mlir::gmm::foldKernel(gpu::LaunchOp launch) {
  RewritePatternSet patterns(launch.getContext());
  (void)applyPatternsGreedily(launch, std::move(patterns));
}

FailureOr<gmm::KernelConfigAttr>
mlir::gmm::getLaunchKernelConfig(gpu::LaunchOp launch, StringRef pass) {
  auto config =
      launch->getAttrOfType<gmm::KernelConfigAttr>(gmm::kKernelConfigAttrName);
  if (!config || !config.isGPU())
    return launch.emitOpError(pass)
           << " expects the tile kernel to carry its GPU '"
           << gmm::kKernelConfigAttrName
           << "' (gmm-gpu-map-blocks puts it there)";
  return config;
}

Value mlir::gmm::getKernelSharedBuffer(gpu::LaunchOp launch) {
  if (launch.getWorkgroupAttributions().size() == 1)
    return launch.getWorkgroupAttributions().front();
  for (auto op : launch.getBody().front().getOps<gpu::DynamicSharedMemoryOp>())
    return op;
  return Value();
}

FailureOr<scf::ForOp> mlir::gmm::getStagedLoop(gpu::LaunchOp launch,
                                               int64_t tileM, int64_t tileN,
                                               StringRef pass) {
  SmallVector<scf::ForOp> loops;
  launch.walk([&](scf::ForOp op) {
    if (op->hasAttr(kPipelineStagesAttrName))
      loops.push_back(op);
  });
  auto block =
      VectorType::get({tileM, tileN}, Float32Type::get(launch->getContext()));
  if (loops.size() != 1 || loops.front().getNumResults() != 1 ||
      loops.front().getResult(0).getType() != block)
    return launch.emitOpError(pass)
           << " expects one staged contraction loop carrying the " << block
           << " block (gmm-gpu-promote-operands builds it)";
  return loops.front();
}

Value mlir::gmm::workgroupView(OpBuilder &b, Location loc, Value buffer,
                               int64_t byteOffset, ArrayRef<int64_t> shape,
                               Type elementType) {
  return workgroupView(b, loc, buffer,
                       arith::ConstantIndexOp::create(b, loc, byteOffset),
                       shape, elementType);
}

Value mlir::gmm::workgroupView(OpBuilder &b, Location loc, Value buffer,
                               Value byteOffset, ArrayRef<int64_t> shape,
                               Type elementType) {
  auto type = MemRefType::get(
      shape, elementType, AffineMap(),
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup));
  return memref::ViewOp::create(b, loc, type, buffer, byteOffset, ValueRange{});
}

Value mlir::gmm::readStagedBlock(OpBuilder &b, Location loc, Value view,
                                 bool transposed, Value s, Value r, Value c,
                                 int64_t rows, int64_t cols) {
  MLIRContext *ctx = b.getContext();
  Type elementType = cast<MemRefType>(view.getType()).getElementType();
  AffineExpr d1 = getAffineDimExpr(1, ctx), d2 = getAffineDimExpr(2, ctx);
  AffineMap map = transposed ? AffineMap::get(3, 0, {d2, d1}, ctx)
                             : AffineMap::get(3, 0, {d1, d2}, ctx);
  SmallVector<Value> indices =
      transposed ? SmallVector<Value>{s, c, r} : SmallVector<Value>{s, r, c};
  Value pad = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  return vector::TransferReadOp::create(
      b, loc, VectorType::get({rows, cols}, elementType), view, indices, pad,
      map, ArrayRef<bool>{true, true});
}

std::optional<bool> mlir::gmm::stagedBlockTransposed(Operation *op) {
  auto read = dyn_cast_or_null<vector::TransferReadOp>(op);
  if (!read || read.getMask())
    return std::nullopt;
  auto type = dyn_cast<MemRefType>(read.getBase().getType());
  if (!type || type.getRank() != 3 ||
      !gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type))
    return std::nullopt;
  MLIRContext *ctx = read.getContext();
  AffineExpr d1 = getAffineDimExpr(1, ctx), d2 = getAffineDimExpr(2, ctx);
  AffineMap map = read.getPermutationMap();
  if (map == AffineMap::get(3, 0, {d1, d2}, ctx))
    return false;
  if (map == AffineMap::get(3, 0, {d2, d1}, ctx))
    return true;
  return std::nullopt;
}
