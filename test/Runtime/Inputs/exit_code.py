#!/usr/bin/env python3
"""Runs a command and checks its exit status.

    exit_code.py EXPECTED COMMAND [ARG...]

Passes the command's output through and exits 0 if its exit status is
EXPECTED, 1 otherwise (a death by signal is never expected). lit's `not`
only tells zero from non-zero; fuse-run's 1 (error) and 2 (usage) differ.
"""

import subprocess
import sys

expected = int(sys.argv[1])
result = subprocess.run(sys.argv[2:])
if result.returncode != expected:
    what = (f"killed by signal {-result.returncode}" if result.returncode < 0
            else f"exit status {result.returncode}")
    print(f"exit_code.py: expected exit status {expected}, got {what}",
          file=sys.stderr)
    sys.exit(1)
