//===- ShareKernels.cpp - one kernel module per distinct kernel -----------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-share-kernels: one gpu.module per class of structurally equal kernel
// modules, every gpu.launch_func pointed at it. See the pass description in
// include/gmm/Codegen/GPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUSHAREKERNELS
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

/// The op's attributes without its symbol name.
DictionaryAttr attributesWithoutName(Operation *op) {
  NamedAttrList attrs(op->getAttrDictionary());
  attrs.erase(SymbolTable::getSymbolAttrName());
  return attrs.getDictionary(op->getContext());
}

/// A cheap structural hash that equal modules share: every nested op's name
/// and operand, result and region counts.
llvm::hash_code structuralHash(gpu::GPUModuleOp module) {
  llvm::hash_code hash = hash_value(attributesWithoutName(module));
  module.getBody()->walk([&](Operation *op) {
    hash = llvm::hash_combine(hash, op->getName(), op->getNumOperands(),
                              op->getNumResults(), op->getNumRegions());
  });
  return hash;
}

/// Whether `lhs` and `rhs` are the same op up to the symbol name they
/// define.
bool equalUpToName(Operation *lhs, Operation *rhs) {
  constexpr auto flags = OperationEquivalence::IgnoreLocations;
  bool isSymbol = isa<SymbolOpInterface>(lhs);
  if (!isSymbol)
    return OperationEquivalence::isEquivalentTo(lhs, rhs, flags);
  if (lhs->getName() != rhs->getName() || lhs->getNumOperands() != 0 ||
      rhs->getNumOperands() != 0 ||
      lhs->getResultTypes() != rhs->getResultTypes() ||
      lhs->getNumRegions() != rhs->getNumRegions() ||
      attributesWithoutName(lhs) != attributesWithoutName(rhs))
    return false;
  for (auto [l, r] : llvm::zip_equal(lhs->getRegions(), rhs->getRegions()))
    if (!OperationEquivalence::isRegionEquivalentTo(&l, &r, flags))
      return false;
  return true;
}

bool equalUpToNames(gpu::GPUModuleOp lhs, gpu::GPUModuleOp rhs) {
  if (attributesWithoutName(lhs) != attributesWithoutName(rhs))
    return false;
  Block *l = lhs.getBody(), *r = rhs.getBody();
  if (l->getOperations().size() != r->getOperations().size())
    return false;
  for (auto [a, b] : llvm::zip_equal(*l, *r))
    if (!equalUpToName(&a, &b))
      return false;
  return true;
}

/// The symbols a module defines, in order.
SmallVector<StringAttr> symbolNames(gpu::GPUModuleOp module) {
  SmallVector<StringAttr> names;
  for (Operation &op : *module.getBody())
    if (auto name =
            op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
      names.push_back(name);
  return names;
}

struct ShareKernels
    : public mlir::gmm::impl::GMMGPUShareKernelsBase<ShareKernels> {
  using GMMGPUShareKernelsBase::GMMGPUShareKernelsBase;

  void runOnOperation() override {
    ModuleOp top = getOperation();
    // Modules whose only users are launches of their kernels: only those can
    // be replaced. One walk collects every symbol use in the module.
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(&top.getBodyRegion());
    if (!uses)
      return;
    llvm::DenseMap<StringAttr, bool> onlyLaunched;
    for (const SymbolTable::SymbolUse &use : *uses) {
      auto launch = dyn_cast<gpu::LaunchFuncOp>(use.getUser());
      bool isLaunch = launch && use.getSymbolRef() == launch.getKernel();
      auto [it, inserted] = onlyLaunched.try_emplace(
          use.getSymbolRef().getRootReference(), isLaunch);
      if (!inserted)
        it->second = it->second && isLaunch;
    }
    SmallVector<gpu::GPUModuleOp> modules;
    for (auto module : top.getOps<gpu::GPUModuleOp>()) {
      auto it = onlyLaunched.find(module.getSymNameAttr());
      if (it != onlyLaunched.end() && !it->second)
        continue;
      modules.push_back(module);
    }

    // Classes of equal modules, found through the hash; the first module of
    // a class stays. A module that goes maps its kernels to the kept one's
    // (the n-th symbol of a module corresponds to the n-th of the other).
    struct Replacement {
      StringAttr module;
      llvm::DenseMap<StringAttr, StringAttr> kernels;
    };
    llvm::DenseMap<llvm::hash_code, SmallVector<gpu::GPUModuleOp, 1>> kept;
    llvm::DenseMap<StringAttr, Replacement> replacements;
    SmallVector<gpu::GPUModuleOp> replaced;
    for (gpu::GPUModuleOp module : modules) {
      SmallVector<gpu::GPUModuleOp, 1> &candidates =
          kept[structuralHash(module)];
      auto same = llvm::find_if(candidates, [&](gpu::GPUModuleOp other) {
        return equalUpToNames(other, module);
      });
      if (same == candidates.end()) {
        candidates.push_back(module);
        continue;
      }
      Replacement &replacement = replacements[module.getSymNameAttr()];
      replacement.module = same->getSymNameAttr();
      for (auto [from, to] :
           llvm::zip_equal(symbolNames(module), symbolNames(*same)))
        replacement.kernels[from] = to;
      replaced.push_back(module);
    }

    // Every kept module's kernel takes the module's name, which the symbol
    // table made unique: two kernels of a program never share a name.
    llvm::DenseMap<StringAttr, Replacement> renames;
    for (gpu::GPUModuleOp module : modules) {
      if (replacements.contains(module.getSymNameAttr()))
        continue;
      auto kernels = llvm::to_vector(module.getOps<gpu::GPUFuncOp>());
      if (kernels.size() != 1 || !kernels.front().isKernel() ||
          kernels.front().getNameAttr() == module.getSymNameAttr())
        continue;
      gpu::GPUFuncOp kernel = kernels.front();
      if (SymbolTable::lookupSymbolIn(module, module.getSymNameAttr()))
        continue;
      Replacement &rename = renames[module.getSymNameAttr()];
      rename.module = module.getSymNameAttr();
      rename.kernels[kernel.getNameAttr()] = module.getSymNameAttr();
      SymbolTable::setSymbolName(kernel, module.getSymNameAttr());
    }
    // The kept modules' new kernel names, for the launches that move to them.
    for (auto &[from, replacement] : replacements) {
      auto it = renames.find(replacement.module);
      if (it == renames.end())
        continue;
      for (auto &[kernel, to] : replacement.kernels)
        if (StringAttr renamed = it->second.kernels.lookup(to))
          to = renamed;
    }
    for (auto &[from, rename] : renames)
      replacements.try_emplace(from, std::move(rename));
    if (replacements.empty())
      return;

    // Point the launches at the kept modules and the kernels' names.
    WalkResult walk = top.walk([&](gpu::LaunchFuncOp launch) {
      auto it = replacements.find(launch.getKernelModuleName());
      if (it == replacements.end())
        return WalkResult::advance();
      StringAttr kernel = it->second.kernels.lookup(launch.getKernelName());
      if (!kernel) {
        launch.emitError("gmm-gpu-share-kernels: kernel '")
            << launch.getKernelName() << "' is not in its module";
        return WalkResult::interrupt();
      }
      launch.setKernelAttr(SymbolRefAttr::get(
          it->second.module, {FlatSymbolRefAttr::get(kernel)}));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    for (gpu::GPUModuleOp module : replaced)
      module.erase();
  }
};

} // namespace
