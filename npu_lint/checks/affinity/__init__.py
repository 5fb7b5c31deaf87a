"""NPU5xx: hand-written layers and optimizers that have a fused Ascend operator (off by default)."""
