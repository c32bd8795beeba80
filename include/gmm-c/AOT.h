/*===- AOT.h - What a gmm-aot library describes of itself ---------*- C -*-===*\
|*                                                                            *|
|* Part of the gmm project: ragged dot (grouped matmul) for MLIR. *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* gmm-aot compiles the public functions of a .mlir module into a shared      *|
|* library with a C entry point per function (docs/AOT.md). The header it     *|
|* writes beside the library declares those entry points and repeats this     *|
|* file, so that a program built against the library needs nothing of gmm's: *|
|* no MLIR, no LLVM, no gmm header.                                           *|
|*                                                                            *|
|* Besides its typed entry points, every library describes itself: the        *|
|* exported function gmm_aot_describe() returns the gmm_aot_library below,    *|
|* whose entries give each function's tensors and a packed form of its entry  *|
|* point. Tools that call functions they did not see at build time (a test    *|
|* runner, a benchmark loading a library with dlopen) use it.                 *|
|*                                                                            *|
|* Plain C, no dependency: compiled into gmm-aot's wrappers and included by   *|
|* the tools that load gmm-aot libraries.                                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef GMM_C_AOT_H
#define GMM_C_AOT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an entry point returns. Errors of the device itself (a failed launch,
   no GPU) are reported by libgmm_cuda_runtime as its error mode says
   (include/gmm/Runtime/CudaRuntime.h), not here. */
enum {
  /* The call was made (on a GPU: enqueued on the caller's stream). */
  GMM_AOT_SUCCESS = 0,
  /* A size is negative, or sizes that must agree do not (e.g. the lhs and
     rhs contracting dimensions of a ragged dot): nothing was done. */
  GMM_AOT_INVALID_SIZES = 1,
  /* A non-empty tensor's pointer is null: nothing was done. */
  GMM_AOT_NULL_POINTER = 2,
  /* The workspace passed is smaller than <f>_workspace_bytes says (a null
     workspace with size 0 is allowed: the function then allocates its own
     on the stream, and frees it there): nothing was done. */
  GMM_AOT_SMALL_WORKSPACE = 3
};

/* Element types, as MLIR spells them in the comments. */
enum {
  GMM_AOT_F16 = 1,  /* f16, IEEE binary16 */
  GMM_AOT_BF16 = 2, /* bf16 */
  GMM_AOT_F32 = 3,  /* f32 */
  GMM_AOT_F64 = 4,  /* f64 */
  GMM_AOT_I8 = 5,   /* i8 */
  GMM_AOT_I16 = 6,  /* i16 */
  GMM_AOT_I32 = 7,  /* i32 */
  GMM_AOT_I64 = 8,  /* i64 */
  GMM_AOT_I1 = 9    /* i1, one byte per element */
};

/* The bytes of one element of `element_type` (GMM_AOT_F32, ...); 0 for an
   unknown code. */
static inline int32_t gmm_aot_element_bytes(int32_t element_type) {
  switch (element_type) {
  case GMM_AOT_I1:
  case GMM_AOT_I8:
    return 1;
  case GMM_AOT_F16:
  case GMM_AOT_BF16:
  case GMM_AOT_I16:
    return 2;
  case GMM_AOT_F32:
  case GMM_AOT_I32:
    return 4;
  case GMM_AOT_F64:
  case GMM_AOT_I64:
    return 8;
  default:
    return 0;
  }
}

/* A dense, row-major tensor argument or result of an entry point. */
typedef struct gmm_aot_tensor {
  /* "arg0", "arg1", ... for arguments, "result0", ... for results. */
  const char *name;
  /* The MLIR type, e.g. "tensor<?x32xbf16>". */
  const char *type;
  int32_t element_type; /* GMM_AOT_F32, ... */
  int32_t rank;
  /* The static sizes; -1 for a dynamic one. */
  const int64_t *shape;
  /* For each dimension of an argument: the index of the entry point's size
     parameter that gives it, or -1 when it is static. Results' sizes come
     from result_sizes (all -1 here). */
  const int32_t *size_parameter;
  /* Whether the function writes into it: results, and memref arguments. */
  int32_t written;
} gmm_aot_tensor;

/* One entry point. Its typed form, declared in the library's header, takes
   the arguments' pointers, then the results' (each a buffer the caller
   owns, of the result's size), then one int64_t per dynamic size of the
   arguments (in argument order), then, for a GPU library, the workspace
   (pointer and size in bytes) and the CUDA stream (CUstream). */
typedef struct gmm_aot_function {
  const char *name;
  int32_t num_arguments;
  int32_t num_results;
  /* num_arguments arguments, then num_results results. */
  const gmm_aot_tensor *tensors;
  /* The dynamic sizes of the arguments, the entry point's size parameters. */
  int32_t num_sizes;
  /* The entry point, packed: buffers[i] is tensors[i]'s pointer, sizes the
     size parameters; workspace and stream are ignored on the CPU. */
  int32_t (*call)(void *const *buffers, const int64_t *sizes, void *workspace,
                  int64_t workspace_bytes, void *stream);
  /* Writes the sizes of every result (each result's dimensions in order)
     into dims; returns GMM_AOT_SUCCESS or GMM_AOT_INVALID_SIZES. */
  int32_t (*result_sizes)(const int64_t *sizes, int64_t *dims);
  /* The bytes of workspace the call needs for these sizes (0 on the CPU),
     or -1 when the sizes are invalid. */
  int64_t (*workspace_bytes)(const int64_t *sizes);
} gmm_aot_function;

/* What a library holds. */
typedef struct gmm_aot_library {
  /* GMM_AOT_VERSION of the gmm-aot that wrote it. */
  int32_t version;
  /* "cpu" or "cuda". */
  const char *target;
  /* The GPU chip the kernels are for ("sm_90"), or the CPU ("znver5"). */
  const char *chip;
  /* The module the library was compiled from, as given to gmm-aot. */
  const char *source;
  int32_t num_functions;
  const gmm_aot_function *functions;
} gmm_aot_library;

#define GMM_AOT_VERSION 1

/* Every library exports it (look it up with dlsym on the library's handle:
   two libraries linked into one program both define it). */
typedef const gmm_aot_library *(*gmm_aot_describe_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* GMM_C_AOT_H */
