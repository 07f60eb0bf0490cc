"""pytest setup for the Python package's tests (test/Python).

The package comes from $FUSE_PYTHON_PATH when it is set (check-fuse-python
sets it to the build tree's python_packages), else from build/python_packages
of this checkout when it exists, else from wherever Python finds an installed
`fuse`; FUSE_PYTHON_PATH=installed forces the last.
"""

import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
_path = os.environ.get("FUSE_PYTHON_PATH")
if _path is None:
    candidate = os.path.join(ROOT, "build", "python_packages")
    _path = candidate if os.path.isdir(candidate) else "installed"
if _path != "installed":
    sys.path.insert(0, os.path.abspath(_path))

# The model builders of the lit numerics tests.
sys.path.insert(0, os.path.join(ROOT, "test", "Numerics", "Inputs"))


def pytest_report_header(config):
    spec = importlib.util.find_spec("fuse")
    return "fuse package: " + (spec.origin if spec else "not found")

