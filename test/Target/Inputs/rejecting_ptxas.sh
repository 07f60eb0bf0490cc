#!/bin/sh
# ptxas as a CUDA toolkit's bin/ptxas, for tests: the kernels whose names
# match $REJECT_KERNELS (a sed basic regular expression) get a shared
# buffer past the 48 KiB a block may declare, so that the real ptxas
# ($REAL_PTXAS) rejects them as it rejects such a kernel: "Entry function
# 'k2_contraction_epilogue' uses too much shared data".
for arg; do
  case $arg in
  *.ptx) sed -i "s/\(__wg_\(${REJECT_KERNELS}\)_0\)\[[0-9]*\]/\1[65536]/" "$arg" ;;
  esac
done
exec "$REAL_PTXAS" "$@"
