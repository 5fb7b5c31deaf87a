"""Code that runs as a test: inside a function pytest or unittest collects by its name.

    def test_1_2_backward(self):                     gpytorch's test/functions/test_matern_covariance.py
        torch.autograd.gradcheck(f, (x1, x2, lengthscale))
    class TestTorchNumericalCheck(ANITestCase):      TorchANI's tests/test_gradcheck.py
        def testAutograd(self): ...

Advice about a training loop's speed (autograd's debugging aids left on) says nothing about such
code: checking gradients is what the test is for. A script's own `def test(model, loader)` (the
evaluation loop of pytorch/examples' MNIST) is no test: a bare `test*` name counts only for a
method of a class named for tests. The set-up and tear-down methods of such a class and pytest's
fixtures run only for tests too, and so does every method of a class pytest collects for its
`test*` methods, and a private `_test_*` body that a test module's tests call:

    class ModelCheckpointTest:                       Poutyne's tests/framework/callbacks/test_checkpoint.py
        def setup_method(self):
            self.optimizer = torch.optim.SGD(self.pytorch_network.parameters(), lr=1e-3)

A test's expectation can mirror a text the test feeds to the code under test: lm-eval 0.4.13's
tests/test_cli_subcommands.py parses `"pretrained=gpt2,device=cuda"` and asserts
`args.model_args == {"pretrained": "gpt2", "device": "cuda"}`, and writes a YAML document with
`device: cuda:1` and asserts `cfg.device == "cuda:1"`. No fix edits the text, so a renamed
expectation alone fails the test.

A test module's helper named for a reference (`_reference_impl`, `rms_norm_ref`,
`gmm_swiglu_quant_golden_a8_w4`, `_cpu_rms_norm`, `_torch_vsa256_reference`: vllm-ascend's and
FastVideo's kernel tests) computes the golden output a kernel is compared with, as the test
function itself would (`in_reference_helper`). A module counts as a test module when it defines a
test function; outside one, a function named so may be the path that runs on the NPU
(FastVideo's `_compute_sparse_attention_reference` where flash-attn is missing).
"""
from __future__ import annotations

import re
import weakref

from astroid import nodes

from npu_lint.analysis.arguments import argument_role, is_docstring
from npu_lint.analysis.names import identifier_words

_TEST_PREFIX = "test"  # pytest's python_functions default and unittest's testMethodPrefix
# What unittest and pytest's xunit-style hooks call around a test class's tests.
_SET_UP_NAMES = frozenset({
    "setUp", "tearDown", "setUpClass", "tearDownClass", "asyncSetUp", "asyncTearDown",
    "setup_method", "teardown_method", "setup_class", "teardown_class",
})
_FIXTURE_DECORATORS = frozenset({"fixture", "pytest.fixture", "pytest_asyncio.fixture"})
# What a test module calls the pure-torch form it checks a kernel with.
_REFERENCE_WORDS = frozenset({"ref", "reference", "golden", "naive", "baseline", "expected", "cpu", "torch",
                              "pytorch", "native"})
_TEST_MODULES: "weakref.WeakKeyDictionary[nodes.Module, bool]" = weakref.WeakKeyDictionary()


def in_test_function(node: nodes.NodeNG) -> bool:
    """Is `node` inside a function (or a function nested in one) that runs only for tests: named
    `test_*`; `test*`, a set-up or a tear-down method of a class whose name says Test; a pytest
    fixture?"""
    return _test_function(node) is not None


def for_test(node: nodes.NodeNG) -> bool:
    """Is `node` inside a test function, or in a decorator of one (sbi's
    tests/user_input_checks_test.py: `@pytest.mark.parametrize("prior", [BoxUniform(zeros(3,
    dtype=torch.float64), ...)])`, values that only the test is called with)?"""
    if in_test_function(node):
        return True
    holder = node.parent
    while holder is not None and not isinstance(holder, (nodes.Decorators, nodes.Module)):
        holder = holder.parent
    function = holder.parent if isinstance(holder, nodes.Decorators) else None
    return isinstance(function, nodes.FunctionDef) and (
        _test_name(function) or _private_test_body(function) or in_test_function(function))


def _test_function(node: nodes.NodeNG) -> nodes.FunctionDef | None:
    """The innermost function around `node` that runs only for tests, if any."""
    scope = node.scope()
    while not isinstance(scope, nodes.Module):
        if isinstance(scope, nodes.FunctionDef) and (_test_name(scope) or _private_test_body(scope)):
            return scope
        scope = scope.parent.scope()
    return None


def _test_name(function: nodes.FunctionDef) -> bool:
    if function.name.startswith(_TEST_PREFIX + "_") or _is_fixture(function):
        return True
    owner = function.parent
    if not (isinstance(owner, nodes.ClassDef) and "Test" in owner.name):
        return False
    return function.name.startswith(_TEST_PREFIX) or function.name in _SET_UP_NAMES \
        or _collected_test_class(owner)


def _collected_test_class(owner: nodes.ClassDef) -> bool:
    """A class pytest collects (named `Test...`, pytest's python_classes default) that holds tests:
    every method of it, helpers included (composer's tests/test_events.py: `TestEventCalls.get_trainer`
    builds the Trainer each test runs), runs only for those tests. MONAI's `TestTimeAugmentation`, a
    transform with no test methods, is no such class."""
    return owner.name.startswith("Test") and any(
        isinstance(member, nodes.FunctionDef) and member.name.startswith(_TEST_PREFIX) for member in owner.body)


def _private_test_body(function: nodes.FunctionDef) -> bool:
    """`_test_auto_model_optimizer(ws, device)` in a module that defines tests (pytorch-ignite's
    tests call such a private `_test_*` body once per device and backend): pytest does not collect
    it, the module's tests run it."""
    return function.name.startswith("_") and function.name.lstrip("_").startswith(_TEST_PREFIX + "_") \
        and _defines_tests(function.root())


def _is_fixture(function: nodes.FunctionDef) -> bool:
    for decorator in function.decorators.nodes if function.decorators else ():
        if isinstance(decorator, nodes.Call):
            decorator = decorator.func
        if decorator.as_string() in _FIXTURE_DECORATORS:
            return True
    return False


def expected_by_test(node: nodes.NodeNG) -> bool:
    """Is `node` part of what an `assert` in a test function expects (not its message)? OpenRLHF
    0.11.2's tests/test_ray_env_vars.py: `assert env_vars["NCCL_DEBUG"] == "INFO"` checks the
    environment its launcher hands to Ray, where that launcher sets it."""
    return _expected_by_assert(node) and in_test_function(node)


def expects_value_of_test_text(node: nodes.NodeNG, value: str) -> bool:
    """Is `node`, whose string is `value`, part of what an `assert` in a test function expects,
    while the same test holds `value` only inside a longer text (a command line, a YAML document)
    that it hands over: neither prose (an assert's or a log's message) nor a docstring?"""
    function = _test_function(node) if _expected_by_assert(node) else None
    if function is None:
        return False
    word = re.compile(r"(?<![\w.:/-])" + re.escape(value) + r"(?![\w:])")
    for text in function.nodes_of_class(nodes.Const):
        if not isinstance(text.value, str) or len(text.value) <= len(value) or not word.search(text.value):
            continue
        holder = text.statement()
        if isinstance(holder, nodes.Assert) or is_docstring(text) or argument_role(text) == "prose":
            continue
        return True
    return False


def _expected_by_assert(node: nodes.NodeNG) -> bool:
    """Is `node` in the test of an `assert` statement (not in its message)?"""
    statement = node.statement()
    return isinstance(statement, nodes.Assert) and not (
        statement.fail is not None and (node is statement.fail or statement.fail.parent_of(node)))


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
