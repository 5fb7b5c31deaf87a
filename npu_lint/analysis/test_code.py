"""Code that runs as a test: inside a function pytest or unittest collects by its name.

    def test_1_2_backward(self):                     gpytorch's test/functions/test_matern_covariance.py
        torch.autograd.gradcheck(f, (x1, x2, lengthscale))
    class TestTorchNumericalCheck(ANITestCase):      TorchANI's tests/test_gradcheck.py
        def testAutograd(self): ...

Advice about a training loop's speed (autograd's debugging aids left on) says nothing about such
code: checking gradients is what the test is for. A script's own `def test(model, loader)` (the
evaluation loop of pytorch/examples' MNIST) is no test: a bare `test*` name counts only for a
method of a class named for tests. The set-up and tear-down methods of such a class and pytest's
fixtures run only for tests too:

    class ModelCheckpointTest:                       Poutyne's tests/framework/callbacks/test_checkpoint.py
        def setup_method(self):
            self.optimizer = torch.optim.SGD(self.pytorch_network.parameters(), lr=1e-3)
"""
from __future__ import annotations

from astroid import nodes

_TEST_PREFIX = "test"  # pytest's python_functions default and unittest's testMethodPrefix
# What unittest and pytest's xunit-style hooks call around a test class's tests.
_SET_UP_NAMES = frozenset({
    "setUp", "tearDown", "setUpClass", "tearDownClass", "asyncSetUp", "asyncTearDown",
    "setup_method", "teardown_method", "setup_class", "teardown_class",
})
_FIXTURE_DECORATORS = frozenset({"fixture", "pytest.fixture", "pytest_asyncio.fixture"})


def in_test_function(node: nodes.NodeNG) -> bool:
    """Is `node` inside a function (or a function nested in one) that runs only for tests: named
    `test_*`; `test*`, a set-up or a tear-down method of a class whose name says Test; a pytest
    fixture?"""
    scope = node.scope()
    while not isinstance(scope, nodes.Module):
        if isinstance(scope, nodes.FunctionDef) and _test_name(scope):
            return True
        scope = scope.parent.scope()
    return False


def _test_name(function: nodes.FunctionDef) -> bool:
    if function.name.startswith(_TEST_PREFIX + "_") or _is_fixture(function):
        return True
    owner = function.parent
    if not (isinstance(owner, nodes.ClassDef) and "Test" in owner.name):
        return False
    return function.name.startswith(_TEST_PREFIX) or function.name in _SET_UP_NAMES


def _is_fixture(function: nodes.FunctionDef) -> bool:
    for decorator in function.decorators.nodes if function.decorators else ():
        if isinstance(decorator, nodes.Call):
            decorator = decorator.func
        if decorator.as_string() in _FIXTURE_DECORATORS:
            return True
    return False
