//===- WritePTX.cpp - write the PTX of each GPU binary to a file ----------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gpu-module-to-binary{format=isa} keeps each kernel module's PTX as a
// string inside a gpu.binary. This pass writes those strings out, one file
// per binary and target, so that the PTX can be read, diffed and assembled
// with ptxas.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUWRITEPTX
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {
struct WritePTX : public mlir::gmm::impl::GMMGPUWritePTXBase<WritePTX> {
  using GMMGPUWritePTXBase::GMMGPUWritePTXBase;

  void runOnOperation() override {
    if (std::error_code ec = llvm::sys::fs::create_directories(directory)) {
      getOperation().emitError("gmm-gpu-write-ptx: cannot create directory '")
          << directory << "': " << ec.message();
      return signalPassFailure();
    }
    unsigned written = 0;
    WalkResult result = getOperation().walk([&](gpu::BinaryOp binary) {
      for (Attribute attr : binary.getObjects()) {
        auto object = dyn_cast<gpu::ObjectAttr>(attr);
        if (!object || object.getFormat() != gpu::CompilationTarget::Assembly)
          continue;
        std::string chip = "target";
        if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget()))
          chip = nvvm.getChip().str();
        SmallString<128> path(directory);
        llvm::sys::path::append(
            path, (binary.getSymName() + "." + chip + ".ptx").str());
        std::error_code ec;
        llvm::raw_fd_ostream os(path, ec);
        if (ec) {
          binary.emitError("gmm-gpu-write-ptx: cannot write '")
              << path << "': " << ec.message();
          return WalkResult::interrupt();
        }
        os << object.getObject().getValue();
        ++written;
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    if (written == 0)
      getOperation().emitWarning(
          "gmm-gpu-write-ptx: no PTX found (run gpu-module-to-binary with "
          "format=isa first)");
  }
};
} // namespace
