"""The built-in rulesets. Each is a package that can be read top to bottom; each is found by its
``firefight.rulesets`` entry point (pyproject.toml), as a plugin's ruleset is, and imported on
its first request (``firefight.registry``)."""
