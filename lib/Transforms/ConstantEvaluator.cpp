//===- ConstantEvaluator.cpp - Evaluate onnx ops on constants ------------===//
//
// A reference interpreter for the ops of shape computations. It works on
// row-major host arrays, element by element: it is meant for the small
// tensors of shape subgraphs (the caller bounds the sizes), not weights.
//
//===----------------------------------------------------------------------===//

#include "ConstantEvaluator.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace fuse;

namespace {

/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// The multi-index of linear index `linear` in `shape`.
SmallVector<int64_t> delinearize(int64_t linear, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> index(shape.size());
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    index[i] = shape[i] ? linear % shape[i] : 0;
    linear = shape[i] ? linear / shape[i] : 0;
  }
  return index;
}

/// The linear index in an operand of `operandShape` broadcast (numpy
/// rules) to the output multi-index `outIndex`.
int64_t broadcastIndex(ArrayRef<int64_t> outIndex,
                       ArrayRef<int64_t> operandShape) {
  size_t offset = outIndex.size() - operandShape.size();
  int64_t linear = 0;
  for (size_t i = 0; i < operandShape.size(); ++i)
    linear = linear * operandShape[i] +
             (operandShape[i] == 1 ? 0 : outIndex[offset + i]);
  return linear;
}

ConstantTensor makeResult(Operation *op) {
  ConstantTensor t;
  t.type = cast<RankedTensorType>(op->getResult(0).getType());
  return t;
}

void pushElement(ConstantTensor &out, const ConstantTensor &in, int64_t i) {
  if (in.isFloat())
    out.floats.push_back(in.floats[i]);
  else
    out.ints.push_back(in.ints[i]);
}

/// A scalar while evaluating elementwise math: float or integer.
struct Num {
  bool isFloat;
  double f;
  int64_t i;
  double asDouble() const { return isFloat ? f : static_cast<double>(i); }
};

Num getNum(const ConstantTensor &t, int64_t i) {
  return t.isFloat() ? Num{true, t.floats[i], 0} : Num{false, 0, t.ints[i]};
}

/// Elementwise evaluation with broadcasting; `fn` returns nullopt for what
/// it cannot compute (e.g. integer division by zero).
std::optional<ConstantTensor>
evalElementwise(Operation *op, ArrayRef<const ConstantTensor *> operands,
                llvm::function_ref<std::optional<Num>(ArrayRef<Num>)> fn) {
  ConstantTensor out = makeResult(op);
  ArrayRef<int64_t> shape = out.type.getShape();
  SmallVector<Num> args(operands.size());
  for (int64_t linear = 0, n = out.size(); linear < n; ++linear) {
    SmallVector<int64_t> index = delinearize(linear, shape);
    for (auto [k, operand] : llvm::enumerate(operands))
      args[k] = getNum(*operand,
                       broadcastIndex(index, operand->type.getShape()));
    std::optional<Num> r = fn(args);
    if (!r)
      return std::nullopt;
    if (out.isFloat())
      out.floats.push_back(r->asDouble());
    else
      out.ints.push_back(r->isFloat ? static_cast<int64_t>(r->f) : r->i);
  }
  return out;
}

/// Float `f` converted to an integer of `width` bits as Cast lowers it
/// (buildFloatToInt): truncated, saturated to the type's range, NaN to 0;
/// the bits as an int64_t (an unsigned value's, for wrapTo).
static int64_t saturateToInteger(double f, unsigned width, bool isUnsigned) {
  if (std::isnan(f))
    return 0;
  double high = std::ldexp(1.0, isUnsigned ? width : width - 1);
  if (f >= high)
    return isUnsigned ? static_cast<int64_t>(~uint64_t(0) >> (64 - width))
                      : static_cast<int64_t>((uint64_t(1) << (width - 1)) - 1);
  if (isUnsigned ? f <= -1.0 : f < -high)
    return isUnsigned ? 0 : static_cast<int64_t>(~uint64_t(0) << (width - 1));
  return isUnsigned ? static_cast<int64_t>(static_cast<uint64_t>(f))
                    : static_cast<int64_t>(f);
}

/// Whether the ONNX data type `dataType` is an unsigned integer.
static bool isUnsignedDataType(int64_t dataType) {
  return dataType == 2 || dataType == 4 || dataType == 12 || dataType == 13;
}

/// Wraps an integer result to the width of the result element type, as
/// the kernels would compute it.
int64_t wrapTo(Type type, int64_t v) {
  if (!type.isInteger() || type.getIntOrFloatBitWidth() >= 64)
    return v;
  unsigned width = type.getIntOrFloatBitWidth();
  if (type.isInteger(1))
    return v & 1;
  return APInt(64, v).trunc(width).getSExtValue();
}

std::optional<Num> arith2(StringRef name, Num a, Num b) {
  if (a.isFloat) {
    double x = a.f, y = b.asDouble();
    if (name == "onnx.Add")
      return Num{true, x + y, 0};
    if (name == "onnx.Sub")
      return Num{true, x - y, 0};
    if (name == "onnx.Mul")
      return Num{true, x * y, 0};
    if (name == "onnx.Div")
      return Num{true, x / y, 0};
    if (name == "onnx.Pow")
      return Num{true, std::pow(x, y), 0};
    return std::nullopt;
  }
  int64_t x = a.i, y = b.isFloat ? static_cast<int64_t>(b.f) : b.i;
  int64_t r;
  if (name == "onnx.Add") {
    if (llvm::AddOverflow(x, y, r))
      return std::nullopt;
  } else if (name == "onnx.Sub") {
    if (llvm::SubOverflow(x, y, r))
      return std::nullopt;
  } else if (name == "onnx.Mul") {
    if (llvm::MulOverflow(x, y, r))
      return std::nullopt;
  } else if (name == "onnx.Div") {
    if (y == 0 || (x == INT64_MIN && y == -1))
      return std::nullopt;
    r = x / y;
  } else {
    return std::nullopt;
  }
  return Num{false, 0, r};
}

std::optional<Num> compare(StringRef name, Num a, Num b) {
  bool r;
  if (a.isFloat || b.isFloat) {
    double x = a.asDouble(), y = b.asDouble();
    r = name == "onnx.Equal"            ? x == y
        : name == "onnx.Less"           ? x < y
        : name == "onnx.LessOrEqual"    ? x <= y
        : name == "onnx.Greater"        ? x > y
                                        : x >= y;
  } else {
    int64_t x = a.i, y = b.i;
    r = name == "onnx.Equal"            ? x == y
        : name == "onnx.Less"           ? x < y
        : name == "onnx.LessOrEqual"    ? x <= y
        : name == "onnx.Greater"        ? x > y
                                        : x >= y;
  }
  return Num{false, 0, r ? 1 : 0};
}

/// Gathers source elements: `source(outIndex)` gives, for each output
/// multi-index, the linear index into `in`.
ConstantTensor gatherElements(
    Operation *op, const ConstantTensor &in,
    llvm::function_ref<int64_t(ArrayRef<int64_t>)> source) {
  ConstantTensor out = makeResult(op);
  ArrayRef<int64_t> shape = out.type.getShape();
  for (int64_t linear = 0, n = out.size(); linear < n; ++linear)
    pushElement(out, in, source(delinearize(linear, shape)));
  return out;
}

/// Most multiply-adds a constant MatMul may take (a few milliseconds).
constexpr int64_t kMaxMatMulWork = int64_t(1) << 24;

/// MatMul of two float operands of rank 2 or more (batch dims broadcast),
/// in double.
std::optional<ConstantTensor> evalMatMul(Operation *op, const ConstantTensor &a,
                                         const ConstantTensor &b) {
  ArrayRef<int64_t> aShape = a.type.getShape(), bShape = b.type.getShape();
  if (!a.isFloat() || !b.isFloat() || aShape.size() < 2 || bShape.size() < 2)
    return std::nullopt;
  ConstantTensor out = makeResult(op);
  ArrayRef<int64_t> shape = out.type.getShape();
  int64_t rank = shape.size();
  if (rank < 2)
    return std::nullopt;
  int64_t m = shape[rank - 2], n = shape[rank - 1];
  int64_t k = aShape.back();
  if (bShape[bShape.size() - 2] != k || aShape[aShape.size() - 2] != m ||
      bShape.back() != n ||
      out.size() * std::max<int64_t>(k, 1) > kMaxMatMulWork)
    return std::nullopt;
  // The batch index of the output, broadcast into each operand's batch.
  ArrayRef<int64_t> batchShape = shape.drop_back(2);
  ArrayRef<int64_t> aBatch = aShape.drop_back(2), bBatch = bShape.drop_back(2);
  int64_t batches = out.size() / std::max<int64_t>(m * n, 1);
  out.floats.reserve(out.size());
  for (int64_t batch = 0; batch < batches; ++batch) {
    SmallVector<int64_t> index = delinearize(batch, batchShape);
    int64_t aBase = broadcastIndex(index, aBatch) * m * k;
    int64_t bBase = broadcastIndex(index, bBatch) * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < k; ++l)
          sum += a.floats[aBase + i * k + l] * b.floats[bBase + l * n + j];
        out.floats.push_back(sum);
      }
  }
  return out;
}

std::optional<ConstantTensor>
evalOp(Operation *op, ArrayRef<const ConstantTensor *> operands,
       ConstantLookup lookup) {
  StringRef name = op->getName().getStringRef();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Type elementType = resultType.getElementType();

  // Same data, another shape.
  if (isa<ONNXReshapeOp, ONNXFlattenOp, ONNXSqueezeOp, ONNXUnsqueezeOp,
          ONNXIdentityOp>(op)) {
    ConstantTensor out = *operands[0];
    out.type = resultType;
    return out;
  }
  if (isa<ONNXAddOp, ONNXSubOp, ONNXMulOp, ONNXDivOp, ONNXPowOp>(op))
    return evalElementwise(op, operands, [&](ArrayRef<Num> x) {
      std::optional<Num> r = arith2(name, x[0], x[1]);
      if (r && !r->isFloat)
        r->i = wrapTo(elementType, r->i);
      return r;
    });
  if (isa<ONNXEqualOp, ONNXLessOp, ONNXLessOrEqualOp, ONNXGreaterOp,
          ONNXGreaterOrEqualOp>(op))
    return evalElementwise(op, operands, [&](ArrayRef<Num> x) {
      return compare(name, x[0], x[1]);
    });
  if (auto mod = dyn_cast<ONNXModOp>(op)) {
    // As the lowering: the sign of the divisor unless fmod; a zero or -1
    // integer divisor gives 0.
    bool fmod = mod.getFmod() != 0;
    return evalElementwise(op, operands, [&](ArrayRef<Num> x) {
      if (x[0].isFloat || x[1].isFloat) {
        double a = x[0].asDouble(), b = x[1].asDouble();
        double r = std::fmod(a, b);
        if (!fmod && r != 0 && (r < 0) != (b < 0))
          r += b;
        if (!fmod && r == 0)
          r = std::copysign(0.0, b);
        return std::optional<Num>(Num{true, r, 0});
      }
      int64_t a = x[0].i, b = x[1].i;
      int64_t r = b == 0 || b == -1 ? 0 : a % b;
      if (!fmod && r != 0 && (r < 0) != (b < 0))
        r += b;
      return std::optional<Num>(Num{false, 0, r});
    });
  }
  if (isa<ONNXAndOp, ONNXOrOp, ONNXXorOp>(op))
    return evalElementwise(op, operands, [&](ArrayRef<Num> x) {
      bool a = x[0].i != 0, b = x[1].i != 0;
      bool r = isa<ONNXAndOp>(op) ? (a && b) : isa<ONNXOrOp>(op) ? (a || b)
                                                               : (a != b);
      return std::optional<Num>(Num{false, 0, r ? 1 : 0});
    });
  if (isa<ONNXNotOp>(op))
    return evalElementwise(op, operands, [](ArrayRef<Num> x) {
      return std::optional<Num>(Num{false, 0, x[0].i ? 0 : 1});
    });
  // A decoder's rotary table (inverse frequencies times positions, then
  // cos and sin) when the exporter left it unfolded.
  if (isa<ONNXCosOp, ONNXSinOp, ONNXExpOp>(op) && isa<FloatType>(elementType))
    return evalElementwise(op, operands, [&](ArrayRef<Num> x) {
      double a = x[0].asDouble();
      double v = isa<ONNXCosOp>(op)   ? std::cos(a)
                 : isa<ONNXSinOp>(op) ? std::sin(a)
                                      : std::exp(a);
      return std::optional<Num>(Num{true, v, 0});
    });
  if (isa<ONNXMatMulOp>(op))
    return evalMatMul(op, *operands[0], *operands[1]);
  if (isa<ONNXNegOp, ONNXAbsOp, ONNXSqrtOp, ONNXReciprocalOp, ONNXReluOp>(op))
    return evalElementwise(op, operands, [&](ArrayRef<Num> x)
                                             -> std::optional<Num> {
      Num a = x[0];
      if (a.isFloat) {
        double v = isa<ONNXNegOp>(op)          ? -a.f
                   : isa<ONNXAbsOp>(op)        ? std::fabs(a.f)
                   : isa<ONNXSqrtOp>(op)       ? std::sqrt(a.f)
                   : isa<ONNXReciprocalOp>(op) ? 1.0 / a.f
                                               : std::max(a.f, 0.0);
        return Num{true, v, 0};
      }
      if (a.i == INT64_MIN)
        return std::nullopt;
      int64_t v = isa<ONNXNegOp>(op)    ? -a.i
                  : isa<ONNXAbsOp>(op)  ? std::abs(a.i)
                  : isa<ONNXReluOp>(op) ? std::max<int64_t>(a.i, 0)
                                        : INT64_MIN;
      if (v == INT64_MIN)
        return std::nullopt;
      return Num{false, 0, wrapTo(elementType, v)};
    });
  if (isa<ONNXSumOp, ONNXMaxOp, ONNXMinOp>(op))
    return evalElementwise(op, operands, [&](ArrayRef<Num> x)
                                             -> std::optional<Num> {
      Num acc = x[0];
      for (Num v : x.drop_front()) {
        if (acc.isFloat) {
          acc.f = isa<ONNXSumOp>(op)   ? acc.f + v.f
                  : isa<ONNXMaxOp>(op) ? std::max(acc.f, v.f)
                                       : std::min(acc.f, v.f);
        } else {
          if (isa<ONNXSumOp>(op)) {
            if (llvm::AddOverflow(acc.i, v.i, acc.i))
              return std::nullopt;
          } else {
            acc.i = isa<ONNXMaxOp>(op) ? std::max(acc.i, v.i)
                                       : std::min(acc.i, v.i);
          }
        }
      }
      return acc;
    });
  if (isa<ONNXWhereOp>(op))
    return evalElementwise(op, operands, [](ArrayRef<Num> x) {
      return std::optional<Num>(x[0].i ? x[1] : x[2]);
    });
  if (auto cast = dyn_cast<ONNXCastOp>(op))
    return evalElementwise(op, operands, [&](ArrayRef<Num> x)
                                             -> std::optional<Num> {
      Num a = x[0];
      if (elementType.isInteger(1))
        return Num{false, 0, a.asDouble() != 0 ? 1 : 0};
      if (isa<FloatType>(elementType))
        return Num{true, a.asDouble(), 0};
      if (a.isFloat)
        return Num{
            false, 0,
            wrapTo(elementType,
                   saturateToInteger(a.f, elementType.getIntOrFloatBitWidth(),
                                     isUnsignedDataType(cast.getTo())))};
      return Num{false, 0, wrapTo(elementType, a.i)};
    });

  if (auto transpose = dyn_cast<ONNXTransposeOp>(op)) {
    const ConstantTensor &in = *operands[0];
    int64_t rank = resultType.getRank();
    SmallVector<int64_t> perm;
    if (std::optional<ArrayRef<int64_t>> p = transpose.getPerm())
      perm.assign(p->begin(), p->end());
    else
      for (int64_t i = rank - 1; i >= 0; --i)
        perm.push_back(i);
    SmallVector<int64_t> inStrides = stridesOf(in.type.getShape());
    return gatherElements(op, in, [&](ArrayRef<int64_t> idx) {
      int64_t linear = 0;
      for (int64_t i = 0; i < rank; ++i)
        linear += idx[i] * inStrides[perm[i]];
      return linear;
    });
  }
  if (isa<ONNXExpandOp>(op)) {
    const ConstantTensor &in = *operands[0];
    return gatherElements(op, in, [&](ArrayRef<int64_t> idx) {
      return broadcastIndex(idx, in.type.getShape());
    });
  }
  if (auto concat = dyn_cast<ONNXConcatOp>(op)) {
    int64_t axis = *normalizeAxis(concat.getAxis(), resultType.getRank());
    ConstantTensor out = makeResult(op);
    ArrayRef<int64_t> shape = resultType.getShape();
    for (int64_t linear = 0, n = out.size(); linear < n; ++linear) {
      SmallVector<int64_t> idx = delinearize(linear, shape);
      int64_t pos = idx[axis];
      for (const ConstantTensor *in : operands) {
        int64_t size = in->type.getDimSize(axis);
        if (pos < size) {
          idx[axis] = pos;
          int64_t src = 0;
          SmallVector<int64_t> strides = stridesOf(in->type.getShape());
          for (size_t d = 0; d < idx.size(); ++d)
            src += idx[d] * strides[d];
          pushElement(out, *in, src);
          break;
        }
        pos -= size;
      }
    }
    return out;
  }
  if (auto slice = dyn_cast<ONNXSliceOp>(op)) {
    const ConstantTensor &in = *operands[0];
    auto ints = [](const ConstantTensor *t) {
      return t ? SmallVector<int64_t>(t->ints.begin(), t->ints.end())
               : SmallVector<int64_t>();
    };
    std::string error;
    FailureOr<SliceParams> p = resolveSlice(
        in.type.getShape(), ints(lookup(slice.getStarts())),
        ints(lookup(slice.getEnds())), ints(lookup(slice.getAxes())),
        ints(lookup(slice.getSteps())), error);
    if (failed(p))
      return std::nullopt;
    SmallVector<int64_t> inStrides = stridesOf(in.type.getShape());
    return gatherElements(op, in, [&](ArrayRef<int64_t> idx) {
      int64_t linear = 0;
      for (size_t d = 0; d < idx.size(); ++d)
        linear += (p->starts[d] + idx[d] * p->steps[d]) * inStrides[d];
      return linear;
    });
  }
  if (auto gather = dyn_cast<ONNXGatherElementsOp>(op)) {
    const ConstantTensor &data = *operands[0];
    const ConstantTensor &indices = *operands[1];
    int64_t axis = *normalizeAxis(gather.getAxis(), data.type.getRank());
    int64_t size = data.type.getDimSize(axis);
    for (int64_t i : indices.ints)
      if (i < -size || i >= size)
        return std::nullopt;
    SmallVector<int64_t> dataStrides = stridesOf(data.type.getShape());
    SmallVector<int64_t> indexStrides = stridesOf(indices.type.getShape());
    return gatherElements(op, data, [&](ArrayRef<int64_t> idx) {
      int64_t at = 0;
      for (size_t d = 0; d < idx.size(); ++d)
        at += idx[d] * indexStrides[d];
      int64_t i = indices.ints[at];
      if (i < 0)
        i += size;
      int64_t linear = 0;
      for (size_t d = 0; d < idx.size(); ++d)
        linear += (static_cast<int64_t>(d) == axis ? i : idx[d]) *
                  dataStrides[d];
      return linear;
    });
  }
  if (auto gather = dyn_cast<ONNXGatherOp>(op)) {
    const ConstantTensor &data = *operands[0];
    const ConstantTensor &indices = *operands[1];
    int64_t axis = *normalizeAxis(gather.getAxis(), data.type.getRank());
    int64_t size = data.type.getDimSize(axis);
    int64_t indexRank = indices.type.getRank();
    SmallVector<int64_t> dataStrides = stridesOf(data.type.getShape());
    SmallVector<int64_t> indexStrides = stridesOf(indices.type.getShape());
    for (int64_t i : indices.ints)
      if (i < -size || i >= size)
        return std::nullopt;
    return gatherElements(op, data, [&](ArrayRef<int64_t> idx) {
      int64_t at = 0;
      for (int64_t k = 0; k < indexRank; ++k)
        at += idx[axis + k] * indexStrides[k];
      int64_t i = indices.ints[at];
      if (i < 0)
        i += size;
      int64_t linear = 0;
      for (int64_t d = 0; d < axis; ++d)
        linear += idx[d] * dataStrides[d];
      linear += i * dataStrides[axis];
      for (int64_t d = axis + 1; d < data.type.getRank(); ++d)
        linear += idx[d - 1 + indexRank] * dataStrides[d];
      return linear;
    });
  }
  return std::nullopt;
}

} // namespace

std::optional<ConstantTensor>
fuse::evaluateConstantOp(Operation *op, ConstantLookup lookup) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  SmallVector<const ConstantTensor *> operands;
  for (Value v : op->getOperands()) {
    const ConstantTensor *t = lookup(v);
    if (!t)
      return std::nullopt;
    operands.push_back(t);
  }
  std::optional<ConstantTensor> result = evalOp(op, operands, lookup);
  if (result && static_cast<int64_t>(result->isFloat() ? result->floats.size()
                                                      : result->ints.size()) !=
                    type.getNumElements())
    return std::nullopt;
  return result;
}
