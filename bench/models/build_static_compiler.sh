#!/usr/bin/env bash
# Builds a fuse-compile that runs on the GPU machine (no LLVM there): the
# regular build's link of fuse-compile, redone with libLLVM.so replaced by
# LLVM's static archives (`llvm-config --link-static --libfiles`, Polly
# left out), stripped and xz-compressed (about 66 MB -> 15 MB: a device
# call carries 64 MiB), with the libonnx/libprotobuf it loads next to it:
#   .device/compiler/bin/fuse-compile.xz, .device/compiler/lib/*.so*
# bench/models/device_models.sh unpacks it on the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${FUSE_BUILD_DIR:-build}
OUT=.device/compiler
LLVM_CONFIG=${LLVM_CONFIG:-/usr/lib/llvm-22/bin/llvm-config}

./scripts/build.sh >/dev/null
link=$(cd "$BUILD" && ninja -t commands bin/fuse-compile | tail -1)
dylib=$("$LLVM_CONFIG" --libdir)/libLLVM.so.1
case "$link" in
  *"$dylib"*) ;;
  *) echo "error: the link of fuse-compile does not use $dylib" >&2; exit 1 ;;
esac
archives=$("$LLVM_CONFIG" --link-static --libfiles | tr ' ' '\n' |
           grep -v Polly | tr '\n' ' ')
# z3 and libxml2 (in --system-libs) serve parts of LLVM fuse never pulls in.
static="-Wl,--start-group $archives -Wl,--end-group -lrt -ldl -lm -lz -lzstd"
link=${link//"$dylib"/$static}
link=${link//"-o bin/fuse-compile "/"-o bin/fuse-compile-static "}
(cd "$BUILD" && eval "$link")

rm -rf "$OUT" && mkdir -p "$OUT/bin" "$OUT/lib"
strip -o "$OUT/bin/fuse-compile" "$BUILD/bin/fuse-compile-static"
for lib in $(ldd "$OUT/bin/fuse-compile" | awk '/=>/ {print $3}'); do
  case "$(basename "$lib")" in
    libonnx*|libprotobuf*) cp -L "$lib" "$OUT/lib/" ;;
    libLLVM*) echo "error: $lib is still linked dynamically" >&2; exit 1 ;;
  esac
done
echo "fuse-compile needs:"
ldd "$OUT/bin/fuse-compile" | awk '{print "  " $1}'
"$OUT/bin/fuse-compile" --help >/dev/null
xz -T2 -6 -f "$OUT/bin/fuse-compile"
du -sh "$OUT"
