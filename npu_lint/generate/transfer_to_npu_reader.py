"""Static reading of `torch_npu/contrib/transfer_to_npu.py`: what the runtime patch rewrites.

The patch is one `_init()` that calls helpers; the reader follows the module-level functions that
`_init` calls as statements and classifies what they do to torch:
- module-level string lists (`torch_fn_white_list`, `device_kwargs_list`, ...);
- `patches = [['cuda', torch_npu.npu], ...]` handed to `_apply_patches` (paths relative to `torch`);
- `torch.X = torch.Y` (alias) and `torch.X = wrapper(torch.X)` (the callable is wrapped);
- `_device_wrapper(target, names)`: each `target.name` is wrapped with the wrapper it applies;
- `'old'.replace`-style rewrites (`'cuda' -> 'npu'`, `'nccl' -> 'hccl'`) done inside each wrapper.
Everything else that touches torch is returned as an "unread" note, for a human to look at.
"""
from __future__ import annotations

import ast
from collections import defaultdict
from typing import Dict, List, Optional, Set, Tuple

from npu_lint.generate.ast_reading import dotted_name, string_list

MODULE_QNAME = "torch_npu.contrib.transfer_to_npu"
EXPECTED_LISTS = (
    "torch_fn_white_list",
    "torch_tensor_fn_white_list",
    "torch_module_fn_white_list",
    "torch_cuda_fn_white_list",
    "device_kwargs_list",
)
# Helpers whose work is known and read elsewhere (apis_config.json) or that only warn.
KNOWN_HELPERS = {"_warning_fn", "_do_wrapper_libraries_func", "_load_json_file"}


class _Reader:
    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.functions: Dict[str, ast.FunctionDef] = {
            node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
        self.imports: Dict[str, str] = {}
        self.module_names: Set[str] = set()
        self.lists: Dict[str, List[str]] = {}
        self.module_patches: Dict[str, str] = {}
        self.aliases: Dict[str, str] = {}
        self.wrapped: Dict[str, Set[str]] = defaultdict(set)
        self.unread: List[str] = []
        self.notes: List[str] = []
        self._collect_module_level()

    # -- names -------------------------------------------------------------------------------
    def _collect_imports(self, statements) -> None:
        for node in statements:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imports[alias.asname] = alias.name
                    else:  # `import a.b` binds `a`
                        root = alias.name.split(".")[0]
                        self.imports[root] = root
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def _collect_module_level(self) -> None:
        self._collect_imports(self.tree.body)
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                self.module_names.add(node.name)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name):
                name = node.targets[0].id
                self.module_names.add(name)
                values = string_list(node.value)
                if values is not None and name != "__all__":
                    self.lists[name] = values
                elif name.endswith("_list"):
                    self.notes.append(f"module-level {name} is not a literal string list")
        for name in EXPECTED_LISTS:
            if name not in self.lists:
                self.notes.append(f"no literal module-level list {name}")

    def qualify(self, node: ast.AST) -> Optional[str]:
        """The absolute dotted name an expression refers to, or None for a local variable."""
        dotted = dotted_name(node)
        if dotted is None:
            return None
        root, _, rest = dotted.partition(".")
        if root in self.imports:
            base = self.imports[root]
        elif root in self.module_names:
            base = f"{MODULE_QNAME}.{root}"
        else:
            return None
        return f"{base}.{rest}" if rest else base

    # -- walking -----------------------------------------------------------------------------
    def read(self) -> None:
        if "_init" not in self.functions:
            self.notes.append("no _init() function: patch targets not read")
            return
        seen: Set[str] = set()
        queue = ["_init"]
        while queue:
            name = queue.pop(0)
            if name in seen:
                continue
            seen.add(name)
            function = self.functions[name]
            self._collect_imports(ast.walk(function))
            queue.extend(self._read_block(function.body, name, follow_calls=True))

    def _read_block(self, statements, where: str, follow_calls: bool) -> List[str]:
        """Classify statements; return the module-level helpers to read next.

        Calls are followed only from the patching functions themselves: a nested def is a
        replacement that runs later, so its assignments count but its calls are its own logic.
        """
        called: List[str] = []
        for node in statements:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                self._read_assign(node.targets[0], node.value, node, where)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                if follow_calls:
                    called.extend(self._read_call(node.value, node, where))
            elif isinstance(node, (ast.If, ast.With, ast.For, ast.While)):
                called.extend(self._read_block(node.body, where, follow_calls))
                called.extend(self._read_block(getattr(node, "orelse", []), where, follow_calls))
            elif isinstance(node, ast.Try):
                for block in (node.body, node.orelse, node.finalbody):
                    called.extend(self._read_block(block, where, follow_calls))
                for handler in node.handlers:
                    called.extend(self._read_block(handler.body, where, follow_calls))
            elif isinstance(node, ast.FunctionDef):  # runs later, e.g. through _lazy_call
                self._read_block(node.body, f"{where}.{node.name}", follow_calls=False)
            elif isinstance(node, (ast.Import, ast.ImportFrom, ast.Pass, ast.Return, ast.Global)):
                continue
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue
            elif self._touches_torch(node):
                self._unread(node, where)
        return called

    def _read_assign(self, target: ast.AST, value: ast.AST, node: ast.stmt, where: str) -> None:
        patches = self._module_patch_pairs(value)
        if patches is not None:
            for relative, replacement in patches:
                self.module_patches[f"torch.{relative}"] = replacement
            return
        target_name = self.qualify(target)
        if target_name is None:
            if self._touches_torch(node):
                self._unread(node, where)
            return
        value_name = self.qualify(value)
        if value_name is not None:
            if value_name != target_name:
                self.aliases[target_name] = value_name
            return
        wrappers = self._wrappers_of(value, target_name)
        if wrappers:
            for wrapper in wrappers:
                self.wrapped[wrapper].add(target_name)
            return
        self._unread(node, where)

    def _read_call(self, call: ast.Call, node: ast.stmt, where: str) -> List[str]:
        func = dotted_name(call.func)
        if func == "_device_wrapper" and len(call.args) == 2:
            self._read_device_wrapper(call, node, where)
            return []
        if func == "setattr" and len(call.args) == 3 and isinstance(call.args[1], ast.Constant):
            target = ast.Attribute(value=call.args[0], attr=call.args[1].value, ctx=ast.Store())
            self._read_assign(target, call.args[2], node, where)
            return []
        if func in self.functions:
            if func in KNOWN_HELPERS:
                return []
            if any(self._touches_torch(arg) for arg in call.args):
                self._unread(node, where)  # a helper patching what it is handed: not followed through
            return [func]
        if func == "_apply_patches" or (func or "").endswith("._apply_patches"):
            return []
        if self._touches_torch(node):
            self._unread(node, where)
        return []

    def _read_device_wrapper(self, call: ast.Call, node: ast.stmt, where: str) -> None:
        target = self.qualify(call.args[0])
        names_node = call.args[1]
        wrapper = self._device_wrapper_applies()
        if target is None:
            self._unread(node, where)
        elif isinstance(names_node, ast.Name) and names_node.id in self.lists:
            # Stored as a reference; the loader expands it with the list of the same release.
            self.wrapped[wrapper].add(f"{target}.{{{names_node.id}}}")
        elif string_list(names_node) is not None:
            self.wrapped[wrapper].update(f"{target}.{name}" for name in string_list(names_node))
        else:
            self._unread(node, where)

    # -- classification helpers --------------------------------------------------------------
    def _module_patch_pairs(self, value: ast.AST) -> Optional[List[Tuple[str, str]]]:
        if not isinstance(value, ast.List) or not value.elts:
            return None
        pairs = []
        for element in value.elts:
            if not (isinstance(element, (ast.List, ast.Tuple)) and len(element.elts) == 2):
                return None
            relative, replacement = element.elts
            if not (isinstance(relative, ast.Constant) and isinstance(relative.value, str)):
                return None
            replacement_name = self.qualify(replacement)
            if replacement_name is None:
                return None
            pairs.append((relative.value, replacement_name))
        return pairs

    def _wrappers_of(self, value: ast.AST, target_name: str) -> List[str]:
        """`[w]` for `w(target)`, `[a, b]` for `_compose_wrappers(a, b)(target)`, else []."""
        if not (isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords):
            return []
        if self.qualify(value.args[0]) != target_name:
            return []
        func = value.func
        if isinstance(func, ast.Name) and func.id in self.functions:
            return [func.id]
        if isinstance(func, ast.Call) and dotted_name(func.func) == "_compose_wrappers":
            names = [dotted_name(arg) for arg in func.args]
            if all(name in self.functions for name in names):
                return names
        return []

    def _device_wrapper_applies(self) -> str:
        """The wrapper `_device_wrapper` applies to each name (checked, not assumed)."""
        helper = self.functions.get("_device_wrapper")
        calls = {dotted_name(n.func) for n in ast.walk(helper) if isinstance(n, ast.Call)} if helper else set()
        wrappers = sorted(name for name in calls if name in self.functions)
        return wrappers[0] if len(wrappers) == 1 else "_device_wrapper"

    def _touches_torch(self, node: ast.AST) -> bool:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and self.imports.get(sub.id, "").split(".")[0] in ("torch", "torch_npu"):
                return True
        return False

    def _unread(self, node: ast.stmt, where: str) -> None:
        text = " ".join(ast.unparse(node).split())
        self.unread.append(f"{where}: {text[:160]}")

    def string_replacements(self) -> Dict[str, Set[str]]:
        """For each wrapper, the `'old' -> 'new'` string rewrites done by it or helpers it calls."""
        result: Dict[str, Set[str]] = {}
        for wrapper in self.wrapped:
            found: Set[str] = set()
            seen: Set[str] = set()
            queue = [wrapper]
            while queue:
                name = queue.pop()
                if name in seen or name not in self.functions:
                    continue
                seen.add(name)
                for sub in ast.walk(self.functions[name]):
                    if not isinstance(sub, ast.Call):
                        continue
                    callee = dotted_name(sub.func)
                    if callee in self.functions:
                        queue.append(callee)
                    if (isinstance(sub.func, ast.Attribute) and sub.func.attr == "replace"
                            and len(sub.args) == 2
                            and all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                    for a in sub.args)):
                        found.add(f"{sub.args[0].value} -> {sub.args[1].value}")
            if found:
                result[wrapper] = found
        return result


def read_transfer_to_npu(source: str) -> Tuple[dict, List[str], List[str]]:
    """(facts, notes, unread statements) of one release's transfer_to_npu.py source."""
    reader = _Reader(ast.parse(source))
    reader.read()
    facts = {
        "lists": {name: sorted(set(values)) for name, values in reader.lists.items()},
        "module_patches": sorted(f"{k} -> {v}" for k, v in reader.module_patches.items()),
        "aliases": sorted(f"{k} -> {v}" for k, v in reader.aliases.items()),
        "wrapped": {name: sorted(targets) for name, targets in reader.wrapped.items()},
        "string_replacements": {name: sorted(pairs)
                                for name, pairs in reader.string_replacements().items()},
    }
    for name, values in reader.lists.items():
        if len(values) != len(set(values)):
            reader.notes.append(f"{name} lists a name twice")
    return facts, reader.notes, reader.unread
