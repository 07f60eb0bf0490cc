//===- ONNXBase.td - onnx dialect base definitions ---------*- tablegen -*-===//
//
// The `onnx` dialect: one op per ONNX operator, named as in the ONNX spec,
// with the newest signature of each operator. The importer rewrites older
// opset signatures (e.g. Clip-6 attributes) into this form.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_DIALECT_ONNX_IR_ONNXBASE_TD
#define FUSE_DIALECT_ONNX_IR_ONNXBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def ONNX_Dialect : Dialect {
  let name = "onnx";
  let summary = "ONNX operators as imported from an ONNX model";
  let description = [{
    One op per ONNX operator, spelled as in the ONNX specification
    (`onnx.AveragePool`, `onnx.Relu`, ...). Operands and attributes keep the
    ONNX names. Every op infers its result types from its operands and
    attributes (static shapes where the inputs are static, `?` otherwise);
    a result type written in the IR may be more or less static than the
    inferred one but must not contradict it.

    Element types: ONNX float/double/float16/bfloat16 map to f32/f64/f16/bf16,
    signed integers to signless `iN`, unsigned integers to `uiN`, bool to
    `i1`.
  }];
  let cppNamespace = "::fuse";
  let hasConstantMaterializer = 1;
}

//===----------------------------------------------------------------------===//
// Traits that classify ops for fusion. They carry no verification of their
// own: the fusion pass and the `fuse.group` verifier dispatch on them.
//===----------------------------------------------------------------------===//

class ONNX_OpTrait<string name> : NativeOpTrait<name> {
  let cppNamespace = "::fuse::ONNXTrait";
}

// Computes each output element from the input elements at the same
// (broadcast) index.
def ONNX_Elementwise : ONNX_OpTrait<"Elementwise">;
// A windowed or global pooling over the spatial dimensions of NCHW data.
def ONNX_Pooling : ONNX_OpTrait<"Pooling">;
// A contraction (Conv, Gemm, MatMul): the anchor of an epilogue group.
def ONNX_Contraction : ONNX_OpTrait<"Contraction">;
// A reduction (Softmax, LayerNormalization, Reduce*): the anchor of a
// `reduction` group, which may take elementwise ops before and after it.
def ONNX_Reduction : ONNX_OpTrait<"Reduction">;
// Moves elements without computing (Reshape, Transpose): a contraction
// group may read its contraction's operands through them, as indexing.
def ONNX_Layout : ONNX_OpTrait<"Layout">;

// Result type inference through the op adaptor, with a compatibility rule
// that lets IR carry a result type that refines (or is refined by) the
// inferred one.
def ONNX_InferResultTypes : TraitList<[
  DeclareOpInterfaceMethods<InferTypeOpInterface>,
  NativeOpTrait<"InferTypeOpAdaptor", [],
    [{
      static ::llvm::LogicalResult
      inferReturnTypes(::mlir::MLIRContext *context,
                       std::optional<::mlir::Location> location,
                       Adaptor adaptor,
                       ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes);
      static bool isCompatibleReturnTypes(::mlir::TypeRange l,
                                          ::mlir::TypeRange r) {
        return ::fuse::areCompatibleResultTypes(l, r);
      }
    }],
    [{
      ::llvm::LogicalResult
      $cppClass::inferReturnTypes(::mlir::MLIRContext *context,
          std::optional<::mlir::Location> location, ::mlir::ValueRange operands,
          ::mlir::DictionaryAttr attributes, ::mlir::OpaqueProperties properties,
          ::mlir::RegionRange regions,
          ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
        $cppClass::Adaptor adaptor(operands, attributes, properties, regions);
        return $cppClass::inferReturnTypes(context, location, adaptor,
                                           inferredReturnTypes);
      }
    }]>
]>;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def ONNX_FloatType : AnyTypeOf<[F16, BF16, F32, F64]>;
def ONNX_IntType : AnyTypeOf<[I8, I16, I32, I64, UI8, UI16, UI32, UI64]>;

def ONNX_FloatTensor : TensorOf<[F16, BF16, F32, F64]>;
def ONNX_NumericTensor
    : TensorOf<[F16, BF16, F32, F64, I8, I16, I32, I64, UI8, UI16, UI32, UI64]>;
def ONNX_AnyTensor : TensorOf<[F16, BF16, F32, F64, I1, I8, I16, I32, I64,
                               UI8, UI16, UI32, UI64]>;
def ONNX_I64Tensor : TensorOf<[I64]>;
def ONNX_BoolTensor : TensorOf<[I1]>;
def ONNX_IndexTensor : TensorOf<[I32, I64]>;

//===----------------------------------------------------------------------===//
// Base op class
//===----------------------------------------------------------------------===//

class ONNX_Op<string mnemonic, list<Trait> traits = []>
    : Op<ONNX_Dialect, mnemonic, !listconcat(traits,
                                              [Pure, ONNX_InferResultTypes])> {
  // `onnx.Relu(%x) : (tensor<4xf32>) -> tensor<4xf32>`
  let assemblyFormat =
      "`(` operands `)` attr-dict `:` functional-type(operands, results)";
}

#endif // FUSE_DIALECT_ONNX_IR_ONNXBASE_TD
