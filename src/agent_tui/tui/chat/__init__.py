"""Composite widgets that own a piece of work and may open modals: the chat pane."""
