/* A C program linked against the library that gmm-aot makes of moe.mlir
   (aot-c-program.test): it calls each entry point on seeded inputs, checks
   the results against loops of its own, and checks the error codes of bad
   calls. Built with -DGMM_TEST_CUDA, it keeps every buffer in device memory
   (through libgmm_cuda_runtime's mgpu* functions) and calls the entry points
   on a stream with a workspace. Prints one line per check and exits 1 on a
   failure. */

#include "libmoe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GMM_TEST_CUDA
/* libgmm_cuda_runtime's C functions (MLIR's mgpu* runtime ABI). */
void *mgpuMemAlloc(uint64_t bytes, void *stream, uint8_t hostShared);
void mgpuMemFree(void *pointer, void *stream);
void mgpuMemcpy(void *destination, void *source, uint64_t bytes, void *stream);
void *mgpuStreamCreate(void);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamDestroy(void *stream);
static void *stream;
#endif

static int failures = 0;

static void check(int ok, const char *what) {
  printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  if (!ok)
    failures++;
}

/* Deterministic values in [-1, 1). */
static uint64_t state = 12345;
static float next_value(void) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((state >> 40) & 0xffff) / 32768.0f - 1.0f;
}

static uint16_t to_bf16(float value) {
  uint32_t bits;
  memcpy(&bits, &value, 4);
  bits += 0x7fff + ((bits >> 16) & 1);
  return (uint16_t)(bits >> 16);
}
static float from_bf16(uint16_t value) {
  uint32_t bits = (uint32_t)value << 16;
  float result;
  memcpy(&result, &bits, 4);
  return result;
}

/* A buffer the entry points can use: device memory with GMM_TEST_CUDA. */
static void *to_device(const void *host, size_t bytes) {
#ifdef GMM_TEST_CUDA
  void *device = mgpuMemAlloc(bytes, stream, 0);
  mgpuMemcpy(device, (void *)host, bytes, stream);
  return device;
#else
  void *copy = malloc(bytes);
  memcpy(copy, host, bytes);
  return copy;
#endif
}
static void from_device(void *host, void *device, size_t bytes) {
#ifdef GMM_TEST_CUDA
  mgpuStreamSynchronize(stream);
  mgpuMemcpy(host, device, bytes, stream);
  mgpuStreamSynchronize(stream);
#else
  memcpy(host, device, bytes);
#endif
}
static void release(void *device) {
#ifdef GMM_TEST_CUDA
  mgpuMemFree(device, stream);
#else
  free(device);
#endif
}

/* The workspace that an entry point asks `bytes` for. */
#ifdef GMM_TEST_CUDA
static void *workspace(int64_t bytes) {
  return bytes > 0 ? mgpuMemAlloc((uint64_t)bytes, stream, 0) : NULL;
}
#define CALL_TAIL(ws, bytes) , ws, bytes, stream
#else
#define CALL_TAIL(ws, bytes)
#endif

static float max_error(const float *got, const double *expected, size_t n) {
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double diff = fabs(got[i] - expected[i]);
    if (!(diff <= worst))
      worst = isnan(diff) ? INFINITY : diff;
  }
  return (float)worst;
}

static void test_forward(void) {
  enum { M = 64, K = 32, N = 48, G = 4 };
  static uint16_t lhs[M * K], rhs[G * K * N];
  static float out[M * N];
  static double expected[M * N];
  int32_t sizes[G] = {10, 0, 30, 20}; /* rows 60..63 in no group: zero */
  for (int i = 0; i < M * K; ++i)
    lhs[i] = to_bf16(next_value());
  for (int i = 0; i < G * K * N; ++i)
    rhs[i] = to_bf16(next_value());
  memset(expected, 0, sizeof expected);
  for (int g = 0, start = 0; g < G; start += sizes[g++])
    for (int r = start; r < start + sizes[g]; ++r)
      for (int n = 0; n < N; ++n) {
        double sum = 0;
        for (int k = 0; k < K; ++k)
          sum += (double)from_bf16(lhs[r * K + k]) *
                 from_bf16(rhs[(g * K + k) * N + n]);
        expected[r * N + n] = sum;
      }
  for (int i = 0; i < M * N; ++i)
    out[i] = NAN;
  void *d_lhs = to_device(lhs, sizeof lhs), *d_rhs = to_device(rhs, sizeof rhs);
  void *d_sizes = to_device(sizes, sizeof sizes),
       *d_out = to_device(out, sizeof out);
#ifdef GMM_TEST_CUDA
  int64_t bytes = moe_forward_workspace_bytes();
  check(bytes >= 0, "moe_forward_workspace_bytes");
  void *ws = workspace(bytes);
#endif
  int32_t status =
      moe_forward(d_lhs, d_rhs, d_sizes, d_out CALL_TAIL(ws, bytes));
  check(status == GMM_AOT_SUCCESS, "moe_forward returns GMM_AOT_SUCCESS");
  from_device(out, d_out, sizeof out);
  float error = max_error(out, expected, M * N);
  printf("moe_forward: max abs error %g\n", error);
  check(error <= 1e-4f, "moe_forward matches the loops (1e-4)");
  check(moe_forward(NULL, d_rhs, d_sizes, d_out CALL_TAIL(ws, bytes)) ==
            GMM_AOT_NULL_POINTER,
        "a null lhs is GMM_AOT_NULL_POINTER");
#ifdef GMM_TEST_CUDA
  if (bytes > 0)
    check(moe_forward(d_lhs, d_rhs, d_sizes, d_out, ws, bytes - 1, stream) ==
              GMM_AOT_SMALL_WORKSPACE,
          "a workspace one byte short is GMM_AOT_SMALL_WORKSPACE");
  if (ws)
    release(ws);
#endif
  release(d_lhs), release(d_rhs), release(d_sizes), release(d_out);
}

static void test_dynamic(void) {
  enum { M = 37, K = 20, N = 24, G = 4 };
  static float lhs[M * K], rhs[G * K * N], out[M * N];
  static double expected[M * N];
  int32_t sizes[G] = {5, 12, 0, 20};
  for (int i = 0; i < M * K; ++i)
    lhs[i] = next_value();
  for (int i = 0; i < G * K * N; ++i)
    rhs[i] = next_value();
  for (int g = 0, start = 0; g < G; start += sizes[g++])
    for (int r = start; r < start + sizes[g]; ++r)
      for (int n = 0; n < N; ++n) {
        double sum = 0;
        for (int k = 0; k < K; ++k)
          sum += (double)lhs[r * K + k] * rhs[(g * K + k) * N + n];
        expected[r * N + n] = sum;
      }
  int64_t dims[2] = {-1, -1};
  check(moe_dynamic_result_sizes(M, K, K, dims) == GMM_AOT_SUCCESS &&
            dims[0] == M && dims[1] == N,
        "moe_dynamic_result_sizes gives [37, 24]");
  check(moe_dynamic_result_sizes(M, K, K + 1, dims) == GMM_AOT_INVALID_SIZES,
        "contracting sizes 20 and 21 are GMM_AOT_INVALID_SIZES");
  check(moe_dynamic_result_sizes(-1, K, K, dims) == GMM_AOT_INVALID_SIZES,
        "a negative size is GMM_AOT_INVALID_SIZES");
  for (int i = 0; i < M * N; ++i)
    out[i] = NAN;
  void *d_lhs = to_device(lhs, sizeof lhs), *d_rhs = to_device(rhs, sizeof rhs);
  void *d_sizes = to_device(sizes, sizeof sizes),
       *d_out = to_device(out, sizeof out);
#ifdef GMM_TEST_CUDA
  int64_t bytes = moe_dynamic_workspace_bytes(M, K, K);
  check(bytes >= 0, "moe_dynamic_workspace_bytes");
  check(moe_dynamic_workspace_bytes(M, K, K + 1) == -1,
        "the workspace of invalid sizes is -1");
  void *ws = workspace(bytes);
#endif
  check(moe_dynamic(d_lhs, d_rhs, d_sizes, d_out, M, K,
                    K + 1 CALL_TAIL(ws, bytes)) == GMM_AOT_INVALID_SIZES,
        "moe_dynamic with contracting sizes 20 and 21 does nothing");
  int32_t status =
      moe_dynamic(d_lhs, d_rhs, d_sizes, d_out, M, K, K CALL_TAIL(ws, bytes));
  check(status == GMM_AOT_SUCCESS, "moe_dynamic returns GMM_AOT_SUCCESS");
  from_device(out, d_out, sizeof out);
  float error = max_error(out, expected, M * N);
  printf("moe_dynamic: max abs error %g\n", error);
  check(error <= 1e-4f, "moe_dynamic matches the loops (1e-4)");
  /* Fewer tokens in the same buffers: the sizes are the call's. */
  int32_t fewer[G] = {3, 3, 3, 3};
#ifdef GMM_TEST_CUDA
  mgpuMemcpy(d_sizes, fewer, sizeof fewer, stream);
#else
  memcpy(d_sizes, fewer, sizeof fewer);
#endif
  status =
      moe_dynamic(d_lhs, d_rhs, d_sizes, d_out, 12, K, K CALL_TAIL(ws, bytes));
  check(status == GMM_AOT_SUCCESS, "moe_dynamic on 12 tokens");
  from_device(out, d_out, sizeof(float) * 12 * N);
  for (int g = 0; g < G; ++g)
    for (int r = 3 * g; r < 3 * g + 3; ++r)
      for (int n = 0; n < N; ++n) {
        double sum = 0;
        for (int k = 0; k < K; ++k)
          sum += (double)lhs[r * K + k] * rhs[(g * K + k) * N + n];
        expected[r * N + n] = sum;
      }
  error = max_error(out, expected, 12 * N);
  printf("moe_dynamic, 12 tokens: max abs error %g\n", error);
  check(error <= 1e-4f, "moe_dynamic on 12 tokens matches the loops (1e-4)");
#ifdef GMM_TEST_CUDA
  if (ws)
    release(ws);
#endif
  release(d_lhs), release(d_rhs), release(d_sizes), release(d_out);
}

static void test_weight_grad(void) {
  enum { M = 29, K = 16, N = 24, G = 3 };
  static float x[M * K], dy[M * N], out[G * K * N];
  static double expected[G * K * N];
  int32_t sizes[G] = {9, 0, 20};
  for (int i = 0; i < M * K; ++i)
    x[i] = next_value();
  for (int i = 0; i < M * N; ++i)
    dy[i] = next_value();
  memset(expected, 0, sizeof expected);
  for (int g = 0, start = 0; g < G; start += sizes[g++])
    for (int k = 0; k < K; ++k)
      for (int n = 0; n < N; ++n) {
        double sum = 0;
        for (int r = start; r < start + sizes[g]; ++r)
          sum += (double)x[r * K + k] * dy[r * N + n];
        expected[(g * K + k) * N + n] = sum;
      }
  for (int i = 0; i < G * K * N; ++i)
    out[i] = NAN;
  void *d_x = to_device(x, sizeof x), *d_dy = to_device(dy, sizeof dy);
  void *d_sizes = to_device(sizes, sizeof sizes),
       *d_out = to_device(out, sizeof out);
#ifdef GMM_TEST_CUDA
  int64_t bytes = weight_grad_workspace_bytes(M, M);
  void *ws = workspace(bytes);
#endif
  check(weight_grad(d_x, d_dy, d_sizes, d_out, M, M - 1 CALL_TAIL(ws, bytes)) ==
            GMM_AOT_INVALID_SIZES,
        "weight_grad with 29 and 28 tokens does nothing");
  int32_t status =
      weight_grad(d_x, d_dy, d_sizes, d_out, M, M CALL_TAIL(ws, bytes));
  check(status == GMM_AOT_SUCCESS, "weight_grad returns GMM_AOT_SUCCESS");
  from_device(out, d_out, sizeof out);
  float error = max_error(out, expected, G * K * N);
  printf("weight_grad: max abs error %g\n", error);
  check(error <= 1e-4f, "weight_grad matches the loops, empty group 0 (1e-4)");
#ifdef GMM_TEST_CUDA
  if (ws)
    release(ws);
#endif
  release(d_x), release(d_dy), release(d_sizes), release(d_out);
}

int main(void) {
#ifdef GMM_TEST_CUDA
  stream = mgpuStreamCreate();
#endif
  const gmm_aot_library *library = gmm_aot_describe();
  printf("library: %s, %d functions, from %s\n", library->target,
         library->num_functions, library->source);
  for (int i = 0; i < library->num_functions; ++i) {
    const gmm_aot_function *f = &library->functions[i];
    printf("  %s: %d arguments, %d results, %d sizes; result0 %s\n", f->name,
           f->num_arguments, f->num_results, f->num_sizes,
           f->tensors[f->num_arguments].type);
  }
  test_forward();
  test_dynamic();
  test_weight_grad();
#ifdef GMM_TEST_CUDA
  mgpuStreamDestroy(stream);
#endif
  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
