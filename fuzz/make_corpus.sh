#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets, fuzz/corpus/<target>/, from
# the test fixtures and examples. Their output is committed (small; run this
# again only to refresh them) and needs a build of the tools in
# $FUSE_BUILD_DIR (default build/), the Python test packages and cc:
#
#   import        binary models: examples/avgpool_relu.onnx, every case of
#                 test/Import/Inputs/make_model.py, the test/Numerics models
#                 and the .onnxtxt tests converted to binary
#   import-text   the .onnxtxt files of test/ and the ONNX text models inside
#                 the lit tests (split-file sections)
#   artifact      test/Runtime/Inputs/make_artifact.py models (CPU with the
#                 kernels of kernels.c, with and without metadata; CUDA with
#                 PTX, with cuBLASLt and cuDNN launches; a few defects) and
#                 fuse-compile of small models (--target=cpu, and
#                 --target=cuda for models with library launches)
#   tensor-files  test/Runtime/Inputs/write_inputs.py in every format
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${FUSE_BUILD_DIR:-build}
OUT=fuzz/corpus
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Inputs that once failed (regression-*) are kept: a fuzz run replays its
# whole corpus first, so CI checks them on every run.
mkdir -p "$TMP/keep"
find "$OUT" -name 'regression-*' -exec cp --parents {} "$TMP/keep" \; 2>/dev/null || true
rm -rf "$OUT"
mkdir -p "$OUT"/{import,import-text,artifact,tensor-files}
[ -d "$TMP/keep/$OUT" ] && cp -r "$TMP/keep/$OUT/." "$OUT/"

# --- import: binary models
cp examples/avgpool_relu.onnx "$OUT/import/example-avgpool_relu.onnx"
for name in $(python3 - <<'EOF'
import sys; sys.path.insert(0, "test/Import/Inputs")
import make_model; print(" ".join(sorted(make_model.CASES)))
EOF
); do
  python3 test/Import/Inputs/make_model.py "$name" "$OUT/import/model-$name.onnx"
done
for name in $(python3 test/Numerics/Inputs/models.py --list); do
  python3 test/Numerics/Inputs/models.py "$name" "$OUT/import/numerics-$name.onnx"
done

# --- import-text: .onnxtxt files and the split-file sections of lit tests
for f in $(find test -name '*.onnxtxt' | sort); do
  cp "$f" "$OUT/import-text/$(basename "$f")"
done
for t in $(grep -l '^#--- .*\.onnxtxt' -r test --include='*.test' | sort); do
  python3 - "$t" "$OUT/import-text" <<'EOF'
import os, re, sys
test, out = sys.argv[1], sys.argv[2]
prefix = os.path.splitext(os.path.basename(test))[0]
name, lines = None, []
def flush():
    if name and name.endswith(".onnxtxt"):
        with open(os.path.join(out, prefix + "-" + name), "w") as f:
            f.write("".join(lines))
for line in open(test):
    m = re.match(r"^#--- (\S+)", line)
    if m:
        flush()
        name, lines = m.group(1), []
    elif name:
        lines.append(line)
flush()
EOF
done
# The binary form of each text model, for the binary target too.
python3 - "$OUT/import-text" "$OUT/import" <<'EOF'
import os, sys
import onnx, onnx.parser
src, out = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(src)):
    if name.startswith("errors-"):
        continue  # Their binary forms add little to the text ones.
    try:
        model = onnx.parser.parse_model(open(os.path.join(src, name)).read())
    except Exception:
        continue  # A syntax-error test.
    onnx.save(model, os.path.join(out, "text-" + name.replace(".onnxtxt", ".onnx")))
EOF

# --- artifact
R=test/Runtime/Inputs
cc -shared -fPIC -O2 "$R/kernels.c" -o "$TMP/k.so"
echo "$TMP/k.so" > "$TMP/mock.ptx"
for m in relu addrelu multi dtypes choices; do
  python3 "$R/make_artifact.py" "$m" "$OUT/artifact/cpu-$m.fbin" --image "$TMP/k.so"
done
python3 "$R/make_artifact.py" relu "$OUT/artifact/cpu-relu-no-metadata.fbin" \
  --image "$TMP/k.so" --no-metadata
python3 "$R/make_artifact.py" addrelu "$OUT/artifact/cuda-addrelu-ptx.fbin" \
  --target cuda --ptx "$R/kernels.ptx"
for m in matmul conv mixed; do
  python3 "$R/make_artifact.py" "$m" "$OUT/artifact/cuda-$m.fbin" \
    --target cuda --ptx "$R/kernels.ptx"
done
for d in arena-overflow input-overlap truncated-plan weight-out-of-section \
         metadata-truncated group-out-of-range kernel-with-params; do
  python3 "$R/make_artifact.py" addrelu "$OUT/artifact/defect-$d.fbin" \
    --image "$TMP/k.so" --defect "$d"
done
for d in matmul-params-truncated operand-too-small workspace-on-input \
         matmul-overflow; do
  python3 "$R/make_artifact.py" matmul "$OUT/artifact/defect-$d.fbin" \
    --target cuda --ptx "$R/kernels.ptx" --defect "$d"
done
python3 "$R/make_artifact.py" conv "$OUT/artifact/defect-conv-out-size.fbin" \
  --target cuda --ptx "$R/kernels.ptx" --defect conv-out-size
for m in avgpool_relu elementwise_chain multi_use; do
  python3 test/Numerics/Inputs/models.py "$m" "$TMP/$m.onnx"
  "$BUILD_DIR/bin/fuse-compile" "$TMP/$m.onnx" --target=cpu \
    -o "$OUT/artifact/compiled-$m.fbin"
done
# Choices as the compiler writes them (candidates on the cpu).
python3 test/Numerics/Inputs/models.py gemm_bias_relu "$TMP/gbr.onnx"
"$BUILD_DIR/bin/fuse-compile" "$TMP/gbr.onnx" --target=cpu --candidates \
  -o "$OUT/artifact/compiled-candidates.fbin"
# Library launches as the compiler writes them (PTX only: no ptxas needed).
for m in gemm_bias_relu conv_bias_relu; do
  python3 test/Numerics/Inputs/models.py "$m" "$TMP/$m.onnx"
  "$BUILD_DIR/bin/fuse-compile" "$TMP/$m.onnx" --target=cuda \
    -o "$OUT/artifact/compiled-cuda-$m.fbin"
done

# --- tensor-files
for f in npz npz-compressed npy npy-v2 npy-v3 npy-fortran npy-bigendian \
         pb pb-typed pb-unpacked pb-unnamed; do
  ext=${f%%-*}
  python3 "$R/write_inputs.py" multi "$f=$OUT/tensor-files/multi-$f.$ext"
done
(cd "$R" && python3 write_inputs.py dtypes "npz=$ROOT/$OUT/tensor-files/dtypes.npz")

for d in "$OUT"/*/; do
  echo "corpus $(basename "$d"): $(ls "$d" | wc -l) files," \
    "$(cat "$d"/* | wc -c) bytes"
done
