#!/usr/bin/env bash
# On the GPU machine: the Python session's cost per call over fuse-run, and
# its outputs against fuse-run's (python_session.py). Builds the runtime's
# Python module there (nanobind and Python's headers are on the machine;
# its Python is not this machine's), takes fuse-run from .device/runtime
# and fuse-compile from .device/compiler, both carried over:
#
#   here:  bench/prepare_device.sh (or only its runtime part) and
#          bench/models/build_static_compiler.sh
#   there: bench/python_session/run.sh    (carry .device/runtime,
#                                          .device/compiler, .device/version)
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK=${FUSE_BENCH_DIR:-/tmp/python_session}
PKG=$WORK/package/fuse
mkdir -p "$PKG"
. bench/models/unpack_compiler.sh

# The module: the runtime's sources, nanobind's, one compiler call.
NB=$(python3 -c "import nanobind, os; print(os.path.dirname(nanobind.__file__))")
PYINC=$(python3 -c "import sysconfig; print(sysconfig.get_paths()['include'])")
SUFFIX=$(python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
t0=$(date +%s)
c++ -O2 -shared -fPIC -std=c++17 -fvisibility=hidden -w \
  -I"$NB/include" -I"$NB/ext/robin_map/include" -I"$PYINC" \
  -Iruntime/include -Iruntime/lib -Iinclude \
  python/src/RuntimeModule.cpp "$NB/src/nb_combined.cpp" runtime/lib/*.cpp \
  .device/version/FuseVersion.cpp -o "$PKG/_runtime$SUFFIX" -ldl
echo "module built in $(( $(date +%s) - t0 )) s"
cp python/fuse/*.py "$PKG/"
# The compiler module is not built there: the package imports it lazily.
PYTHONPATH=$WORK/package PYTHONUNBUFFERED=1 \
  python3 bench/python_session/python_session.py --work "$WORK" "$@"
