//===- ConvTransposeImporter.cpp - ConvTranspose as a Conv ---------------===//
//
// A transposed convolution is the convolution of its input with zeros put
// between the elements (stride - 1 of them), padded so that every output
// sees the whole kernel, by the kernel flipped along each spatial dim with
// its in and out channels swapped (per group). The importer builds that
// from onnx ops: Unsqueeze + Pad + Reshape per strided dim, one Pad (or
// crop: negative pads) of the spatial dims, and for the weights Reshape +
// Transpose + Reshape + Slice with steps of -1, then a Conv of stride 1
// with the node's dilations, group and bias.
//
// The output size and pads follow onnx's reference: explicit pads, or for
// SAME_UPPER / SAME_LOWER the padding that gives output_shape (default:
// input * stride), split as those say; output_shape, when given, is the
// output size; positions past the full result are zeros (plus the bias).
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/IR/BuiltinTypes.h"

#include <limits>

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

static SmallVector<int64_t> intsAttrOr(NodeImporter &n, StringRef name,
                                       int64_t count, int64_t value) {
  if (const auto *attr = n.findAttr(name))
    return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
  return SmallVector<int64_t>(count, value);
}

static int64_t floorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

LogicalResult fuse::detail::importConvTranspose(NodeImporter &n) {
  Value x = n.input(0), w = n.input(1);
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  auto wType = dyn_cast<RankedTensorType>(w.getType());
  if (!xType || !wType || !xType.hasStaticShape() || !wType.hasStaticShape())
    return n.emitError() << "inputs of dynamic shape are not supported";
  int64_t rank = xType.getRank(), spatial = rank - 2;
  if (rank < 3 || wType.getRank() != rank)
    return n.emitError() << "X and W must have the same rank, at least 3";
  const auto *groupAttr = n.findAttr("group");
  int64_t group = groupAttr ? groupAttr->i() : 1;
  int64_t channels = xType.getDimSize(1);
  if (group < 1 || channels % group || wType.getDimSize(0) != channels)
    return n.emitError() << "W must have C (" << channels
                         << ") filters, C a multiple of group (" << group
                         << ")";
  SmallVector<int64_t> strides = intsAttrOr(n, "strides", spatial, 1);
  SmallVector<int64_t> dilations = intsAttrOr(n, "dilations", spatial, 1);
  SmallVector<int64_t> outputPadding =
      intsAttrOr(n, "output_padding", spatial, 0);
  SmallVector<int64_t> kernel(wType.getShape().drop_front(2));
  if (intsAttrOr(n, "kernel_shape", spatial, 0) != kernel &&
      n.findAttr("kernel_shape"))
    return n.emitError() << "kernel_shape must be W's spatial dims";
  const auto *padsAttr = n.findAttr("pads");
  const auto *outputShapeAttr = n.findAttr("output_shape");
  const auto *autoPadAttr = n.findAttr("auto_pad");
  std::string autoPad = autoPadAttr ? autoPadAttr->s() : "NOTSET";
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (!same && autoPad != "NOTSET" && autoPad != "VALID")
    return n.emitError() << "auto_pad = '" << autoPad << "' is not supported";
  if (strides.size() != size_t(spatial) || dilations.size() != size_t(spatial) ||
      outputPadding.size() != size_t(spatial) ||
      (padsAttr && padsAttr->ints_size() != 2 * spatial) ||
      (outputShapeAttr && outputShapeAttr->ints_size() != spatial))
    return n.emitError() << "strides, dilations, output_padding, pads and "
                            "output_shape must have one entry per spatial "
                            "dim (pads two)";
  for (int64_t i = 0; i < spatial; ++i)
    if (strides[i] < 1 || dilations[i] < 1 || outputPadding[i] < 0 ||
        kernel[i] < 1)
      return n.emitError() << "strides, dilations and kernel must be "
                              "positive, output_padding not negative";
  // Sizes below 2^30 keep every size and pad computed below (products of
  // two of them, sums of a few) within 64 bits.
  constexpr int64_t kMaxSize = int64_t(1) << 30;
  auto tooLarge = [&](int64_t v) { return v > kMaxSize || v < -kMaxSize; };
  bool large = llvm::any_of(strides, tooLarge) ||
               llvm::any_of(dilations, tooLarge) ||
               llvm::any_of(outputPadding, tooLarge) ||
               llvm::any_of(kernel, tooLarge) ||
               llvm::any_of(xType.getShape().drop_front(2), tooLarge);
  if (padsAttr)
    large |= llvm::any_of(padsAttr->ints(), tooLarge);
  if (outputShapeAttr)
    large |= llvm::any_of(outputShapeAttr->ints(), tooLarge);
  if (large)
    return n.emitError() << "strides, dilations, pads, output_padding, "
                            "output_shape, the kernel and the input's "
                            "spatial dims must be at most "
                         << kMaxSize;

  // Per spatial dim: the output size and the pads of the full result.
  SmallVector<int64_t> outSize(spatial), padBegin(spatial);
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t in = xType.getDimSize(i + 2);
    int64_t extent = (kernel[i] - 1) * dilations[i] + 1;
    int64_t full = strides[i] * (in - 1) + outputPadding[i] + extent;
    if (padsAttr && !same) {
      padBegin[i] = padsAttr->ints(i);
      outSize[i] = outputShapeAttr
                       ? outputShapeAttr->ints(i)
                       : full - padBegin[i] - padsAttr->ints(i + spatial);
    } else if (same) {
      outSize[i] = outputShapeAttr ? outputShapeAttr->ints(i) : in * strides[i];
      int64_t total = full - outSize[i];
      int64_t half = floorDiv(total, 2);
      padBegin[i] = autoPad == "SAME_UPPER" ? half : total - half;
    } else {
      padBegin[i] = 0;
      outSize[i] = outputShapeAttr ? outputShapeAttr->ints(i) : full;
    }
    if (outSize[i] < 1)
      return n.emitError() << "an output with no elements is not supported";
  }

  NodeEmitter e(n);
  // Zeros between the input's elements: [.., H, ..] -> [.., H * s, ..]
  // (the last s - 1 zeros taken back by the padding below).
  SmallVector<int64_t> shape(xType.getShape());
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t s = strides[i], d = i + 2;
    if (s == 1)
      continue;
    Value unsqueezed = e.op("onnx.Unsqueeze", {x, e.i64s({d + 1})});
    SmallVector<int64_t> pads(2 * (rank + 1), 0);
    pads[rank + 1 + d + 1] = s - 1;
    x = e.op("onnx.Pad", {unsqueezed, e.i64s(pads), Value(), Value()});
    shape[d] *= s;
    x = e.reshape(x, shape);
  }
  // Pad (crop) each dim so that output j sees inputs j - extent + 1 .. j
  // of the full result shifted by padBegin.
  SmallVector<int64_t> pads(2 * rank, 0);
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t extent = (kernel[i] - 1) * dilations[i] + 1;
    int64_t begin = extent - 1 - padBegin[i];
    int64_t length = outSize[i] + extent - 1;
    pads[i + 2] = begin;
    pads[rank + i + 2] = length - shape[i + 2] - begin;
  }
  if (llvm::any_of(pads, [](int64_t p) { return p != 0; }))
    x = e.op("onnx.Pad", {x, e.i64s(pads), Value(), Value()});

  // W [C, M/g, k...] -> [M, C/g, k...], flipped along the spatial dims.
  int64_t perGroupOut = wType.getDimSize(1);
  SmallVector<int64_t> grouped{group, channels / group, perGroupOut};
  grouped.append(kernel);
  SmallVector<int64_t> perm{0, 2, 1};
  SmallVector<int64_t> filters{group * perGroupOut, channels / group};
  SmallVector<int64_t> starts, ends, axes, steps;
  for (int64_t i = 0; i < spatial; ++i) {
    perm.push_back(i + 3);
    filters.push_back(kernel[i]);
    starts.push_back(-1);
    ends.push_back(std::numeric_limits<int64_t>::min());
    axes.push_back(i + 2);
    steps.push_back(-1);
  }
  Value swapped = e.reshape(e.transpose(e.reshape(w, grouped), perm), filters);
  Value flipped = e.op("onnx.Slice", {swapped, e.i64s(starts), e.i64s(ends),
                                      e.i64s(axes), e.i64s(steps)});
  SmallVector<NamedAttribute> convAttrs{
      e.intsAttr("dilations", dilations), e.intAttr("group", group),
      e.intsAttr("kernel_shape", kernel),
      e.intsAttr("pads", SmallVector<int64_t>(2 * spatial, 0)),
      e.intsAttr("strides", SmallVector<int64_t>(spatial, 1))};
  Value y = e.op("onnx.Conv", {x, flipped, n.input(2)}, convAttrs);
  if (e.failed())
    return failure();
  n.results.push_back(y);
  return success();
}
