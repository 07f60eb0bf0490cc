#!/usr/bin/env python3
"""Mutates a valid artifact and checks that fuse-run never crashes.

    fuzz.py FUSE_RUN ARTIFACT WORKDIR [--count N] [--seed S] [--input FILE]
            [--no-check]

Each mutation (truncation, random bytes anywhere, random header fields,
and random bytes or fields in the section table and Plan section *with the
checksum fixed*, so that they get past it to the parser and validator) is
written to WORKDIR and run with `fuse-run --check`; the exit status must be
0 or 1, never a signal, and an error must come as an "error: " message (and
no stand-in library may complain of memory outside the device's). The
kernel image is never mutated behind a fixed checksum: it is code, which
the runtime runs and cannot validate (see docs/artifact-format.md).

With --no-check, the mutants are run without --check (one run of "main",
for artifacts without a reference plan). With --input FILE, the input file (.npz, .npy, .pb) is mutated instead
(truncations and random bytes) and passed to `fuse-run ARTIFACT --inputs`.
"""

import argparse
import os
import random
import struct
import subprocess
import sys

import make_artifact

INTERESTING = [0, 1, 2, 3, 7, 8, 9, 63, 64, 65, 255, 0x7FFFFFFF, 0x80000000,
               0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 1 << 40, 1 << 63]


def plan_section(data):
    """[start, end) of the Plan section in a valid artifact."""
    n = struct.unpack_from("<I", data, 32)[0]
    for i in range(n):
        kind, _, offset, size = struct.unpack_from("<IIQQ", data, 64 + 24 * i)
        if kind == 1:
            return offset, offset + size
    raise ValueError("no Plan section")


def fix_checksum(data):
    checksum = make_artifact.fnv1a64(bytes(data[64:]))
    struct.pack_into("<Q", data, 24, checksum)


def mutate(rng, original, plan, choice=None):
    data = bytearray(original)
    if choice is None:
        choice = rng.randrange(6)
    if choice == 0:  # Truncate.
        return data[:rng.randrange(len(data))], "truncate"
    if choice == 1:  # Random bytes anywhere; the checksum catches them.
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return data, "bytes"
    if choice == 2:  # A header field (not under the checksum).
        at = rng.choice([8, 12, 16, 24, 32, 36, 40, 63])
        width = 8 if at in (16, 24) else 4 if at < 40 else 1
        value = rng.choice(INTERESTING) & ((1 << (8 * width)) - 1)
        data[at:at + width] = value.to_bytes(width, "little")
        return data, "header"
    # Behind a fixed checksum: the section table and the Plan section.
    start, end = (64, plan[0]) if choice == 3 else plan
    if choice == 5:  # A 4- or 8-byte field set to an interesting value.
        width = rng.choice([4, 8])
        at = rng.randrange(start, max(start + 1, end - width))
        value = rng.choice(INTERESTING) & ((1 << (8 * width)) - 1)
        data[at:at + width] = value.to_bytes(width, "little")
    else:
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(start, end)] = rng.randrange(256)
    fix_checksum(data)
    return data, "checksummed"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("fuse_run")
    parser.add_argument("artifact")
    parser.add_argument("workdir")
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--input")
    parser.add_argument("--no-check", action="store_true")
    args = parser.parse_args()

    target = args.input or args.artifact
    original = open(target, "rb").read()
    plan = None if args.input else plan_section(original)
    rng = random.Random(args.seed)
    os.makedirs(args.workdir, exist_ok=True)
    path = os.path.join(args.workdir, "mutant" + os.path.splitext(target)[1])
    command = ([args.fuse_run, args.artifact, "--inputs", path]
               if args.input else
               [args.fuse_run, path] + ([] if args.no_check else ["--check"]))
    counts = {0: 0, 1: 0}
    for i in range(args.count):
        if args.input:  # Truncations and random bytes, as in files.
            data, how = mutate(rng, original, None, rng.randrange(2))
        else:
            data, how = mutate(rng, original, plan)
        with open(path, "wb") as f:
            f.write(data)
        result = subprocess.run(command,
                                capture_output=True, text=True, errors="replace",
                                timeout=60)
        code = result.returncode
        stderr = result.stderr.strip()
        # The stand-in libraries (mock_libraries.c) say so when a call is
        # given memory outside the device's: validation let a bad operand
        # through.
        bad = code not in (0, 1) or (
            code == 1 and "check: FAIL" not in result.stdout and
            not stderr.startswith("error: ")) or \
            "is not device memory" in stderr
        if bad:
            keep = os.path.join(args.workdir, f"crash-{i}-" +
                                os.path.basename(path))
            os.replace(path, keep)
            print(f"fuzz: mutation {i} ({how}) exit status {code}, saved "
                  f"as {keep}\nstdout: {result.stdout}\nstderr: {stderr}")
            return 1
        counts[code] += 1
    print(f"fuzz: {args.count} mutations, {counts[1]} rejected, "
          f"{counts[0]} ran, no crashes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
