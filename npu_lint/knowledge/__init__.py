"""What npu-lint knows: rule records (rules/), data tables and generated facts (data/), the torch model.

Everything is read through knowledge.location and validated by knowledge.loader; a broken file is a
RuleDataError naming the file, the rule and the field.
"""
