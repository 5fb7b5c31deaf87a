"""Code that runs as a test: inside a function pytest or unittest collects by its name.

    def test_1_2_backward(self):                     gpytorch's test/functions/test_matern_covariance.py
        torch.autograd.gradcheck(f, (x1, x2, lengthscale))
    def testAutograd(self):                          TorchANI's tests/test_gradcheck.py

Advice about a training loop's speed (autograd's debugging aids left on) says nothing about such
code: checking gradients is what the test is for.
"""
from __future__ import annotations

from astroid import nodes

_TEST_PREFIX = "test"  # pytest's python_functions default and unittest's testMethodPrefix


def in_test_function(node: nodes.NodeNG) -> bool:
    """Is `node` inside a function (or a function nested in one) named as a test (`test_*`, `test*`)?"""
    scope = node.scope()
    while not isinstance(scope, nodes.Module):
        if isinstance(scope, nodes.FunctionDef) and scope.name.startswith(_TEST_PREFIX):
            return True
        scope = scope.parent.scope()
    return False
