"""Code that runs as a test: inside a function pytest or unittest collects by its name.

    def test_1_2_backward(self):                     gpytorch's test/functions/test_matern_covariance.py
        torch.autograd.gradcheck(f, (x1, x2, lengthscale))
    class TestTorchNumericalCheck(ANITestCase):      TorchANI's tests/test_gradcheck.py
        def testAutograd(self): ...

Advice about a training loop's speed (autograd's debugging aids left on) says nothing about such
code: checking gradients is what the test is for. A script's own `def test(model, loader)` (the
evaluation loop of pytorch/examples' MNIST) is no test: a bare `test*` name counts only for a
method of a class named for tests.

A test module's helper named for a reference (`_reference_impl`, `rms_norm_ref`,
`gmm_swiglu_quant_golden_a8_w4`, `_cpu_rms_norm`, `_torch_vsa256_reference`: vllm-ascend's and
FastVideo's kernel tests) computes the golden output a kernel is compared with, as the test
function itself would (`in_reference_helper`). A module counts as a test module when it defines a
test function; outside one, a function named so may be the path that runs on the NPU
(FastVideo's `_compute_sparse_attention_reference` where flash-attn is missing).
"""
from __future__ import annotations

import weakref

from astroid import nodes

from npu_lint.analysis.names import identifier_words

_TEST_PREFIX = "test"  # pytest's python_functions default and unittest's testMethodPrefix
# What a test module calls the pure-torch form it checks a kernel with.
_REFERENCE_WORDS = frozenset({"ref", "reference", "golden", "naive", "baseline", "expected", "cpu", "torch",
                              "pytorch", "native"})
_TEST_MODULES: "weakref.WeakKeyDictionary[nodes.Module, bool]" = weakref.WeakKeyDictionary()


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


def in_reference_helper(node: nodes.NodeNG) -> bool:
    """Is `node` inside a function named for a reference (see the module doc) of a module that
    defines a test function?"""
    scope = node.scope()
    while not isinstance(scope, nodes.Module):
        if isinstance(scope, nodes.FunctionDef) and not _REFERENCE_WORDS.isdisjoint(identifier_words(scope.name)):
            return _defines_tests(scope.root())
        scope = scope.parent.scope()
    return False


def _defines_tests(module: nodes.Module) -> bool:
    known = _TEST_MODULES.get(module)
    if known is None:
        known = _TEST_MODULES[module] = any(
            isinstance(statement, nodes.FunctionDef) and _test_name(statement)
            or isinstance(statement, nodes.ClassDef) and any(
                isinstance(member, nodes.FunctionDef) and _test_name(member) for member in statement.body)
            for statement in module.body)
    return known

