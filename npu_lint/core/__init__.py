"""Values every layer shares: findings and fixes, rules, decoded source text. Imports nothing else of npu_lint."""
