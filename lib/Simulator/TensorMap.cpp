//===- TensorMap.cpp - TMA tensor maps of the simulated GPU ---------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// cuTensorMapEncodeTiled's rules (the CUDA driver API documentation of the
// function, rule by rule) and the simulator's own encoding of the opaque
// 128-byte map: a magic number and the decoded fields. Kernels only read
// maps through TMA instructions, which decode them here.
//
//===----------------------------------------------------------------------===//

#include "gmm/Simulator/TensorMap.h"

#include <cstdio>
#include <cstring>

using namespace gmm::sim;

namespace {

// CUtensorMapDataType.
constexpr int kTypeCount = 16;
constexpr int kFirstPackedType =
    13; // 16U4_ALIGN8B, 16U4_ALIGN16B, 16U6_ALIGN16B
constexpr unsigned kElementBytes[kFirstPackedType] = {1, 2, 4, 4, 8, 8, 2,
                                                      4, 8, 2, 4, 4, 4};
constexpr const char *kTypeNames[kTypeCount] = {
    "UINT8",        "UINT16",       "UINT32",        "INT32",
    "UINT64",       "INT64",        "FLOAT16",       "FLOAT32",
    "FLOAT64",      "BFLOAT16",     "FLOAT32_FTZ",   "TFLOAT32",
    "TFLOAT32_FTZ", "16U4_ALIGN8B", "16U4_ALIGN16B", "16U6_ALIGN16B"};

bool isFloatType(int type) { return type >= 6 && type <= 12; }

constexpr uint64_t kMagic = 0x50414d54'4d4d47ull; // "GMMTMAP"

/// The simulator's layout of the 128 opaque bytes.
struct EncodedMap {
  uint64_t magic;
  uint64_t address;
  uint64_t dims[5];
  uint64_t strides[4];
  uint16_t box[5];
  uint8_t elementStrides[5];
  uint8_t rank;
  uint8_t dataType;
  uint8_t elementBytes;
  uint8_t swizzle;
  uint8_t nanFill;
};
static_assert(sizeof(EncodedMap) <= 128, "a CUtensorMap has 128 bytes");

uint32_t spanOf(int swizzle) {
  switch (swizzle) {
  case kSwizzle32B:
    return 32;
  case kSwizzle64B:
    return 64;
  case kSwizzle128B:
    return 128;
  default:
    return 0;
  }
}

} // namespace

uint32_t TensorMap::boxElements(uint32_t d) const {
  if (d == 0)
    return boxDim[0];
  return (boxDim[d] + elementStrides[d] - 1) / elementStrides[d];
}

uint64_t TensorMap::boxBytes() const {
  uint64_t elements = 1;
  for (uint32_t d = 0; d < rank; ++d)
    elements *= boxElements(d);
  return elements * elementBytes;
}

uint32_t TensorMap::swizzleSpan() const { return spanOf(swizzle); }

uint32_t gmm::sim::swizzleAddress(uint32_t address, int swizzle) {
  uint32_t mask;
  switch (swizzle) {
  case kSwizzle32B:
    mask = 1;
    break;
  case kSwizzle64B:
    mask = 3;
    break;
  case kSwizzle128B:
    mask = 7;
    break;
  default:
    return address;
  }
  return address ^ (((address >> 7) & mask) << 4);
}

TensorMapError gmm::sim::encodeTiledTensorMap(const TiledTensorMapArgs &args,
                                              void *map, std::string &error) {
  auto invalid = [&](const std::string &message) {
    error = message;
    return TensorMapError::Invalid;
  };
  auto unsupported = [&](const std::string &message) {
    error = message;
    return TensorMapError::Unsupported;
  };
  if (!map)
    return invalid("tensorMap is null");
  if (reinterpret_cast<uintptr_t>(map) % 64)
    return invalid("tensorMap must be aligned to 64 bytes");
  if (args.dataType < 0 || args.dataType >= kTypeCount)
    return invalid("tensorDataType " + std::to_string(args.dataType) +
                   " is not a CUtensorMapDataType");
  if (args.rank == 0 || args.rank > 5)
    return invalid("tensorRank " + std::to_string(args.rank) +
                   " must be 1 to 5");
  if (args.interleave < 0 || args.interleave > 2)
    return invalid("interleave " + std::to_string(args.interleave) +
                   " is not a CUtensorMapInterleave");
  if (args.interleave != 0 && args.rank < 3)
    return invalid("an interleaved layout needs tensorRank >= 3");
  if (args.swizzle < 0 || args.swizzle > 6)
    return invalid("swizzle " + std::to_string(args.swizzle) +
                   " is not a CUtensorMapSwizzle");
  if (args.interleave == 2 && args.swizzle != kSwizzle32B)
    return invalid("CU_TENSOR_MAP_INTERLEAVE_32B needs "
                   "CU_TENSOR_MAP_SWIZZLE_32B");
  if (args.l2Promotion < 0 || args.l2Promotion > 3)
    return invalid("l2Promotion " + std::to_string(args.l2Promotion) +
                   " is not a CUtensorMapL2promotion");
  if (args.oobFill < 0 || args.oobFill > 1)
    return invalid("oobFill " + std::to_string(args.oobFill) +
                   " is not a CUtensorMapFloatOOBfill");
  bool packed = args.dataType >= kFirstPackedType;
  if (args.oobFill == 1 && (!isFloatType(args.dataType) || packed))
    return invalid("CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA needs a "
                   "floating-point tensorDataType, not " +
                   std::string(kTypeNames[args.dataType]));
  uint64_t addressAlign =
      args.interleave == 2 || args.dataType == 14 || args.dataType == 15 ? 32
                                                                         : 16;
  if (args.globalAddress % addressAlign)
    return invalid(
        "globalAddress 0x" +
        [&] {
          char buffer[24];
          std::snprintf(buffer, sizeof(buffer), "%llx",
                        static_cast<unsigned long long>(args.globalAddress));
          return std::string(buffer);
        }() +
        " must be " + std::to_string(addressAlign) + "-byte aligned");
  for (uint32_t d = 0; d < args.rank; ++d)
    if (args.globalDim[d] == 0 || args.globalDim[d] > (uint64_t(1) << 32))
      return invalid("globalDim[" + std::to_string(d) + "] = " +
                     std::to_string(args.globalDim[d]) + " must be 1 to 2^32");
  uint64_t strideAlign =
      args.interleave == 2 || args.dataType == 14 || args.dataType == 15 ? 32
                                                                         : 16;
  for (uint32_t d = 0; d + 1 < args.rank; ++d) {
    uint64_t stride = args.globalStrides[d];
    if (stride % strideAlign || stride >= (uint64_t(1) << 40))
      return invalid("globalStrides[" + std::to_string(d) + "] = " +
                     std::to_string(stride) + " must be a multiple of " +
                     std::to_string(strideAlign) + " below 2^40");
  }
  for (uint32_t d = 0; d < args.rank; ++d) {
    if (args.boxDim[d] == 0 || args.boxDim[d] > 256)
      return invalid("boxDim[" + std::to_string(d) + "] = " +
                     std::to_string(args.boxDim[d]) + " must be 1 to 256");
    if (args.elementStrides[d] == 0 || args.elementStrides[d] > 8)
      return invalid("elementStrides[" + std::to_string(d) +
                     "] = " + std::to_string(args.elementStrides[d]) +
                     " must be 1 to 8");
  }
  if (packed)
    return unsupported("the packed tensorDataType " +
                       std::string(kTypeNames[args.dataType]) +
                       " is not modelled by the simulated GPU");
  unsigned elementBytes = kElementBytes[args.dataType];
  uint64_t innerBytes = uint64_t(args.boxDim[0]) * elementBytes;
  if (args.interleave == 0 && innerBytes % 16)
    return invalid("the box's inner dimension, boxDim[0] * " +
                   std::to_string(elementBytes) + " = " +
                   std::to_string(innerBytes) +
                   " bytes, must be a multiple of 16 bytes");
  if (args.interleave == 0 && args.swizzle != kSwizzleNone) {
    uint32_t span = args.swizzle >= 4 ? 128 : spanOf(args.swizzle);
    if (innerBytes > span)
      return invalid("the box's inner dimension, " +
                     std::to_string(innerBytes) + " bytes, exceeds the " +
                     std::to_string(span) + "-byte swizzle span");
  }
  if (args.interleave != 0)
    return unsupported("interleaved layouts are not modelled by the "
                       "simulated GPU");
  if (args.swizzle >= 4)
    return unsupported("swizzle " + std::to_string(args.swizzle) +
                       " (the 128-byte swizzles with 32- and 64-byte atoms) "
                       "needs sm_100; the simulated GPU is sm_90");

  EncodedMap encoded;
  std::memset(&encoded, 0, sizeof(encoded));
  encoded.magic = kMagic;
  encoded.address = args.globalAddress;
  for (uint32_t d = 0; d < args.rank; ++d) {
    encoded.dims[d] = args.globalDim[d];
    encoded.box[d] = static_cast<uint16_t>(args.boxDim[d]);
    encoded.elementStrides[d] = static_cast<uint8_t>(args.elementStrides[d]);
  }
  for (uint32_t d = 0; d + 1 < args.rank; ++d)
    encoded.strides[d] = args.globalStrides[d];
  encoded.rank = static_cast<uint8_t>(args.rank);
  encoded.dataType = static_cast<uint8_t>(args.dataType);
  encoded.elementBytes = static_cast<uint8_t>(elementBytes);
  encoded.swizzle = static_cast<uint8_t>(args.swizzle);
  encoded.nanFill = static_cast<uint8_t>(args.oobFill);
  std::memset(map, 0, 128);
  std::memcpy(map, &encoded, sizeof(encoded));
  error.clear();
  return TensorMapError::None;
}

/// The cuTensorMapEncodeTiled arguments that encode `map`.
static TiledTensorMapArgs argumentsOf(const TensorMap &map) {
  TiledTensorMapArgs args;
  args.dataType = map.dataType;
  args.rank = map.rank;
  args.globalAddress = map.globalAddress;
  for (uint32_t d = 0; d < map.rank; ++d) {
    args.globalDim[d] = map.globalDim[d];
    args.boxDim[d] = map.boxDim[d];
    args.elementStrides[d] = map.elementStrides[d];
    if (d > 0)
      args.globalStrides[d - 1] = map.globalStrides[d];
  }
  args.swizzle = map.swizzle;
  args.oobFill = map.nanFill;
  return args;
}

bool gmm::sim::replaceTensorMapField(void *map, TensorMapField field,
                                     unsigned ordinal, uint64_t value,
                                     std::string &error) {
  EncodedMap encoded;
  std::memcpy(&encoded, map, sizeof(encoded));
  if (encoded.magic != kMagic) {
    // A map built on the device starts as 128 zero bytes.
    const uint8_t *bytes = static_cast<const uint8_t *>(map);
    for (unsigned i = 0; i < 128; ++i)
      if (bytes[i]) {
        error = "the 128 bytes are neither a tensor map nor zeros (a map "
                "built field by field starts from zeros)";
        return false;
      }
    std::memset(&encoded, 0, sizeof(encoded));
    encoded.magic = kMagic;
  }
  bool perDimension = field == TensorMapField::BoxDim ||
                      field == TensorMapField::GlobalDim ||
                      field == TensorMapField::GlobalStride ||
                      field == TensorMapField::ElementStride;
  if (perDimension &&
      ordinal >= (field == TensorMapField::GlobalStride ? 4u : 5u)) {
    error = "ordinal " + std::to_string(ordinal) + " is beyond 5 dimensions";
    return false;
  }
  auto tooLarge = [&](uint64_t limit) {
    if (value <= limit)
      return false;
    error = "value " + std::to_string(value) + " does not fit the field";
    return true;
  };
  switch (field) {
  case TensorMapField::GlobalAddress:
    encoded.address = value;
    break;
  case TensorMapField::Rank:
    // Zero-based: the rank minus one.
    if (value > 4) {
      error = "rank field " + std::to_string(value) +
              " (the rank minus one) must be 0 to 4";
      return false;
    }
    encoded.rank = static_cast<uint8_t>(value + 1);
    break;
  case TensorMapField::GlobalDim:
    if (tooLarge(UINT32_MAX))
      return false;
    encoded.dims[ordinal] = value;
    break;
  case TensorMapField::GlobalStride:
    encoded.strides[ordinal] = value;
    break;
  case TensorMapField::BoxDim:
    if (tooLarge(UINT16_MAX))
      return false;
    encoded.box[ordinal] = static_cast<uint16_t>(value);
    break;
  case TensorMapField::ElementStride:
    if (tooLarge(UINT8_MAX))
      return false;
    encoded.elementStrides[ordinal] = static_cast<uint8_t>(value);
    break;
  case TensorMapField::ElementType: {
    // The ISA's numbering, which differs from CUtensorMapDataType's from
    // 8 on (8 .f32.ftz, 9 .f64, 10 .bf16).
    static const int kFromIsa[13] = {0, 1, 2, 3, 4, 5, 6, 7, 10, 8, 9, 11, 12};
    if (value > 12) {
      error = "elemtype " + std::to_string(value) +
              (value <= 15 ? " (a packed 4- or 6-bit type) needs sm_100"
                           : " is not an element type");
      return false;
    }
    encoded.dataType = static_cast<uint8_t>(kFromIsa[value]);
    break;
  }
  case TensorMapField::Interleave:
    if (value != 0) {
      error = "interleave_layout " + std::to_string(value) +
              (value <= 2 ? " (an interleaved layout) is not modelled by the "
                            "simulated GPU"
                          : " is not a layout");
      return false;
    }
    break;
  case TensorMapField::SwizzleMode:
    if (value > 3) {
      error = "swizzle_mode " + std::to_string(value) +
              (value == 4 ? " (96 bytes) needs sm_103a" : " is not a mode");
      return false;
    }
    encoded.swizzle = static_cast<uint8_t>(value);
    break;
  case TensorMapField::FillMode:
    if (value > 1) {
      error = "fill_mode " + std::to_string(value) + " is not a mode";
      return false;
    }
    encoded.nanFill = static_cast<uint8_t>(value);
    break;
  }
  std::memcpy(map, &encoded, sizeof(encoded));
  return true;
}

bool gmm::sim::decodeTensorMap(const void *map, TensorMap &out,
                               std::string *why) {
  auto refuse = [&](const std::string &message) {
    if (why)
      *why = message;
    return false;
  };
  EncodedMap encoded;
  std::memcpy(&encoded, map, sizeof(encoded));
  if (encoded.magic != kMagic)
    return refuse("neither cuTensorMapEncodeTiled nor tensormap.replace "
                  "wrote it");
  if (encoded.rank == 0 || encoded.rank > 5)
    return refuse("its rank is " + std::to_string(encoded.rank) +
                  " (never set?)");
  if (encoded.dataType >= kFirstPackedType)
    return refuse("its element type is not one the simulated GPU models");
  out = TensorMap();
  out.rank = encoded.rank;
  out.dataType = encoded.dataType;
  out.elementBytes = kElementBytes[encoded.dataType];
  out.swizzle = encoded.swizzle;
  out.nanFill = encoded.nanFill != 0;
  out.globalAddress = encoded.address;
  out.globalStrides[0] = out.elementBytes;
  for (uint32_t d = 0; d < out.rank; ++d) {
    out.globalDim[d] = encoded.dims[d];
    out.boxDim[d] = encoded.box[d];
    out.elementStrides[d] = encoded.elementStrides[d];
    if (d > 0)
      out.globalStrides[d] = encoded.strides[d - 1];
  }
  // The bytes are writable by the kernel (a map in global memory, or one
  // built or patched field by field): accept only what
  // cuTensorMapEncodeTiled itself accepts, so that no box, stride or
  // address reaches a TMA instruction unchecked.
  alignas(64) uint8_t check[128];
  std::string error;
  if (encodeTiledTensorMap(argumentsOf(out), check, error) !=
      TensorMapError::None)
    return refuse("it breaks a rule of cuTensorMapEncodeTiled: " + error);
  return true;
}
