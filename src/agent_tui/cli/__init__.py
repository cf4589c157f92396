"""The `agent-tui` command line: `main.py` parses the flags and opens the TUI; each other
module is a headless subcommand (no Textual), loaded only when it runs."""
