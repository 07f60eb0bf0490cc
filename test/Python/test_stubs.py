"""The type stubs name what the modules define."""

import ast
import os

import pytest

import fuse


@pytest.mark.parametrize("module", ["_runtime", "_compiler"])
def test_stubs_match(module):
    mod = getattr(__import__("fuse." + module), module)
    path = os.path.join(os.path.dirname(fuse.__file__), module + ".pyi")
    tree = ast.parse(open(path).read())
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            assert hasattr(mod, node.name), node.name
        if isinstance(node, ast.ClassDef):
            cls = getattr(mod, node.name)
            for member in node.body:
                if isinstance(member, ast.FunctionDef) and \
                        member.name != "__init__":
                    assert hasattr(cls, member.name), \
                        f"{node.name}.{member.name}"
