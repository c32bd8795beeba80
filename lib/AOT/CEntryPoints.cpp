//===- CEntryPoints.cpp - The C side of a gmm-aot library -----------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The header and the C source of a gmm-aot library's entry points: each
// entry point checks the sizes it is given with the function's shape
// function (gmm-aot-shape-functions), then calls the lowered function with
// the memref descriptors of the caller's buffers (row-major, dense), the
// workspace and the stream. The C compiler that links the library compiles
// them, so the calling convention of the lowered functions (every memref
// expanded into its descriptor's fields) is met by ordinary C calls.
//
//===----------------------------------------------------------------------===//

#include "gmm-c/AOT.h"
#include "gmm/AOT/AOT.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::gmm::aot;
using llvm::StringRef;

namespace {

/// include/gmm-c/AOT.h, as the build read it.
#include "AOTHeader.inc"

/// The size parameters' declaration: "int64_t arg0_size0, ...", or empty.
std::string sizeParameters(const FunctionInfo &f) {
  std::string text;
  for (const std::string &size : f.sizes) {
    if (!text.empty())
      text += ", ";
    text += "int64_t " + size;
  }
  return text;
}

/// The entry point's parameter list.
std::string entryParameters(const FunctionInfo &f, Target target) {
  SmallVector<std::string> parts;
  for (const TensorInfo &t : f.arguments)
    parts.push_back((t.written ? "void *" : "const void *") + t.name);
  for (const TensorInfo &t : f.results)
    parts.push_back("void *" + t.name);
  for (const std::string &size : f.sizes)
    parts.push_back("int64_t " + size);
  if (target == Target::CUDA) {
    parts.push_back("void *workspace");
    parts.push_back("int64_t workspace_bytes");
    parts.push_back("void *stream");
  }
  return parts.empty() ? "void" : llvm::join(parts, ", ");
}

/// "[arg0_size0, 32]" for a tensor whose sizes come from parameters, or
/// "[?, 48]" for a result.
std::string describeShape(const TensorInfo &t, ArrayRef<std::string> sizes) {
  SmallVector<std::string> dims;
  for (auto [d, size] : llvm::enumerate(t.shape)) {
    if (size >= 0)
      dims.push_back(std::to_string(size));
    else if (t.sizeParameter[d] >= 0)
      dims.push_back(sizes[t.sizeParameter[d]]);
    else
      dims.push_back("?");
  }
  return "[" + llvm::join(dims, ", ") + "]";
}

/// The declaration of a lowered function: `count` parameters of the types
/// `kinds` gives ('p' pointer, 'i' int64_t), returning `result`.
void declare(llvm::raw_ostream &os, StringRef result, StringRef symbol,
             StringRef kinds) {
  os << "extern " << result << " " << symbol << "(";
  for (size_t i = 0; i < kinds.size(); ++i)
    os << (i ? ", " : "") << (kinds[i] == 'p' ? "void *" : "int64_t");
  if (kinds.empty())
    os << "void";
  os << ");\n";
}

/// The parameter kinds of `tensors`' expanded descriptors.
std::string descriptorKinds(ArrayRef<const TensorInfo *> tensors) {
  std::string kinds;
  for (const TensorInfo *t : tensors)
    kinds += "pp" + std::string(descriptorWords(t->shape.size()) - 2, 'i');
  return kinds;
}

/// The C expression of dimension `d` of `t` inside an entry point: a
/// constant, a size parameter, or a result size computed by the shape
/// function (`dims[...]`).
std::string sizeExpression(const TensorInfo &t, size_t d, const FunctionInfo &f,
                           int64_t resultOffset) {
  if (t.shape[d] >= 0)
    return std::to_string(t.shape[d]);
  if (t.sizeParameter[d] >= 0)
    return f.sizes[t.sizeParameter[d]];
  return "dims[" + std::to_string(resultOffset + d) + "]";
}

/// Writes the expanded descriptor of `t` at `pointer` (dense, row-major)
/// as call arguments.
void emitDescriptor(llvm::raw_ostream &os, const TensorInfo &t,
                    StringRef pointer, const FunctionInfo &f,
                    int64_t resultOffset) {
  size_t rank = t.shape.size();
  os << "(void *)" << pointer << ", (void *)" << pointer << ", 0";
  for (size_t d = 0; d < rank; ++d)
    os << ", " << sizeExpression(t, d, f, resultOffset);
  for (size_t d = 0; d < rank; ++d) {
    std::string stride;
    for (size_t e = d + 1; e < rank; ++e)
      stride +=
          (stride.empty() ? "" : " * ") + sizeExpression(t, e, f, resultOffset);
    os << ", " << (stride.empty() ? "1" : "(" + stride + ")");
  }
}

/// The start of a function body that checks the sizes it was given: the
/// size parameters as an array, `dims` (validity, then the results' sizes)
/// filled by `<entry>_check`, and a return of `failure` when they are
/// invalid.
void emitSizeCheck(llvm::raw_ostream &os, const FunctionInfo &f,
                   int64_t resultDims, StringRef failure) {
  os << "  const int64_t sizes[] = {";
  for (auto [i, size] : llvm::enumerate(f.sizes))
    os << (i ? ", " : "") << size;
  os << (f.sizes.empty() ? "0" : "") << "};\n"
     << "  int64_t dims[" << 1 + resultDims << "];\n"
     << "  if (" << f.entry << "_check(sizes, dims) != GMM_AOT_SUCCESS)\n"
     << "    return " << failure << ";\n";
}

/// memrefCopy(elementBytes, source, destination) on unranked descriptors,
/// which memref.copy of non-contiguous buffers lowers to.
const char *kMemrefCopy = R"c(
/* What MLIR's memref.copy lowers to for buffers that are not contiguous: a
   strided copy, element by element. */
typedef struct {
  int64_t rank;
  void *descriptor;
} gmm_aot_unranked_memref;

__attribute__((visibility("hidden"))) void
memrefCopy(int64_t element_bytes, gmm_aot_unranked_memref *source,
           gmm_aot_unranked_memref *destination) {
  int64_t rank = source->rank;
  int64_t *s = (int64_t *)source->descriptor;
  int64_t *d = (int64_t *)destination->descriptor;
  char *from = (char *)s[1] + s[2] * element_bytes;
  char *to = (char *)d[1] + d[2] * element_bytes;
  int64_t count = 1;
  for (int64_t i = 0; i < rank; ++i)
    count *= s[3 + i];
  if (count <= 0)
    return;
  int64_t position[64] = {0};
  int64_t fromOffset = 0, toOffset = 0;
  for (int64_t n = 0; n < count; ++n) {
    memcpy(to + toOffset * element_bytes, from + fromOffset * element_bytes,
           (size_t)element_bytes);
    for (int64_t i = rank - 1; i >= 0; --i) {
      fromOffset += s[3 + rank + i];
      toOffset += d[3 + rank + i];
      if (++position[i] < s[3 + i])
        break;
      fromOffset -= s[3 + rank + i] * s[3 + i];
      toOffset -= d[3 + rank + i] * s[3 + i];
      position[i] = 0;
    }
  }
}
)c";

} // namespace

std::string mlir::gmm::aot::implementationSymbol(StringRef function) {
  return ("__gmm_aot_" + function).str();
}
std::string mlir::gmm::aot::shapesSymbol(StringRef function) {
  return ("__gmm_aot_" + function + "_shapes").str();
}
std::string mlir::gmm::aot::workspaceSizeSymbol(StringRef function) {
  return ("__gmm_aot_" + function + "_workspace_bytes").str();
}

std::string mlir::gmm::aot::emitHeader(ArrayRef<FunctionInfo> functions,
                                       Target target, StringRef library,
                                       StringRef source) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string guard = "GMM_AOT_";
  for (char c : library)
    guard += llvm::isAlnum(c) ? llvm::toUpper(c) : '_';
  guard += "_H";
  os << "/* " << library << ": ragged dots compiled by gmm-aot from " << source
     << " for " << (target == Target::CUDA ? "CUDA GPUs" : "this CPU") << ".\n"
     << "   Generated: edit the .mlir file and run gmm-aot again. */\n\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << kAOTTypesHeader << "\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  for (const FunctionInfo &f : functions) {
    os << "/* @" << f.name << ": " << f.signature << "\n";
    for (const TensorInfo &t : f.arguments)
      os << " *   " << t.name << ": " << t.type << " "
         << describeShape(t, f.sizes) << (t.written ? ", written" : "") << "\n";
    for (const TensorInfo &t : f.results)
      os << " *   " << t.name << ": " << t.type << " "
         << describeShape(t, f.sizes) << ", written"
         << "\n";
    os << " * Buffers are dense and row-major";
    if (target == Target::CUDA)
      os << ", in device memory. The call enqueues the\n"
            " * work on `stream` (a CUstream; NULL: the legacy default "
            "stream) and returns\n"
            " * without waiting; it allocates, copies and synchronizes "
            "nothing when\n"
            " * `workspace` holds "
         << f.entry
         << "_workspace_bytes(...) "
            "bytes of device memory\n"
            " * (a NULL workspace of 0 bytes: it allocates and frees its "
            "own on the\n"
            " * stream).";
    else
      os << ". Returns when the\n * results are written.";
    os << " Returns GMM_AOT_SUCCESS, or an error code and does\n"
       << " * nothing. */\n";
    os << "int32_t " << f.entry << "(" << entryParameters(f, target) << ");\n";
    std::string sizes = sizeParameters(f);
    os << "/* The sizes of " << f.entry << "'s results, one after the other, "
       << "into dims. */\n"
       << "int32_t " << f.entry << "_result_sizes("
       << (sizes.empty() ? "" : sizes + ", ") << "int64_t *dims);\n";
    if (target == Target::CUDA)
      os << "/* The bytes of device workspace " << f.entry
         << " needs; -1 for invalid sizes. */\n"
         << "int64_t " << f.entry << "_workspace_bytes("
         << (sizes.empty() ? "void" : sizes) << ");\n";
    os << "\n";
  }
  os << "/* The library's description of itself (gmm-c/AOT.h). */\n"
     << "const gmm_aot_library *gmm_aot_describe(void);\n\n"
     << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return text;
}

std::string mlir::gmm::aot::emitEntryPoints(ArrayRef<FunctionInfo> functions,
                                            Target target, StringRef chip,
                                            StringRef source,
                                            StringRef headerPath,
                                            bool needsMemrefCopy) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/* The entry points of a gmm-aot library (generated). */\n"
     << "#include \"" << headerPath << "\"\n"
     << "#include <stddef.h>\n#include <string.h>\n";
  if (needsMemrefCopy)
    os << kMemrefCopy;
  bool cuda = target == Target::CUDA;

  for (const FunctionInfo &f : functions) {
    SmallVector<const TensorInfo *> inputs, all;
    for (const TensorInfo &t : f.arguments) {
      inputs.push_back(&t);
      all.push_back(&t);
    }
    for (const TensorInfo &t : f.results)
      all.push_back(&t);
    // Where each tensor of `all` (the arguments, then the results) has its
    // sizes in `dims`, the shape function's output: the results', after the
    // validity flag; the arguments' come from the size parameters (0 here,
    // unused).
    SmallVector<int64_t> dimsOffset(f.arguments.size(), 0);
    int64_t resultDims = 0;
    for (const TensorInfo &t : f.results) {
      dimsOffset.push_back(1 + resultDims);
      resultDims += t.shape.size();
    }
    std::string id = f.entry;

    os << "\n/* @" << f.name << " */\n";
    // The lowered functions.
    declare(os, "void", implementationSymbol(f.name),
            descriptorKinds(all) + (cuda ? "ppiiip" : ""));
    declare(os, "void", shapesSymbol(f.name),
            descriptorKinds(inputs) + "ppiii");
    if (cuda)
      declare(os, "int64_t", workspaceSizeSymbol(f.name),
              descriptorKinds(all) + (f.workspaceSizeStream ? "p" : ""));

    // Checks the sizes: dims[0] = validity, then the result sizes.
    os << "static int32_t " << id << "_check(const int64_t *sizes, int64_t "
       << "*dims) {\n"
       << "  for (int i = 0; i < " << f.sizes.size() << "; ++i)\n"
       << "    if (sizes[i] < 0)\n      return GMM_AOT_INVALID_SIZES;\n";
    for (auto [i, size] : llvm::enumerate(f.sizes))
      os << "  int64_t " << size << " = sizes[" << i << "];\n";
    os << "  " << shapesSymbol(f.name) << "(";
    bool first = true;
    for (const TensorInfo *t : inputs) {
      os << (first ? "" : ", ");
      first = false;
      emitDescriptor(os, *t, "NULL", f, 0);
    }
    os << (first ? "" : ", ") << "dims, dims, 0, " << 1 + resultDims
       << ", 1);\n"
       << "  if (dims[0] != 1)\n    return GMM_AOT_INVALID_SIZES;\n";
    // Element counts that overflow are invalid too.
    os << "  int64_t count;\n";
    for (auto [t, offset] : llvm::zip_equal(all, dimsOffset)) {
      os << "  count = " << gmm_aot_element_bytes(t->elementType) << ";\n";
      for (size_t d = 0; d < t->shape.size(); ++d) {
        std::string size = sizeExpression(*t, d, f, offset);
        os << "  if (" << size << " < 0 || __builtin_mul_overflow(count, "
           << size << ", &count))\n    return GMM_AOT_INVALID_SIZES;\n";
      }
    }
    os << "  (void)count;\n  return GMM_AOT_SUCCESS;\n}\n";

    // The entry point.
    os << "int32_t " << id << "(" << entryParameters(f, target) << ") {\n";
    emitSizeCheck(os, f, resultDims, "GMM_AOT_INVALID_SIZES");
    // Null pointers of non-empty tensors.
    for (auto [t, offset] : llvm::zip_equal(all, dimsOffset)) {
      os << "  if (" << t->name << " == NULL";
      for (size_t d = 0; d < t->shape.size(); ++d)
        os << " && " << sizeExpression(*t, d, f, offset) << " != 0";
      os << ")\n    return GMM_AOT_NULL_POINTER;\n";
    }
    auto emitAll = [&]() {
      for (auto [i, t] : llvm::enumerate(all)) {
        os << (i ? ",\n      " : "");
        emitDescriptor(os, *t, t->name, f, dimsOffset[i]);
      }
    };
    if (cuda) {
      os << "  int64_t needed = " << workspaceSizeSymbol(f.name) << "(";
      emitAll();
      if (f.workspaceSizeStream)
        os << ", stream";
      os << ");\n"
         << "  if (workspace_bytes < 0 || (workspace_bytes < needed &&\n"
         << "      !(workspace == NULL && workspace_bytes == 0)))\n"
         << "    return GMM_AOT_SMALL_WORKSPACE;\n";
    }
    os << "  " << implementationSymbol(f.name) << "(";
    emitAll();
    if (cuda)
      os << ",\n      workspace, workspace, 0, workspace_bytes, 1, stream";
    os << ");\n  return GMM_AOT_SUCCESS;\n}\n";

    // The result sizes and the workspace size.
    std::string sizes = sizeParameters(f);
    os << "int32_t " << id << "_result_sizes("
       << (sizes.empty() ? "" : sizes + ", ") << "int64_t *out) {\n";
    emitSizeCheck(os, f, resultDims, "GMM_AOT_INVALID_SIZES");
    os << "  for (int i = 0; i < " << resultDims << "; ++i)\n"
       << "    out[i] = dims[1 + i];\n"
       << "  return GMM_AOT_SUCCESS;\n}\n";
    if (cuda) {
      os << "int64_t " << id << "_workspace_bytes("
         << (sizes.empty() ? "void" : sizes) << ") {\n";
      emitSizeCheck(os, f, resultDims, "-1");
      // The size function reads descriptors only.
      for (const TensorInfo *t : all)
        os << "  void *" << t->name << " = NULL;\n";
      os << "  void *stream = NULL;\n  (void)stream;\n"
         << "  return " << workspaceSizeSymbol(f.name) << "(";
      emitAll();
      if (f.workspaceSizeStream)
        os << ", stream";
      os << ");\n}\n";
    }

    // The packed forms for the description.
    os << "static int32_t " << id
       << "_packed(void *const *buffers, const int64_t *sizes, void "
          "*workspace, int64_t workspace_bytes, void *stream) {\n"
       << "  (void)sizes; (void)workspace; (void)workspace_bytes; "
          "(void)stream;\n"
       << "  return " << id << "(";
    SmallVector<std::string> sizeArgs;
    for (size_t i = 0; i < f.sizes.size(); ++i)
      sizeArgs.push_back("sizes[" + std::to_string(i) + "]");
    SmallVector<std::string> callArgs;
    for (size_t i = 0; i < all.size(); ++i)
      callArgs.push_back("buffers[" + std::to_string(i) + "]");
    llvm::append_range(callArgs, sizeArgs);
    if (cuda) {
      callArgs.push_back("workspace");
      callArgs.push_back("workspace_bytes");
      callArgs.push_back("stream");
    }
    os << llvm::join(callArgs, ", ") << ");\n}\n";
    os << "static int32_t " << id
       << "_packed_result_sizes(const int64_t *sizes, int64_t *dims) {\n"
       << "  (void)sizes;\n  return " << id << "_result_sizes(";
    for (const std::string &arg : sizeArgs)
      os << arg << ", ";
    os << "dims);\n}\n"
       << "static int64_t " << id
       << "_packed_workspace_bytes(const int64_t *sizes) {\n"
       << "  (void)sizes;\n";
    if (cuda)
      os << "  return " << id << "_workspace_bytes("
         << llvm::join(sizeArgs, ", ") << ");\n}\n";
    else
      os << "  return 0;\n}\n";

    // The tensors' description.
    for (const TensorInfo *t : all) {
      std::string base = id + "_" + t->name;
      os << "static const int64_t " << base << "_shape[] = {";
      for (auto [d, size] : llvm::enumerate(t->shape))
        os << (d ? ", " : "") << size;
      os << (t->shape.empty() ? "0" : "") << "};\n"
         << "static const int32_t " << base << "_size_parameter[] = {";
      for (auto [d, p] : llvm::enumerate(t->sizeParameter))
        os << (d ? ", " : "") << p;
      os << (t->shape.empty() ? "-1" : "") << "};\n";
    }
    os << "static const gmm_aot_tensor " << id << "_tensors[] = {\n";
    for (const TensorInfo *t : all) {
      std::string base = id + "_" + t->name;
      os << "  {\"" << t->name << "\", \"" << t->type << "\", "
         << t->elementType << ", " << t->shape.size() << ", " << base
         << "_shape, " << base << "_size_parameter, " << (t->written ? 1 : 0)
         << "},\n";
    }
    os << "};\n";
  }

  os << "\nstatic const gmm_aot_function gmm_aot_functions[] = {\n";
  for (const FunctionInfo &f : functions)
    os << "  {\"" << f.entry << "\", " << f.arguments.size() << ", "
       << f.results.size() << ", " << f.entry << "_tensors, " << f.sizes.size()
       << ", " << f.entry << "_packed, " << f.entry << "_packed_result_sizes, "
       << f.entry << "_packed_workspace_bytes},\n";
  os << "};\n\n"
     << "static const gmm_aot_library gmm_aot_this_library = {\n"
     << "  GMM_AOT_VERSION, \"" << (cuda ? "cuda" : "cpu") << "\", \"" << chip
     << "\", \"";
  for (char c : source)
    if (c == '"' || c == '\\')
      os << '\\' << c;
    else if (llvm::isPrint(c))
      os << c;
  os << "\", " << functions.size() << ", gmm_aot_functions};\n\n"
     << "const gmm_aot_library *gmm_aot_describe(void) {\n"
     << "  return &gmm_aot_this_library;\n}\n";
  return text;
}

std::string mlir::gmm::aot::emitExportList(ArrayRef<FunctionInfo> functions,
                                           Target target) {
  std::string text = "{\n  global:\n    gmm_aot_describe;\n";
  for (const FunctionInfo &f : functions) {
    text += "    " + f.entry + ";\n    " + f.entry + "_result_sizes;\n";
    if (target == Target::CUDA)
      text += "    " + f.entry + "_workspace_bytes;\n";
  }
  return text + "  local:\n    *;\n};\n";
}
