//===- TensorMap.h - TMA tensor maps of the simulated GPU -------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The tensor maps (TMA descriptors) of gmm's simulated GPU: what
// cuTensorMapEncodeTiled checks and writes into the opaque 128-byte
// CUtensorMap, what the TMA instructions read back from it, and the
// shared-memory swizzles. Plain C++17, like the rest of the simulator.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_SIMULATOR_TENSORMAP_H
#define GMM_SIMULATOR_TENSORMAP_H

#include <cstdint>
#include <string>

namespace gmm {
namespace sim {

/// The driver API's CUtensorMapSwizzle values the simulator knows.
enum TensorMapSwizzle : int {
  kSwizzleNone = 0,
  kSwizzle32B = 1,
  kSwizzle64B = 2,
  kSwizzle128B = 3,
};

/// The arguments of cuTensorMapEncodeTiled, the driver's enums as integers
/// (CUtensorMapDataType, CUtensorMapInterleave, CUtensorMapSwizzle,
/// CUtensorMapL2promotion, CUtensorMapFloatOOBfill).
struct TiledTensorMapArgs {
  int dataType = 0;
  uint32_t rank = 0;
  uint64_t globalAddress = 0;
  /// Elements per dimension, innermost first.
  uint64_t globalDim[5] = {};
  /// Byte strides of dimensions 1 .. rank - 1 (dimension 0 is dense).
  uint64_t globalStrides[4] = {};
  uint32_t boxDim[5] = {};
  uint32_t elementStrides[5] = {};
  int interleave = 0;
  int swizzle = 0;
  int l2Promotion = 0;
  int oobFill = 0;
};

/// A decoded tiled tensor map: what a TMA instruction needs.
struct TensorMap {
  uint32_t rank = 0;
  uint32_t elementBytes = 0;
  int dataType = 0;
  int swizzle = kSwizzleNone;
  /// Out-of-bounds elements read as a NaN (CU_TENSOR_MAP_FLOAT_OOB_FILL_
  /// NAN_REQUEST_ZERO_FMA) rather than zero.
  bool nanFill = false;
  uint64_t globalAddress = 0;
  uint64_t globalDim[5] = {};
  /// Byte strides of every dimension (globalStrides[0] is elementBytes).
  uint64_t globalStrides[5] = {};
  uint32_t boxDim[5] = {};
  uint32_t elementStrides[5] = {};

  /// Elements a box holds along dimension `d` (the traversal of boxDim[d]
  /// with elementStrides[d]; dimension 0 ignores its element stride).
  uint32_t boxElements(uint32_t d) const;
  /// Bytes one box moves (what a load completes on its mbarrier).
  uint64_t boxBytes() const;
  /// The span in bytes of the swizzle pattern's row (0 without swizzle).
  uint32_t swizzleSpan() const;
};

/// Why an encoding failed.
enum class TensorMapError {
  None,
  /// The arguments break a rule of cuTensorMapEncodeTiled's documentation
  /// (CUDA_ERROR_INVALID_VALUE).
  Invalid,
  /// Valid, but a layout the simulator does not model (interleaved layouts,
  /// packed 4- and 6-bit types, the sm_100 swizzles): CUDA_ERROR_NOT_SUPPORTED.
  Unsupported,
};

/// Checks `args` against every rule of cuTensorMapEncodeTiled's
/// documentation (rank, alignment of the address and strides, dimension and
/// stride limits, box and element-stride limits, the inner box against
/// 16 bytes and the swizzle span, enum ranges, OOB fill only for floats)
/// and writes the 128-byte map to `map` (64-byte aligned). On failure
/// returns the reason, with `error` naming the rule and the value.
TensorMapError encodeTiledTensorMap(const TiledTensorMapArgs &args, void *map,
                                    std::string &error);

/// Reads the map at `map` (written by encodeTiledTensorMap, or by
/// replaceTensorMapField field by field); false, with the reason in `why`,
/// when the 128 bytes are not a map or break a rule of
/// cuTensorMapEncodeTiled (a kernel handed something else, or built a map
/// it did not finish).
bool decodeTensorMap(const void *map, TensorMap &out,
                     std::string *why = nullptr);

/// The fields tensormap.replace can change (PTX ISA 8.3, sm_90a; the
/// sm_100 swizzle atomicity is not one).
enum class TensorMapField {
  GlobalAddress,
  Rank,
  GlobalDim,
  GlobalStride,
  BoxDim,
  ElementStride,
  ElementType,
  Interleave,
  SwizzleMode,
  FillMode,
};

/// Replaces `field` of the 128 bytes at `map` with `value`, in the units
/// of the PTX ISA's tensormap.replace: a byte address; the rank minus one;
/// elements for dimensions and boxes; bytes for strides (ordinal i is the
/// stride of dimension i + 1, as cuTensorMapEncodeTiled's globalStrides[i]);
/// the ISA's element-type numbering (which is not CUtensorMapDataType's);
/// interleave, swizzle and fill modes as CUtensorMapInterleave,
/// CUtensorMapSwizzle and CUtensorMapFloatOOBfill number them. The bytes
/// must hold a map or be all zero (a map built on the device field by
/// field); the result need not be a valid map yet, decodeTensorMap checks
/// it when a TMA instruction uses it. False with `error` set when the bytes
/// are neither, the ordinal is beyond 5 dimensions, or the value does not
/// fit the field or names a mode the simulated sm_90 does not have.
bool replaceTensorMapField(void *map, TensorMapField field, unsigned ordinal,
                           uint64_t value, std::string &error);

/// The shared-memory address at which the TMA unit (and wgmma's swizzled
/// operands) keep the byte that a dense row-major layout would put at
/// `address`: the 16-byte chunk index (address bits 4-6) XOR the 128-byte
/// row index (bits 7-9), masked to 1, 2 or 3 bits for the 32-, 64- and
/// 128-byte swizzles. It is a function of the absolute address, so a tile
/// whose start is not aligned to the pattern (256, 512, 1024 bytes) is laid
/// out with the pattern shifted.
uint32_t swizzleAddress(uint32_t address, int swizzle);

} // namespace sim
} // namespace gmm

#endif // GMM_SIMULATOR_TENSORMAP_H
