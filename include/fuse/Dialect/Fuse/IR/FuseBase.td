//===- FuseBase.td - fuse dialect base definitions ---------*- tablegen -*-===//

#ifndef FUSE_DIALECT_FUSE_IR_FUSEBASE_TD
#define FUSE_DIALECT_FUSE_IR_FUSEBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Fuse_Dialect : Dialect {
  let name = "fuse";
  let summary = "Fusion groups: chains of ops that become one kernel";
  let description = [{
    `fuse.group` wraps a chain of `onnx` ops that the lowering turns into a
    single kernel. The group is isolated from above: everything its body
    reads comes in through explicit inputs (block arguments), and
    `fuse.yield` returns what the rest of the function uses. The group's
    `kind` tells the lowering which kernel template to use.
  }];
  let cppNamespace = "::fuse";
  let useDefaultAttributePrinterParser = 1;
  // fuse.index_check on the graph function's results.
  let hasRegionResultAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

def Fuse_GroupKind : I32EnumAttr<"GroupKind", "kind of fused kernel", [
  I32EnumAttrCase<"elementwise", 0>,
  I32EnumAttrCase<"pool_epilogue", 1>,
  I32EnumAttrCase<"contraction_epilogue", 2>,
  I32EnumAttrCase<"reduction", 3>
]> {
  // The kernel template a fusion group lowers to:
  // - elementwise: a DAG of elementwise ops over one iteration space;
  // - pool_epilogue: one pooling op, then elementwise ops applied to each
  //   pooled value before it is stored;
  // - contraction_epilogue: one Conv, Gemm or MatMul, then elementwise ops
  //   (bias, residual, activation) applied in its epilogue; Reshape and
  //   Transpose of its operands become its indexing;
  // - reduction: one Softmax, LayerNormalization or Reduce* op, with the
  //   elementwise ops that compute its input (prologue) and consume its
  //   result (epilogue); one kernel iteration per row.
  let cppNamespace = "::fuse";
}

class Fuse_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fuse_Dialect, mnemonic, traits>;

#endif // FUSE_DIALECT_FUSE_IR_FUSEBASE_TD
