"""Imports that get a test's stand-in, not the library: the module is replaced in `sys.modules` while
they run (pytorch-ignite 0.5's tests/ignite/metrics/test_gpu_info.py):

    @pytest.fixture
    def mock_pynvml_module():
        with patch.dict("sys.modules", {"pynvml": Mock(name="pynvml"), "pynvml.smi": Mock(...)}):
            import pynvml                                   # the Mock
            from pynvml.smi import nvidia_smi
            nvidia_smi.getInstance = Mock(side_effect=getInstance)
            yield pynvml

    def test_gpu_info_mock(mock_pynvml_module, ...):
        from pynvml.smi import nvidia_smi                   # the fixture's Mock too

Python's import returns what `sys.modules` holds, so these imports and the names they bind run
nothing of the CUDA library: the test works on a host without it, NPU hosts included. An import
inside the `with patch.dict(...)` block is one; so is an import in a test (or a function nested in
one) that takes, as a parameter, a fixture of the same module that yields inside such a block.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.names import last_name


def imports_stand_in(stmt: nodes.Import | nodes.ImportFrom) -> bool:
    """Does every module `stmt` imports come from a stand-in put in `sys.modules` around it?"""
    names = [stmt.modname] if isinstance(stmt, nodes.ImportFrom) else [name for name, _alias in stmt.names]
    if isinstance(stmt, nodes.ImportFrom) and stmt.level:
        return False
    return all(_stood_in(stmt, name) for name in names)


def _stood_in(node: nodes.NodeNG, module: str) -> bool:
    for ancestor in node.node_ancestors():
        if isinstance(ancestor, nodes.With) and _replaces(ancestor, module):
            return True
        if isinstance(ancestor, (nodes.FunctionDef, nodes.AsyncFunctionDef)) \
                and any(_fixture_replaces(ancestor.root(), arg.name, module) for arg in ancestor.args.args or ()):
            return True
    return False


def _fixture_replaces(module_node: nodes.Module, name: str, module: str) -> bool:
    """Is `name` a pytest fixture of the module that yields while `module` is replaced?"""
    for statement in module_node.body:
        if isinstance(statement, nodes.FunctionDef) and statement.name == name and _is_fixture(statement):
            return any(_replaces(block, module) and any(True for _ in block.nodes_of_class(nodes.Yield))
                       for block in statement.nodes_of_class(nodes.With))
    return False


def _is_fixture(function: nodes.FunctionDef) -> bool:
    decorators = function.decorators.nodes if function.decorators else ()
    return any(last_name(decorator.func if isinstance(decorator, nodes.Call) else decorator) == "fixture"
               for decorator in decorators)


def _replaces(block: nodes.With, module: str) -> bool:
    """`with patch.dict("sys.modules", {"pynvml": Mock(), ...}):` (also `mock.patch.dict(sys.modules,
    ...)`) naming `module` or a package above it."""
    for item, _alias in block.items:
        if not (isinstance(item, nodes.Call) and isinstance(item.func, nodes.Attribute)
                and item.func.attrname == "dict" and last_name(item.func.expr) == "patch"
                and len(item.args) >= 2 and _is_sys_modules(item.args[0]) and isinstance(item.args[1], nodes.Dict)):
            continue
        keys = [key.value for key, _value in item.args[1].items
                if isinstance(key, nodes.Const) and isinstance(key.value, str)]
        if any(module == key or module.startswith(key + ".") for key in keys):
            return True
    return False


def _is_sys_modules(node: nodes.NodeNG) -> bool:
    if isinstance(node, nodes.Const):
        return node.value == "sys.modules"
    return isinstance(node, nodes.Attribute) and node.attrname == "modules" \
        and isinstance(node.expr, nodes.Name) and node.expr.name == "sys"

