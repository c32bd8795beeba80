//===- AsyncHost.cpp - one stream per function for the host's gpu ops -----===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-async-host: the host's synchronous gpu ops become async ops on one
// token chain per function, hence one stream (the caller's with
// caller-stream). See the pass description in
// include/gmm/Codegen/GPU/Passes.td.
//
// Why not upstream's gpu-async-region (AsyncRegionRewriter.cpp, MLIR 22):
// it starts a chain (a stream) in every block and waits at the block's end,
// so each scf.for iteration and scf.if branch that launches a kernel
// creates a stream and synchronizes, after a wait before the loop or
// branch; it waits before every op with side effects, cf.assert included;
// and its chains start from a new stream, never from one the caller passes.
// This pass is deletable once upstream's continues a chain through scf
// bodies and can start it from a function argument.
//
// Each op of a block gets a Role (roleOf); Chainer::chain threads the token
// through a block, into the bodies of a Join op with the same token and into
// the blocks of a Separate op with chains of their own.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"
#include "gmm/Codegen/GPU/Utils.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUASYNCHOST
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

/// A gpu op that can run asynchronously but does not yet (gpu.wait, also
/// an async op, is the caller's own synchronization and stays).
bool isSynchronousGpuOp(Operation *op) {
  auto async = dyn_cast<gpu::AsyncOpInterface>(op);
  return async && !async.getAsyncToken() && !isa<gpu::WaitOp>(op);
}

/// Whether `op`'s regions hold gpu ops that touch the device.
bool holdsGpuOps(Operation *op) {
  return op
      ->walk([&](Operation *nested) {
        if (nested != op && isa<gpu::AsyncOpInterface, gpu::WaitOp>(nested))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// What chaining does with an op of a block.
enum class Role {
  /// A synchronous gpu op: becomes async on the chain.
  MakeAsync,
  /// Neither device work nor host side effects: left as it is.
  Ignore,
  /// A host side effect: the host waits for the chain first.
  HostWork,
  /// An scf.if or scf.for whose regions continue the chain: nothing in them
  /// waits (a wait there would end the enclosing chain's stream, which the
  /// ops after the region still use).
  Join,
  /// Another op with gpu ops in its regions: the host waits for the chain
  /// first, and each of its blocks gets a chain of its own.
  Separate,
};

/// The functions that take the caller's stream (caller-stream): a call of
/// one passes the stream on and needs no wait.
using StreamCallees = llvm::DenseSet<StringAttr>;

Role roleOf(Operation *op, const StreamCallees &streamCallees) {
  if (isSynchronousGpuOp(op))
    return Role::MakeAsync;
  if (auto call = dyn_cast<func::CallOp>(op))
    if (streamCallees.contains(call.getCalleeAttr().getAttr()))
      return Role::Ignore;
  if (!holdsGpuOps(op))
    return isMemoryEffectFree(op) || isa<cf::AssertOp, gpu::WaitOp>(op)
               ? Role::Ignore
               : Role::HostWork;
  if (!isa<scf::IfOp, scf::ForOp>(op))
    return Role::Separate;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Operation &nested : block) {
        if (nested.hasTrait<OpTrait::IsTerminator>())
          continue;
        Role role = roleOf(&nested, streamCallees);
        if (role == Role::HostWork || role == Role::Separate)
          return Role::Separate;
      }
  return Role::Join;
}

struct Chainer {
  OpBuilder builder;
  Type tokenType;
  /// The caller's stream (caller-stream), or null: each chain creates one.
  Value stream;
  /// The first op that would have to wait on the caller's stream.
  Operation *mustWait = nullptr;
  /// The functions whose calls pass the stream on (the pass's set).
  const StreamCallees &streamCallees;

  Chainer(MLIRContext *ctx, const StreamCallees &streamCallees)
      : builder(ctx), tokenType(gpu::AsyncTokenType::get(ctx)),
        streamCallees(streamCallees) {}

  /// A fresh token (a new stream), created before `op`; the caller's
  /// stream if there is one.
  Value start(Operation *op) {
    if (stream)
      return stream;
    builder.setInsertionPoint(op);
    return gpu::WaitOp::create(builder, op->getLoc(), tokenType, ValueRange{})
        .getAsyncToken();
  }

  /// The host waits for `token` before `op` (on a caller's stream, nothing
  /// may wait: `op` is recorded for the error).
  void waitBefore(Operation *op, Value token) {
    if (stream) {
      if (!mustWait)
        mustWait = op;
      return;
    }
    builder.setInsertionPoint(op);
    gpu::WaitOp::create(builder, op->getLoc(), Type(), ValueRange{token});
  }

  /// Rebuilds the synchronous gpu op `op` as an async op after `token`;
  /// returns its token.
  Value makeAsync(Operation *op, Value token) {
    SmallVector<Type> types(op->getResultTypes());
    types.push_back(tokenType);
    Operation *async = Operation::create(
        op->getLoc(), op->getName(), types, op->getOperands(),
        NamedAttrList(op->getDiscardableAttrDictionary()),
        op->getPropertiesStorage(), op->getSuccessors(), op->getNumRegions());
    for (auto [from, to] :
         llvm::zip_equal(op->getRegions(), async->getRegions()))
      to.takeBody(from);
    builder.setInsertionPoint(op);
    builder.insert(async);
    cast<gpu::AsyncOpInterface>(async).addAsyncDependency(token);
    op->replaceAllUsesWith(async->getResults().drop_back());
    op->erase();
    return async->getResults().back();
  }

  /// Chains the gpu ops of `block` after `token` (null: none yet); returns
  /// the chain's last token, or null.
  Value chain(Block &block, Value token) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (op.hasTrait<OpTrait::IsTerminator>())
        break;
      switch (roleOf(&op, streamCallees)) {
      case Role::MakeAsync:
        if (!token)
          token = start(&op);
        token = makeAsync(&op, token);
        break;
      case Role::Ignore:
        break;
      case Role::HostWork:
        if (token)
          waitBefore(&op, token);
        token = nullptr;
        break;
      case Role::Join:
        if (!token)
          token = start(&op);
        for (Region &region : op.getRegions())
          for (Block &nested : region)
            (void)chain(nested, token);
        break;
      case Role::Separate:
        // On a caller's stream the blocks' chains are on the same stream,
        // so nothing waits.
        if (token && !stream)
          waitBefore(&op, token);
        token = nullptr;
        for (Region &region : op.getRegions())
          for (Block &nested : region)
            finish(nested, chain(nested, nullptr));
        break;
      }
    }
    return token;
  }

  /// The host waits for `token`, if any, before `block`'s terminator (not
  /// on a caller's stream: the caller synchronizes).
  void finish(Block &block, Value token) {
    if (token && !stream && !block.empty() &&
        block.back().hasTrait<OpTrait::IsTerminator>())
      waitBefore(&block.back(), token);
  }
};

struct AsyncHost : public mlir::gmm::impl::GMMGPUAsyncHostBase<AsyncHost> {
  using GMMGPUAsyncHostBase::GMMGPUAsyncHostBase;

  void runOnOperation() override {
    SmallVector<func::FuncOp> funcs = gmm::hostFunctions(getOperation());
    StreamCallees streamCallees;
    if (callerStream) {
      // Every function takes the stream last, and passes it on to the
      // functions of the module it calls.
      if (failed(gmm::appendArgumentEverywhere(
              funcs, gpu::AsyncTokenType::get(&getContext()),
              gmm::kStreamAttrName,
              [](OpBuilder &, func::CallOp, Value stream) { return stream; })))
        return signalPassFailure();
      for (func::FuncOp func : funcs)
        streamCallees.insert(func.getSymNameAttr());
    }
    for (func::FuncOp func : funcs) {
      Chainer chainer(&getContext(), streamCallees);
      if (callerStream)
        chainer.stream = func.getArguments().back();
      for (Block &block : func.getBody())
        chainer.finish(block, chainer.chain(block, nullptr));
      if (chainer.mustWait) {
        chainer.mustWait->emitOpError(
            "gmm-gpu-async-host: with caller-stream, the host would have to "
            "wait "
            "for the device before this op, which a caller's stream does not "
            "allow");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
