"""Which modules of a project start a program, as its packaging metadata names them.

A linter is handed one file at a time (flake8, pylint, the editor), so a module learns whether it
is a console-script target by finding its project root (the nearest folder upward with
pyproject.toml, setup.cfg or setup.py) and reading the scripts declared there:
- pyproject.toml: `[project.scripts]`, `[project.gui-scripts]`, `[tool.poetry.scripts]`;
- setup.cfg: `[options.entry_points]` console_scripts / gui_scripts, `[options] scripts`;
- setup.py: the `entry_points=` and `scripts=` arguments of `setup(...)`, read with `ast` (never run).
The other entry-point groups are kept too (`plugins`): a group named for a library
(`vllm.platform_plugins`) makes the project a plugin that library loads by itself, and so are the
top-level modules it installs beside its packages (`own_modules`: setup.py's `py_modules=`,
setup.cfg's `[options] py_modules`, pyproject's `[tool.setuptools] py-modules`).
Each root is read once per process and again only when one of its files changes (mtime).
It also tells which top-level packages are the project's own (`own_packages`): importing them is
not importing a third-party library.
"""
from __future__ import annotations

import ast
import configparser
import functools
import os
import sys
from npu_lint.core.records import record

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

PACKAGING_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
SCRIPT_GROUPS = ("console_scripts", "gui_scripts")


@record(frozen=True)
class ProjectScripts:
    root: str
    modules: frozenset  # dotted names of the modules console scripts call into
    files: frozenset  # absolute paths of `scripts=` files
    plugins: frozenset = frozenset()  # (group, entry name, target module) of the other entry-point groups
    own_modules: frozenset = frozenset()  # top-level modules it installs beside its packages (py_modules)

    def names(self, path: str) -> bool:
        """Is the file at `path` (absolute) a script target of this project?"""
        if os.path.normcase(path) in self.files:
            return True
        parts = _module_parts(os.path.relpath(path, self.root))
        # A src/ layout or package_dir puts folders in front of the package: match the tail.
        return any(tuple(name.split(".")) == parts[-len(name.split(".")):] for name in self.modules)


def _module_parts(relative: str) -> tuple:
    parts = relative.replace(os.sep, "/").split("/")
    parts[-1] = os.path.splitext(parts[-1])[0]
    if parts[-1] == "__init__":
        parts.pop()
    return tuple(parts)


@functools.lru_cache(maxsize=4096)
def project_root(folder: str) -> str | None:
    """The nearest folder at or above `folder` holding a packaging file, or None."""
    if any(os.path.isfile(os.path.join(folder, name)) for name in PACKAGING_FILES):
        return folder
    parent = os.path.dirname(folder)
    return None if parent == folder else project_root(parent)


_READ: dict[str, tuple[tuple, ProjectScripts]] = {}


def scripts_of(root: str) -> ProjectScripts:
    """The scripts a project root declares (cached until a packaging file changes)."""
    stamp = tuple(_mtime(os.path.join(root, name)) for name in PACKAGING_FILES)
    cached = _READ.get(root)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    modules: set[str] = set()
    files: set[str] = set()
    plugins: set[tuple[str, str, str]] = set()
    own_modules: set[str] = set()
    for name, read in (("pyproject.toml", _from_pyproject), ("setup.cfg", _from_setup_cfg),
                       ("setup.py", _from_setup_py)):
        path = os.path.join(root, name)
        if os.path.isfile(path):
            try:
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                targets, script_files, entries, declared = read(text)
            except (OSError, UnicodeDecodeError, ValueError, SyntaxError, RecursionError,
                    configparser.Error, tomllib.TOMLDecodeError):
                continue  # a broken packaging file names nothing; it is not ours to report
            modules.update(filter(None, map(_target_module, targets)))
            plugins.update((group, spec.partition("=")[0].strip(), _target_module(spec) or "")
                           for group, spec in entries)
            files.update(os.path.normcase(os.path.normpath(os.path.join(root, f))) for f in script_files)
            own_modules.update(name for name in declared if isinstance(name, str) and name.isidentifier())
    result = ProjectScripts(root, frozenset(modules), frozenset(files), frozenset(plugins), frozenset(own_modules))
    _READ[root] = (stamp, result)
    return result


def scripts_for_file(path: str) -> ProjectScripts | None:
    """The scripts of the project holding `path`, or None outside any project or for a path that
    is not a file on disk (a buffer, `<string>`, stdin)."""
    if not os.path.isfile(path):
        return None
    root = project_root(os.path.dirname(os.path.abspath(path)))
    return scripts_of(root) if root is not None else None


def is_script_target(path: str) -> bool:
    scripts = scripts_for_file(path)
    return scripts is not None and scripts.names(os.path.abspath(path))


def _mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def _target_module(spec: str) -> str | None:
    """`name = pkg.mod:func [extra]` or `pkg.mod:func` -> `pkg.mod`."""
    value = spec.partition("=")[2] if "=" in spec else spec
    module = value.split("[")[0].partition(":")[0].strip()
    return module if module and all(part.isidentifier() for part in module.split(".")) else None


# -- the three files ------------------------------------------------------------------------------

def _from_pyproject(text: str) -> tuple[list[str], list[str], list[tuple[str, str]], list[str]]:
    data = tomllib.loads(text)
    project = data.get("project", {})
    poetry = data.get("tool", {}).get("poetry", {})
    targets = []
    for table in (project.get("scripts"), project.get("gui-scripts"), poetry.get("scripts")):
        if isinstance(table, dict):
            for value in table.values():
                if isinstance(value, dict):  # poetry's {reference = "...", type = "console"}
                    value = value.get("reference") or value.get("callable")
                if isinstance(value, str):
                    targets.append(value)
    entries = []
    for groups in (project.get("entry-points"), poetry.get("plugins")):
        if isinstance(groups, dict):
            entries += [(group, f"{name} = {value}") for group, table in groups.items() if isinstance(table, dict)
                        for name, value in table.items() if isinstance(value, str)]
    declared = data.get("tool", {}).get("setuptools", {}).get("py-modules", [])
    return targets, [], entries, declared if isinstance(declared, list) else []


def _from_setup_cfg(text: str) -> tuple[list[str], list[str], list[tuple[str, str]], list[str]]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    targets = []
    entries = []
    if parser.has_section("options.entry_points"):
        for group in SCRIPT_GROUPS:
            targets += _lines(parser.get("options.entry_points", group, fallback=""))
        entries = [(group, line) for group, value in parser.items("options.entry_points")
                   if group not in SCRIPT_GROUPS for line in _entry_lines(value)]
    files = _lines(parser.get("options", "scripts", fallback="")) if parser.has_section("options") else []
    declared = _lines(parser.get("options", "py_modules", fallback="")) if parser.has_section("options") else []
    return targets, files, entries, declared


def _entry_lines(value: str) -> list[str]:
    """The `name = module:attr` lines of an entry-point group (one per line: no commas there)."""
    return [line.strip() for line in value.splitlines() if "=" in line]


def _lines(value: str) -> list[str]:
    return [line.strip() for line in value.replace(",", "\n").splitlines() if line.strip()]


def _from_setup_py(text: str) -> tuple[list[str], list[str], list[tuple[str, str]], list[str]]:
    tree = ast.parse(text)
    assigned = {target.id: node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                for target in node.targets if isinstance(target, ast.Name)}
    targets: list[str] = []
    files: list[str] = []
    entries: list[tuple[str, str]] = []
    declared: list[str] = []
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and _called_name(call.func) == "setup"):
            continue
        for keyword in call.keywords:
            value = _literal(keyword.value, assigned)
            if keyword.arg == "entry_points":
                targets += _entry_point_targets(value)
                entries += _plugin_entries(value)
            elif keyword.arg == "scripts" and isinstance(value, (list, tuple)):
                files += [item for item in value if isinstance(item, str)]
            elif keyword.arg == "py_modules" and isinstance(value, (list, tuple)):
                declared += [item for item in value if isinstance(item, str)]
    return targets, files, entries, declared


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def _literal(node: ast.expr, assigned: dict):
    """A literal argument, or one bound to a name by an assignment elsewhere in setup.py."""
    if isinstance(node, ast.Name) and node.id in assigned:
        node = assigned[node.id]
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None


def _entry_point_targets(value) -> list[str]:
    if isinstance(value, str):  # the ini form: "[console_scripts]\nname = mod:func"
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(value)
        except configparser.Error:
            return []
        return [f"{k} = {v}" for group in SCRIPT_GROUPS if parser.has_section(group)
                for k, v in parser[group].items()]
    if not isinstance(value, dict):
        return []
    targets = []
    for group in SCRIPT_GROUPS:
        entries = value.get(group, [])
        if isinstance(entries, str):
            entries = entries.splitlines()
        if isinstance(entries, (list, tuple)):
            targets += [entry for entry in entries if isinstance(entry, str) and entry.strip()]
    return targets


def _plugin_entries(value) -> list[tuple[str, str]]:
    """(group, "name = module:attr") of the entry-point groups other than the scripts'."""
    if isinstance(value, str):
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(value)
        except configparser.Error:
            return []
        return [(group, f"{k} = {v}") for group in parser.sections() if group not in SCRIPT_GROUPS
                for k, v in parser[group].items()]
    if not isinstance(value, dict):
        return []
    entries = []
    for group, items in value.items():
        if not isinstance(group, str) or group in SCRIPT_GROUPS:
            continue
        if isinstance(items, str):
            items = items.splitlines()
        if isinstance(items, (list, tuple)):
            entries += [(group, item) for item in items if isinstance(item, str) and "=" in item]
    return entries


def plugins_for_file(path: str) -> frozenset:
    """(group, entry name, target module) of the entry points the project holding `path` declares
    outside its scripts (`("vllm.platform_plugins", "ascend", "vllm_ascend")`)."""
    scripts = scripts_for_file(path)
    return scripts.plugins if scripts is not None else frozenset()


# -- the project's own packages ----------------------------------------------------------------------

def own_modules_of(root: str) -> frozenset:
    """The top-level modules the project at `root` installs beside its packages (py_modules)."""
    return scripts_of(root).own_modules


def own_modules_for_file(path: str) -> frozenset:
    """The top-level modules the project holding `path` installs beside its packages."""
    scripts = scripts_for_file(path)
    return scripts.own_modules if scripts is not None else frozenset()

def own_packages(path: str) -> frozenset:
    """Top-level package names that belong to the project holding `path`: the package the file is
    in, the packages at its project root (or under `src/`), and the top-level modules its packaging
    metadata installs (`py_modules=["flash_attn_interface"]`, FlashAttention-3's hopper/setup.py).
    The file need not exist (a buffer)."""
    if not path or os.path.basename(path).startswith("<") or not os.path.isdir(os.path.dirname(path) or "."):
        return frozenset()
    folder = os.path.dirname(os.path.abspath(path))
    root = project_root(folder)
    names = set(_root_packages(root)) | own_modules_of(root) if root else set()
    names.update(_chain_tops(folder))
    return frozenset(names)


@functools.lru_cache(maxsize=4096)
def _chain_tops(folder: str) -> tuple:
    """The top of each package chain above `folder`: SGLang's `sglang/srt/` has no __init__.py (a
    namespace package inside the regular package `sglang`), so `sglang/srt/arg_groups/` tops one
    chain and `sglang/` the next, and both are the project's."""
    tops = []
    current = folder
    while True:
        top = _top_package(current)
        if top:
            tops.append(top)
            current = os.path.dirname(current)
            while os.path.isfile(os.path.join(current, "__init__.py")):
                current = os.path.dirname(current)
        parent = os.path.dirname(current)
        if parent == current:
            return tuple(tops)
        current = parent


@functools.lru_cache(maxsize=4096)
def _top_package(folder: str) -> str | None:
    """The outermost folder of the package chain (folders with __init__.py) holding `folder`."""
    if not os.path.isfile(os.path.join(folder, "__init__.py")):
        return None
    parent = os.path.dirname(folder)
    return (_top_package(parent) if parent != folder else None) or os.path.basename(folder)


@functools.lru_cache(maxsize=256)
def _root_packages(root: str) -> tuple:
    found = []
    for base in (root, os.path.join(root, "src")):
        try:
            entries = os.listdir(base)
        except OSError:
            continue
        found += [name for name in entries if name.isidentifier()
                  and os.path.isfile(os.path.join(base, name, "__init__.py"))]
    return tuple(sorted(found))
