"""Code that runs as a test: inside a function pytest or unittest collects by its name.

    def test_1_2_backward(self):                     gpytorch's test/functions/test_matern_covariance.py
        torch.autograd.gradcheck(f, (x1, x2, lengthscale))
    class TestTorchNumericalCheck(ANITestCase):      TorchANI's tests/test_gradcheck.py
        def testAutograd(self): ...

Advice about a training loop's speed (autograd's debugging aids left on) says nothing about such
code: checking gradients is what the test is for. A script's own `def test(model, loader)` (the
evaluation loop of pytorch/examples' MNIST) is no test: a bare `test*` name counts only for a
method of a class named for tests.
"""
from __future__ import annotations

from astroid import nodes

_TEST_PREFIX = "test"  # pytest's python_functions default and unittest's testMethodPrefix


def in_test_function(node: nodes.NodeNG) -> bool:
    """Is `node` inside a function (or a function nested in one) named as a test: `test_*`, or
    `test*` as a method of a class whose name says Test?"""
    scope = node.scope()
    while not isinstance(scope, nodes.Module):
        if isinstance(scope, nodes.FunctionDef) and _test_name(scope):
            return True
        scope = scope.parent.scope()
    return False


def _test_name(function: nodes.FunctionDef) -> bool:
    if function.name.startswith(_TEST_PREFIX + "_"):
        return True
    owner = function.parent
    return function.name.startswith(_TEST_PREFIX) and isinstance(owner, nodes.ClassDef) and "Test" in owner.name
