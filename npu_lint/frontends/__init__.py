"""Front ends that only translate the engine's findings: CLI, pylint, flake8, the editor server, reports."""
