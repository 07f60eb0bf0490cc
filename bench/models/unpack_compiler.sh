# Sourced on the GPU machine from the repository's root: unpacks the static
# fuse-compile that build_static_compiler.sh packed (.device/compiler, xz:
# a device call carries 64 MiB) and puts its libonnx/libprotobuf on the
# library path.
if [ ! -x .device/compiler/bin/fuse-compile ]; then
  python3 -c "import lzma, shutil, sys
with lzma.open(sys.argv[1]) as src, open(sys.argv[2], 'wb') as dst:
    shutil.copyfileobj(src, dst)" .device/compiler/bin/fuse-compile.xz \
    .device/compiler/bin/fuse-compile
  chmod +x .device/compiler/bin/fuse-compile
fi
export LD_LIBRARY_PATH=$PWD/.device/compiler/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
