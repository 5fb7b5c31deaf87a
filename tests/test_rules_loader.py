"""Rule data validation: a bad file names the file, the rule and the field."""
from __future__ import annotations

import pytest

from npu_lint.knowledge.loader import RuleDataError, load_rules, parse_rule_file, shipped_rules

GOOD = """
rules:
  - code: NPU901
    name: some-rule
    kind: symbol
    match: {symbols: [torch.foo]}
    severity: warning
    message: "m"
    doc: {what: w, why: y, example: e, use_instead: u, fix_safety: f}
"""


def test_good_rule_parses():
    [rule] = parse_rule_file(GOOD, "good.yaml")
    assert (rule.code, rule.name, rule.pylint_msgid) == ("NPU901", "some-rule", "W5901")


@pytest.mark.parametrize(
    "change, field",
    [
        (("code: NPU901", "code: NPX1"), "code"),
        (("name: some-rule", "name: Some_Rule"), "name"),
        (("kind: symbol", "kind: magic"), "kind"),
        (("severity: warning", "severity: loud"), "severity"),
        (("match: {symbols: [torch.foo]}", "match: {symbols: [torch.foo], colour: red}"), "match.colour"),
        (("match: {symbols: [torch.foo]}", "match: {}"), "match.symbols"),
        (("fix_safety: f}", "fix_safety: ''}"), "doc.fix_safety"),
        (('    message: "m"\n', ""), "message"),
        (("    severity: warning\n", "    severity: warning\n    extra: 1\n"), "extra"),
    ],
)
def test_bad_field_is_named(change, field):
    text = GOOD.replace(*change)
    with pytest.raises(RuleDataError) as info:
        parse_rule_file(text, "bad.yaml")
    message = str(info.value)
    assert message.startswith("bad.yaml: rule ")
    assert f"field '{field}'" in message


def test_invalid_yaml_is_a_clear_error():
    with pytest.raises(RuleDataError, match="bad.yaml: not valid YAML"):
        parse_rule_file("rules: [\n", "bad.yaml")


def test_duplicate_codes_and_names_are_rejected():
    with pytest.raises(RuleDataError, match="'NPU901' is used by rule NPU901 in a.yaml too"):
        load_rules([("a.yaml", GOOD), ("b.yaml", GOOD)])
    other = GOOD.replace("NPU901", "NPU902")
    with pytest.raises(RuleDataError, match="'some-rule' is used by rule NPU901"):
        load_rules([("a.yaml", GOOD), ("b.yaml", other)])


def test_bad_regex_is_named():
    text = GOOD.replace("kind: symbol", "kind: string").replace(
        "match: {symbols: [torch.foo]}", "match: {pattern: '('}")
    with pytest.raises(RuleDataError, match="field 'match.pattern': not a valid regular expression"):
        parse_rule_file(text, "bad.yaml")


def test_shipped_rules_are_valid_and_in_plugin_range():
    rules = shipped_rules()
    assert len({r.code for r in rules}) == len(rules) == len({r.name for r in rules})
    for rule in rules:
        assert 51 <= int(rule.pylint_checker_digits) <= 99
        assert rule.pylint_msgid[1:3] == rule.pylint_checker_digits


def test_argument_kind_needs_a_call_and_names_the_argument():
    text = GOOD.replace("kind: symbol", "kind: argument")
    with pytest.raises(RuleDataError, match="field 'match.symbols': unknown field"):
        parse_rule_file(text, "bad.yaml")
    with pytest.raises(RuleDataError, match="field 'match.calls'"):
        parse_rule_file(text.replace("match: {symbols: [torch.foo]}", "match: {}"), "bad.yaml")
    with pytest.raises(RuleDataError, match="field 'match.argument': 'calls' judges one argument"):
        parse_rule_file(text.replace("match: {symbols: [torch.foo]}", "match: {calls: [torch.foo]}"), "bad.yaml")
    with pytest.raises(RuleDataError, match="field 'match.position': expected int"):
        parse_rule_file(text.replace("match: {symbols: [torch.foo]}",
                                     "match: {calls: [torch.foo], argument: x, position: first}"), "bad.yaml")
    [rule] = parse_rule_file(text.replace("match: {symbols: [torch.foo]}", "match: {any_call: [torch.foo]}"), "ok.yaml")
    assert rule.match == {"any_call": ["torch.foo"]}


def test_an_inserted_argument_and_quieting_keywords_are_checked():
    text = GOOD.replace("kind: symbol", "kind: argument")
    call = "match: {calls: [torch.foo], argument: device, position: %s, missing: true, insert: %s}"
    with pytest.raises(RuleDataError, match="field 'match.insert': only 'device_type'"):
        parse_rule_file(text.replace("match: {symbols: [torch.foo]}",
                                     "match: {calls: [torch.foo], argument: device, insert: device_type}"), "bad.yaml")
    with pytest.raises(RuleDataError, match="field 'match.insert': only 'device_type'"):
        parse_rule_file(text.replace("match: {symbols: [torch.foo]}", call % (0, "backend")), "bad.yaml")
    with pytest.raises(RuleDataError, match="field 'match.quiet_with.enabled'"):
        parse_rule_file(text.replace("match: {symbols: [torch.foo]}",
                                     "match: {calls: [torch.foo], argument: x, quiet_with: {enabled: False}}"), "bad.yaml")
    [rule] = parse_rule_file(text.replace("match: {symbols: [torch.foo]}", call % (0, "device_type")), "ok.yaml")
    assert rule.match["insert"] == "device_type"
    # the argument after the device type, missing where a call is written for the overload without it
    [rule] = parse_rule_file(text.replace("match: {symbols: [torch.foo]}", call % (1, "device_type")), "ok.yaml")
    assert rule.match["position"] == 1
    # a later argument, passed by keyword (fork_rng's device_type)
    [rule] = parse_rule_file(text.replace("match: {symbols: [torch.foo]}", call % (4, "device_type")), "ok.yaml")
    assert rule.match["position"] == 4
    quiet = "match: {calls: [torch.foo], argument: x, quiet_with: {devices: ['[]']}, quiet_positions: {%s: %s}}"
    with pytest.raises(RuleDataError, match="field 'match.quiet_positions.enabled'"):
        parse_rule_file(text.replace("match: {symbols: [torch.foo]}", quiet % ("enabled", 0)), "bad.yaml")
    with pytest.raises(RuleDataError, match="field 'match.quiet_positions.devices'"):
        parse_rule_file(text.replace("match: {symbols: [torch.foo]}", quiet % ("devices", "first")), "bad.yaml")
    [rule] = parse_rule_file(text.replace("match: {symbols: [torch.foo]}", quiet % ("devices", 0)), "ok.yaml")
    assert rule.match["quiet_positions"] == {"devices": 0}


STRING_RULE = GOOD.replace("kind: symbol", "kind: string").replace(
    "match: {symbols: [torch.foo]}", "match: {pattern: '^nccl_custom$', triggers: [nccl_custom]}")


@pytest.mark.parametrize(
    "change, field, problem",
    [
        (('message: "m"', 'message: "`{value}` is not in torch_npu {release}"'), "message",
         "unknown placeholder {release} (a string rule fills in: agnostic, fix_message, not_rewritten, replacement, value)"),
        (('message: "m"', 'message: "{value} {}"'), "message", "a placeholder needs a name"),
        (('message: "m"', 'message: "{value"'), "message", "not a valid template"),
        (('message: "m"', 'message: "m"\n    fix: {applicability: unsafe, message: "use {npu_name}"}'),
         "fix.message", "unknown placeholder {npu_name}"),
    ],
)
def test_a_placeholder_the_kind_does_not_fill_is_rejected_when_loading(change, field, problem):
    # It used to fail at run time, as an internal error on every file the rule matched.
    with pytest.raises(RuleDataError) as info:
        parse_rule_file(STRING_RULE.replace(*change), "bad.yaml")
    assert f"field '{field}'" in str(info.value) and problem in str(info.value)


def test_the_placeholders_a_kind_fills_and_doubled_braces_load():
    text = STRING_RULE.replace('message: "m"', 'message: "`{value}` -> `{replacement}` {{literal}}"')
    [rule] = parse_rule_file(text, "good.yaml")
    assert rule.format_message(value="a", replacement="b") == "`a` -> `b` {literal}"


def test_shown_beside_names_callees():
    text = STRING_RULE.replace("triggers: [nccl_custom]}", "triggers: [nccl_custom], shown_beside: %s}")
    with pytest.raises(RuleDataError, match="field 'match.shown_beside'"):
        parse_rule_file(text % "[3]", "bad.yaml")
    [rule] = parse_rule_file(text % "[onnxruntime.get_device]", "ok.yaml")
    assert rule.match["shown_beside"] == ["onnxruntime.get_device"]
