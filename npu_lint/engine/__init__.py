"""The one engine: source text -> findings, with `# noqa` applied. Every front end calls it."""
