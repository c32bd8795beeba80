//===- DestinationResults.cpp - results into caller buffers ---------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-aot-destination-results: each public function's tensor results become
// memref arguments it writes into (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "gmm/AOT/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMAOTDESTINATIONRESULTS
#include "gmm/AOT/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

/// The attribute that marks an argument written with result `i`.
constexpr StringLiteral kResultAttr = "gmm.aot_result";

LogicalResult convertResults(func::FuncOp func, ModuleOp module) {
  FunctionType type = func.getFunctionType();
  if (type.getNumResults() == 0)
    return success();
  SmallVector<Type> destinations;
  for (auto [i, result] : llvm::enumerate(type.getResults())) {
    auto tensor = dyn_cast<RankedTensorType>(result);
    if (!tensor || tensor.getEncoding())
      return func.emitOpError()
             << "result " << i << " is " << result
             << ": only ranked tensors without an encoding can be written "
                "into a caller's buffer";
    destinations.push_back(
        MemRefType::get(tensor.getShape(), tensor.getElementType()));
  }
  // A caller inside the module would have to pass the new buffers.
  if (std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(func, module))
    if (!uses->empty())
      return func.emitOpError()
             << "is referenced inside the module; only functions that "
                "nothing in the module uses can return through their "
                "caller's buffers";

  unsigned first = type.getNumInputs();
  SmallVector<unsigned> indices(destinations.size(), first);
  SmallVector<DictionaryAttr> attrs;
  SmallVector<Location> locs(destinations.size(), func.getLoc());
  Builder builder(func.getContext());
  for (unsigned i = 0; i < destinations.size(); ++i)
    attrs.push_back(builder.getDictionaryAttr(
        builder.getNamedAttr(kResultAttr, builder.getI64IntegerAttr(i))));
  if (failed(func.insertArguments(indices, destinations, attrs, locs)))
    return func.emitOpError() << "could not take its results' buffers";

  SmallVector<func::ReturnOp> returns;
  func.walk([&](func::ReturnOp op) { returns.push_back(op); });
  for (func::ReturnOp op : returns) {
    OpBuilder b(op);
    for (auto [i, value] : llvm::enumerate(op.getOperands()))
      bufferization::MaterializeInDestinationOp::create(
          b, op.getLoc(), TypeRange(), value, func.getArgument(first + i),
          /*restrict=*/true, /*writable=*/true);
    func::ReturnOp::create(b, op.getLoc());
    op.erase();
  }
  llvm::BitVector all(type.getNumResults(), true);
  if (failed(func.eraseResults(all)))
    return func.emitOpError() << "could not drop its results";
  return success();
}

struct GMMAOTDestinationResults
    : public mlir::gmm::impl::GMMAOTDestinationResultsBase<
          GMMAOTDestinationResults> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failedAny = false;
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func.isPublic() && !func.isExternal() &&
          failed(convertResults(func, module)))
        failedAny = true;
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
