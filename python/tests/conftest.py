# The plugin's tests drive pytest itself, in a subprocess each (pytester),
# against the installed mcpcheck-cli wheel (scripts/check-install).
pytest_plugins = ["pytester"]
