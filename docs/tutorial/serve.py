"""Steps 2 to 4 of docs/tutorial.md: compile the ONNX model with fuse,
serve it from Python and check it against onnxruntime.

    python3 serve.py squeezenet.onnx [--target cpu|cuda]
"""

import argparse

import numpy as np

import fuse

parser = argparse.ArgumentParser()
parser.add_argument("model")
parser.add_argument("--target", default="cpu")
parser.add_argument("--artifact", default="model.fbin")
args = parser.parse_args()

# 2. Compile: one kernel (or library call) per fused group.
fuse.compile(args.model, target=args.target, output=args.artifact)

# 3. Serve: load once, run many times.
session = fuse.InferenceSession(args.artifact)
for arg in session.get_inputs() + session.get_outputs():
    print(arg)
rng = np.random.default_rng(0)
feeds = {i.name: rng.standard_normal(i.shape).astype(i.dtype)
         for i in session.get_inputs()}
outputs = session.run(None, feeds)
print("first output:", outputs[0].shape, outputs[0].ravel()[:3])

# On a GPU, tensors already there go in and out without a host copy,
# on torch's current stream:
if args.target == "cuda":
    import torch
    device_feeds = {k: torch.from_numpy(v).cuda() for k, v in feeds.items()}
    device_outputs = session.run_dlpack(device_feeds)
    torch.cuda.synchronize()
    print("run_dlpack == run:", np.array_equal(
        device_outputs[0].cpu().numpy(), outputs[0]))

# 4. Check: onnxruntime on the same inputs, the relative L2 error of
# every output.
report = fuse.check_onnx(session, args.model, feeds)
print(report)
raise SystemExit(0 if report else 1)
