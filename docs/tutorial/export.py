"""Step 1 of docs/tutorial.md: a torchvision model exported to ONNX.
Needs torch and torchvision (pip install torch torchvision)."""

import sys

import torch
import torchvision

path = sys.argv[1] if len(sys.argv) > 1 else "squeezenet.onnx"
# weights="DEFAULT" downloads the trained weights; None keeps this offline.
model = torchvision.models.squeezenet1_1(weights=None).eval()
image = torch.randn(1, 3, 224, 224)
torch.onnx.export(model, (image,), path, input_names=["image"],
                  output_names=["logits"], opset_version=17, dynamo=False)
print("wrote", path)
