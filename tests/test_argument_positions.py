"""data/argument_positions.yaml: where NPU304 finds an allowlisted argument passed positionally."""
import pytest

from npu_lint.knowledge import operator_data
from npu_lint.knowledge.argument_positions import argument_positions, parse
from npu_lint.knowledge.loader import RuleDataError


def test_every_position_names_an_argument_some_allowlist_checks():
    """A row that no allowlist reads is dead weight or a misspelt name."""
    checked = {}
    for name, facts in operator_data.operators().ascend.items():
        for chip in operator_data.CHIPS:
            checked.setdefault(name, set()).update(facts.arguments(chip))
    for api, arguments in argument_positions().items():
        assert api in checked, api
        assert set(arguments) & checked[api], (api, sorted(checked[api]))


@pytest.mark.parametrize("text, field", [
    ("positions: [a]", "positions"),
    ("positions: {torch.distributed.all_reduce: {tensor: -1}}", "positions.torch.distributed.all_reduce"),
    ("positions: {torch.distributed.all_reduce: {tensor: true}}", "positions.torch.distributed.all_reduce"),
    ("positions: {torch.polar: {abs: 0, angle: 0}}", "positions.torch.polar"),
])
def test_malformed_rows_name_their_field(text, field):
    with pytest.raises(RuleDataError, match=f"field '{field}'"):
        parse(text)
