"""The traceback printed on the terminal when an error nobody handled ends the app.

Textual prints its own with every frame's local variables (`show_locals=True` in
`App._fatal_error`): a key held in a local would be printed on a terminal that may be
shared, recorded or pasted into a bug report. This one shows no locals, and each
exception's words are redacted like the log (the keys in use, `settings.logs`) and
cleaned like all other output (an error can quote a server's escape sequences).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.settings.logs import known_secrets
from agent_tui.text.sanitize import clean_text, redact_secrets

if TYPE_CHECKING:
    from rich.traceback import Traceback


def crash_traceback(error: BaseException) -> Traceback:
    # Imported here, not at start-up: rich.traceback brings pygments and attrs (~30 ms
    # before the first paint) for an app that usually never crashes.
    import rich
    from rich.traceback import Traceback

    trace = Traceback.extract(type(error), error, error.__traceback__, show_locals=False)
    secrets = known_secrets()

    def safe(text: str) -> str:
        return clean_text(redact_secrets(text, secrets))

    for stack in trace.stacks:
        stack.exc_value = safe(stack.exc_value)
        stack.notes = [safe(note) for note in stack.notes]
    return Traceback(trace, width=None, show_locals=False, suppress=[rich])
