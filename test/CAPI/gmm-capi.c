//===- gmm-capi.c - the gmm C API, end to end -----------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// A C program that uses gmm the way a compiler written against MLIR's C API
// would: register the gmm dialects and passes, parse and verify a module
// with a gmm.ragged_dot, run gmm passes by name and through the pipeline
// builder, and see a verifier error come back as a diagnostic.
//
//===----------------------------------------------------------------------===//

// RUN: gmm-capi-test 2>&1 | FileCheck %s

#include "gmm-c/Dialects.h"
#include "gmm-c/Passes.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Transforms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printToStdout(MlirStringRef str, void *userData) {
  (void)userData;
  fwrite(str.data, 1, str.length, stdout);
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static void printOperation(MlirOperation op) {
  mlirOperationPrint(op, printToStdout, NULL);
  printf("\n");
  fflush(stdout);
}

static const char *kModule =
    "func.func @mode1(%lhs: tensor<8x2xf32>, %rhs: tensor<3x2x2xf32>,\n"
    "                 %gs: tensor<3xi32>) -> tensor<8x2xf32> {\n"
    "  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <\n"
    "      lhs_contracting_dimensions = [1], rhs_contracting_dimensions = "
    "[1],\n"
    "      lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>\n"
    "      : tensor<8x2xf32>, tensor<3x2x2xf32>, tensor<3xi32> "
    "-> tensor<8x2xf32>\n"
    "  return %0 : tensor<8x2xf32>\n"
    "}\n";

/// The dialect handle on its own: gmm in an otherwise empty context.
static int testDialectHandle(void) {
  // CHECK-LABEL: testDialectHandle
  printf("testDialectHandle\n");
  MlirDialectHandle handle = mlirGetDialectHandle__gmm__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(handle);
  // CHECK: namespace: gmm
  printf("namespace: %.*s\n", (int)ns.length, ns.data);

  MlirContext ctx = mlirContextCreateWithThreading(false);
  mlirDialectHandleRegisterDialect(handle, ctx);
  MlirDialect gmm = mlirDialectHandleLoadDialect(handle, ctx);
  // CHECK: loaded: 1
  printf("loaded: %d\n", !mlirDialectIsNull(gmm));
  // CHECK: ragged_dot registered: 1
  printf("ragged_dot registered: %d\n",
         mlirContextIsRegisteredOperation(
             ctx, mlirStringRefCreateFromCString("gmm.ragged_dot")));
  mlirContextDestroy(ctx);
  return 0;
}

/// Parse, verify, print, then lower with passes named in a textual pipeline
/// and with the pipeline builder.
/// A context with gmm's dialects and interface models registered, and
/// gmm's passes, as docs/Embedding.md says to set it up.
static MlirContext createGMMContext(void) {
  MlirContext ctx = mlirContextCreateWithThreading(false);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirGMMRegisterDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirGMMRegisterPasses();
  return ctx;
}

/// kModule parsed in `ctx`; a module that does not parse ends the program.
static MlirModule parseModule(MlirContext ctx) {
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "error: could not parse the module\n");
    exit(EXIT_FAILURE);
  }
  return module;
}

static int testParseAndLower(void) {
  // CHECK-LABEL: testParseAndLower
  printf("testParseAndLower\n");
  MlirContext ctx = createGMMContext();
  // A second registration is harmless.
  mlirGMMRegisterPasses();
  // Upstream passes come from MLIR's own C API, which libGMM-C.so carries.
  mlirRegisterTransformsCanonicalizer();
  mlirRegisterTransformsCSE();

  MlirModule module = parseModule(ctx);
  MlirOperation op = mlirModuleGetOperation(module);
  // CHECK: verified: 1
  printf("verified: %d\n", mlirOperationVerify(op));
  // CHECK: func.func @mode1
  // CHECK: gmm.ragged_dot %{{.*}}, %{{.*}}, %{{.*}} dimension_numbers =
  // <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1],
  // lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<8x2xf32>,
  // tensor<3x2x2xf32>, tensor<3xi32> -> tensor<8x2xf32>
  printOperation(op);

  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      opm,
      mlirStringRefCreateFromCString(
          "builtin.module(convert-gmm-to-loops,canonicalize,cse)"),
      printToStdout, NULL);
  // CHECK: pipeline parsed: 1
  printf("pipeline parsed: %d\n", mlirLogicalResultIsSuccess(parsed));
  // CHECK: pipeline: builtin.module(convert-gmm-to-loops,canonicalize
  printf("pipeline: ");
  mlirPrintPassPipeline(opm, printToStdout, NULL);
  printf("\n");
  // CHECK: convert-gmm-to-loops: 1
  printf("convert-gmm-to-loops: %d\n",
         mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, op)));
  mlirPassManagerDestroy(pm);
  // CHECK: func.func @mode1
  // CHECK-NOT: gmm.ragged_dot
  // CHECK: scf.for
  // CHECK: tensor.extract
  // CHECK: return
  printOperation(op);

  // The rest of the reference pipeline: bufferization and conversion to the
  // LLVM dialect work with only what mlirGMMRegisterDialects registered.
  pm = mlirPassManagerCreate(ctx);
  // CHECK: build: 1
  printf("build: %d\n",
         mlirLogicalResultIsSuccess(mlirGMMBuildReferenceToLLVMPipeline(
             mlirPassManagerGetAsOpPassManager(pm))));
  // CHECK: gmm-reference-to-llvm: 1
  printf("gmm-reference-to-llvm: %d\n",
         mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, op)));
  mlirPassManagerDestroy(pm);
  // CHECK: llvm.func @mode1
  // CHECK-NOT: scf.for
  // CHECK: llvm.return
  printOperation(op);

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}

/// gmm's verifier reports through MLIR's diagnostics, which C code sees.
static int testVerifierDiagnostic(void) {
  // CHECK-LABEL: testVerifierDiagnostic
  printf("testVerifierDiagnostic\n");
  MlirContext ctx = mlirContextCreateWithThreading(false);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirGMMRegisterDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  MlirDiagnosticHandlerID id =
      mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);

  const char *bad =
      "func.func @bad(%lhs: tensor<4x4xi32>, %rhs: tensor<2x4x3xf32>,\n"
      "               %gs: tensor<2xi32>) -> tensor<4x3xf32> {\n"
      "  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <\n"
      "      lhs_contracting_dimensions = [1], rhs_contracting_dimensions = "
      "[1],\n"
      "      lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>\n"
      "      : tensor<4x4xi32>, tensor<2x4x3xf32>, tensor<2xi32> "
      "-> tensor<4x3xf32>\n"
      "  return %0 : tensor<4x3xf32>\n"
      "}\n";
  // CHECK: diagnostic: 'gmm.ragged_dot' op operand #0 must be ranked tensor
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(bad));
  // CHECK: rejected: 1
  printf("rejected: %d\n", mlirModuleIsNull(module));
  if (!mlirModuleIsNull(module))
    mlirModuleDestroy(module);
  mlirContextDetachDiagnosticHandler(ctx, id);
  mlirContextDestroy(ctx);
  return 0;
}

/// gmm's pipelines hold module passes: on a pass manager nested under
/// func.func they fail with a message instead of stopping the process.
static int testMisanchoredPipelines(void) {
  // CHECK-LABEL: testMisanchoredPipelines
  printf("testMisanchoredPipelines\n");
  fflush(stdout);
  MlirContext ctx = mlirContextCreateWithThreading(false);
  mlirGMMRegisterPasses();
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager nested = mlirPassManagerGetNestedUnder(
      pm, mlirStringRefCreateFromCString("func.func"));
  // CHECK: error: 'gmm-reference-to-llvm' runs on builtin.module
  // CHECK-SAME: nested under 'func.func'
  MlirLogicalResult built = mlirGMMBuildReferenceToLLVMPipeline(nested);
  fflush(stderr);
  // CHECK: build nested: 0
  printf("build nested: %d\n", mlirLogicalResultIsSuccess(built));
  // CHECK: 'gmm-to-cpu' runs on builtin.module
  // CHECK-SAME: --pass-pipeline='builtin.module(gmm-to-cpu)'
  // CHECK: add gmm-to-cpu nested: 0
  // CHECK: 'gmm-to-ptx' runs on builtin.module
  // CHECK: add gmm-to-ptx nested: 0
  // CHECK: 'gmm-reference-to-llvm' runs on builtin.module
  // CHECK: add gmm-reference-to-llvm nested: 0
  const char *pipelines[] = {"gmm-to-cpu", "gmm-to-ptx",
                             "gmm-reference-to-llvm"};
  for (size_t i = 0; i < sizeof(pipelines) / sizeof(pipelines[0]); ++i) {
    MlirLogicalResult added = mlirOpPassManagerAddPipeline(
        nested, mlirStringRefCreateFromCString(pipelines[i]), printToStdout,
        NULL);
    printf("\nadd %s nested: %d\n", pipelines[i],
           mlirLogicalResultIsSuccess(added));
  }
  mlirPassManagerDestroy(pm);
  mlirContextDestroy(ctx);
  return 0;
}

/// Whether `op` and everything nested in it is in the LLVM dialect (or is
/// the module, gpu.binary that holds the kernels and gpu.launch_func that
/// launches them, or OpenMP: what LLVM IR translation takes).
static int isLoweredToLLVM(MlirOperation op) {
  MlirIdentifier name = mlirOperationGetName(op);
  MlirStringRef text = mlirIdentifierStr(name);
  int lowered =
      (text.length > 5 && strncmp(text.data, "llvm.", 5) == 0) ||
      (text.length > 4 && strncmp(text.data, "omp.", 4) == 0) ||
      mlirStringRefEqual(text,
                         mlirStringRefCreateFromCString("builtin.module")) ||
      mlirStringRefEqual(text, mlirStringRefCreateFromCString("gpu.binary")) ||
      mlirStringRefEqual(text,
                         mlirStringRefCreateFromCString("gpu.launch_func"));
  if (!lowered) {
    printf("not lowered: %.*s\n", (int)text.length, text.data);
    return 0;
  }
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r) {
    MlirRegion region = mlirOperationGetRegion(op, r);
    for (MlirBlock block = mlirRegionGetFirstBlock(region);
         !mlirBlockIsNull(block); block = mlirBlockGetNextInRegion(block))
      for (MlirOperation inner = mlirBlockGetFirstOperation(block);
           !mlirOperationIsNull(inner);
           inner = mlirOperationGetNextInBlock(inner))
        if (!isLoweredToLLVM(inner))
          return 0;
  }
  return 1;
}

/// Every pipeline of gmm, end to end, in a context that has only what
/// docs/Embedding.md says to register: gmm's dialects and passes (#38,
/// class 5: gmm-to-cpu and gmm-to-ptx failed for want of interface models
/// that only mlir-opt's registerAll* had registered).
static int testEveryPipeline(void) {
  // CHECK-LABEL: testEveryPipeline
  printf("testEveryPipeline\n");
  const char *pipelines[] = {
      "gmm-reference-to-llvm", "gmm-to-cpu", "gmm-to-cpu{tile-m=4 tile-n=2}",
      "gmm-to-ptx{chip=sm_80}", "gmm-to-ptx{chip=sm_90 format=isa}"};
  // CHECK-NOT: diagnostic
  // CHECK: gmm-reference-to-llvm: parsed 1, ran 1, lowered 1
  // CHECK-NEXT: gmm-to-cpu: parsed 1, ran 1, lowered 1
  // CHECK-NEXT: gmm-to-cpu{tile-m=4 tile-n=2}: parsed 1, ran 1, lowered 1
  // CHECK-NEXT: gmm-to-ptx{chip=sm_80}: parsed 1, ran 1, lowered 1
  // CHECK-NEXT: gmm-to-ptx{chip=sm_90 format=isa}: parsed 1, ran 1, lowered 1
  for (size_t i = 0; i < sizeof(pipelines) / sizeof(pipelines[0]); ++i) {
    MlirContext ctx = createGMMContext();
    MlirDiagnosticHandlerID id =
        mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
    MlirModule module = parseModule(ctx);
    MlirOperation op = mlirModuleGetOperation(module);
    MlirPassManager pm = mlirPassManagerCreate(ctx);
    char text[128];
    snprintf(text, sizeof(text), "builtin.module(%s)", pipelines[i]);
    MlirLogicalResult parsed = mlirParsePassPipeline(
        mlirPassManagerGetAsOpPassManager(pm),
        mlirStringRefCreateFromCString(text), printToStdout, NULL);
    int ran = mlirLogicalResultIsSuccess(parsed) &&
              mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, op));
    fflush(stderr);
    printf("%s: parsed %d, ran %d, lowered %d\n", pipelines[i],
           mlirLogicalResultIsSuccess(parsed), ran, ran && isLoweredToLLVM(op));
    mlirPassManagerDestroy(pm);
    mlirModuleDestroy(module);
    mlirContextDetachDiagnosticHandler(ctx, id);
    mlirContextDestroy(ctx);
  }
  return 0;
}

/// Null handles fail cleanly (#38, class 5).
static int testNullHandles(void) {
  // CHECK-LABEL: testNullHandles
  printf("testNullHandles\n");
  fflush(stdout);
  MlirDialectRegistry noRegistry = {NULL};
  mlirGMMRegisterDialects(noRegistry);
  MlirOpPassManager noPassManager = {NULL};
  // CHECK: error: mlirGMMBuildReferenceToLLVMPipeline: the pass manager is null
  MlirLogicalResult built = mlirGMMBuildReferenceToLLVMPipeline(noPassManager);
  fflush(stderr);
  // CHECK: build null: 0
  printf("build null: %d\n", mlirLogicalResultIsSuccess(built));
  return 0;
}

int main(void) {
  if (testDialectHandle() || testParseAndLower() || testVerifierDiagnostic() ||
      testMisanchoredPipelines() || testEveryPipeline() || testNullHandles())
    return EXIT_FAILURE;
  // CHECK: done
  printf("done\n");
  return EXIT_SUCCESS;
}
