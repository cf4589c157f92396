"""The chat pane's headless half: transcript items, the event → transcript model and the
run driver (start, stream, rejoin after a dropped connection, cancel). No Textual."""
