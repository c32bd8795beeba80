//===- gmm-difftest.cpp - randomized differential test --------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Draws random gmm.ragged_dot problems (RandomConfig.h), compiles each with a
// named pipeline, runs it through the JIT on the CPU (or, with
// --pipeline=cuda, on a CUDA device: gmm's simulated GPU by default, with
// its memory, race, initialization and synchronization checks on) and
// compares the result with the independent C++ reference within the
// per-dtype tolerance. Every configuration is reproducible from (--seed, its
// index): a failure prints both, the problem and its MLIR.
//
//===----------------------------------------------------------------------===//

#include "RandomConfig.h"

#include "gmm/Dialect/GMM/IR/GMMDialect.h"
#include "gmm/Pipelines/Pipelines.h"
#include "gmm/Runner/JitRunner.h"
#include "gmm/Runner/ModuleCache.h"
#include "gmm/Runtime/CudaRuntime.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <limits>

using namespace gmm;
using namespace gmm::difftest;
using runner::DType;
using runner::HostTensor;

static llvm::cl::opt<int64_t>
    numConfigs("configs", llvm::cl::desc("Configurations to run"),
               llvm::cl::init(1000));
static llvm::cl::opt<int64_t>
    firstConfig("first", llvm::cl::desc("Index of the first configuration"),
                llvm::cl::init(0));
static llvm::cl::opt<uint64_t>
    seed("seed", llvm::cl::desc("Seed of the configuration stream"),
         llvm::cl::init(1));
static llvm::cl::opt<int64_t>
    maxDim("max-dim", llvm::cl::desc("Largest size of one dimension"),
           llvm::cl::init(24));
static llvm::cl::opt<std::string>
    pipelineName("pipeline", llvm::cl::desc("Pipeline under test"),
                 llvm::cl::init("reference"));
static llvm::cl::opt<int64_t>
    tileM("tile-m", llvm::cl::desc("gmm-tile's tile-m for --pipeline=cpu"),
          llvm::cl::init(0));
static llvm::cl::opt<int64_t>
    tileN("tile-n", llvm::cl::desc("gmm-tile's tile-n for --pipeline=cpu"),
          llvm::cl::init(0));
static llvm::cl::opt<int64_t>
    tileK("tile-k", llvm::cl::desc("gmm-tile's tile-k for --pipeline=cpu"),
          llvm::cl::init(0));
static llvm::cl::opt<int64_t>
    microM("micro-m",
           llvm::cl::desc("gmm-tile's micro-m (register block rows) for "
                          "--pipeline=cpu"),
           llvm::cl::init(0));
static llvm::cl::opt<int64_t>
    microN("micro-n",
           llvm::cl::desc("gmm-tile's micro-n (register block lanes) for "
                          "--pipeline=cpu"),
           llvm::cl::init(0));
static llvm::cl::opt<mlir::gmm::KernelTarget> tileTarget(
    "tile-target",
    llvm::cl::desc("What --pipeline=cpu configures the ragged dots for: cpu, "
                   "or gpu for the GPU-shaped tile program that "
                   "gmm-map-to-gpu maps"),
    llvm::cl::init(mlir::gmm::KernelTarget::CPU),
    llvm::cl::values(clEnumValN(mlir::gmm::KernelTarget::CPU, "cpu",
                                "the CPU program"),
                     clEnumValN(mlir::gmm::KernelTarget::GPU, "gpu",
                                "the GPU-shaped program")));
static llvm::cl::opt<mlir::gmm::MicroKernelOption> microKernel(
    "micro-kernel",
    llvm::cl::desc("How --pipeline=cpu's register block multiplies (default: "
                   "gmm-configure's heuristic); bf16-dot on a CPU without "
                   "AVX512-BF16 computes vdpbf16ps with f32 FMAs "
                   "(gmm-to-cpu's emulate-bf16-dot)"),
    llvm::cl::init(mlir::gmm::MicroKernelOption::Auto),
    llvm::cl::values(
        clEnumValN(mlir::gmm::MicroKernelOption::Auto, "auto", "the heuristic"),
        clEnumValN(mlir::gmm::MicroKernelOption::FMA, "fma", "FMA"),
        clEnumValN(mlir::gmm::MicroKernelOption::BF16Dot, "bf16-dot",
                   "vdpbf16ps on pairs of k for bf16 inputs")));
static llvm::cl::opt<uint64_t> streamMinBytes(
    "stream-min-bytes",
    llvm::cl::desc("--pipeline=cpu writes results of at least this many "
                   "bytes with streaming stores (default: gmm-to-cpu's)"),
    llvm::cl::init(mlir::gmm::CPUPipelineOptions().streamMinBytes));
static llvm::cl::opt<std::string> inputTypeOption(
    "input-type",
    llvm::cl::desc("The operand type of every configuration: f16, bf16, f32 "
                   "or f64 (default: random)"),
    llvm::cl::init(""));
static llvm::cl::opt<int64_t>
    warpsM("warps-m",
           llvm::cl::desc("Warps per block along m, for "
                          "--pipeline=cuda (default: gmm-configure's)"),
           llvm::cl::init(0));
static llvm::cl::opt<int64_t>
    stages("stages",
           llvm::cl::desc("k steps staged in shared memory, for "
                          "--pipeline=cuda (default: gmm-configure's, 2)"),
           llvm::cl::init(0));
static llvm::cl::opt<int64_t>
    raster("raster",
           llvm::cl::desc("Visits per raster band (the blocks' order over "
                          "the tiles), for --pipeline=cuda (default: "
                          "gmm-configure's)"),
           llvm::cl::init(0));
static llvm::cl::opt<int64_t>
    warpsN("warps-n",
           llvm::cl::desc("Warps per block along n, for "
                          "--pipeline=cuda (default 4)"),
           llvm::cl::init(0));
static llvm::cl::opt<std::string> deviceOption(
    "device",
    llvm::cl::desc("For --pipeline=cuda: sim (gmm's simulated GPU, the "
                   "default) or gpu (the CUDA driver)"),
    llvm::cl::init("sim"));
static llvm::cl::opt<std::string>
    simChip("sim-chip",
            llvm::cl::desc("For --device=sim: sm_80, sm_90 (the default) "
                           "or sm_90a (an sm_90 device, code compiled for "
                           "sm_90a)"),
            llvm::cl::init(""));
static llvm::cl::opt<std::string> emitModule(
    "emit-module",
    llvm::cl::desc("Write the configurations as one module of functions "
                   "@config_<index> to this file instead of running them: "
                   "gmm-aot compiles it, gmm-aot-difftest runs the library "
                   "with the same --seed, --first, --configs, --max-dim, "
                   "--input-type and --adversarial"),
    llvm::cl::value_desc("file"), llvm::cl::init(""));
static llvm::cl::opt<bool> verbose("v",
                                   llvm::cl::desc("Print every configuration"));
static llvm::cl::opt<std::string> guardPagesOption(
    "guard-pages",
    llvm::cl::desc("Run every configuration with its buffers next to "
                   "inaccessible pages (GuardedMemory.h), so that an "
                   "out-of-bounds access by the compiled code faults: "
                   "'end', 'start', 'both' (two calls per configuration) or "
                   "'none' (the default; --guard-pages alone means 'both')"),
    llvm::cl::value_desc("end|start|both|none"), llvm::cl::ValueOptional,
    llvm::cl::init("none"));
static llvm::cl::opt<bool> adversarial(
    "adversarial",
    llvm::cl::desc("Replace the group sizes (and, in modes 1 and 2, the group "
                   "offset) of every configuration by adversarial values: "
                   "negative, INT32/INT64 extremes, sums that overflow 32 "
                   "and 64 bits or wrap around to small values, all the "
                   "mass in the last group, offsets at the extremes"));

static llvm::cl::opt<ConfigFamily> family(
    "family", llvm::cl::desc("Which problems to draw"),
    llvm::cl::init(ConfigFamily::Any),
    llvm::cl::values(
        clEnumValN(ConfigFamily::Any, "any", "any valid ragged dot"),
        clEnumValN(ConfigFamily::Hopper, "hopper",
                   "those the Hopper (wgmma) kernel takes: mode 1, [m, k] x "
                   "[g, k, n] of 16-bit inputs, static sizes, k and n "
                   "multiples of 8")));

namespace {

/// The guard modes that each configuration is called with.
std::vector<runner::GuardPages> guardModes;

/// Runs one configuration; returns an empty string when it passes, else the
/// failure report.
std::string runConfig(mlir::MLIRContext &context, const Config &c,
                      const runner::PipelineInfo &pipeline) {
  runner::JitOptions jitOptions;
  jitOptions.cuda = pipeline.cuda;
  std::string text = c.toMLIR("f");
  auto jit =
      runner::compileModuleText(context, text, "f", pipeline.build, jitOptions);
  if (!jit)
    return "the generated module does not parse, verify or compile: " +
           llvm::toString(jit.takeError()) + "\n" + text;

  std::vector<HostTensor> args;
  args.push_back(
      runner::fromReferenceTensor(c.lhs, runner::fromElementType(c.inputType)));
  args.push_back(
      runner::fromReferenceTensor(c.rhs, runner::fromElementType(c.inputType)));
  DType indexType = c.groupSizesI64 ? DType::I64 : DType::I32;
  HostTensor sizes = HostTensor::zeros(indexType, c.groupSizes.shape);
  for (size_t i = 0; i < c.groupSizes.data.size(); ++i)
    sizes.setInt(i, c.groupSizes.data[i]);
  args.push_back(std::move(sizes));
  if (c.groupOffset) {
    HostTensor offset =
        HostTensor::zeros(indexType, c.offsetIsVector ? std::vector<int64_t>{1}
                                                      : std::vector<int64_t>{});
    offset.setInt(0, *c.groupOffset);
    args.push_back(std::move(offset));
  }
  if (c.hasInit)
    args.push_back(runner::fromReferenceTensor(
        c.init, runner::fromElementType(c.resultType)));

  for (runner::GuardPages mode : guardModes) {
    (*jit)->setGuardPages(mode);
    auto outputs = (*jit)->call(args);
    if (!outputs)
      return "call failed: " + llvm::toString(outputs.takeError()) + "\n" +
             text;
    std::string mismatch =
        checkResult(c, runner::toReferenceTensor(outputs->front()));
    if (mismatch.empty())
      continue;
    std::string report;
    if (mode != runner::GuardPages::None)
      report = "guard pages " + std::string(runner::toString(mode)) + ": ";
    return report + mismatch + "\n" + text;
  }
  return "";
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "gmm differential test: random ragged dots, compiled and run on the "
      "CPU (or a CUDA device, by default the simulated GPU, with "
      "--pipeline=cuda), against the C++ reference\n");

  auto optionError = [](const llvm::Twine &message) {
    llvm::errs() << "gmm-difftest: error: " << message << "\n";
    return mlir::failure();
  };
  const runner::PipelineInfo *known = runner::lookupPipeline(pipelineName);
  if (!known) {
    llvm::errs() << "gmm-difftest: error: unknown pipeline '" << pipelineName
                 << "'\n";
    return 1;
  }
  runner::PipelineInfo custom = *known;
  if (known->cuda) {
    // The GPU pipeline, on the simulated GPU unless --device=gpu.
    std::string why;
    if (deviceOption == "sim") {
      if (!gmmCudaUseSimulator(simChip, "", &why)) {
        llvm::errs() << "gmm-difftest: error: --device=sim: " << why << "\n";
        return 1;
      }
    } else if (deviceOption != "gpu" || !simChip.empty()) {
      llvm::errs() << "gmm-difftest: error: --device is sim or gpu, and "
                      "--sim-chip goes with --device=sim\n";
      return 1;
    }
    GmmCudaDeviceInfo device;
    if (!gmmCudaAvailable(&why) || !gmmCudaGetDeviceInfo(0, device, &why)) {
      llvm::errs() << "gmm-difftest: error: no CUDA device: " << why << "\n";
      return 1;
    }
    if (tileTarget != mlir::gmm::KernelTarget::CPU) {
      llvm::errs() << "gmm-difftest: error: --tile-target is for "
                      "--pipeline=cpu\n";
      return 1;
    }
    mlir::gmm::GPUPipelineOptions options;
    options.chip = device.chip();
    options.tileM = tileM;
    options.tileN = tileN;
    options.tileK = tileK;
    if (warpsM)
      options.warpsM = warpsM;
    if (warpsN)
      options.warpsN = warpsN;
    options.stages = stages;
    options.raster = raster;
    if (failed(mlir::gmm::verifyGPUPipelineOptions(options, optionError)))
      return 1;
    custom.build = [options](mlir::OpPassManager &pm) {
      mlir::gmm::buildGPUPipeline(pm, options);
    };
    // Failures of the compiled code are errors of the configuration.
    gmmCudaSetErrorMode(GmmCudaErrorMode::Record);
    guardPagesOption = "none";
  } else if (warpsM || warpsN || stages || raster ||
             deviceOption.getNumOccurrences() || !simChip.empty()) {
    llvm::errs() << "gmm-difftest: error: --warps-m/n, --stages, --raster, "
                    "--device and --sim-chip are for --pipeline=cuda\n";
    return 1;
  }
  bool emulatedBF16Dot = false;
  bool cpuOptions = microM || microN ||
                    microKernel != mlir::gmm::MicroKernelOption::Auto ||
                    streamMinBytes.getNumOccurrences();
  if ((known->cuda && cpuOptions) ||
      (!known->cuda && (tileM || tileN || tileK || cpuOptions ||
                        tileTarget != mlir::gmm::KernelTarget::CPU))) {
    if (pipelineName != "cpu") {
      llvm::errs() << "gmm-difftest: error: --micro-m/n, --micro-kernel, "
                      "--stream-min-bytes and --tile-target are for "
                      "--pipeline=cpu, --tile-m/n/k for cpu and cuda\n";
      return 1;
    }
    mlir::gmm::CPUPipelineOptions options;
    // Without the instruction, the same code with vdpbf16ps emulated.
    emulatedBF16Dot = microKernel == mlir::gmm::MicroKernelOption::BF16Dot &&
                      !llvm::sys::getHostCPUFeatures().lookup("avx512bf16");
    options.emulateBF16Dot = emulatedBF16Dot;
    options.tileM = tileM;
    options.tileN = tileN;
    options.tileK = tileK;
    options.microM = microM;
    options.microN = microN;
    options.microKernel = microKernel;
    options.streamMinBytes = streamMinBytes;
    options.tileTarget = tileTarget;
    if (failed(mlir::gmm::verifyCPUPipelineOptions(options, optionError)))
      return 1;
    custom.build = [options](mlir::OpPassManager &pm) {
      mlir::gmm::buildCPUPipeline(pm, options);
    };
  }
  const runner::PipelineInfo *pipeline = &custom;
  if (guardPagesOption.empty() || guardPagesOption == "both") {
    guardModes = {runner::GuardPages::End, runner::GuardPages::Start};
  } else if (std::optional<runner::GuardPages> mode =
                 runner::parseGuardPages(guardPagesOption)) {
    guardModes = {*mode};
  } else {
    llvm::errs() << "gmm-difftest: error: --guard-pages=" << guardPagesOption
                 << ": expected end, start, both or none\n";
    return 1;
  }
  std::optional<reference::ElementType> inputType;
  if (!inputTypeOption.empty()) {
    static const std::pair<const char *, reference::ElementType> kTypes[] = {
        {"f16", reference::ElementType::F16},
        {"bf16", reference::ElementType::BF16},
        {"f32", reference::ElementType::F32},
        {"f64", reference::ElementType::F64}};
    for (auto [name, type] : kTypes)
      if (inputTypeOption == name)
        inputType = type;
    if (!inputType) {
      llvm::errs() << "gmm-difftest: error: --input-type=" << inputTypeOption
                   << ": expected f16, bf16, f32 or f64\n";
      return 1;
    }
  }
  if (numConfigs < 0 || maxDim < 1) {
    llvm::errs() << "gmm-difftest: error: --configs must be >= 0 and "
                    "--max-dim >= 1\n";
    return 1;
  }

  if (!emitModule.empty()) {
    std::error_code error;
    llvm::raw_fd_ostream os(emitModule, error);
    if (error) {
      llvm::errs() << "gmm-difftest: error: cannot write " << emitModule << ": "
                   << error.message() << "\n";
      return 1;
    }
    bool gpuShaped = known->cuda || tileTarget == mlir::gmm::KernelTarget::GPU;
    os << "// gmm-difftest --seed=" << seed << " --first=" << firstConfig
       << " --configs=" << numConfigs << " --max-dim=" << maxDim
       << (inputType ? " --input-type=" + inputTypeOption : "")
       << (adversarial ? " --adversarial" : "")
       << (family == ConfigFamily::Hopper ? " --family=hopper" : "")
       << (gpuShaped ? " (no f64)" : "") << "\n";
    for (int64_t i = firstConfig; i < firstConfig + numConfigs; ++i)
      os << drawConfig(seed, i, maxDim, inputType, gpuShaped, adversarial,
                       family)
                .toMLIR("config_" + std::to_string(i));
    return 0;
  }

  std::unique_ptr<mlir::MLIRContext> contextOwner =
      runner::createRunnerContext();
  mlir::MLIRContext &context = *contextOwner;
  context.loadAllAvailableDialects();

  int64_t passed = 0, failed = 0;
  int modeCount[4] = {0, 0, 0, 0};
  auto start = std::chrono::steady_clock::now();
  for (int64_t i = firstConfig; i < firstConfig + numConfigs; ++i) {
    // The GPU path has no f64 kernels (gmm-configure refuses them for the
    // GPU with a diagnostic), nor then the GPU-shaped program.
    bool gpuShaped = known->cuda || tileTarget == mlir::gmm::KernelTarget::GPU;
    Config c =
        drawConfig(seed, i, maxDim, inputType, gpuShaped, adversarial, family);
    ++modeCount[c.mode];
    if (verbose)
      llvm::outs() << "config " << i << ": " << c.describe() << "\n";
    std::string failure = runConfig(context, c, *pipeline);
    if (failure.empty()) {
      ++passed;
      continue;
    }
    ++failed;
    llvm::outs() << "FAIL config " << i << " (--seed=" << seed
                 << " --first=" << i << " --configs=1): " << c.describe()
                 << "\n"
                 << failure << "\n";
    // A failed launch leaves the CUDA context unusable; the simulated GPU
    // can forget it, a real one cannot.
    if (known->cuda && !gmmCudaClearDeviceError()) {
      llvm::outs() << "stopping: the CUDA context is unusable after this "
                      "failure\n";
      break;
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  llvm::outs() << "pipeline " << pipeline->name;
  if (known->cuda)
    llvm::outs() << " on "
                 << (deviceOption == "sim" ? "the simulated GPU" : "the GPU");
  if (tileM || tileN || tileK)
    llvm::outs() << " (tiles " << tileM << "x" << tileN << "x" << tileK << ")";
  if (microM || microN)
    llvm::outs() << " (register block " << microM << "x" << microN << ")";
  if (microKernel == mlir::gmm::MicroKernelOption::FMA)
    llvm::outs() << " (micro-kernel fma)";
  if (microKernel == mlir::gmm::MicroKernelOption::BF16Dot)
    llvm::outs() << (emulatedBF16Dot ? " (micro-kernel bf16-dot, vdpbf16ps "
                                       "emulated: this CPU has no AVX512-BF16)"
                                     : " (micro-kernel bf16-dot)");
  if (inputType)
    llvm::outs() << " (" << inputTypeOption << " inputs)";
  if (tileTarget != mlir::gmm::KernelTarget::CPU)
    llvm::outs() << " (tile target "
                 << mlir::gmm::stringifyKernelTarget(tileTarget) << ")";
  if (adversarial)
    llvm::outs() << ", adversarial group sizes";
  if (guardModes.front() != runner::GuardPages::None) {
    llvm::outs() << ", guard pages";
    for (runner::GuardPages mode : guardModes)
      llvm::outs() << " " << runner::toString(mode);
  }
  llvm::outs() << ": configurations " << firstConfig << ".."
               << firstConfig + numConfigs - 1 << " of seed " << seed
               << " (modes 1/2/3: " << modeCount[1] << "/" << modeCount[2]
               << "/" << modeCount[3] << ") in "
               << llvm::format("%.1f", seconds) << " s\n";
  llvm::outs() << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}
