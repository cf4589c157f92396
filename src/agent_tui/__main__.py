"""`python -m agent_tui`."""

from agent_tui.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
