"""Generators that turn public wheels into the committed rule data in rules/."""
