//===- FuseOps.cpp - fuse dialect ops and verifiers -----------------------===//

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXTraits.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace fuse;

#include "fuse/Dialect/Fuse/IR/FuseDialect.cpp.inc"
#include "fuse/Dialect/Fuse/IR/FuseEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fuse/Dialect/Fuse/IR/FuseAttrs.cpp.inc"

void FuseDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fuse/Dialect/Fuse/IR/FuseOps.cpp.inc"
      >();
  registerAttributes();
}

void FuseDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fuse/Dialect/Fuse/IR/FuseAttrs.cpp.inc"
      >();
}

LogicalResult FuseDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() != kTargetAttrName)
    return success();
  if (!isa<TargetAttr>(attr.getValue()))
    return op->emitError() << "'" << kTargetAttrName
                           << "' must be a #fuse.target";
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'" << kTargetAttrName << "' belongs on a module";
  return success();
}

LogicalResult FuseDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned region,
                                                       unsigned result,
                                                       NamedAttribute attr) {
  if (attr.getName() != kIndexCheckAttrName)
    return success();
  if (!isa<IndexCheckAttr>(attr.getValue()))
    return op->emitError() << "'" << kIndexCheckAttrName
                           << "' must be a #fuse.index_check";
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function || result >= function.getNumResults())
    return op->emitError() << "'" << kIndexCheckAttrName
                           << "' belongs on a function result";
  auto type = dyn_cast<RankedTensorType>(function.getResultTypes()[result]);
  if (!type || type.getRank() != 0 || !type.getElementType().isF32())
    return op->emitError() << "index check result " << result
                           << " must be a tensor<f32>, not "
                           << function.getResultTypes()[result];
  return success();
}

//===----------------------------------------------------------------------===//
// IndexCheckAttr
//===----------------------------------------------------------------------===//

LogicalResult
IndexCheckAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       StringRef node, StringRef op, StringRef range) {
  if (op != "Gather" && op != "GatherElements" && op != "GatherND")
    return emitError() << "index_check op must be Gather, GatherElements or "
                          "GatherND, not '"
                       << op << "'";
  if (range.empty())
    return emitError() << "index_check range must not be empty";
  return success();
}

unsigned fuse::getChipVersion(StringRef chip) {
  StringRef number = chip.starts_with("sm_") ? chip.drop_front(3) : "";
  if (!number.empty() &&
      std::isalpha(static_cast<unsigned char>(number.back())))
    number = number.drop_back();
  unsigned version = 0;
  if (number.empty() || number.getAsInteger(10, version))
    return 0;
  return version;
}

int64_t fuse::getDefaultSmCount(unsigned chipVersion) {
  // Usual data-center parts: V100, T4, A100, A40, L4, H100, B200.
  static constexpr std::pair<unsigned, int64_t> kKnown[] = {
      {70, 80}, {75, 40}, {80, 108}, {86, 84}, {89, 58}, {90, 132}, {100, 148}};
  int64_t sms = kKnown[0].second;
  for (auto [version, count] : kKnown)
    if (version <= chipVersion)
      sms = count;
  return sms;
}

TargetAttr fuse::getTarget(Operation *op) {
  auto module =
      isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  return module ? module->getAttrOfType<TargetAttr>(kTargetAttrName)
                : TargetAttr();
}

int64_t fuse::getTargetSms(Operation *op) {
  TargetAttr target = getTarget(op);
  return target ? target.getSms() : kDefaultTargetSms;
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef arch, int64_t sms) {
  if (getChipVersion(arch) < 50)
    return emitError() << "target arch must be an NVIDIA architecture from "
                          "sm_50 on, not '"
                       << arch << "'";
  if (sms < 1 || sms > kMaxTargetSms)
    return emitError() << "target sms must be from 1 to " << kMaxTargetSms
                       << ", not " << sms;
  return success();
}

//===----------------------------------------------------------------------===//
// KernelStrategyAttr
//===----------------------------------------------------------------------===//

/// The most outputs a thread tile may have: each is a copy of the kernel's
/// loop body.
static constexpr int64_t kMaxTileElements = 128;

LogicalResult
KernelStrategyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           Mapping mapping, int64_t grid, int64_t block,
                           int64_t rowThreads, ArrayRef<int64_t> threadTile,
                           int64_t planes, bool stagedOutput,
                           ArrayRef<int64_t> blockTile, int64_t kTile,
                           int64_t stages, int64_t splitK, bool asyncCopy) {
  if (grid < 1 || block < 1 || grid > INT32_MAX || block > 1024)
    return emitError() << "grid " << grid << " and block " << block
                       << " must be at least 1 (block at most 1024)";
  if (mapping == Mapping::loop && (grid != 1 || block != 1))
    return emitError() << "the loop mapping runs on one thread: grid and "
                          "block must be 1";
  if (mapping == Mapping::rows) {
    // A row is part of a warp (2 to 32 lanes, a power of two: several rows
    // per warp), or the whole block, so that its threads can synchronize.
    bool inWarp = rowThreads >= 2 && rowThreads <= 32 &&
                  llvm::isPowerOf2_64(rowThreads);
    if (!inWarp && rowThreads != block)
      return emitError() << "row_threads " << rowThreads
                         << " must be a power of two from 2 to 32 (lanes of "
                            "a warp) or the block size ("
                         << block << ")";
    if (block % 32 != 0)
      return emitError() << "block " << block
                         << " must be whole warps for the rows mapping";
  } else if (rowThreads != 1) {
    return emitError() << "row_threads is only for the rows mapping";
  }
  if (planes < 1)
    return emitError() << "planes must be at least 1";
  if (planes != 1 && mapping != Mapping::planes)
    return emitError() << "planes is only for the planes mapping";
  if (stagedOutput && mapping != Mapping::planes)
    return emitError() << "staged_output is only for the planes mapping";
  if (mapping == Mapping::tiles) {
    if (threadTile.empty() || blockTile.size() != threadTile.size())
      return emitError() << "the tiles mapping needs a thread_tile and a "
                            "block_tile of one size per loop dim";
    int64_t threads = 1;
    for (auto [blockSize, threadSize] : llvm::zip(blockTile, threadTile)) {
      if (threadSize < 1 || blockSize < threadSize ||
          blockSize % threadSize != 0)
        return emitError() << "block_tile sizes must be multiples of the "
                              "thread_tile's";
      threads *= blockSize / threadSize;
    }
    if (threads != block)
      return emitError() << "block " << block << " must be the " << threads
                         << " thread tiles of a block tile";
    if (kTile < 0)
      return emitError() << "k_tile must be at least 0";
    if (asyncCopy && kTile == 0)
      return emitError() << "async_copy needs a k_tile";
    if (asyncCopy && (stages < 2 || stages > 3))
      return emitError() << "async_copy needs 2 or 3 stages";
    if (!asyncCopy && stages != 1 && (stages != 2 || kTile == 0))
      return emitError() << "stages must be 1, or 2 with a k_tile (3 with "
                            "async_copy)";
    if (splitK < 1)
      return emitError() << "split_k must be at least 1";
  } else if (mapping == Mapping::attention) {
    if (blockTile.size() != 2 || !threadTile.empty() || kTile != 0 ||
        stages != 1 || splitK != 1 || asyncCopy)
      return emitError() << "the attention mapping takes a block_tile of two "
                            "sizes (query rows, keys) and nothing else";
    if (block != kAttentionBlock)
      return emitError() << "the attention mapping runs blocks of "
                         << kAttentionBlock << " threads, not " << block;
    for (int64_t size : blockTile)
      if (size < 16 || size > 128 || size % 16 != 0)
        return emitError() << "attention block_tile sizes must be multiples "
                              "of 16 from 16 to 128, not "
                           << size;
  } else if (mapping == Mapping::attention_mma) {
    if (blockTile.size() != 2 || !threadTile.empty() || kTile != 0 ||
        splitK != 1 || asyncCopy)
      return emitError() << "the attention_mma mapping takes a block_tile of "
                            "two sizes (query rows, keys) and stages, nothing "
                            "else";
    if (blockTile[0] != 16 && blockTile[0] != 32 && blockTile[0] != 64)
      return emitError() << "attention_mma blocks have 16, 32 or 64 query "
                            "rows (16 a warp), not "
                         << blockTile[0];
    if (blockTile[1] < 16 || blockTile[1] > 128 || blockTile[1] % 16 != 0)
      return emitError() << "attention_mma key tiles must be multiples of 16 "
                            "from 16 to 128, not "
                         << blockTile[1];
    if (block != blockTile[0] * 2)
      return emitError() << "an attention_mma block of " << blockTile[0]
                         << " rows has " << blockTile[0] / 16 << " warps ("
                         << blockTile[0] * 2 << " threads), not " << block;
    if (stages != 1 && stages != 2)
      return emitError() << "attention_mma takes 1 or 2 stages, not "
                         << stages;
  } else if (mapping == Mapping::transpose) {
    if (blockTile.size() != 2 || !threadTile.empty() || kTile != 0 ||
        stages != 1 || splitK != 1 || asyncCopy)
      return emitError() << "the transpose mapping takes a block_tile of two "
                            "sizes (output run, input run) and nothing else";
    if (blockTile[0] < 1 || blockTile[1] < 1 ||
        blockTile[0] * blockTile[1] > kMaxTransposeTileElements)
      return emitError() << "transpose block_tile sizes must be at least 1, "
                            "with at most "
                         << kMaxTransposeTileElements << " elements";
  } else if (mapping == Mapping::mma) {
    if (blockTile.size() != 2 || !threadTile.empty() || asyncCopy)
      return emitError() << "the mma mapping takes a block_tile of two sizes "
                            "(rows, columns), k_tile, stages and split_k, "
                            "nothing else";
    if (!isMmaSplitK(splitK))
      return emitError() << "mma split_k is the blocks of a cluster: 1, 2, 4 "
                            "or 8, not "
                         << splitK;
    if (grid % splitK != 0)
      return emitError() << "an mma grid of " << grid
                         << " blocks is not whole clusters of " << splitK;
    if (block % 32 != 0 || block < 32 || block > 256)
      return emitError() << "mma blocks are 1 to 8 whole warps, not " << block
                         << " threads";
    if (blockTile[0] < 16 || blockTile[1] < 16)
      return emitError() << "mma block_tile sizes must be at least 16";
    std::optional<MmaWarpGrid> warps =
        getMmaWarpGrid(blockTile[0], blockTile[1], block / 32);
    // Each sum of a warp tile is a clone of the epilogue in the kernel.
    if (warps && warps->warpRows * warps->warpCols > kMaxMmaWarpTile)
      return emitError() << "an mma warp tile of " << warps->warpRows << "x"
                         << warps->warpCols << " has more than "
                         << kMaxMmaWarpTile << " sums";
    if (!warps)
      return emitError() << "the " << block / 32 << " warps of an mma block "
                         << "cannot split its " << blockTile[0] << "x"
                         << blockTile[1]
                         << " tile into warp tiles of multiples of 16x16";
    if (kTile < 16 || kTile > 128 || kTile % 16 != 0)
      return emitError() << "mma k_tile must be a multiple of 16 from 16 to "
                            "128, not "
                         << kTile;
    if (stages < 2 || stages > 4)
      return emitError() << "mma takes 2 to 4 stages, not " << stages;
    if (getMmaSharedBytes(blockTile[0], blockTile[1], kTile, stages, splitK) >
        kMaxStaticSharedBytes)
      return emitError() << "an mma block of " << blockTile[0] << "x"
                         << blockTile[1] << "x" << kTile << " in " << stages
                         << " stages"
                         << (splitK > 1 ? " with its sums for the cluster" : "")
                         << " needs more than 48 KB of shared memory";
  } else if (!blockTile.empty() || kTile != 0 || stages != 1 || splitK != 1 ||
             asyncCopy) {
    return emitError() << "block_tile, k_tile, stages, split_k and async_copy "
                          "are only for the tiles mapping";
  }
  if (!threadTile.empty()) {
    if (mapping == Mapping::rows)
      return emitError()
             << "thread_tile is for the flat, planes and loop mappings";
    int64_t elements = 1;
    for (int64_t size : threadTile) {
      if (size < 1)
        return emitError() << "thread_tile sizes must be at least 1";
      elements *= size;
      // Each output of the tile is a copy of the loop body in the kernel.
      if (elements > kMaxTileElements)
        return emitError() << "thread_tile has more than " << kMaxTileElements
                           << " outputs";
    }
  }
  return success();
}

/// `<mapping, grid = G, block = B[, row_threads = R][, planes = P]
///   [, staged_output][, thread_tile = [..]][, block_tile = [..]]
///   [, k_tile = K][, stages = S][, split_k = S][, async_copy]>`
Attribute KernelStrategyAttr::parse(AsmParser &parser, Type) {
  std::string mappingName;
  int64_t grid = 0, block = 0, rowThreads = 1, planes = 1, kTile = 0,
          stages = 1, splitK = 1;
  bool stagedOutput = false, asyncCopy = false;
  SmallVector<int64_t> threadTile, blockTile;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeywordOrString(&mappingName) ||
      parser.parseComma() || parser.parseKeyword("grid") ||
      parser.parseEqual() || parser.parseInteger(grid) ||
      parser.parseComma() || parser.parseKeyword("block") ||
      parser.parseEqual() || parser.parseInteger(block))
    return {};
  std::optional<Mapping> mapping = symbolizeMapping(mappingName);
  if (!mapping) {
    parser.emitError(loc) << "unknown mapping '" << mappingName
                          << "' (loop, flat, rows, planes, tiles, attention, "
                             "attention_mma, transpose or mma)";
    return {};
  }
  // `keyword = N` parameters, and where each goes.
  const std::pair<StringRef, int64_t *> integers[] = {
      {"row_threads", &rowThreads}, {"planes", &planes}, {"k_tile", &kTile},
      {"stages", &stages},          {"split_k", &splitK}};
  while (succeeded(parser.parseOptionalComma())) {
    auto integer = llvm::find_if(integers, [&](const auto &entry) {
      return succeeded(parser.parseOptionalKeyword(entry.first));
    });
    if (integer != std::end(integers)) {
      if (parser.parseEqual() || parser.parseInteger(*integer->second))
        return {};
      continue;
    }
    if (succeeded(parser.parseOptionalKeyword("staged_output"))) {
      stagedOutput = true;
      continue;
    }
    if (succeeded(parser.parseOptionalKeyword("async_copy"))) {
      asyncCopy = true;
      continue;
    }
    SmallVector<int64_t> *tile = &threadTile;
    if (succeeded(parser.parseOptionalKeyword("block_tile")))
      tile = &blockTile;
    else if (parser.parseKeyword("thread_tile"))
      return {};
    if (parser.parseEqual() ||
        parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
          return parser.parseInteger(tile->emplace_back());
        }))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<KernelStrategyAttr>(
      loc, parser.getContext(), *mapping, grid, block, rowThreads, threadTile,
      planes, stagedOutput, blockTile, kTile, stages, splitK, asyncCopy);
}

void KernelStrategyAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyMapping(getMapping()) << ", grid = " << getGrid()
          << ", block = " << getBlock();
  if (getRowThreads() != 1)
    printer << ", row_threads = " << getRowThreads();
  if (getPlanes() != 1)
    printer << ", planes = " << getPlanes();
  if (getStagedOutput())
    printer << ", staged_output";
  if (!getThreadTile().empty()) {
    printer << ", thread_tile = [";
    llvm::interleaveComma(getThreadTile(), printer);
    printer << "]";
  }
  if (!getBlockTile().empty()) {
    printer << ", block_tile = [";
    llvm::interleaveComma(getBlockTile(), printer);
    printer << "]";
  }
  if (getKTile() != 0)
    printer << ", k_tile = " << getKTile();
  if (getStages() != 1)
    printer << ", stages = " << getStages();
  if (getSplitK() != 1)
    printer << ", split_k = " << getSplitK();
  if (getAsyncCopy())
    printer << ", async_copy";
  printer << ">";
}

FloatType fuse::getStorageType(MLIRContext *context, Precision precision) {
  switch (precision) {
  case Precision::fp16:
    return Float16Type::get(context);
  case Precision::bf16:
    return BFloat16Type::get(context);
  case Precision::fp32:
  case Precision::tf32:
    break;
  }
  return Float32Type::get(context);
}

std::string fuse::describeStrategy(Attribute strategy) {
  std::string text;
  if (auto kernel = dyn_cast_or_null<KernelStrategyAttr>(strategy)) {
    text = "kernel " + stringifyMapping(kernel.getMapping()).str();
    if (kernel.getMapping() == Mapping::rows)
      text += "(" + std::to_string(kernel.getRowThreads()) + ")";
    if (kernel.getMapping() == Mapping::planes)
      text += "(" + std::to_string(kernel.getPlanes()) +
              (kernel.getStagedOutput() ? ", staged output)" : ")");
    if (isAttentionMapping(kernel.getMapping())) {
      llvm::raw_string_ostream os(text);
      os << " " << kernel.getBlockTile()[0] << " rows x "
         << kernel.getBlockTile()[1] << " keys";
      if (kernel.getStages() != 1)
        os << " " << kernel.getStages() << "-stage";
    }
    if (kernel.getMapping() == Mapping::transpose) {
      llvm::raw_string_ostream os(text);
      os << " " << kernel.getBlockTile()[0] << "x" << kernel.getBlockTile()[1]
         << " smem";
    }
    if (kernel.getMapping() == Mapping::mma) {
      llvm::raw_string_ostream os(text);
      os << " " << kernel.getBlockTile()[0] << "x" << kernel.getBlockTile()[1]
         << "x" << kernel.getKTile() << " " << kernel.getStages() << "-stage";
      if (kernel.getSplitK() != 1)
        os << " split-K " << kernel.getSplitK() << " (cluster)";
    }
    if (kernel.getMapping() == Mapping::tiles) {
      llvm::raw_string_ostream os(text);
      os << " ";
      llvm::interleave(kernel.getBlockTile(), os, "x");
      if (kernel.getKTile() != 0)
        os << "x" << kernel.getKTile() << " smem";
      if (kernel.getStages() != 1)
        os << " " << kernel.getStages() << "-stage";
      if (kernel.getAsyncCopy())
        os << " cp.async";
      if (kernel.getSplitK() != 1)
        os << " split-K " << kernel.getSplitK();
    }
    if (!kernel.getThreadTile().empty()) {
      text += " tile ";
      llvm::raw_string_ostream os(text);
      llvm::interleave(kernel.getThreadTile(), os, "x");
    }
  } else if (auto lt = dyn_cast_or_null<CublasLtStrategyAttr>(strategy)) {
    MatmulEpilogue e = lt.getEpilogue();
    text = "cublaslt matmul";
    if (e == MatmulEpilogue::bias || e == MatmulEpilogue::bias_relu)
      text += "+bias";
    if (lt.getResidual())
      text += "+residual";
    if (e == MatmulEpilogue::relu || e == MatmulEpilogue::bias_relu)
      text += "+relu";
    if (lt.getPrecision() != Precision::fp32)
      text += " " + stringifyPrecision(lt.getPrecision()).str();
  } else if (auto dnn = dyn_cast_or_null<CudnnStrategyAttr>(strategy)) {
    text = dnn.getGroups() > 1     ? "cudnn grouped conv"
           : dnn.getChannelsLast() ? "cudnn nhwc conv"
                                   : "cudnn conv";
    if (dnn.getBias())
      text += "+bias";
    if (dnn.getResidual())
      text += "+residual";
    if (dnn.getActivation() == ConvActivation::relu)
      text += "+relu";
    if (dnn.getPrecision() != Precision::fp32)
      text += " " + stringifyPrecision(dnn.getPrecision()).str();
  } else {
    text = "no strategy";
  }
  return text;
}

int64_t KernelStrategyAttr::getCapacity() const {
  if (getMapping() == Mapping::rows)
    return getGrid() * (getBlock() / getRowThreads());
  if (getMapping() == Mapping::planes)
    return getGrid() * getPlanes();
  if (isAttentionMapping(getMapping()))
    return getGrid() * getBlockTile()[0];
  if (getMapping() == Mapping::transpose)
    return getGrid() * getBlockTile()[0] * getBlockTile()[1];
  // (The blocks of an mma cluster share their tile.)
  if (getMapping() == Mapping::mma)
    return getGrid() / getSplitK() * getBlockTile()[0] * getBlockTile()[1];
  // tiles: the grid's block tiles, some of which may be partial.
  return getGrid() * getBlock();
}

std::optional<MmaWarpGrid>
fuse::getMmaWarpGrid(int64_t blockRows, int64_t blockCols, int64_t warps) {
  std::optional<MmaWarpGrid> best;
  auto skew = [](const MmaWarpGrid &g) {
    return std::max(g.warpRows, g.warpCols) / std::min(g.warpRows, g.warpCols);
  };
  for (int64_t rows = warps; rows >= 1; --rows) {
    if (warps % rows != 0 || blockRows % rows != 0 ||
        blockCols % (warps / rows) != 0)
      continue;
    MmaWarpGrid grid{rows, warps / rows, blockRows / rows,
                     blockCols / (warps / rows)};
    if (grid.warpRows % 16 != 0 || grid.warpCols % 16 != 0)
      continue;
    if (!best || skew(grid) <= skew(*best))
      best = grid;
  }
  return best;
}

int64_t fuse::getMmaSharedBytes(int64_t blockRows, int64_t blockCols,
                                int64_t kTile, int64_t stages, int64_t splitK) {
  int64_t a = blockRows * (kTile + 8);
  int64_t b = std::max(kTile * (blockCols + 8), blockCols * (kTile + 8));
  int64_t sums =
      splitK == 1 || mmaSumsFitInACopies(blockRows, blockCols, kTile, stages)
          ? 0
          : 4 * blockRows * blockCols;
  return 2 * stages * (a + b) + sums;
}

bool fuse::mmaSumsFitInACopies(int64_t blockRows, int64_t blockCols,
                               int64_t kTile, int64_t stages) {
  return 4 * blockRows * blockCols <= 2 * stages * blockRows * (kTile + 8);
}

std::optional<TransposeTileDims>
fuse::getTransposeTileDims(ArrayRef<int64_t> extents,
                           ArrayRef<int64_t> inputOrder) {
  int64_t rank = extents.size();
  if (rank < 2 || int64_t(inputOrder.size()) != rank)
    return std::nullopt;
  SmallVector<bool> seen(rank, false);
  for (int64_t dim : inputOrder) {
    if (dim < 0 || dim >= rank || seen[dim])
      return std::nullopt;
    seen[dim] = true;
  }
  // The run of consecutive loop dims, in order, that ends at `end` in
  // the input's order.
  auto runEndingAt = [&](int64_t end) {
    int64_t first = end;
    while (first > 0 && inputOrder[first - 1] == inputOrder[first] - 1)
      --first;
    return SmallVector<int64_t>(inputOrder.begin() + first,
                                inputOrder.begin() + end + 1);
  };
  int64_t last = llvm::find(inputOrder, rank - 1) - inputOrder.begin();
  if (last == rank - 1)
    return std::nullopt; // The input's innermost dim is the loop's.
  TransposeTileDims dims;
  dims.outputRun = runEndingAt(last);
  dims.inputRun = runEndingAt(rank - 1);
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dims.outputRun, d) &&
        !llvm::is_contained(dims.inputRun, d))
      dims.outer.push_back(d);
  auto iterations = [&](ArrayRef<int64_t> run) {
    int64_t product = 1;
    for (int64_t d : run)
      product *= extents[d];
    return product;
  };
  dims.outerIterations = iterations(dims.outer);
  dims.outputIterations = iterations(dims.outputRun);
  dims.inputIterations = iterations(dims.inputRun);
  return dims;
}

int64_t TransposeTileDims::getGrid(ArrayRef<int64_t> blockTile) const {
  return outerIterations * llvm::divideCeil(outputIterations, blockTile[0]) *
         llvm::divideCeil(inputIterations, blockTile[1]);
}

//===----------------------------------------------------------------------===//
// GroupOp
//===----------------------------------------------------------------------===//

void GroupOp::build(OpBuilder &builder, OperationState &state, GroupKind kind,
                    TypeRange results, ValueRange inputs) {
  state.addAttribute(getKindAttrName(state.name),
                     GroupKindAttr::get(builder.getContext(), kind));
  state.addOperands(inputs);
  state.addTypes(results);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value input : inputs)
    block->addArgument(input.getType(), input.getLoc());
}

YieldOp GroupOp::getYield() {
  return dyn_cast<YieldOp>(getBodyBlock().getTerminator());
}

YieldOp AlternativesOp::getCandidateYield(unsigned index) {
  Region &region = getCandidates()[index];
  if (region.empty() || region.front().empty())
    return nullptr;
  return dyn_cast<YieldOp>(region.front().back());
}

LogicalResult AlternativesOp::verifyRegions() {
  unsigned count = getCandidates().size();
  if (count < 2)
    return emitOpError("must have at least two candidates, found ") << count;
  if (uint64_t(getSelected()) >= count)
    return emitOpError("selects candidate ")
           << getSelected() << " of " << count;
  if (getResults().empty())
    return emitOpError("must have at least one result");
  for (unsigned i = 0; i < count; ++i) {
    YieldOp yield = getCandidateYield(i);
    if (!yield)
      return emitOpError("candidate ") << i << " must end with 'fuse.yield'";
    if (yield.getValues().getTypes() != getResultTypes())
      return yield.emitOpError("returns ")
             << yield.getValues().getTypes() << " but the results are "
             << getResultTypes();
  }
  return success();
}

LogicalResult GroupOp::verify() {
  if (getResults().empty())
    return emitOpError("must have at least one result");
  return success();
}

LogicalResult GroupOp::verifyRegions() {
  Block &block = getBodyBlock();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError("has ")
           << getInputs().size() << " inputs but its body has "
           << block.getNumArguments() << " arguments";
  for (auto [i, pair] : llvm::enumerate(
           llvm::zip(getInputs().getTypes(), block.getArgumentTypes()))) {
    auto [inputType, argType] = pair;
    if (inputType != argType)
      return emitOpError("input #")
             << i << " has type " << inputType << " but body argument #" << i
             << " has type " << argType;
  }
  auto yield =
      dyn_cast_or_null<YieldOp>(block.empty() ? nullptr : &block.back());
  if (!yield)
    return emitOpError("body must end with 'fuse.yield'");
  if (yield.getValues().getTypes() != getResultTypes())
    return yield.emitOpError("returns ")
           << yield.getValues().getTypes() << " but the group results are "
           << getResultTypes();

  // The body must fit the kernel template named by `kind`.
  unsigned pools = 0, contractions = 0, reductions = 0, computeOps = 0;
  for (Operation &op : block.without_terminator()) {
    if (op.getDialect() == nullptr || op.getDialect()->getNamespace() != "onnx")
      return op.emitOpError("is not allowed in a 'fuse.group' body (only "
                            "onnx ops are)");
    if (op.hasTrait<mlir::OpTrait::ConstantLike>())
      continue;
    ++computeOps;
    if (isPoolingOp(&op)) {
      ++pools;
      if (getKind() != GroupKind::pool_epilogue)
        return op.emitOpError("is not allowed in a group of kind '")
               << stringifyGroupKind(getKind()) << "'";
    } else if (isContractionOp(&op)) {
      ++contractions;
      if (getKind() != GroupKind::contraction_epilogue)
        return op.emitOpError("is not allowed in a group of kind '")
               << stringifyGroupKind(getKind()) << "'";
    } else if (isReductionOp(&op)) {
      ++reductions;
      if (getKind() != GroupKind::reduction)
        return op.emitOpError("is not allowed in a group of kind '")
               << stringifyGroupKind(getKind()) << "'";
    } else if (isLayoutOp(&op) &&
               getKind() == GroupKind::contraction_epilogue) {
      // Operand views of the contraction (a split-K group's [S, M, K/S]
      // view of [M, K]): they become its indexing, so they may feed only
      // the contraction or other such views.
      for (Operation *user : op.getUsers())
        if (!isContractionOp(user) && !isLayoutOp(user))
          return op.emitOpError("in a contraction group must feed the "
                                "contraction (it is read by '")
                 << user->getName() << "')";
    } else if (getKind() == GroupKind::elementwise &&
               llvm::is_contained(
                   {"onnx.Slice", "onnx.Concat", "onnx.Transpose", "onnx.Pad"},
                   op.getName().getStringRef())) {
      // Gathers: each output element is one operand element, which the
      // kernel reads (or computes) where an output needs it.
    } else if (!isElementwiseOp(&op)) {
      return op.emitOpError("is not allowed in a group of kind '")
             << stringifyGroupKind(getKind())
             << "' (it is neither elementwise nor the group's anchor)";
    }
  }
  if (computeOps == 0)
    return emitOpError("body has no ops to fuse");
  if (getKind() == GroupKind::pool_epilogue && pools != 1)
    return emitOpError("of kind 'pool_epilogue' must contain exactly one "
                       "pooling op, found ")
           << pools;
  if (getKind() == GroupKind::contraction_epilogue && contractions != 1)
    return emitOpError("of kind 'contraction_epilogue' must contain exactly "
                       "one Conv, Gemm or MatMul, found ")
           << contractions;
  if (getKind() == GroupKind::reduction && reductions != 1)
    return emitOpError("of kind 'reduction' must contain exactly one "
                       "Softmax, LayerNormalization or Reduce* op, found ")
           << reductions;
  if (std::optional<Attribute> strategy = getStrategy()) {
    if (isa<CublasLtStrategyAttr, CudnnStrategyAttr>(*strategy) &&
        getKind() != GroupKind::contraction_epilogue)
      return emitOpError("of kind '")
             << stringifyGroupKind(getKind())
             << "' cannot run as a library call (only contraction_epilogue "
                "groups can)";
    if (auto cudnn = dyn_cast<CudnnStrategyAttr>(*strategy);
        cudnn && contractions == 1) {
      // An NCHW call computes an onnx.Conv, an NHWC one an onnx.NhwcConv.
      StringRef conv = cudnn.getChannelsLast() ? "onnx.NhwcConv" : "onnx.Conv";
      for (Operation &op : block.without_terminator())
        if (isContractionOp(&op) && op.getName().getStringRef() != conv)
          return emitOpError("runs as a cuDNN convolution")
                 << (cudnn.getChannelsLast() ? " over NHWC data" : "")
                 << " but its contraction is " << op.getName();
    }
    if (auto kernel = dyn_cast<KernelStrategyAttr>(*strategy);
        kernel && kernel.getMapping() == Mapping::tiles &&
        kernel.getSplitK() != 1) {
      auto type = dyn_cast<RankedTensorType>(getResult(0).getType());
      if (getKind() != GroupKind::contraction_epilogue || !type ||
          type.getRank() == 0 || type.getDimSize(0) != kernel.getSplitK())
        return emitOpError("with split_k = ")
               << kernel.getSplitK()
               << " must be a contraction group whose result's first dim "
                  "is the "
               << kernel.getSplitK() << " slices";
    }
    if (auto lt = dyn_cast<CublasLtStrategyAttr>(*strategy)) {
      for (Operation &op : block.without_terminator())
        if (isContractionOp(&op) &&
            (op.getName().getStringRef() == "onnx.Conv" ||
             op.getName().getStringRef() == "onnx.NhwcConv"))
          return emitOpError("runs as a cuBLASLt matmul but its contraction "
                             "is ")
                 << op.getName();
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Im2ColOp
//===----------------------------------------------------------------------===//

int64_t Im2ColOp::getNumChannels() {
  auto input = cast<RankedTensorType>(getInput().getType());
  return input.getDimSize(getChannelsLast() ? 3 : 1);
}

int64_t Im2ColOp::getNumTapRows() {
  ArrayRef<int64_t> kernel = getKernelShape();
  return getNumChannels() * kernel[0] * kernel[1];
}

std::array<int64_t, 2> Im2ColOp::getInputSize() {
  auto input = cast<RankedTensorType>(getInput().getType());
  int64_t first = getChannelsLast() ? 1 : 2;
  return {input.getDimSize(first), input.getDimSize(first + 1)};
}

std::array<int64_t, 2> Im2ColOp::getOutputSize() {
  std::array<int64_t, 2> in = getInputSize();
  std::array<int64_t, 2> size;
  for (int i = 0; i < 2; ++i) {
    int64_t span = (getKernelShape()[i] - 1) * getDilations()[i] + 1;
    int64_t padded = in[i] + getPads()[i] + getPads()[2 + i];
    size[i] = padded < span ? 0 : (padded - span) / getStrides()[i] + 1;
  }
  return size;
}

LogicalResult Im2ColOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto columns = cast<RankedTensorType>(getColumns().getType());
  if (input.getRank() != 4 || !input.hasStaticShape())
    return emitOpError("input must be a static 4-D (")
           << (getChannelsLast() ? "NHWC" : "NCHW") << ") tensor, not "
           << input;
  if (columns.getRank() != 3 || !columns.hasStaticShape())
    return emitOpError("result must be a static 3-D tensor, not ") << columns;
  if (columns.getElementType() != input.getElementType())
    return emitOpError("result elements are ")
           << columns.getElementType() << " but the input's are "
           << input.getElementType();
  auto positive = [](ArrayRef<int64_t> values) {
    return llvm::all_of(values, [](int64_t v) { return v > 0; });
  };
  if (getKernelShape().size() != 2 || !positive(getKernelShape()))
    return emitOpError("kernel_shape must be two positive values");
  if (getStrides().size() != 2 || !positive(getStrides()))
    return emitOpError("strides must be two positive values");
  if (getDilations().size() != 2 || !positive(getDilations()))
    return emitOpError("dilations must be two positive values");
  if (getPads().size() != 4 ||
      llvm::any_of(getPads(), [](int64_t p) { return p < 0; }))
    return emitOpError("pads must be four values, none negative");
  std::array<int64_t, 2> out = getOutputSize();
  if (out[0] < 1 || out[1] < 1)
    return emitOpError("the window is larger than the padded input");
  if (columns.getDimSize(0) != input.getDimSize(0))
    return emitOpError("result has ")
           << columns.getDimSize(0) << " images but the input has "
           << input.getDimSize(0);
  bool last = getChannelsLast();
  int64_t rows = columns.getDimSize(last ? 2 : 1);
  int64_t positions = columns.getDimSize(last ? 1 : 2);
  if (rows <= getNumTapRows())
    return emitOpError("result needs more than ")
           << getNumTapRows() << (last ? " columns" : " rows")
           << " (C * R * S and the ones " << (last ? "column" : "row")
           << "), has " << rows;
  if (positions != out[0] * out[1])
    return emitOpError("result has ")
           << positions << (last ? " rows" : " columns")
           << " but the output is " << out[0] << "x" << out[1];
  return success();
}

/// The `heads_first` attribute for `flags`: none when no tensor is heads
/// first.
static DenseBoolArrayAttr buildHeadsFirstAttr(OpBuilder &builder,
                                              ArrayRef<bool> flags) {
  if (!llvm::is_contained(flags, true))
    return {};
  SmallVector<bool, 4> four(flags);
  four.resize(4, false);
  return builder.getDenseBoolArrayAttr(four);
}

void AttentionOp::build(OpBuilder &builder, OperationState &state, Type result,
                        Value query, Value key, Value value, Value mask,
                        FloatAttr scale, bool zeroNanProbabilities,
                        ArrayRef<bool> headsFirst) {
  build(builder, state, result, query, key, value, mask, /*into=*/Value(),
        scale, zeroNanProbabilities ? builder.getUnitAttr() : UnitAttr(),
        buildHeadsFirstAttr(builder, headsFirst), /*head_offsets=*/nullptr,
        /*key_value_heads=*/nullptr);
}

void AttentionOp::build(OpBuilder &builder, OperationState &state, Value query,
                        Value key, Value value, Value mask, Value into,
                        FloatAttr scale, bool zeroNanProbabilities,
                        ArrayRef<bool> headsFirst) {
  build(builder, state, /*result=*/Type(), query, key, value, mask, into, scale,
        zeroNanProbabilities ? builder.getUnitAttr() : UnitAttr(),
        buildHeadsFirstAttr(builder, headsFirst), /*head_offsets=*/nullptr,
        /*key_value_heads=*/nullptr);
}

SmallVector<int64_t, 4> AttentionOp::getLogicalShape(unsigned which) {
  Value tensor = which == kQuery   ? getQuery()
                 : which == kKey   ? getKey()
                 : which == kValue ? getValue()
                                   : Value();
  ArrayRef<int64_t> shape = tensor
                                ? cast<ShapedType>(tensor.getType()).getShape()
                                : getOutputType().getShape();
  SmallVector<int64_t, 4> logical(shape);
  if (isHeadsFirst(which) && logical.size() == 4)
    std::swap(logical[1], logical[2]);
  // Heads read from a window of a tensor that holds more.
  if (tensor && getHeadOffsets() && logical.size() == 4) {
    if (which == kQuery)
      logical[2] = getLogicalShape(kResult)[2];
    else if (std::optional<uint64_t> heads = getKeyValueHeads())
      logical[2] = int64_t(*heads);
  }
  return logical;
}

void AttentionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // The tensor form is pure; the buffer form reads its operands and writes
  // `into`.
  if (!hasBufferSemantics())
    return;
  for (OpOperand &operand : getOperation()->getOpOperands()) {
    if (operand.get() == getInto())
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

LogicalResult AttentionOp::verify() {
  bool buffers = hasBufferSemantics();
  if (buffers == (getResult() != nullptr))
    return emitOpError("must either have a result (on tensors) or write "
                       "'into' a buffer (on memrefs), not ")
           << (buffers ? "both" : "neither");
  for (Value operand : getOperation()->getOperands())
    if (isa<MemRefType>(operand.getType()) != buffers)
      return emitOpError("operands must all be ")
             << (buffers ? "memrefs" : "tensors") << " in the "
             << (buffers ? "buffer" : "tensor") << " form, not "
             << operand.getType();
  auto query = cast<ShapedType>(getQuery().getType());
  auto key = cast<ShapedType>(getKey().getType());
  auto value = cast<ShapedType>(getValue().getType());
  ShapedType result = getOutputType();
  for (auto [name, type] : {std::pair<StringRef, ShapedType>{"query", query},
                            {"key", key},
                            {"value", value},
                            {"result", result}}) {
    auto memref = dyn_cast<MemRefType>(type);
    if (type.getRank() != 4 || !type.hasStaticShape() ||
        (memref && !memref.getLayout().isIdentity()))
      return emitOpError() << name
                           << " must be a static 4-D tensor or (identity "
                              "layout) memref ([batch, sequence, heads, head "
                              "size]), not "
                           << type;
  }
  for (auto [name, type] : {std::pair<StringRef, ShapedType>{"key", key},
                            {"value", value},
                            {"result", result}})
    if (type.getElementType() != query.getElementType())
      return emitOpError() << name << " elements are "
                           << type.getElementType() << " but the query's are "
                           << query.getElementType()
                           << " (query, key, value and result share one type)";
  if (auto flags = getHeadsFirst(); flags && flags->size() != 4)
    return emitOpError("heads_first must have four flags (query, key, value, "
                       "result), not ")
           << flags->size();
  if (std::optional<ArrayRef<int64_t>> offsets = getHeadOffsets()) {
    static constexpr const char *kTensorNames[] = {"query", "key", "value"};
    if (offsets->size() != 3)
      return emitOpError("head_offsets must have three offsets (query, key, "
                         "value), not ")
             << offsets->size();
    std::optional<uint64_t> kvHeads = getKeyValueHeads();
    if (!kvHeads || *kvHeads < 1 || *kvHeads > uint64_t(INT64_MAX))
      return emitOpError("head_offsets needs key_value_heads, the key's and "
                         "value's heads (at least 1)");
    for (unsigned which : {kQuery, kKey, kValue}) {
      auto type = cast<ShapedType>(getOperation()->getOperand(which).getType());
      int64_t extent = type.getDimSize(getHeadDim(which));
      int64_t heads = getLogicalShape(which)[2], offset = (*offsets)[which];
      if (offset < 0 || heads > extent || offset > extent - heads)
        return emitOpError() << kTensorNames[which] << "'s heads [" << offset
                             << ", " << offset + heads << ") are not within its "
                             << extent << " heads";
    }
  } else if (getKeyValueHeads()) {
    return emitOpError("key_value_heads is only for head_offsets");
  }
  SmallVector<int64_t, 4> q = getLogicalShape(kQuery),
                          k = getLogicalShape(kKey),
                          v = getLogicalShape(kValue),
                          r = getLogicalShape(kResult);
  if (k[0] != q[0] || v[0] != q[0] || r[0] != q[0])
    return emitOpError("query, key, value and result must have the same "
                       "batch, not ")
           << q[0] << ", " << k[0] << ", " << v[0] << " and " << r[0];
  if (k[3] != q[3])
    return emitOpError("key's head size (")
           << k[3] << ") must be query's (" << q[3] << ")";
  if (v[1] != k[1] || v[2] != k[2])
    return emitOpError("value must have key's sequence and heads ([")
           << k[1] << ", " << k[2] << "]), not [" << v[1] << ", " << v[2]
           << "]";
  if (k[2] < 1 || q[2] % k[2] != 0)
    return emitOpError("key's ") << k[2] << " heads must divide query's "
                                 << q[2] << " (grouped-query attention)";
  if (r[1] != q[1] || r[2] != q[2] || r[3] != v[3])
    return emitOpError("result must be [")
           << q[0] << ", " << q[1] << ", " << q[2] << ", " << v[3]
           << "] (query's sequence and heads, value's head size; heads "
              "first if flagged), not "
           << result;
  if (Value mask = getMask()) {
    auto maskType = cast<ShapedType>(mask.getType());
    auto maskMemref = dyn_cast<MemRefType>(maskType);
    if (!maskType.hasStaticShape() ||
        (maskMemref && !maskMemref.getLayout().isIdentity()))
      return emitOpError("mask must have a static shape (and identity "
                         "layout), not ")
             << maskType;
    int64_t scores[4] = {q[0], q[2], q[1], k[1]};
    if (maskType.getRank() != 4 ||
        llvm::any_of(llvm::zip(maskType.getShape(), scores), [](auto dims) {
          auto [m, s] = dims;
          return m != 1 && m != s;
        }))
      return emitOpError("mask ")
             << maskType << " does not broadcast to the scores' [" << q[0]
             << ", " << q[2] << ", " << q[1] << ", " << k[1] << "]";
  }
  return success();
}

#define GET_OP_CLASSES
#include "fuse/Dialect/Fuse/IR/FuseOps.cpp.inc"
