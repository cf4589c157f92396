"""Modal screens that several screens and panes open: confirm, raw JSON, pickers, prompts."""
