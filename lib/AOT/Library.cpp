//===- Library.cpp - Loading a gmm-aot library ----------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/AOT/Library.h"

#include <cstring>
#include <dlfcn.h>

using namespace gmm::aot;

std::unique_ptr<Library> Library::open(const std::string &path,
                                       std::string &error) {
  // A file name alone would be searched for in the library path.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  void *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    error = "cannot load " + path + ": " + (why ? why : "unknown error");
    return nullptr;
  }
  auto describe =
      reinterpret_cast<gmm_aot_describe_fn>(dlsym(handle, "gmm_aot_describe"));
  if (!describe) {
    error = path + " is not a gmm-aot library (no gmm_aot_describe)";
    dlclose(handle);
    return nullptr;
  }
  const gmm_aot_library *library = describe();
  if (!library || library->version != GMM_AOT_VERSION) {
    error = path + " was written by another version of gmm-aot (version " +
            std::to_string(library ? library->version : -1) + ", expected " +
            std::to_string(GMM_AOT_VERSION) + ")";
    dlclose(handle);
    return nullptr;
  }
  std::unique_ptr<Library> result(new Library());
  result->handle = handle;
  result->library = library;
  return result;
}

Library::~Library() {
  if (handle)
    dlclose(handle);
}

bool Library::isCUDA() const {
  return std::strcmp(library->target, "cuda") == 0;
}

const gmm_aot_function *Library::find(const std::string &name) const {
  for (int32_t i = 0; i < library->num_functions; ++i)
    if (name == library->functions[i].name)
      return &library->functions[i];
  return nullptr;
}

std::vector<std::string> Library::names() const {
  std::vector<std::string> result;
  for (int32_t i = 0; i < library->num_functions; ++i)
    result.push_back(library->functions[i].name);
  return result;
}

int64_t gmm::aot::elementCount(const gmm_aot_tensor &t, const int64_t *dims) {
  int64_t count = 1;
  for (int32_t d = 0; d < t.rank; ++d)
    if (dims[d] < 0 || __builtin_mul_overflow(count, dims[d], &count))
      return -1;
  return count;
}
