"""Helpers the checks share: per-module context, name resolution, receivers, edits, the prefilter."""
