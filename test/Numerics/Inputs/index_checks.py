"""Models whose Gather, GatherElements and GatherND read indices from an
input, and inputs for them in range and out of it:

    index_checks.py OUTDIR

writes OUTDIR/<model>.onnx and OUTDIR/<model>-good.npz, <model>-bad.npz.
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INT64_MIN = np.iinfo(np.int64).min


def save(path, node, inputs, output, initializers=()):
    graph = helper.make_graph([node], node.name, inputs, [output],
                              list(initializers))
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, path)


def main(out):
    table = numpy_helper.from_array(
        np.arange(20, dtype=np.float32).reshape(5, 4), "table")
    info = helper.make_tensor_value_info
    # Gather: [1, 7, -100000000] into 5 rows (the example).
    save(f"{out}/gather.onnx",
         helper.make_node("Gather", ["table", "ids"], ["y"], name="emb"),
         [info("ids", TensorProto.INT64, [3])],
         info("y", TensorProto.FLOAT, [3, 4]), [table])
    np.savez(f"{out}/gather-good.npz", ids=np.array([1, 4, -5], np.int64))
    np.savez(f"{out}/gather-bad.npz",
             ids=np.array([1, 7, -100000000], np.int64))
    np.savez(f"{out}/gather-negative.npz",
             ids=np.array([1, -6, 2], np.int64))
    np.savez(f"{out}/gather-min.npz", ids=np.array([1, INT64_MIN, 2],
                                                   np.int64))
    # Gather of int32 indices along axis 1 (size 4).
    save(f"{out}/gather32.onnx",
         helper.make_node("Gather", ["table", "ids"], ["y"], name="cols",
                          axis=1),
         [info("ids", TensorProto.INT32, [2, 2])],
         info("y", TensorProto.FLOAT, [5, 2, 2]), [table])
    np.savez(f"{out}/gather32-good.npz",
             ids=np.array([[0, 3], [-4, 1]], np.int32))
    np.savez(f"{out}/gather32-bad.npz",
             ids=np.array([[0, 3], [-5, 1]], np.int32))
    # GatherElements along axis 1 (size 3).
    save(f"{out}/gather_elements.onnx",
         helper.make_node("GatherElements", ["x", "ids"], ["y"], name="ge",
                          axis=1),
         [info("x", TensorProto.FLOAT, [2, 3]),
          info("ids", TensorProto.INT64, [2, 2])],
         info("y", TensorProto.FLOAT, [2, 2]))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.savez(f"{out}/gather_elements-good.npz", x=x,
             ids=np.array([[0, 2], [-3, 1]], np.int64))
    np.savez(f"{out}/gather_elements-bad.npz", x=x,
             ids=np.array([[0, 2], [3, 1]], np.int64))
    # GatherND of pairs into dims of sizes 2 and 3.
    save(f"{out}/gather_nd.onnx",
         helper.make_node("GatherND", ["x", "ids"], ["y"], name="gnd"),
         [info("x", TensorProto.FLOAT, [2, 3, 4]),
          info("ids", TensorProto.INT64, [3, 2])],
         info("y", TensorProto.FLOAT, [3, 4]))
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.savez(f"{out}/gather_nd-good.npz", x=x,
             ids=np.array([[0, 0], [1, 2], [-2, -3]], np.int64))
    np.savez(f"{out}/gather_nd-bad.npz", x=x,
             ids=np.array([[0, 0], [0, -4], [1, 1]], np.int64))
    # Three Gathers of input indices: three checks, side by side in the
    # arena; the bad index is the last one's.
    nodes = [helper.make_node("Gather", ["table", f"ids{k}"], [f"y{k}"],
                              name=f"emb{k}") for k in range(3)]
    graph = helper.make_graph(
        nodes, "three",
        [info(f"ids{k}", TensorProto.INT64, [2]) for k in range(3)],
        [info(f"y{k}", TensorProto.FLOAT, [2, 4]) for k in range(3)],
        [table])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, f"{out}/three.onnx")
    good = {f"ids{k}": np.array([k, -k - 1], np.int64) for k in range(3)}
    np.savez(f"{out}/three-good.npz", **good)
    np.savez(f"{out}/three-bad.npz", **dict(good, ids2=np.array([2, 5],
                                                                np.int64)))


if __name__ == "__main__":
    main(sys.argv[1])
