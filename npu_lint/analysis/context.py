"""Per-module state the checks share: positions, reporting, cached lookups."""
from __future__ import annotations

import re

from astroid import nodes

from npu_lint.analysis.accelerator_modules import (imports_vendor_plugin, in_function_for_mlx, may_name_mlx,
                                                   written_for_other_accelerator)
from npu_lint.analysis.amd_modules import written_for_amd
from npu_lint.analysis.legacy_fallbacks import may_test_torch_names, reached_only_by_older_torch
from npu_lint.analysis.library_objects import may_test_library_types, only_for_library_objects
from npu_lint.analysis.npu_branches import may_name_npu, off_npu_path
from npu_lint.analysis.unread_values import never_read
from npu_lint.analysis.unreachable import after_jump
from npu_lint.analysis.npu_siblings import (called_only_by_npu_siblings, in_class_with_npu_sibling,
                                            in_function_with_npu_twin, in_package_with_npu_sibling,
                                            read_only_by_npu_siblings)
from npu_lint.analysis.torch_npu_import import (
    first_line, imports_torch_npu, imports_torch_npu_in, indentation, insertion_before_edit, insertion_edit,
    leading_imports_end, local_torch_import, module_top_line, torch_npu_placement,
)
from npu_lint.analysis.type_checking import may_check_types, only_for_type_checkers
from npu_lint.config.settings import Settings
from npu_lint.core.findings import Applicability, Confidence, Edit, Finding, Fix, Position, Related, Severity
from npu_lint.core.rule import Rule
from npu_lint.core.source import LineIndex

_SEVERITY_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


class ModuleContext:
    def __init__(self, module: nodes.Module, text: str, settings: Settings, catalog: tuple[Rule, ...] = (),
                 walked: list[nodes.NodeNG] | None = None):
        self.module = module
        self._walked = walked  # every node of the module in source order, when the engine has them
        self._by_type: dict[type, list[nodes.NodeNG]] | None = None
        self._by_types: dict[tuple[type, ...], list[nodes.NodeNG]] = {}
        self.catalog = catalog  # every rule the engine knows (shipped and extend-rules), enabled or not
        self.text = text
        self.index = LineIndex(text)
        self.settings = settings
        self.findings: list[Finding] = []
        self.scratch: dict = {}  # per-module state of checks, keyed by check
        self._may_name_npu: bool | None = None
        self._may_test_torch_names: bool | None = None
        self._may_check_types: bool | None = None
        self._may_test_library_types: bool | None = None
        self._written_for_other_gpu: bool | None = None
        self._may_name_mlx: bool | None = None
        self._in_cuda_package_with_npu_sibling: bool | None = None

    def nodes_of(self, types: type | tuple[type, ...]) -> list[nodes.NodeNG]:
        """The module's nodes of these types (or their subclasses) in source order, as
        `module.nodes_of_class(types)` gives them: sorted by type once per module, so that each
        question costs a lookup instead of a walk of the whole tree. The list is shared: read it only."""
        if self._walked is None:
            self._walked = list(self.module.nodes_of_class(nodes.NodeNG))
        if self._by_type is None:
            self._by_type = {}
            for node in self._walked:
                self._by_type.setdefault(type(node), []).append(node)
        kinds = [kind for kind in self._by_type if issubclass(kind, types)]
        if len(kinds) <= 1:
            return self._by_type[kinds[0]] if kinds else []
        if types not in self._by_types:  # several kinds: one pass keeps the source order between them
            self._by_types[types] = [node for node in self._walked if isinstance(node, types)]
        return self._by_types[types]

    def torch_npu_import_edits(self, node: nodes.NodeNG | None = None, bind: bool = False) -> tuple[Edit, ...]:
        """The edit that adds `import torch_npu` for a fix at `node`, or none.

        Where the module imports torch at its top, the import goes there (`device_import_edits`).
        A module that imports torch only inside functions or `if` blocks (transformers'
        `if is_torch_available(): import torch`) gets it after the torch import that serves
        `node`, so the module still loads without torch. Where no torch import serves `node`
        (deepspeed's comm/constants.py: `NCCL_BACKEND = 'nccl'`), none: the code only hands a
        name or an object to modules that import torch, and torch_npu belongs with their torch
        (NPU120 asks the program's entry modules for it). A fix that writes the name `torch_npu`
        itself (`bind`, or no `node`) needs it bound: failing the above, at the module's top.
        """
        if "torch_npu_import" not in self.scratch:
            self.scratch["torch_npu_import"] = self._module_torch_npu_import()
        module_edits = self.scratch["torch_npu_import"]
        if module_edits is not None:
            return module_edits
        stmt = local_torch_import(node) if node is not None else None
        if stmt is not None:
            return () if imports_torch_npu_in(stmt.scope()) else (self.insert_after(stmt),)
        if node is not None and not bind:
            return ()
        if "torch_npu_import_at_top" not in self.scratch:
            self.scratch["torch_npu_import_at_top"] = self._top_insertion()
        return self.scratch["torch_npu_import_at_top"]

    def _module_torch_npu_import(self) -> tuple[Edit, ...] | None:
        """The module-wide answer, or None when it depends on where the fixed line is (the
        module imports torch only inside functions or blocks, and not torch_npu at its top)."""
        placed = self.device_import_edits("import torch_npu")  # none without a top torch import
        if placed:
            return () if imports_torch_npu(self.module) else placed
        return () if imports_torch_npu_in(self.module) else None

    def _top_insertion(self) -> tuple[Edit, ...]:
        """With the imports the module opens with, else below its header comments and docstring."""
        last_import = leading_imports_end(self.module)
        if last_import is not None:
            return (self.insert_after(last_import),)
        line_number = module_top_line(self.module, self.index.line)
        line = self.index.line(line_number)
        if not line:  # nothing below the docstring: `"""Doc."""; x = "cuda"` on one line
            return (self.insert_after(self.module.body[-1]),) if self.module.body else ()
        position = Position(line_number, 0)
        return (Edit(position, position, "import torch_npu" + _newline(line)),)

    def device_import_edits(self, statement: str) -> tuple[Edit, ...]:
        """An edit adding `statement` where `import torch_npu` belongs: after `import torch`,
        before anything that reaches CUDA or the NPU on import (none without torch imports)."""
        placement = torch_npu_placement(self.module)
        if placement is None:
            return ()
        if not placement.before:
            return (self.insert_after(placement.stmt, statement),)
        line_number = first_line(placement.stmt)
        line = self.index.line(line_number)
        return (insertion_before_edit(line_number, line, _newline(line), statement),)

    def insert_after(self, stmt: nodes.NodeNG, statement: str = "import torch_npu") -> Edit:
        """An edit adding `statement` on its own line after stmt, in the file's line ending."""
        first = self.index.line(stmt.lineno)
        if first[:self.start(stmt).column].strip():
            # `if ok: import torch` or `import os; import torch`: a new line would leave the block
            return Edit(self.end(stmt), self.end(stmt), f"; {statement}")
        line = self.index.line(stmt.end_lineno or stmt.lineno)
        return insertion_edit(stmt, line, _newline(line), statement, indentation(first))

    def _agnostic_fix(self, rule: Rule, edits: tuple[Edit, ...], applicability, fields: dict) -> Fix:
        if not edits or rule.agnostic is None:
            return Fix(Applicability.DISPLAY_ONLY,
                       f"No device-neutral form; for the NPU only: {rule.format_fix_message(**fields)}")
        level = rule.fix.applicability
        if applicability is not None:
            level = Applicability.least_safe(level, applicability)
        return Fix(level, rule.format_agnostic_message(**fields), tuple(edits))

    # -- positions -------------------------------------------------------
    def start(self, node: nodes.NodeNG) -> Position:
        return Position(node.lineno, self.index.char_column(node.lineno, node.col_offset))

    def end(self, node: nodes.NodeNG) -> Position:
        line = node.end_lineno or node.lineno
        column = node.end_col_offset if node.end_col_offset is not None else node.col_offset
        return Position(line, self.index.char_column(line, column))

    def related(self, node: nodes.NodeNG, message: str) -> Related:
        """A place in this module that belongs to a finding reported elsewhere in it."""
        return Related(self.start(node), self.end(node), message)

    def node_text(self, node: nodes.NodeNG) -> str:
        start, end = self.start(node), self.end(node)
        return self.index.segment((start.line, start.column), (end.line, end.column))

    # -- reporting -------------------------------------------------------
    def report(
        self,
        rule: Rule,
        node: nodes.NodeNG,
        confidence: Confidence = Confidence.HIGH,
        edits: tuple[Edit, ...] = (),
        start: Position | None = None,
        end: Position | None = None,
        applicability: Applicability | None = None,
        related: tuple[Related, ...] = (),
        severity: Severity | None = None,
        agnostic_edits: tuple[Edit, ...] = (),
        **fields: str,
    ) -> None:
        """Record a finding; `applicability` and `severity` may only lower the rule's own.

        On the agnostic route a rule fixes with `agnostic_edits` (code that runs on CUDA and the NPU
        alike); without them its NPU fix (a torch.npu name, ASCEND_RT_VISIBLE_DEVICES, ...) is shown,
        never applied, since it would break the CUDA path."""
        if self._written_for_other_gpu is None:
            path = self.module.file or ""
            self._written_for_other_gpu = written_for_amd(path) or written_for_other_accelerator(path) \
                or imports_vendor_plugin(self.module)
        if self._written_for_other_gpu:
            return  # the project's code for AMD's GPUs (torch.cuda is ROCm's) or another vendor's chip
        if self.settings.strategy != "auto":
            if self._in_cuda_package_with_npu_sibling is None:
                self._in_cuda_package_with_npu_sibling = in_package_with_npu_sibling(self.module.file or "")
            if self._in_cuda_package_with_npu_sibling:
                return  # the CUDA member of a family of device packages: the NPU imports its own
        if self._may_name_npu is None:
            self._may_name_npu = may_name_npu(self.text)
        if node is not self.module and self._may_name_npu and off_npu_path(node, self):
            return  # a branch an NPU machine never takes: the project handles the NPU already
        if self._may_name_mlx is None:
            self._may_name_mlx = may_name_mlx(self.text)
        if node is not self.module and self._may_name_mlx and in_function_for_mlx(node):
            return  # a function that takes or makes Apple's MLX arrays: no Ascend host runs it
        if node is not self.module and never_read(node):
            return  # a local default that every later path replaces before reading: renaming it changes nothing
        if node is not self.module and after_jump(node):
            return  # after a raise or return of its block: no device runs it
        if self._may_test_torch_names is None:
            self._may_test_torch_names = may_test_torch_names(self.text)
        if node is not self.module and self._may_test_torch_names \
                and reached_only_by_older_torch(node, self.settings.release):
            return  # the fallback of `if hasattr(torch, "accelerator")`: the target's torch has the name
        if self._may_check_types is None:
            self._may_check_types = may_check_types(self.text)
        if node is not self.module and self._may_check_types and only_for_type_checkers(node):
            return  # `if TYPE_CHECKING:` never runs: a type checker reads it, no device does
        if self._may_test_library_types is None:
            self._may_test_library_types = may_test_library_types(self.text)
        if node is not self.module and self._may_test_library_types and only_for_library_objects(node):
            return  # `if isinstance(x, cupy.ndarray):` lets in CuPy arrays only, which no NPU program has
        if node is not self.module and self.settings.strategy != "auto" and (
                in_class_with_npu_sibling(node) or in_function_with_npu_twin(node)
                or read_only_by_npu_siblings(node, lambda: self.nodes_of(nodes.Name))
                or called_only_by_npu_siblings(node, lambda: self.nodes_of(nodes.Name))):
            # The NPU runs its own class or function. Not on the transfer_to_npu route: there
            # torch.cuda.is_available() says True on the NPU, and a project that probes CUDA
            # first (ColossalAI's accelerator order) picks the CUDA class. A module constant that
            # only such a class reads, or a module function that only it calls, is the class's own.
            return
        fix = None
        fields = {key: _one_line(value) for key, value in fields.items()}
        message = rule.format_message(**fields)
        if self.settings.strategy == "agnostic" and agnostic_edits:
            message = rule.format_agnostic_finding(**fields)  # say what the route writes, not torch.npu
        if rule.fix is not None and self.settings.strategy == "agnostic":
            fix = self._agnostic_fix(rule, agnostic_edits, applicability, fields)
        elif rule.fix is not None:
            level = rule.fix.applicability
            if not edits:
                level = Applicability.DISPLAY_ONLY
            elif applicability is not None:
                level = Applicability.least_safe(level, applicability)
            if rule.device_use and edits:
                # The fix writes an NPU name: a fix applied alone (an editor's quick
                # fix) must bring `import torch_npu` along; identical edits apply once.
                edits = tuple(edits) + self.torch_npu_import_edits(node)
            fix = Fix(level, rule.format_fix_message(**fields), tuple(edits))
        self.findings.append(
            Finding(
                code=rule.code,
                name=rule.name,
                message=message,
                start=start or self.start(node),
                end=end or self.end(node),
                severity=_lower(rule.severity, severity),
                confidence=confidence,
                fix=fix,
                related=tuple(related),
            )
        )


# Source text quoted in a message longer than this is cut (only text that spanned lines).
_QUOTE_LIMIT = 60


def _one_line(value):
    """Source text a message quotes, on one line: a finding's message is one line in every report
    format (concise, flake8, pylint, GitHub annotations), and an expression written over eight
    lines (`(torch.cumsum(...) > 0).to(torch.double)`) would break it."""
    if not isinstance(value, str) or "\n" not in value:
        return value
    return quoted_source(value)


def quoted_source(text: str) -> str:
    """An expression's source text as a message quotes it: on one line, a method chain written one
    call a line (`torch.tensor([1.0, -1.0])` then `.double()`) joined as it reads, and a long one
    shortened in the middle."""
    text = "\n".join(line.strip() for line in text.splitlines() if line.strip())
    # no space inside brackets opened or closed at a line break, nor a trailing comma there, nor
    # before a chained `.method` that starts its line
    text = re.sub(r",?\n([)\]}])", r"\1", re.sub(r"([(\[{])\n", r"\1", text))
    text = text.replace("\n.", ".").replace("\n", " ")
    if len(text) <= _QUOTE_LIMIT:
        return text
    # keep both ends: the end holds what the message is about (`.double()`, `[mask]`)
    half = (_QUOTE_LIMIT - 3) // 2
    return text[:half].rstrip() + "..." + text[-half:].lstrip()


def _newline(line: str) -> str:
    return "\r\n" if line.endswith("\r\n") else "\n"


def _lower(own: Severity, wanted: Severity | None) -> Severity:
    return wanted if wanted is not None and _SEVERITY_RANK[wanted] > _SEVERITY_RANK[own] else own
