#!/usr/bin/env bash
# Builds a fuse-compile that runs on the GPU machine (no LLVM there): LLVM
# linked statically (-DFUSE_STATIC_LLVM=ON, in build-static/), stripped,
# and xz-compressed (66 MB -> 15 MB: a device call carries 64 MiB), with
# the libonnx/libprotobuf it loads next to it:
#   .device/compiler/bin/fuse-compile.xz, .device/compiler/lib/*.so*
# bench/models/device_models.sh unpacks it on the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${FUSE_STATIC_BUILD_DIR:-build-static}
OUT=.device/compiler

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DPython3_EXECUTABLE="$(command -v python3)" -DFUSE_STATIC_LLVM=ON
fi
cmake --build "$BUILD" --target fuse-compile

rm -rf "$OUT" && mkdir -p "$OUT/bin" "$OUT/lib"
strip -o "$OUT/bin/fuse-compile" "$BUILD/bin/fuse-compile"
# The shared libraries it still needs that a stock Ubuntu lacks.
for lib in $(ldd "$BUILD/bin/fuse-compile" | awk '/=>/ {print $3}'); do
  case "$(basename "$lib")" in
    libonnx*|libprotobuf*) cp -L "$lib" "$OUT/lib/" ;;
    libLLVM*) echo "error: $lib is still linked dynamically" >&2; exit 1 ;;
  esac
done
ldd "$OUT/bin/fuse-compile" | awk '{print "  " $1}'
xz -T2 -6 -f "$OUT/bin/fuse-compile"
du -sh "$OUT"
